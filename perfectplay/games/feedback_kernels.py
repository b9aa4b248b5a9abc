"""Compiled feedback kernels of the deduction games (numba; imported only when a table is built).

Each kernel fills ``out[i, j]`` with the feedback of ``guesses[i]`` against ``secrets[j]``,
encoded exactly as the game's scalar ``feedback`` encodes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def black_white(guesses, secrets, n_symbols, out):
    """Mastermind / Bulls and Cows: black*(L+1) + white, white = common symbols - black."""
    L = guesses.shape[1]
    for i in prange(guesses.shape[0]):
        cg = np.zeros(n_symbols, dtype=np.int32)
        cs = np.zeros(n_symbols, dtype=np.int32)
        for j in range(secrets.shape[0]):
            black = 0
            for k in range(n_symbols):
                cg[k] = 0
                cs[k] = 0
            for p in range(L):
                a = guesses[i, p]
                b = secrets[j, p]
                if a == b:
                    black += 1
                cg[a] += 1
                cs[b] += 1
            common = 0
            for k in range(n_symbols):
                common += min(cg[k], cs[k])
            out[i, j] = black * (L + 1) + (common - black)


@njit(cache=True, parallel=True)
def fixed_points(guesses, secrets, out):
    """The permutation game: the number of positions where guess and secret agree."""
    L = guesses.shape[1]
    for i in prange(guesses.shape[0]):
        for j in range(secrets.shape[0]):
            hits = 0
            for p in range(L):
                if guesses[i, p] == secrets[j, p]:
                    hits += 1
            out[i, j] = hits
