"""Compiled loops of the win-probability search (numba, cached on disk; imported lazily)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def history_key(codes, feedbacks, perms, act, relabel, n_symbols):
    """The least image of a history under the position permutations `perms` and relabelling.

    An image lists, entry by entry, the permuted feedback (act[k, f]) then the permuted
    code with symbols renamed in order of first appearance (when `relabel`, every
    relabelling of the symbols being a symmetry). Histories in one orbit get one key.
    """
    h, L = codes.shape
    best = np.full(h * (L + 1), 1 << 30, dtype=np.int64)
    image = np.empty(h * (L + 1), dtype=np.int64)
    rename = np.empty(n_symbols, dtype=np.int64)
    for k in range(perms.shape[0]):
        for a in range(n_symbols):
            rename[a] = -1
        nxt = 0
        for e in range(h):
            image[e * (L + 1)] = act[k, feedbacks[e]]
            for p in range(L):
                s = codes[e, perms[k, p]]
                if relabel:
                    if rename[s] == -1:
                        rename[s] = nxt
                        nxt += 1
                    s = rename[s]
                image[e * (L + 1) + 1 + p] = s
        for q in range(image.shape[0]):
            if image[q] != best[q]:
                if image[q] < best[q]:
                    best[:] = image
                break
    return best


@njit(cache=True)
def distinct_open(fb, solved, n_feedbacks):
    """For each row of fb: the number of distinct non-solved feedbacks in it."""
    m, n = fb.shape
    out = np.zeros(m, dtype=np.int64)
    stamp = np.full(n_feedbacks, -1, dtype=np.int64)
    for i in range(m):
        c = 0
        for j in range(n):
            f = fb[i, j]
            if f != solved and stamp[f] != i:
                stamp[f] = i
                c += 1
        out[i] = c
    return out


@njit(cache=True)
def capped_cells(fb, solved, n_feedbacks, cap):
    """For each row of fb: the sum over its non-solved cells of min(cell size, cap)."""
    m, n = fb.shape
    out = np.zeros(m, dtype=np.int64)
    cnt = np.zeros(n_feedbacks, dtype=np.int64)
    for i in range(m):
        for f in range(n_feedbacks):
            cnt[f] = 0
        for j in range(n):
            cnt[fb[i, j]] += 1
        total = 0
        for f in range(n_feedbacks):
            if f != solved:
                total += min(cnt[f], cap)
        out[i] = total
    return out
