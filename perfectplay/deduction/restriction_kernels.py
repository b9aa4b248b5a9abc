"""The compiled semantics of ``Restriction`` (numba, cached): one state update, one test.

The search carries the state down its recursion; the advisor and ``verify`` call the
same functions from Python, so the rule exists once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LOCK, BAR, COUNT = 1, 2, 4


@njit(cache=True)
def update(allowed, least, code, feedback, radix, rules, spares):
    """Apply the guess `code` answered `feedback` to the state (allowed, least), in place."""
    L = code.shape[0]
    digit = np.empty(L, dtype=np.int64)
    f = feedback
    for p in range(L):
        digit[p] = f % radix
        f //= radix
    for p in range(L):
        if rules[digit[p]] & LOCK:
            allowed[p, :] = False
            allowed[p, code[p]] = True
    for q in range(L):
        if rules[digit[q]] & BAR:
            s = code[q]
            for p in range(L):
                if not (spares and code[p] == s and rules[digit[p]] & LOCK):
                    allowed[p, s] = False
    tally = np.zeros(least.shape[0], dtype=np.int64)
    for p in range(L):
        if rules[digit[p]] & COUNT:
            tally[code[p]] += 1
    for s in range(least.shape[0]):
        if tally[s] > least[s]:
            least[s] = tally[s]


@njit(cache=True)
def allows(allowed, least, code):
    """True if the state lets `code` be guessed."""
    L = code.shape[0]
    for p in range(L):
        if not allowed[p, code[p]]:
            return False
    tally = np.zeros(least.shape[0], dtype=np.int64)
    for p in range(L):
        tally[code[p]] += 1
    for s in range(least.shape[0]):
        if tally[s] < least[s]:
            return False
    return True


@njit(cache=True)
def allowed_mask(allowed, least, codes):
    """allows() of each row of `codes`."""
    out = np.empty(codes.shape[0], dtype=np.bool_)
    for i in range(codes.shape[0]):
        out[i] = allows(allowed, least, codes[i])
    return out
