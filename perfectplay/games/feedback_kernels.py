"""Compiled feedback kernels of the deduction games (numba; imported only when a table is built).

Each kernel fills ``out[i, j]`` with the feedback of ``guesses[i]`` against ``secrets[j]``,
encoded exactly as the game's scalar ``feedback`` encodes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def black_white(guesses, secrets, out):
    """Mastermind / Bulls and Cows: black*(L+1) + white, white = common symbols - black
    (symbols below 64)."""
    L = guesses.shape[1]
    left = np.zeros(64, dtype=np.int32)  # the secret's symbols not yet matched
    for i in range(guesses.shape[0]):
        for j in range(secrets.shape[0]):
            black = 0
            for p in range(L):
                b = secrets[j, p]
                left[b] += 1
                if guesses[i, p] == b:
                    black += 1
            common = 0
            for p in range(L):
                a = guesses[i, p]
                if left[a] > 0:
                    common += 1
                    left[a] -= 1
            for p in range(L):
                left[secrets[j, p]] = 0
            out[i, j] = black * (L + 1) + (common - black)


@njit(cache=True, nogil=True)
def fixed_points(guesses, secrets, out):
    """The permutation game: the number of positions where guess and secret agree."""
    L = guesses.shape[1]
    for i in range(guesses.shape[0]):
        for j in range(secrets.shape[0]):
            hits = 0
            for p in range(L):
                if guesses[i, p] == secrets[j, p]:
                    hits += 1
            out[i, j] = hits
