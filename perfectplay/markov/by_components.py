"""Value iteration one strong component at a time, each solved once as Tarjan completes it.

Tarjan's algorithm finishes the strong components of the state graph successors first, so
when a component completes, every state it can leave to already has its final value.
Solving it there and then (substitution for a lone state, Gauss-Seidel inside the
component for a cycle) needs no visiting order, no renumbering of the graph and no sweep
over the whole graph: on a game whose cycles are short (Tricky Trios: a round that
flips known cards and mismatches returns to where it started) every state is visited
once by Tarjan and once or a few times by the solve, reading the graph in the order it
was explored. The same pass checks what the global path checks with separate passes:
that every state can finish (some edge of its component reaches the goal) and that no
cycle of zero-cost choices exists (one inside a component, found by a topological sort
of its zero-cost edges). A component larger than ``max_block`` stops the pass
(``BIG``): such a graph is left to the global sweeps and policy iteration (dice-cards is
one component of nearly all its states).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import _state_value

#: Outcomes of ``solve_by_components``.
OK, BIG, FREE_CYCLE, NEVER_ENDS, NO_CONVERGENCE = range(5)
_ON_STACK, _FINISHES = np.uint8(1), np.uint8(2)


@njit(inline="always")
def _solve_block(stack, k, top, flags, local, scratch, V, out_ptr, weight, denom, choice_ptr,
                 target, cost, tol, max_sweeps):
    """Solve the component stack[k:top] given its exits' final values (`scratch`: room for
    two ints per state). Returns (status, sweeps)."""
    m = top - k
    v = stack[k]
    if m == 1:
        lo, hi = choice_ptr[out_ptr[v]], choice_ptr[out_ptr[v + 1]]
        if lo == hi:  # terminal
            V[v] = 0.0
            flags[v] |= _FINISHES
            return OK, 0
        lone = True
        for e in range(lo, hi):
            if target[e] == v:
                lone = False
        if lone:
            for e in range(lo, hi):
                if flags[target[e]] & _FINISHES:
                    flags[v] |= _FINISHES
                    V[v] = _state_value(v, V, out_ptr, weight, denom, choice_ptr, target, cost)
                    return OK, 1
            return NEVER_ENDS, 0
    for i in range(m):
        local[stack[k + i]] = i
    indeg = scratch[:m]
    queue = scratch[m:2 * m]
    indeg[:] = 0
    finishes = False
    for i in range(k, top):
        s = stack[i]
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            t = target[e]
            if flags[t] & _ON_STACK:  # on the stack above a root: inside this component
                if cost[e] == 0:
                    indeg[local[t]] += 1
            elif flags[t] & _FINISHES:
                finishes = True
    if not finishes:
        return NEVER_ENDS, 0
    head, tail = 0, 0
    for i in range(m):
        if indeg[i] == 0:
            queue[tail] = i
            tail += 1
    while head < tail:
        s = stack[k + queue[head]]
        head += 1
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            t = target[e]
            if cost[e] == 0 and flags[t] & _ON_STACK:
                j = local[t]
                indeg[j] -= 1
                if indeg[j] == 0:
                    queue[tail] = j
                    tail += 1
    if tail < m:
        return FREE_CYCLE, 0
    for i in range(k, top):
        V[stack[i]] = np.inf
        flags[stack[i]] |= _FINISHES
    # Gauss-Seidel from infinity (see kernels.gauss_seidel_sweeps), the states found last
    # (nearer the end of the game, as a rule) first
    sweeps = 0
    delta = np.inf
    while delta > tol:
        if sweeps >= max_sweeps:
            return NO_CONVERGENCE, sweeps
        delta = 0.0
        for i in range(top - 1, k - 1, -1):
            s = stack[i]
            x = _state_value(s, V, out_ptr, weight, denom, choice_ptr, target, cost)
            if x == V[s]:
                continue
            d = np.inf if V[s] == np.inf else abs(x - V[s]) / max(1.0, abs(x))
            if d > delta:
                delta = d
            V[s] = x
        sweeps += 1
        if delta <= tol:
            # states still at infinity would stay there: restart them above every value
            # they can see, from where value iteration still converges
            stuck = False
            for i in range(k, top):
                if V[stack[i]] == np.inf:
                    stuck = True
            if stuck:
                high = 0.0
                for i in range(k, top):
                    s = stack[i]
                    for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
                        x = V[target[e]] + cost[e]
                        if x < np.inf and x > high:
                            high = x
                for i in range(k, top):
                    if V[stack[i]] == np.inf:
                        V[stack[i]] = 2.0 * high + 1.0
                delta = np.inf
    return OK, sweeps


@njit(cache=True)
def solve_by_components(out_ptr, weight, denom, choice_ptr, target, cost, tol, max_block,
                        max_stack, max_sweeps, V):
    """Minimum expected cost-to-go of every state into V, one strong component at a time.

    Returns (status, failing state, components, largest component, most sweeps in one
    component); status is OK, or BIG (a component exceeds `max_block` states, or the
    depth-first search `max_stack` states: V is then incomplete), FREE_CYCLE (a zero-cost cycle), NEVER_ENDS (the failing state's
    component cannot reach the goal) or NO_CONVERGENCE (`max_sweeps` in one component).
    """
    n = out_ptr.shape[0] - 1
    index = np.full(n, -1, dtype=np.int32)
    low = np.empty(n, dtype=np.int32)  # also the position inside a completed component
    flags = np.zeros(n, dtype=np.uint8)
    room = min(n, max_stack)
    stack = np.empty(room, dtype=np.int32)
    call_node = np.empty(room, dtype=np.int32)
    call_edge = np.empty(room, dtype=np.int64)
    scratch = np.empty(2 * max_block, dtype=np.int32)
    counter, top = 0, 0
    n_comp, largest, most = 0, 0, 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        flags[root] |= _ON_STACK
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
                    if top == stack.shape[0] or depth == call_node.shape[0]:
                        return BIG, w, n_comp, top, most
                    stack[top] = w
                    top += 1
                    flags[w] |= _ON_STACK
                    call_node[depth], call_edge[depth] = w, choice_ptr[out_ptr[w]]
                    depth += 1
                elif flags[w] & _ON_STACK and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if low[v] == index[v]:
                k = top - 1
                while stack[k] != v:
                    k -= 1
                if top - k > max_block:
                    return BIG, v, n_comp, top - k, most
                status, sweeps = _solve_block(stack, k, top, flags, low, scratch, V,
                                                       out_ptr, weight, denom, choice_ptr,
                                                       target, cost, tol, max_sweeps)
                if status != OK:
                    return status, v, n_comp, largest, most
                for i in range(k, top):
                    flags[stack[i]] &= ~_ON_STACK
                n_comp += 1
                largest = max(largest, top - k)
                most = max(most, sweeps)
                top = k
            elif depth > 0:
                u = call_node[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return OK, -1, n_comp, largest, most
