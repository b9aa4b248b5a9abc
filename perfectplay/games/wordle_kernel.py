"""Compiled feedback of Wordle (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Below this many guess-secret pairs a call runs on one thread (starting threads costs more).
PARALLEL_WORK = 1 << 20

#: Letters a..z are symbols 0..25.
LETTERS = 26


def wordle(guesses, secrets, out):
    """Fill out[i, j] with the feedback of guesses[i] against secrets[j].

    `out` may be any integer array wide enough for 3**length values (uint8 up to five
    letters).
    """
    if guesses.shape[0] * secrets.shape[0] >= PARALLEL_WORK and guesses.shape[0] > 1:
        _fill_parallel(guesses, secrets, out)
    else:
        _fill(guesses, secrets, out)


def _kernel(guesses, secrets, out):
    """out[i, j] = sum over positions p of digit_p * 3**p (0 grey, 1 yellow, 2 green).

    Greens first; then, left to right, a letter is yellow while the answer still has
    copies of it not matched by a green or an earlier yellow, else grey.
    """
    L = guesses.shape[1]
    for i in prange(guesses.shape[0]):
        unmatched = np.zeros(LETTERS, dtype=np.int32)
        for j in range(secrets.shape[0]):
            code = 0
            weight = 1
            for p in range(L):
                a = secrets[j, p]
                if guesses[i, p] == a:
                    code += 2 * weight
                else:
                    unmatched[a] += 1
                weight *= 3
            weight = 1
            for p in range(L):
                g = guesses[i, p]
                if g != secrets[j, p] and unmatched[g] > 0:
                    unmatched[g] -= 1
                    code += weight
                weight *= 3
            for p in range(L):  # leave the counts at zero for the next secret
                unmatched[secrets[j, p]] = 0
            out[i, j] = code


_fill = njit(cache=True)(_kernel)
_fill_parallel = njit(cache=True, parallel=True)(_kernel)
