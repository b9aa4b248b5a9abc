"""Solve a game whose cycles lie within blocks of codes as it is explored, keeping no graph.

A game that vouches for its blocks (``MarkovGame.cycle_span``: every choice leads into
its own block or to a lower code) can be solved block by block in increasing code order,
each block once its exits' values are final (``by_components``). Nothing then needs the
whole graph at once: after the reach pass (``compiled.reach``: the reachable codes as a
bitmap), ``solve_blocks`` walks the codes in order, expands each block's states through
the rules into a small graph of their own (the block's states, then one slot per choice
leaving the block, holding that exit's final value), solves it with the components'
own ``solve_block`` and takes each outcome's cheapest choice with the greedy pass's own
``improve_direct``. It keeps the values and the chosen choices, numbered as ``fill``
numbers outcomes and choices, and nothing else: Tricky Trios n=100 needs the bitmap and
its ranks, the values and the choices (1.4 GB) instead of a graph of 3.2 GB beside them.
The arithmetic is the same as solving the kept graph by blocks, so the values and the
choices are the same bits (``tests/markov/test_streamed.py``); a caller that wants the
graph (to export, show or verify the policy) has it explored again (``Policy.graph``).

Like ``compiled.reach`` and ``fill``, ``solve_blocks`` is ``inline="always"`` and a game
calls it from a cached wrapper of its own module with its rules as a global (see
``compiled``'s docstring for why). Its loop over a state's outcomes and choices is
``fill``'s, written out again rather than shared: a helper handed the arrays would pay
numba's reference counting on each of them for each of tens of millions of states (the
reason ``rules_kernel`` compiles without it); the tests require the same numbering.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .by_components import BIG, FORWARD, OK, FINISHES, Work, solve_block
from .compile import Reached, Rows
from .compiled import clear_expansion, count_below, pop_lowest, rank_of
from .kernels import improve_direct, no_pairs


@dataclass
class ReachedCodes:
    """The reachable states as the reach pass leaves them (``reached``: a bitmap of their
    codes, and their counts) and, per 64-bit word of the bitmap, the states below it
    (``rank``); state i is the i-th set bit (code order, as ``fill`` indexes a graph).
    Answers ``index_of`` as a ``Graph`` does, with no codes array (Tricky Trios n=100:
    0.47 GB, against 0.43 GB of codes and a graph of 3.2 GB beside them)."""

    reached: Reached
    rank: np.ndarray
    start: int

    @property
    def bits(self) -> np.ndarray:
        return self.reached.bits

    @property
    def n_states(self) -> int:
        return self.reached.states

    def index_of(self, codes: np.ndarray) -> np.ndarray:
        """State indices of game codes; KeyError for a code never reached."""
        codes = np.asarray(codes, dtype=np.int64)
        if codes.size and (codes.min() < 0 or codes.max() >= 64 * len(self.bits)):
            raise KeyError("state not reachable in this game")
        index, found = _index_of(self.bits, self.rank, codes)
        if not found.all():
            raise KeyError("state not reachable in this game")
        return index


@njit(cache=True)
def _index_of(bits, rank, codes):
    index = np.empty(codes.shape[0], dtype=np.int64)
    found = np.empty(codes.shape[0], dtype=np.bool_)
    for i in range(codes.shape[0]):
        word = codes[i] >> 6
        found[i] = bits[word] & (np.uint64(1) << np.uint64(codes[i] & 63)) != 0
        index[i] = rank_of(bits[word], rank[word], codes[i])
    return index, found


@njit(inline="always")
def solve_blocks(rules, params, bits, K, C, span, limits, V, chosen, rank):
    """Values (into `V`, one per state) and chosen choice edges (into `chosen`, one per
    outcome, numbered as ``fill`` numbers them) of the reachable states of `bits`, block
    by block in code order (see the module docstring), within ``by_components.Limits``;
    `rank` (one int32 per word of `bits`) receives the states below each word. Returns
    (status, failing code, blocks, most sweeps in one block), status as
    ``by_components.solve_by_components``'s."""
    max_block = limits.max_block
    words = bits.shape[0]
    count_below(bits, rank)
    w = np.zeros(K, dtype=np.int64)
    nx = np.full((K, C), -1, dtype=np.int64)
    cs = np.zeros((K, C), dtype=np.int64)
    # one block's graph: its states 0..m-1, then one exit slot per choice leaving it
    room_o, room_e = max_block * K, max_block * K * C
    slots = max_block + room_e
    out_ptr = np.zeros(slots + 1, dtype=np.int64)
    weight = np.zeros(room_o, dtype=np.int64)
    denom = np.ones(slots, dtype=np.int64)
    choice_ptr = np.zeros(room_o + 1, dtype=np.int64)
    target = np.zeros(room_e, dtype=np.int64)
    cost = np.zeros(room_e, dtype=np.int64)
    value = np.zeros(slots)
    flags = np.zeros(slots, dtype=np.uint8)
    codes = np.zeros(max_block, dtype=np.int64)
    stack = np.arange(max_block)
    local = np.zeros(max_block, dtype=np.int32)
    scratch = np.zeros(2 * max_block, dtype=np.int32)
    current = np.zeros(room_o, dtype=np.int64)
    rows = Rows(out_ptr, weight, denom, choice_ptr, target, cost)
    work = Work(flags, local, scratch, no_pairs(target, cost), np.empty(0))
    first, o_base, e_base, blocks, most = 0, 0, 0, 0, 0
    word, x = 0, np.uint64(0)
    pending = -1  # the next code in order, once read
    while True:
        m = 0  # read the block's codes
        while True:
            if pending < 0:
                while x == 0 and word < words:
                    x = bits[word]
                    word += 1
                if x == 0:
                    break
                pending, x = pop_lowest(word - 1, x)
            if m > 0 and pending // span != codes[0] // span:
                break
            if m == max_block:
                return BIG, codes[0], blocks, most
            codes[m] = pending
            m += 1
            pending = -1
        if m == 0:
            break
        o, e, exits = 0, 0, 0
        for j in range(m):  # the block's graph, as ``fill`` would write it
            clear_expansion(w, nx, cs)
            out_ptr[j] = o
            flags[j] = 0
            if rules(params, codes[j], w, nx, cs):
                continue
            total = 0
            for k in range(K):
                if w[k] == 0:
                    continue
                total += w[k]
                weight[o] = w[k]
                for c in range(C):
                    t = nx[k, c]
                    if t < 0:
                        continue
                    ti = rank_of(bits[t >> 6], rank[t >> 6], t)
                    if ti >= first + m:
                        return FORWARD, codes[j], blocks, most
                    if ti >= first:
                        target[e] = ti - first
                    else:  # an exit: its value is final
                        target[e] = m + exits
                        value[m + exits] = V[ti]
                        flags[m + exits] = FINISHES
                        exits += 1
                    cost[e] = cs[k, c]
                    e += 1
                o += 1
                choice_ptr[o] = e
            denom[j] = total
        for j in range(m, m + exits + 1):
            out_ptr[j] = o
        status, done = solve_block(stack, 0, m, 0, False, value, rows, work, limits)
        if status != OK:
            return status, codes[0], blocks, most
        for j in range(m):
            V[first + j] = value[j]
            for q in range(out_ptr[j], out_ptr[j + 1]):
                current[q] = choice_ptr[q]
            improve_direct(j, value, current, out_ptr, choice_ptr, target, cost)
            for q in range(out_ptr[j], out_ptr[j + 1]):
                chosen[o_base + q] = e_base + current[q]
        first += m
        o_base += o
        e_base += e
        blocks += 1
        most = max(most, done)
    return OK, -1, blocks, most
