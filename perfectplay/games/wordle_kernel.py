"""Compiled feedback of Wordle (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Letters a..z are symbols 0..25.
LETTERS = 26


def _kernel(guesses, secrets, out):
    """out[i, j] = sum over positions p of digit_p * 3**p (0 grey, 1 yellow, 2 green).

    Greens first; then, left to right, a letter is yellow while the answer still has
    copies of it not matched by a green or an earlier yellow, else grey.
    """
    L = guesses.shape[1]
    for i in range(guesses.shape[0]):
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


#: The compiled kernel (releases the GIL: tables are filled on several threads).
wordle = njit(cache=True, nogil=True)(_kernel)
