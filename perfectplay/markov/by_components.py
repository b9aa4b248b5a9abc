"""Value iteration one strong component at a time, successors' components first.

Tarjan's algorithm finishes the strong components of the state graph successors first, so
when the components are solved in the order it completes them, every state a component
can leave to already has its final value. Solving each once (substitution for a lone
state, Gauss-Seidel inside the component for a cycle) needs no visiting order over the
whole graph, no renumbering and no sweep over the whole graph: on a game whose cycles
are short (Tricky Trios: a round that flips known cards and mismatches returns to where
it started) every state is visited once by Tarjan and once or a few times by the solve.
The same pass checks what the global path checks with separate passes: that every state
can finish (some edge of its component reaches the goal) and that no cycle of zero-cost
choices exists (one inside a component, found by a topological sort of its zero-cost
edges). A component larger than ``max_block`` stops the pass (``BIG``): such a graph is
left to the global sweeps and policy iteration (dice-cards is one component of nearly
all its states).

The walk and the sweep are the package's only ones: Tarjan's algorithm is
``structure_kernels.tarjan`` (it writes the components down in the order they
complete), the sweep ``kernels.sweeps`` over the component's states.

Reference counting: numba increfs and decrefs each array handed to an inlined function
or a call, so a helper given the graph's arrays once per component costs more than the
component's own arithmetic when most components are a lone state (Tricky Trios: three
in five). The lone state is therefore solved written out in the loop, and the loop
hands ``_solve_block`` only the cycles. Measured on Tricky Trios n=60 (4.2 million
components): 1.08 s with each component handed to a visitor of Tarjan's walk, reading
its arrays from a context tuple; 0.55 s now.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import _direct_value, sweeps
from .structure_kernels import DEEP, LARGE, tarjan

#: Outcomes of ``solve_by_components``.
OK, BIG, FREE_CYCLE, NEVER_ENDS, NO_CONVERGENCE = range(5)
#: Bits of the solve's flags: a state of the component being solved; a state whose value
#: is final and finite.
_INSIDE = np.uint8(1)
_FINISHES = np.uint8(2)


@njit(inline="always")
def _solve_block(stack, k, top, flags, local, scratch, V, out_ptr, weight, denom, choice_ptr,
                 target, cost, pairs, buf, tol, max_sweeps):
    """Solve the cycle stack[k:top] (two states or more, or one with a choice back to
    itself) given its exits' final values (`flags`: _INSIDE clear, _FINISHES set on the
    states with a final finite value; `local`: an int per state, free to overwrite for the
    component's states; `scratch`: room for two ints per state of it; `pairs`: no
    ``Pairs`` layout, `buf` the sweep's buffer). Returns (status, sweeps)."""
    m = top - k
    for i in range(m):
        local[stack[k + i]] = i
        flags[stack[k + i]] |= _INSIDE
    indeg = scratch[:m]
    queue = scratch[m:2 * m]
    indeg[:] = 0
    finishes = False
    for i in range(k, top):
        s = stack[i]
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            t = target[e]
            if flags[t] & _INSIDE:  # inside this component
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
            if cost[e] == 0 and flags[t] & _INSIDE:
                j = local[t]
                indeg[j] -= 1
                if indeg[j] == 0:
                    queue[tail] = j
                    tail += 1
    if tail < m:
        return FREE_CYCLE, 0
    for i in range(k, top):
        V[stack[i]] = np.inf
        flags[stack[i]] = _FINISHES
    # Gauss-Seidel from infinity, the states Tarjan's walk found last (nearer the end of
    # the game, as a rule) first, as ``tarjan`` writes them
    done, delta = sweeps(V, stack[k:top], out_ptr, weight, denom, choice_ptr, target, cost, pairs,
                         buf, tol, max_sweeps, True)
    return (OK if delta <= tol else NO_CONVERGENCE), done


@njit(cache=True, nogil=True)
def solve_by_components(out_ptr, weight, denom, choice_ptr, target, cost, tol, max_block,
                        max_stack, max_sweeps, V, order, starts, local, flags):
    """Minimum expected cost-to-go of every state into V, one strong component at a time
    in the order ``structure_kernels.tarjan`` completes them. The caller's arrays, one
    entry per state (``starts``: one more): V (float64), ``order``, ``starts`` and
    ``local`` (int32, Tarjan's), ``flags`` (uint8, zeros); the caller pages them in on a
    helper thread meanwhile (``prefault``), so the pass releases the GIL.

    Returns (status, failing state, components, largest component, most sweeps in one
    component); status is OK, or BIG (a component exceeds `max_block` states, or the
    depth-first search `max_stack` states: V is then incomplete), FREE_CYCLE (a zero-cost
    cycle), NEVER_ENDS (the failing state's component cannot reach the goal) or
    NO_CONVERGENCE (`max_sweeps` in one component); the failing state is -1 when none is.
    """
    n = out_ptr.shape[0] - 1
    status, count = tarjan(out_ptr, choice_ptr, target, min(n, max_stack), max_block, order,
                           starts, local)
    if status == DEEP or status == LARGE:
        return BIG, -1, 0, 0, 0
    scratch = np.empty(2 * max_block, dtype=np.int32)
    pairs = (np.zeros(1, dtype=np.int64), target[:0], cost[:0], np.zeros(0, dtype=np.uint8))  # none
    buf = np.empty(0)  # no layout: the sweeps never use it
    largest, most = 0, 0
    for c in range(count):
        k, top = starts[c], starts[c + 1]
        if top - k > max_block:
            return BIG, order[k], c, top - k, most
        v = order[k]
        lo, hi = choice_ptr[out_ptr[v]], choice_ptr[out_ptr[v + 1]]
        lone = top - k == 1
        if lone:
            for e in range(lo, hi):
                if target[e] == v:  # a choice back to itself: a cycle after all
                    lone = False
        if lone:  # written out here: see the module's docstring, "reference counting"
            status, done = NEVER_ENDS, 0
            if lo == hi:  # terminal
                V[v] = 0.0
                flags[v] |= _FINISHES
                status = OK
            for e in range(lo, hi):
                if flags[target[e]] & _FINISHES:
                    flags[v] |= _FINISHES
                    V[v] = _direct_value(v, V, out_ptr, weight, denom, choice_ptr, target, cost)
                    status, done = OK, 1
                    break
        else:
            status, done = _solve_block(order, k, top, flags, local, scratch, V, out_ptr, weight,
                                        denom, choice_ptr, target, cost, pairs, buf, tol,
                                        max_sweeps)
        if status != OK:
            return status, order[k], c, largest, most
        largest = max(largest, top - k)
        most = max(most, done)
    return OK, -1, count, largest, most
