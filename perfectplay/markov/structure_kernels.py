"""Compiled graph-structure passes (numba, cached): strong components, distances to the
goal, the solver's visiting order. Each works on plain CSR arrays (row pointers and
column indices) and needs memory proportional to the states and edges, with no scipy
matrices or int64 copies of the edge list."""

from __future__ import annotations

import numpy as np
from numba import njit


#: What ``next_component`` returns when no component is left, and when the search would
#: need more room on its stacks than it was given.
DONE, DEEP = -1, -2
#: The bit of a walk's ``flags`` set while a state is on Tarjan's stack; the caller may
#: use the other bits.
ON_STACK = np.uint8(1)
#: The walk's scalars in its ``state`` array: states numbered so far, stack height, call
#: depth, next root to try, first stack position of the component last returned.
_COUNTER, TOP, _DEPTH, _ROOT, _LAST = range(5)


@njit(cache=True)
def new_walk(n, room):
    """A depth-first search of n states not yet begun, with room for `room` states on its
    stacks: (index, low, flags, stack, call_node, call_edge, state), handed as they are
    to ``next_component``."""
    index = np.full(n, -1, dtype=np.int32)
    low = np.empty(n, dtype=np.int32)
    flags = np.zeros(n, dtype=np.uint8)
    stack = np.empty(room, dtype=np.int32)
    call_node = np.empty(room, dtype=np.int32)
    call_edge = np.empty(room, dtype=np.int64)
    return index, low, flags, stack, call_node, call_edge, np.zeros(5, dtype=np.int64)


@njit(cache=True)
def next_component(out_ptr, choice_ptr, target, index, low, flags, stack, call_node, call_edge,
                   state):
    """Tarjan's algorithm without recursion, one strong component per call: the one
    algorithm of strong components in the package (``strong_components`` labels them,
    ``by_components`` solves each as it completes).

    State v's successors are ``target[choice_ptr[out_ptr[v]]:choice_ptr[out_ptr[v + 1]]]``
    (the Graph's own arrays; a plain CSR graph passes an identity ``out_ptr`` and its row
    pointers as ``choice_ptr``). Returns k: the component just completed is
    ``stack[k:state[TOP]]``. Components complete successors first, so every edge out of
    this one leads into a component returned earlier. It stays on the stack, its states
    flagged ON_STACK (an edge's target is in it exactly when flagged), until the next
    call; the ``low`` entries of its states are no longer read, and the caller may use
    them as scratch. Returns DONE when every state has been returned, DEEP when the
    search needs more than ``stack.shape[0]`` states on its stacks (the walk is then
    abandoned)."""
    n = out_ptr.shape[0] - 1
    room = stack.shape[0]
    counter, depth, root = state[_COUNTER], state[_DEPTH], state[_ROOT]
    top = state[_LAST]
    for i in range(top, state[TOP]):  # pop the component returned last
        flags[stack[i]] &= ~ON_STACK
    while True:
        if depth == 0:  # the stack is empty: start from the next state not yet visited
            while root < n and index[root] != -1:
                root += 1
            if root == n:
                state[_COUNTER], state[TOP], state[_DEPTH], state[_ROOT] = counter, top, 0, root
                state[_LAST] = top
                return DONE
            index[root] = low[root] = counter
            counter += 1
            stack[top] = root
            top += 1
            flags[root] |= ON_STACK
            call_node[0], call_edge[0], depth = root, choice_ptr[out_ptr[root]], 1
        v = call_node[depth - 1]
        e = call_edge[depth - 1]
        if e < choice_ptr[out_ptr[v + 1]]:
            call_edge[depth - 1] = e + 1
            w = target[e]
            if index[w] == -1:
                index[w] = low[w] = counter
                counter += 1
                if top == room:  # the call stack is never deeper than the stack
                    return DEEP
                stack[top] = w
                top += 1
                flags[w] |= ON_STACK
                call_node[depth], call_edge[depth] = w, choice_ptr[out_ptr[w]]
                depth += 1
            elif flags[w] & ON_STACK and index[w] < low[v]:
                low[v] = index[w]
            continue
        depth -= 1
        if low[v] == index[v]:
            k = top - 1
            while stack[k] != v:
                k -= 1
            state[_COUNTER], state[TOP], state[_DEPTH], state[_ROOT] = counter, top, depth, root
            state[_LAST] = k
            return k
        u = call_node[depth - 1]  # v is not a root, so it has a caller
        if low[v] < low[u]:
            low[u] = low[v]


@njit(cache=True)
def strong_components(out_ptr, choice_ptr, target):
    """Strong components (``next_component``; the successors of state v are
    ``target[choice_ptr[out_ptr[v]]:choice_ptr[out_ptr[v + 1]]]``). Returns (label per
    state, number of components, ok): components are numbered as they complete, so every
    edge leads to a component numbered no higher (successors first); ok checks that."""
    n = out_ptr.shape[0] - 1
    index, low, flags, stack, call_node, call_edge, state = new_walk(n, n)
    labels = np.empty(n, dtype=np.int32)
    comp = 0
    while True:
        k = next_component(out_ptr, choice_ptr, target, index, low, flags, stack, call_node,
                           call_edge, state)
        if k == DONE:
            break
        for i in range(k, state[TOP]):
            labels[stack[i]] = comp
        comp += 1
    ok = True
    for s in range(n):
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if labels[target[e]] > labels[s]:
                ok = False
    return labels, comp, ok


@njit(cache=True)
def edge_rows(out_ptr, choice_ptr):
    """Row pointers of the state -> next state graph (a state's choices are contiguous)."""
    n = out_ptr.shape[0] - 1
    rows = np.empty(n + 1, dtype=np.int64)
    for s in range(n + 1):
        rows[s] = choice_ptr[out_ptr[s]]
    return rows


@njit(cache=True)
def free_edges(out_ptr, choice_ptr, target, cost):
    """The subgraph of zero-cost choices, as (row pointers, columns, has a self-loop)."""
    n = out_ptr.shape[0] - 1
    rows = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        m = 0
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if cost[e] == 0:
                m += 1
        rows[s + 1] = rows[s] + m
    cols = np.empty(rows[n], dtype=np.int32)
    i = 0
    loop = False
    for s in range(n):
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if cost[e] == 0:
                cols[i] = target[e]
                loop |= target[e] == s
                i += 1
    return rows, cols, loop


@njit(cache=True)
def distance_to_goal(row_ptr, col, terminal):
    """Fewest edges from each state to a terminal state (n + 1 where none): a breadth-first
    search from the terminal states over the reversed edges (built here, then dropped)."""
    n = row_ptr.shape[0] - 1
    rev_ptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(row_ptr[n]):
        rev_ptr[col[e] + 1] += 1
    for s in range(n):
        rev_ptr[s + 1] += rev_ptr[s]
    fill = rev_ptr[:-1].copy()
    rev = np.empty(row_ptr[n], dtype=np.int32)
    for s in range(n):
        for e in range(row_ptr[s], row_ptr[s + 1]):
            t = col[e]
            rev[fill[t]] = s
            fill[t] += 1
    dist = np.full(n, n + 1, dtype=np.int32)
    queue = fill  # reused: n slots
    head, tail = 0, 0
    for s in range(n):
        if terminal[s]:
            dist[s] = 0
            queue[tail] = s
            tail += 1
    while head < tail:
        t = queue[head]
        head += 1
        for i in range(rev_ptr[t], rev_ptr[t + 1]):
            s = rev[i]
            if dist[s] == n + 1:
                dist[s] = dist[t] + 1
                queue[tail] = s
                tail += 1
    return dist


@njit(cache=True)
def order_by(labels, n_labels, dist, n_dist):
    """States sorted by (label, dist), stably: two counting sorts."""
    n = labels.shape[0]
    by_dist = np.empty(n, dtype=np.int64)
    count = np.zeros(max(n_dist, n_labels) + 1, dtype=np.int64)
    for s in range(n):
        count[dist[s] + 1] += 1
    for d in range(n_dist):
        count[d + 1] += count[d]
    for s in range(n):
        by_dist[count[dist[s]]] = s
        count[dist[s]] += 1
    count[:] = 0
    for s in range(n):
        count[labels[s] + 1] += 1
    for c in range(n_labels):
        count[c + 1] += count[c]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        s = by_dist[i]
        order[count[labels[s]]] = s
        count[labels[s]] += 1
    return order
