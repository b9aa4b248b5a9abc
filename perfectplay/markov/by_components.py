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

The walk and the sweep are the package's only ones: Tarjan's algorithm is
``structure_kernels.tarjan`` (this module gives it the visitor that solves each
component), the sweep ``kernels.sweeps`` over the component's states.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import _direct_value, sweeps
from .structure_kernels import DEEP, LARGE, ON_STACK, tarjan

#: Outcomes of ``solve_by_components``.
OK, BIG, FREE_CYCLE, NEVER_ENDS, NO_CONVERGENCE = range(5)
#: The bit of the walk's flags marking a state whose value is final and finite.
_FINISHES = np.uint8(2)


@njit(inline="always")
def _solve_block(stack, k, top, flags, local, scratch, V, out_ptr, weight, denom, choice_ptr,
                 target, cost, pairs, buf, tol, max_sweeps):
    """Solve the component stack[k:top] (its states flagged ON_STACK) given its exits'
    final values (`local`: an int per state, free to overwrite for the component's
    states; `scratch`: room for two ints per state of it; `pairs`: no ``Pairs`` layout,
    `buf` the sweep's buffer). Returns (status, sweeps)."""
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
                    V[v] = _direct_value(v, V, out_ptr, weight, denom, choice_ptr, target, cost)
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
            if flags[t] & ON_STACK:  # inside this component
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
            if cost[e] == 0 and flags[t] & ON_STACK:
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
    # Gauss-Seidel from infinity, the states found last (nearer the end of the game, as a
    # rule) first: the component reversed in place
    for i in range(m // 2):
        stack[k + i], stack[top - 1 - i] = stack[top - 1 - i], stack[k + i]
    done, delta = sweeps(V, stack[k:top], out_ptr, weight, denom, choice_ptr, target, cost, pairs,
                         buf, tol, max_sweeps)
    return (OK if delta <= tol else NO_CONVERGENCE), done


@njit(inline="always")
def _solve_component(ctx, stack, k, top, flags, local):
    """``structure_kernels.tarjan`` visitor: solve the component stack[k:top] (ctx: the
    graph, V, scratch, limits, and `tally`: components, largest, most sweeps, failing
    state). Returns 0, or the status that stops the walk."""
    (out_ptr, weight, denom, choice_ptr, target, cost, pairs, buf, V, scratch, tol, max_block,
     max_sweeps, tally) = ctx
    if top - k > max_block:
        tally[1], tally[3] = top - k, stack[k]
        return BIG
    status, done = _solve_block(stack, k, top, flags, local, scratch, V, out_ptr, weight, denom,
                                choice_ptr, target, cost, pairs, buf, tol, max_sweeps)
    if status == OK:
        tally[0] += 1
        tally[1] = max(tally[1], top - k)
        tally[2] = max(tally[2], done)
    else:
        tally[3] = stack[k]
    return status


@njit(cache=True)
def solve_by_components(out_ptr, weight, denom, choice_ptr, target, cost, tol, max_block,
                        max_stack, max_sweeps, V):
    """Minimum expected cost-to-go of every state into V, one strong component at a time
    as ``structure_kernels.tarjan`` completes them.

    Returns (status, failing state, components, largest component, most sweeps in one
    component); status is OK, or BIG (a component exceeds `max_block` states, or the
    depth-first search `max_stack` states: V is then incomplete), FREE_CYCLE (a zero-cost
    cycle), NEVER_ENDS (the failing state's component cannot reach the goal) or
    NO_CONVERGENCE (`max_sweeps` in one component); the failing state is -1 when none is.
    """
    n = out_ptr.shape[0] - 1
    scratch = np.empty(2 * max_block, dtype=np.int32)
    tally = np.zeros(4, dtype=np.int64)
    tally[3] = -1  # no failing state
    pairs = (np.zeros(1, dtype=np.int64), target[:0], cost[:0], np.zeros(0, dtype=np.uint8))  # none
    buf = np.empty(0)  # no layout: the sweeps never use it
    status = tarjan(out_ptr, choice_ptr, target, min(n, max_stack), max_block, _solve_component,
                    (out_ptr, weight, denom, choice_ptr, target, cost, pairs, buf, V, scratch, tol,
                     max_block, max_sweeps, tally))
    if status == DEEP or status == LARGE:
        status = BIG
    return status, tally[3], tally[0], tally[1], tally[2]
