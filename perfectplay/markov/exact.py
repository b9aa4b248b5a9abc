"""Exact rational arithmetic of the proof (``proof``): a policy's cycle solved by an
exact integer linear solve, values as python-flint rationals (fmpq)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from flint import fmpq, fmpz_mat


def to_fraction(value: fmpq) -> Fraction:
    """A flint rational as a standard-library Fraction."""
    return Fraction(int(value.p), int(value.q))


class TooLarge(Exception):
    """The exact stage cannot proceed: a cycle exceeds its size limit, or never exits."""


class _Policy(NamedTuple):
    """A policy's outcomes as lists of python ints: row pointers per state, then per
    outcome its weight, the target and cost of its chosen edge; each state's denominator."""

    out_ptr: list
    weight: list
    target: list
    cost: list
    denom: list

    def terms(self, s: int) -> tuple[int, dict[int, int]]:
        """State s's weighted cost (the sum of weight times cost over its outcomes) and the
        weight of its outcomes going to each target (outcomes to one target merged: fewer
        rational operations)."""
        paid = 0
        to: dict[int, int] = {}
        for o in range(self.out_ptr[s], self.out_ptr[s + 1]):
            w, t = self.weight[o], self.target[o]
            paid += w * self.cost[o]
            to[t] = to.get(t, 0) + w
        return paid, to


def solve_block(block: list, policy: _Policy, V: list) -> None:
    """Solve den_s V_s - sum_{inside} w V_t = sum w c + sum_{outside} w V_t exactly."""
    m = len(block)
    pos = {s: i for i, s in enumerate(block)}
    rows = [[0] * m for _ in range(m)]
    rhs = []
    for i, s in enumerate(block):
        rows[i][i] += policy.denom[s]
        paid, to = policy.terms(s)
        b = fmpq(paid)
        for t, w in to.items():
            j = pos.get(t)
            if j is None:
                b += w * V[t]
            else:
                rows[i][j] -= w
        rhs.append(b)
    scale = math.lcm(*(int(b.q) for b in rhs))
    B = fmpz_mat(m, 1, [int(b * scale) for b in rhs])
    try:
        X = fmpz_mat(rows).solve(B)
    except ZeroDivisionError:
        raise TooLarge("the policy never finishes from some states (singular system)") from None
    for i, s in enumerate(block):
        V[s] = X[i, 0] / scale
