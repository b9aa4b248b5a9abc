"""Compiled graph-structure passes (numba, cached): strong components, distances to the
goal, the solver's visiting order. Each works on plain CSR arrays (row pointers and
column indices) and needs memory proportional to the states and edges, with no scipy
matrices or int64 copies of the edge list."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def strong_components(row_ptr, col):
    """Tarjan's algorithm without recursion. Returns (label per state, number of
    components, ok): components are numbered as they complete, so every edge leads to a
    component numbered no higher (successors first); ok checks that property."""
    n = row_ptr.shape[0] - 1
    index = np.full(n, -1, dtype=np.int32)
    low = np.empty(n, dtype=np.int32)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int32)
    call_node = np.empty(n, dtype=np.int32)
    call_edge = np.empty(n, dtype=np.int64)
    labels = np.empty(n, dtype=np.int32)
    counter, top, comp = 0, 0, 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        call_node[0], call_edge[0], depth = root, row_ptr[root], 1
        while depth > 0:
            v = call_node[depth - 1]
            e = call_edge[depth - 1]
            if e < row_ptr[v + 1]:
                call_edge[depth - 1] = e + 1
                w = col[e]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    call_node[depth], call_edge[depth] = w, row_ptr[w]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if low[v] == index[v]:
                while True:
                    top -= 1
                    x = stack[top]
                    on_stack[x] = False
                    labels[x] = comp
                    if x == v:
                        break
                comp += 1
            if depth > 0:
                u = call_node[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    ok = True
    for s in range(n):
        for e in range(row_ptr[s], row_ptr[s + 1]):
            if labels[col[e]] > labels[s]:
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
