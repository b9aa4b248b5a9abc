"""The exact search below the first levels, compiled whole (numba, cached on disk).

``Search`` (search.py) runs the first levels in Python, where progress is reported,
Ctrl-C is honoured and work is shared among processes; below them a node costs
microseconds, so the same branch-and-bound runs here without returning to Python:
the same bounds, canonical guesses, obvious guesses, candidate order and tie-breaks, so
both give the same values and the same trees. Only games whose guesses are never
restricted by the history come here (a restriction is game code, in Python).

Memo keys are a 128-bit hash of the consistent set (two independent 64-bit hashes)
with the cap: a collision among the few million sets of a search has probability below
1e-24. A second key, the hash of the history's canonical form under the symmetry group
(``kernels.history_key``), is shared by every history equivalent to it: its entries
keep the guess in canonical coordinates, mapped back to each history that reads it.

All state lives in a ``Context`` tuple built by ``search.Search``; the functions take
it as their first argument:

    fb, codes, perms, act, relabel, n_symbols, solved, secret_of_guess,
    guess_of_secret, lower, small, switches, exact, lower_memo, fits_memo,
    hist_g, hist_f, counters, mark, n_feedbacks, branching, index_of_code

``index_of_code`` maps a packed code (base n_symbols) to its guess index, -1 for no
guess (empty: no keys from histories). ``lower[c]`` is ``Search.lower_row(c)`` for c up
to the first cap whose row no longer changes; ``small`` the exact values of cells of 0,
1, 2 secrets (0 beyond).

Numba's disk cache does not notice edits to ``kernels.py``, whose functions these
call: after editing it, delete the ``*.nbi``/``*.nbc`` files (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (canonical, from_canonical, hash_step, history_key, score_guesses, split,
                      to_canonical)

INF = 1 << 40

# Context slots
FB, CODES, PERMS, ACT, RELABEL, N_SYMBOLS, SOLVED, SOG, GOS, LOWER, SMALL = range(11)
SWITCHES, EXACT, LOWER_MEMO, FITS_MEMO, HIST_G, HIST_F, COUNTERS, MARK = range(11, 19)
N_FEEDBACKS, BRANCHING, INDEX_OF_CODE = 19, 20, 21
#: Added to the cap in memo keys made from a history (never equal to a set's key).
HISTORY_TAG = 1 << 32
# switches
SYMMETRY, BOUNDS, MEMO, OBVIOUS, LOOKAHEAD = range(5)


@njit(cache=True)
def set_key(subset, cap):
    """(hash1, hash2, cap): the memo key of a sorted consistent set."""
    h1 = np.uint64(0xCBF29CE484222325) ^ np.uint64(subset.shape[0])
    h2 = np.uint64(0x9E3779B97F4A7C15) * np.uint64(subset.shape[0] + 1)
    for j in range(subset.shape[0]):
        h1, h2 = hash_step(h1, h2, subset[j])
    return (np.int64(h1), np.int64(h2), np.int64(cap))


@njit(cache=True)
def lower_row(ctx, cap):
    """The lower bounds of sets of each size within `cap` guesses (later rows are equal)."""
    lower = ctx[LOWER]
    return lower[min(cap, lower.shape[0] - 1)]


@njit(cache=True)
def candidates(ctx, depth, subset):
    """The guesses worth trying on `subset` after `depth` guesses: one per orbit.

    As ``symmetry.candidates``: the history's stabiliser, with the symbols no secret of
    `subset` uses interchangeable.
    """
    fb = ctx[FB]
    G = fb.shape[0]
    cand = np.arange(G)
    if not ctx[SWITCHES][SYMMETRY]:
        return cand
    perms, act, hist_f = ctx[PERMS], ctx[ACT], ctx[HIST_F]
    ok = np.ones(perms.shape[0], dtype=np.bool_)
    for k in range(perms.shape[0]):
        for h in range(depth):
            if act[k, hist_f[h]] != hist_f[h]:
                ok[k] = False
                break
    codes = ctx[CODES]
    hist = np.empty((depth, codes.shape[1]), dtype=codes.dtype)
    for h in range(depth):
        hist[h] = codes[ctx[HIST_G][h]]
    absent = np.zeros(ctx[N_SYMBOLS], dtype=np.bool_)
    if ctx[RELABEL]:
        absent[:] = True
        gos = ctx[GOS]
        for j in range(subset.shape[0]):
            for p in range(codes.shape[1]):
                absent[codes[gos[subset[j]], p]] = False
    keep = canonical(codes, cand, perms[ok], hist, ctx[N_SYMBOLS], ctx[RELABEL], absent)
    return cand[keep]


@njit(cache=True)
def possible_mask(ctx, cand, subset):
    """Which guesses cand[i] are secrets of `subset` (still possible)."""
    mark, sog = ctx[MARK], ctx[SOG]
    for j in range(subset.shape[0]):
        mark[subset[j]] = True
    out = np.empty(cand.shape[0], dtype=np.bool_)
    for i in range(cand.shape[0]):
        s = sog[cand[i]]
        out[i] = s >= 0 and mark[s]
    for j in range(subset.shape[0]):
        mark[subset[j]] = False
    return out


@njit(cache=True)
def obvious_possible(ctx, subset, cap):
    """(guess, value) of an obviously optimal possible guess, or (-1, 0) (``Search.obvious_possible``)."""
    n = subset.shape[0]
    if not ctx[SWITCHES][OBVIOUS] or n > ctx[BRANCHING] + 1:
        return np.int64(-1), np.int64(0)
    inside = ctx[GOS][subset]
    exact, largest = score_guesses(ctx[FB], inside, subset, ctx[SMALL], ctx[SOLVED], ctx[N_FEEDBACKS])
    for i in range(inside.shape[0]):
        if largest[i] <= 1:
            return np.int64(inside[i]), np.int64(2 * n - 1)
    if cap >= 3:
        for i in range(inside.shape[0]):
            if largest[i] <= 2 and exact[i] == 2 * n:
                return np.int64(inside[i]), np.int64(2 * n)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def prepare(ctx, subset, depth, cap, child):
    """Candidates with bound, possibility and largest cell; or an obvious guess.

    Returns (obvious guess or -1, its value, cand, bound, possible, largest), as
    ``Search.prepare`` does.
    """
    n = subset.shape[0]
    empty = np.empty(0, dtype=np.int64)
    none = np.empty(0, dtype=np.bool_)
    guess, value = obvious_possible(ctx, subset, cap)
    if guess >= 0:
        return guess, value, empty, empty, none, empty
    cand = candidates(ctx, depth, subset)
    possible = possible_mask(ctx, cand, subset)
    bound, largest = score_guesses(ctx[FB], cand, subset, child, ctx[SOLVED], ctx[N_FEEDBACKS])
    useful = possible | (largest < n)
    if ctx[SWITCHES][OBVIOUS]:
        for i in range(cand.shape[0]):
            if useful[i] and largest[i] <= 1:
                return cand[i], np.int64(2 * n), empty, empty, none, empty
    return np.int64(-1), np.int64(0), cand[useful], bound[useful], possible[useful], largest[useful]


@njit(cache=True)
def ordered_cells(ctx, guess, subset):
    """The non-solved cells of `subset` under `guess`: (members, feedbacks, starts, order).

    ``order`` lists the cells largest first (ties by feedback), as ``Search.cells`` does.
    """
    members, feedbacks, starts = split(ctx[FB][guess], subset, ctx[N_FEEDBACKS])
    k = feedbacks.shape[0]
    keys = np.empty(k, dtype=np.int64)
    m = 0
    for c in range(k):
        if feedbacks[c] != ctx[SOLVED]:
            keys[m] = -(starts[c + 1] - starts[c]) * 1024 + c
            m += 1
    keys = np.sort(keys[:m])
    order = np.empty(m, dtype=np.int64)
    for i in range(m):
        order[i] = keys[i] % 1024
    return members, feedbacks, starts, order


@njit(cache=True)
def history_slot(ctx, depth, cap):
    """(usable, memo key, e, rename) of the history's canonical form (``history_key``)."""
    sw = ctx[SWITCHES]
    if not (sw[MEMO] and sw[SYMMETRY]) or ctx[INDEX_OF_CODE].shape[0] == 0:
        return False, (np.int64(0), np.int64(0), np.int64(0)), np.int64(0), np.arange(1)
    h1, h2, e, rename = history_key(ctx[CODES], ctx[HIST_G], ctx[HIST_F], depth, ctx[PERMS],
                                    ctx[ACT], ctx[RELABEL], ctx[N_SYMBOLS])
    usable = h1 != 0 or h2 != 0
    return usable, (h1, h2, np.int64(cap + HISTORY_TAG)), e, rename


@njit(cache=True)
def canonical_guess(ctx, guess, e, rename):
    """A guess in the canonical coordinates of the history (-1 stays -1)."""
    if guess < 0:
        return np.int64(-1)
    return to_canonical(ctx[CODES][guess], ctx[PERMS][e], rename, ctx[N_SYMBOLS])


@njit(cache=True)
def actual_guess(ctx, packed, e, rename):
    """The guess of this history whose canonical image is `packed` (-1 stays -1)."""
    if packed < 0:
        return np.int64(-1)
    return from_canonical(packed, ctx[PERMS][e], rename, ctx[N_SYMBOLS], ctx[CODES].shape[1],
                          ctx[INDEX_OF_CODE])


@njit(cache=True)
def wider_value(ctx, key, n):
    """What the memo knows of the same set with one more guess allowed: a lower bound
    (more guesses never cost more), which the pass for the worst-case tie-break reuses."""
    cap = key[2]
    if cap >= n:
        return np.int64(0)
    wider = (key[0], key[1], cap + 1)
    if wider in ctx[EXACT]:
        return ctx[EXACT][wider][0]
    if wider in ctx[LOWER_MEMO]:
        return ctx[LOWER_MEMO][wider]
    return np.int64(0)


@njit(cache=True)
def recall(ctx, key, shared, hkey, n):
    """What the memo knows of a set of n secrets: (exact?, value, guess, by history?).

    An exact value comes with its guess (in canonical coordinates when found under the
    history's key: ``actual_guess`` maps it back); otherwise the best lower bound known
    (under either key, or with one guess more) and guess -1.
    """
    exact, lower_memo = ctx[EXACT], ctx[LOWER_MEMO]
    if key in exact:
        hit = exact[key]
        return True, hit[0], hit[1], False
    if shared and hkey in exact:
        hit = exact[hkey]
        return True, hit[0], hit[1], True
    known = max(lower_memo[key] if key in lower_memo else np.int64(0), wider_value(ctx, key, n))
    if shared and hkey in lower_memo:
        known = max(known, lower_memo[hkey])
    return False, known, np.int64(-1), False


@njit(cache=True)
def remember(ctx, key, shared, hkey, e, rename, value, guess):
    """Store an exact value with its guess (guess >= 0) or a lower bound, under both keys."""
    if guess >= 0:
        ctx[EXACT][key] = (value, guess)
        if shared:
            ctx[EXACT][hkey] = (value, canonical_guess(ctx, guess, e, rename))
    else:
        lower_memo = ctx[LOWER_MEMO]
        lower_memo[key] = max(lower_memo[key] if key in lower_memo else np.int64(0), value)
        if shared:
            lower_memo[hkey] = max(lower_memo[hkey] if hkey in lower_memo else np.int64(0), value)


@njit(cache=True)
def cell_bound(ctx, part, depth, cap):
    """A lower bound of ``best(part, cap)`` from one look at the cell's own candidates.

    The least candidate bound (or the exact value when an obvious guess exists, or the
    memo's knowledge): far tighter than the bound by size alone, for the cost of
    scoring the candidates once. Remembered as a lower bound.
    """
    m = part.shape[0]
    if m == 0:
        return np.int64(0)
    if cap <= 0 or (cap == 1 and m > 1):
        return np.int64(INF)
    if m <= 2:
        return np.int64(2 * m - 1)
    cap = min(cap, m)
    low = lower_row(ctx, cap)[m]
    key = set_key(part, cap)
    shared, hkey, e, rename = history_slot(ctx, depth, cap)
    use_memo = ctx[SWITCHES][MEMO]
    if use_memo:
        found, value, _, _ = recall(ctx, key, shared, hkey, m)
        if found or value > low:
            return value  # exact, or looked at before
    if ctx[SWITCHES][OBVIOUS] and m <= ctx[BRANCHING] + 1:
        # small cells: the obvious guesses only (``Search.cell_bound``)
        obvious, value = obvious_possible(ctx, part, cap)
        if obvious < 0:
            return max(low, np.int64(2 * m))
    else:
        obvious, value, _, bound, _, _ = prepare(ctx, part, depth, cap, lower_row(ctx, cap - 1))
        if obvious < 0 and bound.shape[0] > 0:
            low = max(low, bound.min())
    if obvious >= 0:
        low = np.int64(value)
    if use_memo:
        remember(ctx, key, shared, hkey, e, rename, low, np.int64(obvious))
    return low


@njit(cache=True)
def best(ctx, subset, depth, cap, budget):
    """(value, guess) of the sorted set `subset` within `cap` guesses, if below `budget`.

    Otherwise (a lower bound >= budget, -1); INF means no strategy fits the cap.
    ``depth`` guesses of history are in hist_g/hist_f. One function with ``Search.best``
    and ``Search._search`` together: numba's disk cache cannot hold mutual recursion.
    """
    n = subset.shape[0]
    if n == 0:
        return np.int64(0), np.int64(-1)
    if cap <= 0 or (cap == 1 and n > 1):
        return np.int64(INF), np.int64(-1)
    if n <= 2:
        return np.int64(2 * n - 1), np.int64(ctx[GOS][subset[0]])
    cap = min(cap, n)
    sw = ctx[SWITCHES]
    bounds = sw[BOUNDS]
    low = lower_row(ctx, cap)[n]
    if bounds and low >= budget:
        return np.int64(low), np.int64(-1)
    key = set_key(subset, cap)
    shared, hkey, e, rename = history_slot(ctx, depth, cap)
    if sw[MEMO]:
        found, value, guess, by_history = recall(ctx, key, shared, hkey, n)
        if found and value < budget:
            return value, actual_guess(ctx, guess, e, rename) if by_history else guess
        if value >= budget:
            return value, np.int64(-1)
    ctx[COUNTERS][0] += 1

    child = lower_row(ctx, cap - 1)
    obvious, value, cand, bound, possible, _ = prepare(ctx, subset, depth, cap, child)
    if obvious >= 0:
        best_value = np.int64(value)
        best_guess = np.int64(obvious) if value < budget else np.int64(-1)
    else:
        G = ctx[FB].shape[0]
        best_value = budget if bounds else np.int64(INF)
        best_guess = np.int64(-1)
        if bounds and bound.shape[0] > 0 and bound.min() >= budget:
            best_value = bound.min()  # a tighter lower bound for the memo
        keys = bound * (2 * G) + (1 - possible.astype(np.int64)) * G + cand
        for i in np.argsort(keys):
            if bound[i] >= min(best_value, INF):
                break
            g = cand[i]
            members, feedbacks, starts, order = ordered_cells(ctx, g, subset)
            ctx[HIST_G][depth] = g
            lower = np.empty(order.shape[0], dtype=np.int64)
            total = np.int64(n)
            for k in range(order.shape[0]):
                c = order[k]
                part = members[starts[c]:starts[c + 1]]
                if bounds and sw[LOOKAHEAD]:
                    ctx[HIST_F][depth] = feedbacks[c]
                    lower[k] = cell_bound(ctx, part, depth + 1, cap - 1)
                else:
                    lower[k] = child[part.shape[0]] if bounds else np.int64(0)
                total += lower[k]
                if bounds and total >= best_value:
                    break
            if bounds and total >= best_value:
                continue
            complete = True
            for k in range(order.shape[0]):
                c = order[k]
                part = members[starts[c]:starts[c + 1]]
                ctx[HIST_F][depth] = feedbacks[c]
                v, _ = best(ctx, part, depth + 1, cap - 1,
                            best_value - (total - lower[k]) if bounds else np.int64(INF))
                total += v - lower[k]
                if total >= best_value and (bounds or v >= INF):
                    complete = False
                    break
            if complete and total < best_value:
                best_value, best_guess = total, g
    if sw[MEMO]:
        remember(ctx, key, shared, hkey, e, rename, best_value, best_guess)
    return best_value, best_guess


@njit(cache=True)
def capacity(branching, cap):
    """Most secrets any strategy can reveal within `cap` guesses."""
    if branching <= 1:
        return max(cap, 0)
    total, width = 0, 1
    for _ in range(max(cap, 0)):
        total += width
        width *= branching
        if total > (1 << 40):
            break
    return total


@njit(cache=True)
def fits(ctx, subset, depth, cap):
    """A guess revealing every secret of `subset` within `cap` guesses, or -1.

    ``Search.fits`` and ``Search._fit_search`` in one function (no mutual recursion).
    """
    n = subset.shape[0]
    if n == 0:
        return np.int64(0)
    sw = ctx[SWITCHES]
    if cap <= 0 or (cap == 1 and n > 1) or (sw[BOUNDS] and n > capacity(ctx[BRANCHING], cap)):
        return np.int64(-1)
    if n <= 2:
        return np.int64(ctx[GOS][subset[0]])
    key = set_key(subset, min(cap, n))
    shared, hkey, e, rename = history_slot(ctx, depth, min(cap, n))
    memo = ctx[FITS_MEMO]
    if sw[MEMO]:
        if key in memo:
            return memo[key]
        if shared and hkey in memo:
            return actual_guess(ctx, memo[hkey], e, rename)
    ctx[COUNTERS][0] += 1
    obvious, _, cand, _, possible, largest = prepare(ctx, subset, depth, cap, ctx[LOWER][0])
    found = np.int64(obvious)
    if obvious < 0:
        G = ctx[FB].shape[0]
        room = capacity(ctx[BRANCHING], cap - 1)
        keys = largest * (2 * G) + (1 - possible.astype(np.int64)) * G + cand
        for i in np.argsort(keys, kind="mergesort"):
            if sw[BOUNDS] and largest[i] > room:
                continue
            g = cand[i]
            members, feedbacks, starts, order = ordered_cells(ctx, g, subset)
            ok = True
            for c in order:
                ctx[HIST_G][depth] = g
                ctx[HIST_F][depth] = feedbacks[c]
                if fits(ctx, members[starts[c]:starts[c + 1]], depth + 1, cap - 1) < 0:
                    ok = False
                    break
            if ok:
                found = np.int64(g)
                break
    if sw[MEMO]:
        memo[key] = found
        if shared:
            memo[hkey] = canonical_guess(ctx, found, e, rename)
    return found
