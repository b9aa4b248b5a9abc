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
        if rules[digit[p]] & LOCK:  # intersected: contradictory locks leave nothing
            kept = allowed[p, code[p]]
            allowed[p, :] = False
            allowed[p, code[p]] = kept
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
def allows(allowed, least, codes, i):
    """True if the state lets the guess codes[i] be guessed (a row index: a slice per
    call would cost reference counting that outweighs the test itself)."""
    for p in range(codes.shape[1]):
        if not allowed[p, codes[i, p]]:
            return False
    return meets_counts(least, codes, i)


@njit(cache=True)
def counts_apply(least):
    """True if some symbol must be used at least once (a count rule is live)."""
    for s in range(least.shape[0]):
        if least[s] > 0:
            return True
    return False


@njit(cache=True)
def meets_counts(least, codes, i):
    """True if codes[i] uses every symbol s at least least[s] times."""
    for s in range(least.shape[0]):
        if least[s] > 0:
            used = 0
            for p in range(codes.shape[1]):
                used += codes[i, p] == s
            if used < least[s]:
                return False
    return True


@njit(cache=True)
def allowed_mask(allowed, least, codes):
    """allows() of each row of `codes`: the positions tested in one tight loop, the counts
    only where some count applies (the loop is about ten times faster without them)."""
    n, L = codes.shape
    out = np.empty(n, dtype=np.bool_)
    for i in range(n):
        ok = True
        for p in range(L):
            if not allowed[p, codes[i, p]]:
                ok = False
                break
        out[i] = ok
    if counts_apply(least):
        for i in range(n):
            if out[i]:
                out[i] = meets_counts(least, codes, i)
    return out
