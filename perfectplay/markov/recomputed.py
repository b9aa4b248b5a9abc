"""Solve a game whose graph would not fit in memory, its rules evaluated again at every
sweep: a few bytes a state, whatever the number of outcomes and choices.

A game with compiled rules and blocks of codes (``MarkovGame.cycle_span``: every choice
leads into its own block or to a lower code) keeps, for this solve, only what is per
state: the reach pass's bitmap and ranks (``compiled.reach``), one float per state, and
per block its level. The graph is never written: each state's outcomes and choices are
made again by the rules (``compiled``'s ``rules``) every time the state is swept.

Three steps, each one call of the game's wrapper (``CompiledRules.solve_recomputed``,
around ``solve_recomputed`` with the rules as a global, for the reasons in
``compiled``'s docstring):

* ``LEVELS``: one pass in code order marks every terminal state 0 and every other
  infinity, checks that no choice leads to a later block, and gives each block its
  level, one more than the highest level it exits to (the blocks a block's choices leave
  to all have lower levels; blocks of one level never lead to one another);
* ``SORT``: the blocks listed level by level;
* level 0, 1, ...: the blocks of one level solved at once, one call of the wrapper per
  thread (Python threads: the wrapper is ``nogil``), each taking every threads-th block
  of the level (its share, ``Blocks.share``; a thread that finishes first waits blocked,
  where numba's workqueue layer spun: two-thirds of the CPU of Can't Stop's board of
  11.2 M states went to system time on two shared cores), each block solved by
  Gauss-Seidel sweeps over its states in code order, its exits' values final,
  stopped as the stored graph's sweeps stop (``kernels.sweeps``: the same arithmetic,
  state by state, so the values are the stored graph's solved by blocks, bit for bit).

What a block checks is what the stored graph's blocks check (``by_components``), but for
one thing: a cycle of choices that costs nothing is not sought (it needs the block's
graph). A block whose states cannot all finish is refused, naming a state.

Memory: the float per state (8 bytes), the bitmap (a bit per code, and 4 bytes of rank
per 64 codes), and per block its level (4 bytes per block number) and its place in the
list (8 bytes per block reached); per thread, one state's padded expansion.
``recomputed_bytes`` is that estimate, which the solve holds to the memory available.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numba
import numpy as np
from numba import njit

from .by_components import FORWARD, NEVER_ENDS, NO_CONVERGENCE, OK
from .compiled import clear_expansion, count_below, pop_lowest, rank_of
from .kernels import _settled

#: The wrapper's steps before the levels (a step of 0 or more solves that level).
LEVELS, SORT = -2, -1


class Blocks(NamedTuple):
    """The blocks' arrays: `level`, an int32 per block number (``code // span``);
    `order`, the blocks reached, level by level (int64, one per block reached); `starts`,
    where each level's blocks begin in `order` (one more than the levels); `status` and
    `sweeps`, each block's outcome and sweeps (int8, int32; one per block reached);
    `share`, (this call's thread, threads): a level's step solves blocks thread, thread
    + threads, ... of the level."""

    level: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    status: np.ndarray
    sweeps: np.ndarray
    share: np.ndarray


def recomputed_bytes(states: int, bound: int, span: int, outcomes: int, choices: int) -> int:
    """The memory the recomputed solve takes for `states` states of codes below `bound`
    in blocks of `span` codes (see the module docstring), the bitmap and its ranks
    included, and scratch for two threads' expansions."""
    blocks = (bound + span - 1) // span
    return (
        8 * states
        + bound // 8
        + bound // 16
        + 4 * blocks
        + 13 * min(blocks, states)
        + (2 * 24 * outcomes * (choices + 1))
    )


def empty_blocks(bound: int, span: int) -> Blocks:
    """The arrays of the ``LEVELS`` step (levels all 0); the others are made once it has
    counted the blocks and levels (``sized``)."""
    none8, none32 = np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int32)
    zero64 = np.zeros(1, dtype=np.int64)
    return Blocks(
        np.zeros((bound + span - 1) // span, dtype=np.int32),
        zero64,
        zero64,
        none8,
        none32,
        np.array([0, 1], dtype=np.int64),
    )


def sized(blocks: Blocks, reached: int, levels: int) -> Blocks:
    """The arrays for `reached` blocks in `levels` levels."""
    return blocks._replace(
        order=np.zeros(reached, dtype=np.int64),
        starts=np.zeros(levels + 1, dtype=np.int64),
        status=np.zeros(reached, dtype=np.int8),
        sweeps=np.zeros(reached, dtype=np.int32),
    )


@njit(inline="always")
def _value(rules, params, bits, rank, code, V, w, nx, cs, K, C):
    """(terminal, Bellman update) of the state `code`, its rules read again: per outcome
    the cheapest choice, weighted (``kernels.direct_value``'s arithmetic, choices in
    ``fill``'s order)."""
    clear_expansion(w, nx, cs)
    if rules(params, code, w, nx, cs):
        return True, 0.0
    total, denom = 0.0, 0
    for k in range(K):
        if w[k] == 0:
            continue
        denom += w[k]
        best = np.inf
        for c in range(C):
            t = nx[k, c]
            if t < 0:
                continue
            q = cs[k, c] + V[rank_of(bits[t >> 6], rank[t >> 6], t)]
            if q < best:
                best = q
        total += w[k] * best
    return False, total / denom


@njit(inline="always")
def _words(lo, hi):
    """The bitmap words holding codes lo..hi-1."""
    return lo >> 6, ((hi - 1) >> 6) + 1


@njit(inline="always")
def _within(word, x, lo, hi):
    """The bits of bitmap word `word` (`x`) for codes lo..hi-1 only."""
    one = np.uint64(1)
    if word == lo >> 6 and lo & 63:
        x &= ~((one << np.uint64(lo & 63)) - one)
    if word == (hi - 1) >> 6 and hi & 63:
        x &= (one << np.uint64(hi & 63)) - one
    return x


@njit(inline="always")
def _sweep(rules, params, bits, rank, lo, hi, first, V, w, nx, cs, K, C):
    """One Gauss-Seidel sweep over the states of codes lo..hi-1 (state indices from
    `first`), in code order. Returns the largest relative change (``kernels.sweeps``')."""
    delta = 0.0
    i = first
    w_lo, w_hi = _words(lo, hi)
    for word in range(w_lo, w_hi):
        x = _within(word, bits[word], lo, hi)
        while x:
            code, x = pop_lowest(word, x)
            terminal, v = _value(rules, params, bits, rank, code, V, w, nx, cs, K, C)
            if not terminal and v != V[i]:
                d = np.inf if V[i] == np.inf else abs(v - V[i]) / max(1.0, abs(v))
                if d > delta:
                    delta = d
                V[i] = v
            i += 1
    return delta


@njit(inline="always")
def _restart(rules, params, bits, rank, lo, hi, first, V, w, nx, cs, K, C):
    """``kernels._restart_stuck`` over the block lo..hi-1, unless some state of it cannot
    finish (reach, through its choices, a state of final finite value: the check
    ``by_components._each_finishes`` makes): then the code of one such state, else -1
    (the states at infinity then restarted above every finite value their choices see)."""
    m = 0
    stuck = False
    w_lo, w_hi = _words(lo, hi)
    for word in range(w_lo, w_hi):
        x = _within(word, bits[word], lo, hi)
        while x:
            code, x = pop_lowest(word, x)
            stuck = stuck or V[first + m] == np.inf
            m += 1
    if not stuck:
        return -2
    reaches = np.zeros(m, dtype=np.bool_)
    high = 0.0
    grew, rounds = True, 0
    while grew:
        grew = False
        i = 0
        for word in range(w_lo, w_hi):
            x = _within(word, bits[word], lo, hi)
            while x:
                code, x = pop_lowest(word, x)
                if not reaches[i]:
                    clear_expansion(w, nx, cs)
                    done = rules(params, code, w, nx, cs)
                    for k in range(K):
                        for c in range(C):
                            t = nx[k, c]
                            if w[k] == 0 or t < 0:
                                continue
                            j = rank_of(bits[t >> 6], rank[t >> 6], t)
                            if rounds == 0 and V[j] + cs[k, c] < np.inf:
                                high = max(high, V[j] + cs[k, c])
                            if t < lo or (t < hi and reaches[j - first]):
                                done = True
                    if done:
                        reaches[i] = True
                        grew = True
                i += 1
        rounds += 1
    i = 0
    for word in range(w_lo, w_hi):
        x = _within(word, bits[word], lo, hi)
        while x:
            code, x = pop_lowest(word, x)
            if not reaches[i]:
                return code
            if V[first + i] == np.inf:
                V[first + i] = 2.0 * high + 1.0
            i += 1
    return -1


@njit(inline="always")
def _solve_block(rules, params, bits, rank, lo, hi, V, limits, K, C):
    """Sweep the block of codes lo..hi-1 until settled (``kernels.sweeps``' rule, the
    error bound included). Returns (status, failing code, sweeps)."""
    w = np.zeros(K, dtype=np.int64)
    nx = np.full((K, C), -1, dtype=np.int64)
    cs = np.zeros((K, C), dtype=np.int64)
    first = rank_of(bits[lo >> 6], rank[lo >> 6], lo)
    delta = previous = np.inf
    done = 0
    while done < limits.max_sweeps and not _settled(delta, previous, limits.tol, True):
        previous = delta
        delta = _sweep(rules, params, bits, rank, lo, hi, first, V, w, nx, cs, K, C)
        done += 1
        if _settled(delta, previous, limits.tol, True):
            failing = _restart(rules, params, bits, rank, lo, hi, first, V, w, nx, cs, K, C)
            if failing >= 0:
                return NEVER_ENDS, failing, done
            if failing == -1:
                delta = np.inf
    return (OK if delta <= limits.tol else NO_CONVERGENCE), -1, done


@njit(inline="always")
def solve_recomputed(rules, params, bits, K, C, span, limits, V, rank, blocks, step):
    """One step of the recomputed solve (see the module docstring) over the reachable
    codes of `bits`: ``LEVELS`` (fills `rank`, V's start and the blocks' levels; returns
    (status, failing code, blocks reached, levels)), ``SORT`` (lists the blocks by level)
    or a level's number (solves this call's share of its blocks, ``Blocks.share``; returns
    (OK, -1, blocks, most sweeps in one), each block's status and, where it failed, its
    failing code in place of its number in ``order``). Status as
    ``by_components.solve_by_components``'s."""
    words = bits.shape[0]
    if step == LEVELS:
        count_below(bits, rank)
        w = np.zeros(K, dtype=np.int64)
        nx = np.full((K, C), -1, dtype=np.int64)
        cs = np.zeros((K, C), dtype=np.int64)
        level = blocks.level
        i, reached, top, current = 0, 0, 0, -1
        for word in range(words):
            x = bits[word]
            while x:
                code, x = pop_lowest(word, x)
                b = code // span
                if b != current:
                    reached += 1
                    current = b
                clear_expansion(w, nx, cs)
                if rules(params, code, w, nx, cs):
                    V[i] = 0.0
                else:
                    V[i] = np.inf
                    for k in range(K):
                        for c in range(C):
                            t = nx[k, c]
                            if w[k] == 0 or t < 0:
                                continue
                            tb = t // span
                            if tb > b:
                                return FORWARD, code, reached, 0
                            if tb < b and level[tb] + 1 > level[b]:
                                level[b] = level[tb] + 1
                top = max(top, level[b])
                i += 1
        return OK, -1, reached, top + 1
    if step == SORT:
        order, starts, level = blocks.order, blocks.starts, blocks.level
        for pass_ in range(2):  # count per level, then place
            current = -1
            for word in range(words):
                x = bits[word]
                while x:
                    code, x = pop_lowest(word, x)
                    b = code // span
                    if b == current:
                        continue
                    current = b
                    if pass_ == 0:
                        starts[level[b] + 1] += 1
                    else:
                        order[starts[level[b]]] = b
                        starts[level[b]] += 1
            if pass_ == 0:
                for j in range(1, starts.shape[0]):
                    starts[j] += starts[j - 1]
        for j in range(starts.shape[0] - 1, 0, -1):  # back to where each level begins
            starts[j] = starts[j - 1]
        starts[0] = 0
        return OK, -1, order.shape[0], starts.shape[0] - 1
    order, status_of, sweeps_of = blocks.order, blocks.status, blocks.sweeps
    lo, hi = blocks.starts[step], blocks.starts[step + 1]
    first, threads = lo + blocks.share[0], blocks.share[1]
    end = 64 * words
    most = 0
    for j in range(first, hi, threads):
        b = order[j]
        status, failing, done = _solve_block(
            rules, params, bits, rank, b * span, min((b + 1) * span, end), V, limits, K, C
        )
        status_of[j] = status
        sweeps_of[j] = done
        most = max(most, done)
        if status != OK:
            order[j] = failing  # the failing code, read back by ``solve_by_levels``
    return OK, -1, hi - lo, most


def solve_by_levels(game, rules, reached, limits, progress) -> tuple[np.ndarray, np.ndarray, dict]:
    """Run the recomputed solve's steps through the game's wrapper (`rules`, its
    ``CompiledRules``) over the reach pass's `reached` codes, a progress line per level.
    Returns (values, ranks, the facts for the solution's stats: blocks, levels, most
    sweeps in one block); raises as a failed pass by blocks does (``solve._check_status``,
    through the status and failing code returned with it)."""
    span = np.int64(game.cycle_span or 64 * len(reached.bits))
    bits = reached.bits
    V, rank = np.empty(reached.states), np.empty(len(bits), dtype=np.int32)
    blocks = empty_blocks(64 * len(bits), int(span))

    def step(number: int, blocks: Blocks):
        return rules.solve_recomputed(
            rules.params,
            bits,
            rules.outcomes,
            rules.choices,
            span,
            limits,
            V,
            rank,
            blocks,
            np.int64(number),
        )

    status, failing, n_blocks, levels = step(LEVELS, blocks)
    if status != OK:
        return V, rank, {"status": int(status), "failing": int(failing)}
    blocks = sized(blocks, int(n_blocks), int(levels))
    step(SORT, blocks)
    progress.stage("value iteration by blocks, the rules recomputed at every sweep", unit="levels")
    threads = 1 if _parallel(rules.solve_recomputed) else numba.get_num_threads()
    shares = [blocks._replace(share=np.array([t, threads], dtype=np.int64)) for t in range(threads)]
    most = 0
    with ThreadPoolExecutor(threads) as pool:
        for level in range(int(levels)):
            done = list(pool.map(lambda share, level=level: step(level, share), shares))
            lo, hi = blocks.starts[level], blocks.starts[level + 1]
            failed = np.flatnonzero(blocks.status[lo:hi] != OK)
            if len(failed):  # the first failing block of the level, whatever the threads
                j = lo + failed[0]
                return V, rank, {"status": int(blocks.status[j]), "failing": int(blocks.order[j])}
            most = max(most, *(int(deepest) for *_, deepest in done))
            progress.update(level + 1, f"of {int(levels):,}")
    return V, rank, {"status": OK, "blocks": int(n_blocks), "levels": int(levels), "sweeps": most}


def _parallel(wrapper) -> bool:
    """Whether the game's wrapper was compiled ``parallel=True`` (as the docs once taught):
    it may then not be called from two threads at once (numba's workqueue layer aborts
    the process)."""
    return bool(getattr(wrapper, "targetoptions", {}).get("parallel"))
