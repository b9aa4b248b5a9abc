"""Compiled feedback of item matching (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: int32 lanes of the widest vector unit (AVX-512): the secrets are padded to a multiple.
LANES = 16


def _kernel(guesses, secrets, out):  # compiled below as item_matching
    """out[i, j] = sum over slots p of digit_p * 3**p (0 Incorrect, 1 Wrong slot, 2 Correct).

    Slot p is Correct when the items agree; otherwise Wrong slot when the guessed item
    occurs in the secret at some slot that is not Correct, else Incorrect. Written for
    the vector unit: the secrets are laid out slot by slot (padded to a multiple of
    ``LANES``, so that no pair is left to a scalar remainder loop) and each guess is
    compared with all of them one slot at a time, the comparisons summed as 0 or 1
    without branches: about 1.7 ns a pair against 4.5 ns for the same formula one pair
    at a time (with branches, four times slower still).
    """
    L, n = guesses.shape[1], secrets.shape[0]
    padded = (n + LANES - 1) // LANES * LANES
    columns = np.zeros((L, padded), dtype=np.int32)
    for j in range(n):
        for p in range(L):
            columns[p, j] = secrets[j, p]
    code = np.empty(padded, dtype=np.int32)
    open_items = np.empty(padded, dtype=np.int32)  # bit a: item a in a slot not Correct
    for i in range(guesses.shape[0]):
        for j in range(padded):
            code[j] = 0
            open_items[j] = 0
        w = 1
        for p in range(L):
            g = np.int32(guesses[i, p])
            for j in range(padded):  # (no slices: each would cost reference counting)
                same = np.int32(columns[p, j] == g)
                code[j] += 2 * w * same
                open_items[j] |= (1 - same) << columns[p, j]
            w *= 3
        w = 1
        for p in range(L):
            g = np.int32(guesses[i, p])
            for j in range(padded):
                other = np.int32(columns[p, j] != g)
                code[j] += w * (other & ((open_items[j] >> g) & 1))
            w *= 3
        for j in range(n):
            out[i, j] = code[j]


item_matching = njit(cache=True, nogil=True)(_kernel)
