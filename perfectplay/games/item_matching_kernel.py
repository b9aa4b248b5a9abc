"""Compiled feedback of item matching (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit


def _kernel(guesses, secrets, out):  # compiled below as item_matching
    """out[i, j] = sum over slots p of digit_p * 3**p (0 Incorrect, 1 Wrong slot, 2 Correct).

    Slot p is Correct when the items agree; otherwise Wrong slot when the guessed item
    occurs in the secret at some slot that is not Correct, else Incorrect. Written without
    branches (the comparisons are summed as 0 or 1), one secret at a time: about four
    times faster than the same test with branches, which the search feels directly when
    feedbacks are computed per node rather than tabulated.
    """
    L = guesses.shape[1]
    power = np.empty(L, dtype=np.int64)
    w = 1
    for p in range(L):
        power[p] = w
        w *= 3
    for j in range(secrets.shape[0]):
        for i in range(guesses.shape[0]):
            code = 0
            open_items = 0  # bit a set: item a sits in a slot of the secret that is not Correct
            for p in range(L):
                a = np.int64(secrets[j, p])
                same = np.int64(guesses[i, p]) == a
                code += 2 * power[p] * same
                open_items |= (1 - same) << a
            for p in range(L):
                g = np.int64(guesses[i, p])
                other = np.int64(secrets[j, p]) != g
                code += power[p] * (other & ((open_items >> g) & 1))
            out[i, j] = code


item_matching = njit(cache=True, nogil=True)(_kernel)
