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

A game may vouch for where its cycles lie instead (``MarkovGame.cycle_span``: blocks of
codes that choices leave only downwards): the pass then takes the blocks in code order,
with no walk and none of its arrays, each block solved as a component (where a block is
not one strong component, each of its states must reach a finished state itself); the
streamed solve (``streamed``) solves the same blocks the same way without a graph.

The walk and the sweep are the package's only ones: Tarjan's algorithm is
``structure_kernels.tarjan`` (it writes the components down in the order they
complete), the sweep ``kernels.sweeps`` over the component's states.

Reference counting: numba increfs and decrefs each array handed to an inlined function
or a call, so a helper given the graph's arrays once per component costs more than the
component's own arithmetic when most components are a lone state (Tricky Trios: three
in five). The lone state is therefore solved written out in the loop, and the loop
hands ``solve_block`` only the cycles, which halved the time of a game of millions of
components (docs/measurements.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .kernels import direct_value, no_pairs, sweeps
from .structure_kernels import DEEP, LARGE, tarjan

#: Outcomes of ``solve_by_components``.
OK, BIG, FREE_CYCLE, NEVER_ENDS, NO_CONVERGENCE, FORWARD = range(6)
#: Bits of the solve's flags: a state of the component being solved; a state whose value
#: is final and finite.
_INSIDE = np.uint8(1)
FINISHES = np.uint8(2)
#: ... and, while a block's states are checked, one that reaches such a state.
_REACHES = np.uint8(4)


class Limits(NamedTuple):
    """Where the pass over the components stops: a component's values settled to `tol`
    (relative), at most `max_sweeps` sweeps in one, `max_block` states in one and
    `max_stack` on the depth-first search's stack."""

    tol: float
    max_sweeps: int
    max_block: int
    max_stack: int


class Work(NamedTuple):
    """The arrays ``solve_block`` works in, made once by its caller (it solves millions of
    small components): `flags` (a uint8 per state: _INSIDE clear, FINISHES set on the
    states with a final finite value), `local` (an int per state of a component, at
    ``s - base``, free to overwrite), `scratch` (room for two ints per state of a
    component), and the sweep's: `pairs` (no ``Pairs`` layout) and `buf`."""

    flags: np.ndarray
    local: np.ndarray
    scratch: np.ndarray
    pairs: tuple
    buf: np.ndarray


@njit(inline="always")
def solve_block(stack, k, top, base, connected, V, rows, work, limits):
    """Solve the states stack[k:top] (a cycle: two states or more, or one with a choice
    back to itself; or a game's block, see ``solve_by_components``) of the graph `rows`
    given its exits' final values (`work`: ``Work``). Returns (status, sweeps).

    Two checks come first, from one pass over the component's choices where it can:
    whether each state can finish (in a strong component, `connected`, every state
    reaches every other, so one choice out to a finished state suffices; in a block, each
    state must reach one, directly or through the block: ``_each_finishes``); and that no
    cycle of zero-cost choices exists. Such a cycle climbs back in stack order somewhere
    and leaves the state it climbs to by a zero-cost choice; when no zero-cost choice
    climbs to a state that has one (Tricky Trios: a mismatch returns, at no cost, to the
    round's start, whose every choice costs a round), there is none, else a topological
    sort of the zero-cost choices decides (``_free_cycle``)."""
    out_ptr, choice_ptr, target, cost = rows.out_ptr, rows.choice_ptr, rows.target, rows.cost
    flags, local, scratch = work.flags, work.local, work.scratch
    m = top - k
    for i in range(m):
        local[stack[k + i] - base] = i
        flags[stack[k + i]] |= _INSIDE
    zero_out = scratch[:m]  # whether state i has a zero-cost choice inside
    climbed = scratch[m : 2 * m]  # whether a zero-cost choice climbs to state i
    zero_out[:] = 0
    climbed[:] = 0
    finishes = True
    for i in range(m):
        s = stack[k + i]
        reaches = out_ptr[s] == out_ptr[s + 1]  # a terminal state (in a block) has finished
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            f = flags[target[e]]
            if f & _INSIDE:  # inside this component
                reaches = reaches or f & _REACHES != 0
                if cost[e] == 0:
                    zero_out[i] = 1
                    j = local[target[e] - base]
                    if j >= i:
                        climbed[j] = 1
            elif f & FINISHES:
                reaches = True
        if reaches:
            flags[s] |= _REACHES
        else:
            finishes = False
    if connected:  # one state reaching out is enough
        for i in range(k, top):
            if flags[stack[i]] & _REACHES:
                finishes = True
    elif not finishes:
        finishes = _each_finishes(stack, k, top, flags, rows)
    if not finishes:
        return NEVER_ENDS, 0
    for i in range(m):
        if climbed[i] and zero_out[i]:
            if _free_cycle(stack, k, top, base, work, rows):
                return FREE_CYCLE, 0
            break
    for i in range(k, top):
        V[stack[i]] = 0.0 if out_ptr[stack[i]] == out_ptr[stack[i] + 1] else np.inf
        flags[stack[i]] = FINISHES
    # Gauss-Seidel from infinity, the states Tarjan's walk found last (nearer the end of
    # the game, as a rule) first, as ``tarjan`` writes them; a block in code order
    done, delta = sweeps(
        V, stack[k:top], rows, work.pairs, work.buf, limits.tol, limits.max_sweeps, True
    )
    return (OK if delta <= limits.tol else NO_CONVERGENCE), done


@njit(inline="always")
def _free_cycle(stack, k, top, base, work, rows):
    """Whether the zero-cost choices among stack[k:top] (flagged _INSIDE, `local` set)
    close a cycle: a topological sort of them (Kahn's) leaves a state unsorted."""
    out_ptr, choice_ptr, target, cost = rows.out_ptr, rows.choice_ptr, rows.target, rows.cost
    flags, local, scratch = work.flags, work.local, work.scratch
    m = top - k
    indeg = scratch[:m]
    queue = scratch[m : 2 * m]
    indeg[:] = 0
    for i in range(k, top):
        s = stack[i]
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if cost[e] == 0 and flags[target[e]] & _INSIDE:
                indeg[local[target[e] - base]] += 1
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
                j = local[t - base]
                indeg[j] -= 1
                if indeg[j] == 0:
                    queue[tail] = j
                    tail += 1
    return tail < m


@njit(inline="always")
def _each_finishes(stack, k, top, flags, rows):
    """Whether every state of the block stack[k:top] (flagged _INSIDE, those reaching a
    finished state in one pass flagged _REACHES) reaches a state with a final finite
    value through its choices: marks spread back through the block until none is added."""
    out_ptr, choice_ptr, target = rows.out_ptr, rows.choice_ptr, rows.target
    grew = True
    while grew:
        grew = False
        for i in range(k, top):
            s = stack[i]
            if flags[s] & _REACHES:
                continue
            for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
                f = flags[target[e]]
                if f & _REACHES or (f & FINISHES and not f & _INSIDE):
                    flags[s] |= _REACHES
                    grew = True
                    break
    for i in range(k, top):
        if not flags[stack[i]] & _REACHES:
            return False
    return True


@njit(cache=True, nogil=True)
def solve_by_components(rows, limits, V, order, starts, local, flags, codes, span):
    """Minimum expected cost-to-go of every state into V, one component at a time,
    successors' components first: the strong components in the order
    ``structure_kernels.tarjan`` completes them, or, with `span` > 0, a game's blocks
    (``MarkovGame.cycle_span``: the states whose `codes` share ``code // span``, the
    states indexed in code order), in increasing code order; `rows` the graph's
    ``compile.Rows``, `limits` the pass's ``Limits``.

    The caller's arrays: V (float64) and ``flags`` (uint8, zeros), one entry per state;
    ``order``, ``starts`` and ``local`` (int32), Tarjan's: one entry per state (``starts``:
    one more), or `max_block` entries each for blocks (no strong components are sought).
    The caller pages them in on a helper thread meanwhile (``prefault``), so the pass
    releases the GIL.

    Returns (status, failing state, components, largest component, most sweeps in one
    component); status is OK, or BIG (a component exceeds `max_block` states, or the
    depth-first search `max_stack` states: V is then incomplete), FREE_CYCLE (a zero-cost
    cycle), NEVER_ENDS (the failing state's component cannot reach the goal),
    NO_CONVERGENCE (`max_sweeps` in one component) or FORWARD (a choice from the failing
    state's block leads to a later block: the game's span is wrong); the failing state
    is -1 when none is.
    """
    out_ptr, weight, denom, choice_ptr, target, cost = rows
    max_block = limits.max_block
    n = out_ptr.shape[0] - 1
    count = 0
    if span == 0:
        status, count = tarjan(
            out_ptr, choice_ptr, target, min(n, limits.max_stack), max_block, order, starts, local
        )
        if status == DEEP or status == LARGE:
            return BIG, -1, 0, 0, 0
    # no layout: the sweeps never use their buffer
    work = Work(
        flags, local, np.empty(2 * max_block, dtype=np.int32), no_pairs(target, cost), np.empty(0)
    )
    largest, most, c, first = 0, 0, 0, 0
    while c < count or (span > 0 and first < n):
        if span > 0:  # the block of the state `first`: order[0:top], local from `first`
            block, top, base, k = codes[first] // span, 0, first, 0
            while first < n and codes[first] // span == block:
                if top == max_block:
                    return BIG, base, c, top + 1, most
                order[top] = first
                top += 1
                first += 1
            for v in range(base, first):
                for e in range(choice_ptr[out_ptr[v]], choice_ptr[out_ptr[v + 1]]):
                    if target[e] >= first:
                        return FORWARD, v, c, largest, most
        else:
            k, top, base = starts[c], starts[c + 1], 0
        c += 1
        if top - k > max_block:
            return BIG, order[k], c - 1, top - k, most
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
                flags[v] |= FINISHES
                status = OK
            for e in range(lo, hi):
                if flags[target[e]] & FINISHES:
                    flags[v] |= FINISHES
                    V[v] = direct_value(v, V, out_ptr, weight, denom, choice_ptr, target, cost)
                    status, done = OK, 1
                    break
        else:
            status, done = solve_block(order, k, top, base, span == 0, V, rows, work, limits)
        if status != OK:
            return status, order[k], c - 1, largest, most
        largest = max(largest, top - k)
        most = max(most, done)
    return OK, -1, c, largest, most
