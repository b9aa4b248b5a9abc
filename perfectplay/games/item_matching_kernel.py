"""Compiled feedback of item matching (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


#: Below this many guess-secret pairs a call runs on one thread (starting threads costs more).
PARALLEL_WORK = 1 << 20


def item_matching(guesses, secrets, n_items, out):
    """Fill out[i, j] with the feedback of guesses[i] against secrets[j] (see `_fill`)."""
    if guesses.shape[0] * secrets.shape[0] >= PARALLEL_WORK and guesses.shape[0] > 1:
        _fill_parallel(guesses, secrets, n_items, out)
    else:
        _fill(guesses, secrets, n_items, out)


def _kernel(guesses, secrets, n_items, out):
    """out[i, j] = sum over slots p of digit_p * 3**p (0 Incorrect, 1 Wrong slot, 2 Correct).

    Slot p is Correct when the items agree; otherwise Wrong slot when the guessed item
    occurs in the secret at some slot that is not Correct, else Incorrect.
    """
    L = guesses.shape[1]
    for i in prange(guesses.shape[0]):
        open_count = np.zeros(n_items, dtype=np.int32)
        for j in range(secrets.shape[0]):
            for p in range(L):
                if guesses[i, p] != secrets[j, p]:
                    open_count[secrets[j, p]] += 1
            code = 0
            weight = 1
            for p in range(L):
                g = guesses[i, p]
                if g == secrets[j, p]:
                    code += 2 * weight
                elif open_count[g] > 0:
                    code += weight
                weight *= 3
            for p in range(L):
                open_count[secrets[j, p]] = 0
            out[i, j] = code


_fill = njit(cache=True)(_kernel)
_fill_parallel = njit(cache=True, parallel=True)(_kernel)
