"""Compiled feedback of Wordle (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Letters a..z are symbols 0..25.
LETTERS = 26


#: Word lengths up to this take the table path below: its sums, 3**L - 1 at most, fit a byte.
TABLE_LENGTH = 5


def _kernel(guesses, secrets, out):
    """out[i, j] = sum over positions p of digit_p * 3**p (0 grey, 1 yellow, 2 green).

    Greens first; then, left to right, a letter is yellow while the answer still has
    copies of it not matched by a green or an earlier yellow, else grey.

    A guess that holds no letter twice (most guesses) takes a shorter path with the same
    marks: its letter at p, not green, is yellow exactly when the answer holds that letter
    anywhere (no green and no earlier yellow can have used the answer's copies of it). So
    its row is a sum of one precomputed row per position: ``part[p, letter, j]``, 3**p
    times 2 (green), 1 (held elsewhere) or 0, added over the answers in order, which the
    compiler turns into vector additions. ``tests/deduction/test_wordle.py`` holds both
    paths to the plain rule, repeated letters included.
    """
    L = guesses.shape[1]
    n = secrets.shape[0]
    part = np.zeros((L, LETTERS, n), dtype=np.uint8)
    if 0 < L <= TABLE_LENGTH:
        held = np.zeros((LETTERS, n), dtype=np.uint8)
        for j in range(n):
            for p in range(L):
                held[secrets[j, p], j] = 1
        weight = 1
        for p in range(L):
            for letter in range(LETTERS):
                for j in range(n):
                    part[p, letter, j] = weight * (held[letter, j] + (secrets[j, p] == letter))
            weight *= 3
    unmatched = np.zeros(LETTERS, dtype=np.int32)
    seen = np.zeros(LETTERS, dtype=np.bool_)
    for i in range(guesses.shape[0]):
        repeated = False
        for p in range(L):
            repeated = repeated or seen[guesses[i, p]]
            seen[guesses[i, p]] = True
        for p in range(L):
            seen[guesses[i, p]] = False
        if 0 < L <= TABLE_LENGTH and not repeated:
            row = out[i]
            first = part[0, guesses[i, 0]]
            for j in range(n):
                row[j] = first[j]
            for p in range(1, L):
                add = part[p, guesses[i, p]]
                for j in range(n):
                    row[j] += add[j]
            continue
        for j in range(n):
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
