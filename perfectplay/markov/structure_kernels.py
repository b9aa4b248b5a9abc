"""Compiled graph-structure passes (numba, cached): strong components, distances to the
goal, the solver's visiting order. Each works on plain CSR arrays (row pointers and
column indices) and needs memory proportional to the states and edges, with no scipy
matrices or int64 copies of the edge list."""

from __future__ import annotations

import numpy as np
from numba import njit


#: What ``tarjan`` returns when the search needs more room on its stacks than it was given,
#: and when a component is seen to exceed its `max_block` states before it completes.
DEEP = -1
LARGE = -2


@njit(cache=True)
def tarjan(out_ptr, choice_ptr, target, room, max_block, order, starts, low):
    """Tarjan's algorithm without recursion: the one algorithm of strong components in the
    package (``strong_components`` labels them, ``by_components`` solves them in the
    order found). State v's successors are
    ``target[choice_ptr[out_ptr[v]]:choice_ptr[out_ptr[v + 1]]]`` (the Graph's own arrays;
    a plain CSR graph passes an identity ``out_ptr`` and its row pointers as
    ``choice_ptr``); the stacks hold at most `room` states.

    Components complete successors first, so every edge out of one leads into a component
    completed before it. They are written in that order: component c is
    ``order[starts[c]:starts[c + 1]]`` (`order`: n ints, `starts`: n + 1, both the
    caller's; `low`: n int32 of the caller's, scratch, undefined afterwards). Returns
    (status, components): status 0 when every state is visited, DEEP when `room` was too
    small, LARGE as soon as an edge shows a component of more than `max_block` states:
    an edge from v back to w on the stack puts every state from w to the top of the stack
    in w's component, and the stack holds states in increasing ``index``, so comparing
    w's index with that of the state `max_block` below the top decides it (dice-cards
    n=10, one component of all its states: found after a few thousand states, not after
    the whole walk).

    Why the components are written down rather than handed to a visitor as they
    complete: a visitor reading its arrays from a context tuple paid numba's reference
    counting on every array at every call, most of the time of solving millions of
    components by that route (docs/measurements.md).
    """
    n = out_ptr.shape[0] - 1
    index = np.full(n, -1, dtype=np.int32)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(room, dtype=np.int32)
    call_node = np.empty(room, dtype=np.int32)
    call_edge = np.empty(room, dtype=np.int64)
    counter, top, done, count = 0, 0, 0, 0
    starts[0] = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        call_node[0], call_edge[0], depth = root, choice_ptr[out_ptr[root]], 1
        while depth > 0:
            v = call_node[depth - 1]
            e = call_edge[depth - 1]
            if e < choice_ptr[out_ptr[v + 1]]:
                call_edge[depth - 1] = e + 1
                w = target[e]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    if top == room:  # the call stack is never deeper than the stack
                        return DEEP, count
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    call_node[depth], call_edge[depth] = w, choice_ptr[out_ptr[w]]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                    if (
                        counter - index[w] > max_block
                        and top > max_block  # (no read first)
                        and index[w] <= index[stack[top - max_block - 1]]
                    ):
                        return LARGE, count
                continue
            depth -= 1
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    order[done] = w
                    done += 1
                    if w == v:
                        break
                count += 1
                starts[count] = done
            elif depth > 0:
                u = call_node[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return 0, count


@njit(cache=True)
def strong_components(out_ptr, choice_ptr, target):
    """Strong components (``tarjan``; the successors of state v are
    ``target[choice_ptr[out_ptr[v]]:choice_ptr[out_ptr[v + 1]]]``). Returns (label per
    state, number of components, ok): components are numbered as they complete, so every
    edge leads to a component numbered no higher (successors first); ok checks that."""
    n = out_ptr.shape[0] - 1
    order = np.empty(n, dtype=np.int32)
    starts = np.empty(n + 1, dtype=np.int32)
    labels = np.empty(n, dtype=np.int32)  # first tarjan's scratch, then the labels
    _, count = tarjan(out_ptr, choice_ptr, target, n, n, order, starts, labels)
    for c in range(count):
        for i in range(starts[c], starts[c + 1]):
            labels[order[i]] = c
    ok = True
    for s in range(n):
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if labels[target[e]] > labels[s]:
                ok = False
    return labels, count, ok


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
