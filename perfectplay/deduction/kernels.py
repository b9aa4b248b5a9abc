"""Compiled inner loops of the deduction engine (numba, cached on disk; imported lazily)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def partition_counts(fb, cand, subset, n_feedbacks):
    """counts[i, f] = how many secrets of `subset` give feedback f to guess cand[i]."""
    counts = np.zeros((cand.shape[0], n_feedbacks), dtype=np.int32)
    for i in range(cand.shape[0]):
        row = fb[cand[i]]
        for j in range(subset.shape[0]):
            counts[i, row[subset[j]]] += 1
    return counts


@njit(cache=True)
def counts_of_feedback(values, n_feedbacks):
    """counts[i, f] = how many entries of values[i] equal f (feedbacks computed on the fly)."""
    counts = np.zeros((values.shape[0], n_feedbacks), dtype=np.int32)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            counts[i, values[i, j]] += 1
    return counts


@njit(cache=True)
def stabiliser(perms, history_codes, n_symbols, relabel):
    """Position permutations pi (with their symbol maps tau) fixing every history code.

    An element acts as c -> tau[c[pi]]. Returns (ok mask, taus): taus[k, a] is the image
    of symbol a (or -1 for a symbol no history code uses). Without `relabel`, tau must be
    the identity on the symbols used.
    """
    k, L = perms.shape
    ok = np.ones(k, dtype=np.bool_)
    taus = np.full((k, n_symbols), -1, dtype=np.int16)
    used_by = np.full(n_symbols, -1, dtype=np.int16)
    for e in range(k):
        for a in range(n_symbols):
            used_by[a] = -1
        for h in range(history_codes.shape[0]):
            for i in range(L):
                src = history_codes[h, perms[e, i]]
                dst = history_codes[h, i]
                if not relabel and src != dst:
                    ok[e] = False
                if taus[e, src] == -1:
                    if used_by[dst] != -1 and used_by[dst] != src:
                        ok[e] = False
                    taus[e, src] = dst
                    used_by[dst] = src
                elif taus[e, src] != dst:
                    ok[e] = False
            if not ok[e]:
                break
    return ok, taus


@njit(cache=True)
def canonical_mask(codes, cand, perms, taus, free, relabel):
    """Which guesses cand[i] are the least code of their orbit under the history's stabiliser.

    The stabiliser is the given (pi, tau) pairs times every relabelling of the `free`
    symbols (those no history code uses, interchangeable when `relabel`). For each
    element the image of a code is built, its free symbols renamed in order of first
    appearance to the smallest free symbols (the least image under relabellings of free
    symbols), and compared lexicographically with the code.
    """
    n, L = cand.shape[0], codes.shape[1]
    n_symbols = free.shape[0]
    free_list = np.empty(n_symbols, dtype=np.int16)
    n_free = 0
    for a in range(n_symbols):
        if free[a]:
            free_list[n_free] = a
            n_free += 1
    keep = np.ones(n, dtype=np.bool_)
    image = np.empty(L, dtype=np.int16)
    rename = np.empty(n_symbols, dtype=np.int16)
    for i in range(n):
        c = codes[cand[i]]
        for e in range(perms.shape[0]):
            for a in range(n_symbols):
                rename[a] = -1
            nxt = 0
            for p in range(L):
                s = c[perms[e, p]]
                if free[s]:
                    if relabel:
                        if rename[s] == -1:
                            rename[s] = free_list[nxt]
                            nxt += 1
                        image[p] = rename[s]
                    else:
                        image[p] = s
                else:
                    image[p] = taus[e, s]
            # compare image with c lexicographically
            for p in range(L):
                if image[p] != c[p]:
                    if image[p] < c[p]:
                        keep[i] = False
                    break
            if not keep[i]:
                break
    return keep


@njit(cache=True)
def canonical(codes, cand, perms, history_codes, n_symbols, relabel):
    """The stabiliser of the history, then the canonical members of `cand` under it."""
    ok, taus = stabiliser(perms, history_codes, n_symbols, relabel)
    free = np.ones(n_symbols, dtype=np.bool_)
    for h in range(history_codes.shape[0]):
        for p in range(history_codes.shape[1]):
            free[history_codes[h, p]] = False
    n_free = 0
    for a in range(n_symbols):
        if free[a]:
            n_free += 1
    if ok.sum() == 1 and (not relabel or n_free <= 1):
        return np.ones(cand.shape[0], dtype=np.bool_)
    return canonical_mask(codes, cand, perms[ok], taus[ok], free, relabel)


@njit(cache=True)
def score_guesses(fb, rows, cols, lower, solved, n_feedbacks):
    """One pass over the candidate guesses of a node: bound and largest cell of each.

    For guess fb[rows[i]] against the secrets `cols`: bound[i] = len(cols) + the sum of
    lower[cell size] over its non-solved cells, and largest[i] = its largest non-solved
    cell. Small sets visit only the feedbacks they touch; larger ones scan all feedbacks.
    """
    n = cols.shape[0]
    m = rows.shape[0]
    bound = np.empty(m, dtype=np.int64)
    largest = np.empty(m, dtype=np.int64)
    cnt = np.zeros(n_feedbacks, dtype=np.int64)
    touched = np.empty(n_feedbacks, dtype=np.int64)
    sparse = n <= 8
    for i in range(m):
        row = fb[rows[i]]
        b = n
        big = 0
        if sparse:
            k = 0
            for j in range(n):
                f = row[cols[j]]
                if cnt[f] == 0:
                    touched[k] = f
                    k += 1
                cnt[f] += 1
            for q in range(k):
                f = touched[q]
                c = cnt[f]
                cnt[f] = 0
                if f != solved:
                    b += lower[c]
                    if c > big:
                        big = c
        else:
            for f in range(n_feedbacks):
                cnt[f] = 0
            for j in range(n):
                cnt[row[cols[j]]] += 1
            for f in range(n_feedbacks):
                c = cnt[f]
                if c > 0 and f != solved:
                    b += lower[c]
                    if c > big:
                        big = c
        bound[i] = b
        largest[i] = big
    return bound, largest


@njit(cache=True)
def split(fb_row, subset, n_feedbacks):
    """Sort `subset` by feedback (stable): returns (members, feedback of each cell, cell starts)."""
    cnt = np.zeros(n_feedbacks + 1, dtype=np.int64)
    for j in range(subset.shape[0]):
        cnt[fb_row[subset[j]] + 1] += 1
    k = 0
    for f in range(n_feedbacks):
        if cnt[f + 1] > 0:
            k += 1
    feedbacks = np.empty(k, dtype=np.int64)
    starts = np.empty(k + 1, dtype=np.int64)
    k = 0
    for f in range(n_feedbacks):
        if cnt[f + 1] > 0:
            feedbacks[k] = f
            starts[k] = cnt[f]
            k += 1
        cnt[f + 1] += cnt[f]
    starts[k] = subset.shape[0]
    out = np.empty_like(subset)
    pos = cnt[:n_feedbacks].copy()
    for j in range(subset.shape[0]):
        f = fb_row[subset[j]]
        out[pos[f]] = subset[j]
        pos[f] += 1
    return out, feedbacks, starts
