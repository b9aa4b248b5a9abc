"""Solitaire Can't Stop by a plain numpy value iteration, written apart from perfectplay
(nothing of it imported) to time examples/cant_stop.py against (``benchmarks/markov.py``).

The game is the example's (its module docstring): eleven columns of the given heights,
four dice paired three ways, at most three columns a turn, a bust losing the turn's
progress, three columns climbed ending the game; the cost is the number of turns. A
state is (kept heights K, the turn's heights P >= K), the turn's markers the columns
where P > K; every valid pair is enumerated. Its table holds, per state and roll, every
next state a choice leads to (stop: (P', P'); roll again: (K, P'); a bust: (K, K); the
end: a state of value 0): 119 rolls x 12 choices of 4 bytes, 5.7 kB a state.

Value iteration sweeps the states by their total height sum(P), highest first, each
level's update using the levels above it already updated this sweep: every choice
leads to a higher level (more progress, kept or not), only a bust leads back down, so a
sweep is one round of each board's fixed point (x = 1 + its turn when a bust costs x),
and the sweeps stop when no value changes by more than ``TOL`` relative.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np

FULL = (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
TOL = 1e-13
CHOICES = 12  # three pairings, each one or two moves, each stop or roll again
ROLLS = 119  # four dice's rolls, merged by their pairings' sums
TABLE_BYTES_PER_STATE = 4 * ROLLS * CHOICES
CHUNK = 4096  # states updated at once (their gathered values: CHUNK x rolls x choices)


def heights(length: int) -> np.ndarray:
    """The columns' heights for `length` (13: the full board), as the example shrinks them."""
    return np.array([max(1, math.ceil(h * length / 13)) for h in FULL], dtype=np.int64)


def rolls() -> tuple[np.ndarray, np.ndarray]:
    """Four dice's 1,296 rolls as (ways, the three pairings' column pairs), rolls whose
    pairings give the same sums merged."""
    ways: Counter = Counter()
    for a, b, c, d in itertools.product(range(1, 7), repeat=4):
        pairs = ((a + b, c + d), (a + c, b + d), (a + d, b + c))
        ways[tuple(sorted(tuple(sorted(p)) for p in pairs))] += 1
    keys = sorted(ways)
    return np.array([ways[k] for k in keys]), np.array(keys, dtype=np.int64) - 2


def states(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every valid (K, P): fewer than three columns at the top in P, at most three
    columns with P > K."""
    n = len(h)
    boards = np.stack(np.meshgrid(*[np.arange(x + 1) for x in h], indexing="ij"), -1)
    boards = boards.reshape(-1, n)
    boards = boards[(boards == h).sum(1) < 3]
    Ks, Ps = [boards], [boards]
    for size in (1, 2, 3):
        for cols in itertools.combinations(range(n), size):
            for ups in itertools.product(*[range(1, h[c] + 1) for c in cols]):
                P = boards.copy()
                P[:, cols] += ups
                ok = (P[:, cols] <= h[list(cols)]).all(1) & ((P == h).sum(1) < 3)
                Ks.append(boards[ok])
                Ps.append(P[ok])
    return np.concatenate(Ks), np.concatenate(Ps)


def solve(length: int, progress=print) -> dict:
    """The fewest turns on average on the board of `length`, and what it took."""
    h = heights(length)
    radix = np.cumprod(np.concatenate([[1], h[:-1] + 1]))
    K, P = states(h)
    level = P.sum(1)
    order = np.argsort(-level, kind="stable")  # highest level first
    K, P, level = K[order], P[order], level[order]
    S = len(K)
    span = int(np.prod(h + 1))
    code = K @ radix * span + P @ radix
    sorter = np.argsort(code)
    END, NOTHING = S, S + 1  # the game's end (value 0), no such choice (infinity)

    def index(k: np.ndarray, p: np.ndarray) -> np.ndarray:
        """The states (K, P) = (k, p), or -1 where there is none."""
        want = k @ radix * span + p @ radix
        at = sorter[np.minimum(np.searchsorted(code, want, sorter=sorter), S - 1)]
        return np.where(code[at] == want, at, -1).astype(np.int32)

    weight, pairings = rolls()
    table = np.full((S, len(weight), CHOICES), NOTHING, dtype=np.int32)
    markers = (P > K).sum(1)
    rows = np.arange(S)
    for r, pairs in enumerate(pairings):
        j = np.zeros(S, dtype=np.int64)
        for a, b in pairs:
            can_a = (P[:, a] < h[a]) & ((P[:, a] > K[:, a]) | (markers < 3))
            can_b = (P[:, b] < h[b]) & ((P[:, b] > K[:, b]) | (markers < 3))
            moves = []
            if a == b:
                up = np.zeros_like(P)
                up[:, a] = np.minimum(2, h[a] - P[:, a])
                moves.append((can_a, up))
            else:
                both = can_a & can_b
                one = both & (markers == 2) & (P[:, a] == K[:, a]) & (P[:, b] == K[:, b])
                up = np.zeros_like(P)
                up[:, a] = can_a
                up[:, b] = can_b & ~one
                moves.append((can_a | can_b, up))
                alone_b = np.zeros_like(P)
                alone_b[:, b] = 1
                moves.append((one, alone_b))
            for valid, up in moves:
                after = P + up
                ends = (after == h).sum(1) >= 3
                for target in (
                    np.where(ends, END, index(after, after)),
                    np.where(ends, NOTHING, index(K, after)),
                ):
                    at = rows[valid]
                    assert (target[valid] >= 0).all(), "a choice leads to no state"
                    table[at, r, j[at]] = target[valid]
                    j[at] += valid[valid]
        bust = j == 0
        table[bust, r, 0] = index(K[bust], K[bust])
    progress(f"  numpy: {S:,} states, table {table.nbytes / 2**20:,.0f} MiB")
    first = (P == K).all(1).astype(np.float64)
    V = np.zeros(S + 2)
    V[NOTHING] = np.inf
    bounds = np.flatnonzero(np.diff(level)) + 1
    levels = np.split(np.arange(S), bounds)
    total = weight.sum()
    sweeps, change = 0, np.inf
    while change > TOL:
        sweeps += 1
        change = 0.0
        for states_ in levels:
            for lo in range(0, len(states_), CHUNK):
                at = states_[lo : lo + CHUNK]
                new = first[at] + V[table[at]].min(2) @ weight / total
                change = max(change, float(np.max(np.abs(new - V[at]) / np.maximum(1.0, new))))
                V[at] = new
    start = index(np.zeros((1, len(h)), dtype=np.int64), np.zeros((1, len(h)), dtype=np.int64))
    return {"value": float(V[start[0]]), "states": S, "sweeps": sweeps, "table": table.nbytes}
