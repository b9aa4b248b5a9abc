"""Rules that compile: a Markov game written as one numba function over a state code.

A game may write its rules once, for a single state, as a compiled function

    @rules_kernel
    def rules(params, code, weight, next, cost) -> bool:   # True: `code` is terminal

which fills ``weight[K]``, ``next[K, C]`` and ``cost[K, C]`` (handed over cleared: weights
0, next -1, costs 0) with its chance outcomes and choices exactly as ``Expansion``
describes them. Exploration then runs compiled from start to finish (``reach``, then ``fill``): no
Python per state or per batch, memory proportional to the states and choices found.
The vectorised ``expand`` the rest of the package reads (show, verify, play, the
conformance checker, the generic exploration path) is derived from the same function
(``expand_batch``), so the rules are never written twice.

Why the boilerplate in each game module (see ``games/dice_cards.py``): the three generic
loops below are ``inline="always"`` and each game defines three one-line cached
wrappers (``_expand_batch``, ``_reach``, ``_fill``; ``_fill`` also ``nogil=True``, so
that a helper thread pages its arrays in while it writes them: ``prefault``) that call
them with its own rules as a module global, because numba caches on disk only what it
can key across processes.
A function that receives the rules as an argument is typed by a compiled function
whose identity is per process; a wrapper made by a factory (a closure over the rules)
is keyed by its pickled closure, and a compiled function pickles with a per-process id.
Tried: a factory-made ``cache=True`` wrapper missed the cache on every process start
and wrote one more cache file each time, so each start would compile the exploration
again (seconds per game). Module-level wrappers, resolved through the module's
globals, are keyed by their source file and load from the cache. After editing this
file, clear the games' numba caches (docs/architecture.md, "Developing").
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import njit


def rules_kernel(fn: Callable) -> Callable:
    """Compile a game's `rules(params, code, weight, next, cost)` (see the module
    docstring): cached, and without numba's reference counting (``_nrt=False``).

    Why: the rules run once per state in every pass, and a compiled function increfs the
    arrays it is given on entry and decrefs them on each way out, an atomic operation
    each. For rules that cost tens of nanoseconds that is most of the call
    (docs/measurements.md). Rules only
    read `params` and write into the three arrays they are handed, so they need no
    reference counting; a function compiled so cannot allocate an array (numba refuses
    it at compile time), which rules have no reason to do."""
    return njit(cache=True, _nrt=False)(fn)


@njit(inline="always")
def clear_expansion(weight, nxt, cost):
    """Hand the rules cleared arrays: weights 0, no choice (-1), costs 0."""
    weight[:] = 0
    nxt[:, :] = -1
    cost[:, :] = 0


@njit(inline="always")
def expand_batch(rules, params, codes, K, C):
    """(terminal[B], weight[B, K], next[B, K, C], cost[B, K, C]) of a batch of codes."""
    B = codes.shape[0]
    terminal = np.zeros(B, dtype=np.bool_)
    weight = np.zeros((B, K), dtype=np.int64)
    nxt = np.full((B, K, C), -1, dtype=np.int64)
    cost = np.zeros((B, K, C), dtype=np.int64)
    for b in range(B):
        terminal[b] = rules(params, codes[b], weight[b], nxt[b], cost[b])
    return terminal, weight, nxt, cost


@njit(inline="always")
def _popcount(x):
    """Set bits of a uint64 (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(inline="always")
def count_below(bits, rank):
    """Write into rank[w] the set bits of bits[:w] (the reached states below word w, in
    code order)."""
    n = 0
    for word in range(bits.shape[0]):
        rank[word] = n
        n += int(_popcount(bits[word]))


@njit(inline="always")
def pop_lowest(word, x):
    """The code of the lowest set bit of `x` (the bitmap's word number `word`, or what is
    left of it) and `x` without that bit: the bitmap's codes one by one, in order."""
    low = x & (~x + np.uint64(1))
    return word * 64 + int(_popcount(low - np.uint64(1))), x ^ low


@njit(inline="always")
def rank_of(bits_word, rank_word, code):
    """The index of a reached `code` in code order: the states below its 64-bit word of
    the bitmap (`rank_word`) plus the set bits below it in that word (`bits_word`).
    Scalars only, so that a loop over tens of millions of codes pays no reference
    counting for it."""
    below = bits_word & ((np.uint64(1) << np.uint64(code & 63)) - np.uint64(1))
    return rank_word + int(_popcount(below))


@njit(inline="always")
def reach(rules, params, start, bound, K, C):
    """First pass: every code reachable from `start`, breadth first, marked in a bitmap
    of `bound` bits, the rules checked on the way. Returns (bitmap, states, outcomes,
    choices, largest weight, largest state weight total, largest cost), from which the
    caller sizes ``fill``'s arrays and picks their narrowest integer types; raises
    ValueError naming a broken rule. The queue grows in an outer loop only, so that in
    the loop over the states it is never reassigned: an array reassigned inside a loop
    is reference counted at every turn (numba), and inside the loop over a state's
    choices it made that loop many times slower (docs/measurements.md)."""
    words = (bound + 63) // 64
    bits = np.zeros(words, dtype=np.uint64)
    w = np.zeros(K, dtype=np.int64)
    nx = np.full((K, C), -1, dtype=np.int64)
    cs = np.zeros((K, C), dtype=np.int64)
    queue = np.empty(1 << 16, dtype=np.int64)
    queue[0] = start
    bits[start >> 6] |= np.uint64(1) << np.uint64(start & 63)
    head, tail, n_out, n_edge = 0, 1, 0, 0
    top_w, top_total, top_cost = 1, 1, 0
    while head < tail:
        if queue.shape[0] - tail < K * C * 1024:  # room for the next 1,024 states' choices
            grown = np.empty(2 * queue.shape[0] + K * C * 1024, dtype=np.int64)
            for i in range(tail):  # (a loop: a slice copy costs seconds of compiling)
                grown[i] = queue[i]
            queue = grown
        stop = min(tail, head + 1024)
        while head < stop:
            code = queue[head]
            head += 1
            clear_expansion(w, nx, cs)
            if rules(params, code, w, nx, cs):
                continue
            total = 0
            for k in range(K):
                if w[k] < 0:
                    raise ValueError("a chance weight is negative")
                if w[k] == 0:
                    continue
                total += w[k]
                top_w = max(top_w, w[k])
                n_out += 1
                first = n_edge
                for c in range(C):
                    t = nx[k, c]
                    if t < 0:
                        continue
                    if cs[k, c] < 0 or cs[k, c] >= 2**31:
                        raise ValueError("a choice's cost is negative or too large")
                    top_cost = max(top_cost, cs[k, c])
                    n_edge += 1
                    if t >= bound:
                        raise ValueError("a state code is beyond the game's code_bound")
                    word, bit = t >> 6, np.uint64(1) << np.uint64(t & 63)
                    if not bits[word] & bit:
                        bits[word] |= bit
                        queue[tail] = t
                        tail += 1
                if n_edge == first:
                    raise ValueError("a chance outcome offers no choice")
            if total == 0:
                raise ValueError("a non-terminal state has no chance outcome")
            top_total = max(top_total, total)
    if tail >= 2**31:
        raise ValueError("more than 2**31 states")
    return bits, tail, n_out, n_edge, top_w, top_total, top_cost


@njit(inline="always")
def fill(rules, params, bits, start, K, C, arrays):
    """Second pass: visit the set bits of ``reach``'s bitmap in code order and write the
    arrays of a ``Graph`` (`arrays`, its ``GraphArrays``: allocated by the caller, exactly
    sized, of any integer types that hold the values), states indexed in increasing code
    order, a target's index being the rank of its code in the bitmap (prefix counts per
    64-bit word plus a popcount), so no code-to-index table or temporary target codes are
    needed. Returns the start's index."""
    codes, terminal, denom, out_ptr, weight, outcome_k, choice_ptr, target, cost, choice_c = arrays
    words = bits.shape[0]
    w = np.zeros(K, dtype=np.int64)
    nx = np.full((K, C), -1, dtype=np.int64)
    cs = np.zeros((K, C), dtype=np.int64)
    rank = np.empty(words, dtype=np.int32)
    count_below(bits, rank)
    i = 0
    for word in range(words):
        x = bits[word]
        while x:
            codes[i], x = pop_lowest(word, x)
            i += 1
    o, e = 0, 0
    out_ptr[0] = 0
    choice_ptr[0] = 0
    for s in range(codes.shape[0]):
        clear_expansion(w, nx, cs)
        terminal[s] = rules(params, codes[s], w, nx, cs)
        denom[s] = 1
        if not terminal[s]:
            total = 0
            for k in range(K):
                if w[k] == 0:
                    continue
                total += w[k]
                weight[o] = w[k]
                outcome_k[o] = k
                for c in range(C):
                    t = nx[k, c]
                    if t < 0:
                        continue
                    target[e] = rank_of(bits[t >> 6], rank[t >> 6], t)
                    cost[e] = cs[k, c]
                    choice_c[e] = c
                    e += 1
                o += 1
                choice_ptr[o] = e
            denom[s] = total
        out_ptr[s + 1] = o
    return rank_of(bits[start >> 6], rank[start >> 6], start)
