"""Exact rational evaluation of a policy and an exact check that it is optimal.

Values are python-flint rationals (fmpq). A policy's value is solved component by
component of its own graph, successors first: a single state by substitution, a cycle by
an exact integer linear solve. Optimality is then checked in exact arithmetic: a policy
is optimal when no choice at any outcome is strictly better than the chosen one
(Bellman's equation holds exactly); otherwise the greedy policy is an exact improvement.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from flint import fmpq, fmpz_mat

from .compile import Graph
from .structure import components


def to_fraction(value: fmpq) -> Fraction:
    """A flint rational as a standard-library Fraction."""
    return Fraction(int(value.p), int(value.q))


class TooLarge(Exception):
    """The exact stage cannot proceed: a cycle exceeds its size limit, or never exits."""


def evaluate_exact(g: Graph, best_edge: np.ndarray, max_block: int) -> list:
    """Exact expected cost-to-go of every state under the policy `best_edge` (per outcome)."""
    tgt = g.target[best_edge]  # the targets' own type: the kernel policy iteration loaded
    labels = components(g.out_ptr, tgt)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    # python ints: indexing numpy arrays element by element costs more than the arithmetic
    policy = _Policy(
        g.out_ptr.tolist(),
        g.weight.tolist(),
        tgt.tolist(),
        g.cost[best_edge].tolist(),
        g.denom.tolist(),
    )
    V: list = [fmpq(0)] * g.n_states
    for block in np.split(order, bounds):
        if len(block) == 1:
            s = int(block[0])
            if g.terminal[s]:
                continue
            paid, to = policy.terms(s)
            if s not in to:
                total = fmpq(paid)
                for t, w in to.items():
                    total += w * V[t]
                V[s] = total / policy.denom[s]
                continue
        if len(block) > max_block:
            raise TooLarge(f"a cycle of {len(block)} states exceeds the exact limit {max_block}")
        solve_block(block.tolist(), policy, V)
    return V


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


def improve_exact(g: Graph, best_edge: np.ndarray, V: list) -> np.ndarray:
    """The greedy policy with respect to exact values V, keeping current choices on ties.

    The result equals `best_edge` exactly when V satisfies Bellman's optimality equation.
    Floats screen the edges; only those within a hair of the chosen value are compared
    exactly, so the answer is exact.
    """
    Vf = np.array([float(v) for v in V])
    e_out = g.edge_outcome()
    q = g.cost + Vf[g.target]
    chosen = q[best_edge][e_out]
    close = np.flatnonzero(q < chosen + 1e-9 * np.maximum(1.0, np.abs(chosen)))
    close = close[close != best_edge[e_out[close]]]  # each outcome's own choice: no rival
    improved = best_edge.copy()
    best_q: dict[int, object] = {}
    for e, o, c, t in zip(
        close.tolist(), e_out[close].tolist(), g.cost[close].tolist(), g.target[close].tolist()
    ):
        if o not in best_q:
            b = int(improved[o])
            best_q[o] = int(g.cost[b]) + V[int(g.target[b])]
        qe = c + V[t]
        if qe < best_q[o]:
            improved[o], best_q[o] = e, qe
    return improved
