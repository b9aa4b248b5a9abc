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
    n = g.n_states
    tgt = g.target[best_edge].astype(np.int64)
    cst = g.cost[best_edge].astype(np.int64)
    labels = components(g.out_ptr, tgt)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    V: list = [fmpq(0)] * n
    out_ptr, weight, denom = g.out_ptr, g.weight, g.denom
    for block in np.split(order, bounds):
        if len(block) == 1:
            s = int(block[0])
            lo, hi = out_ptr[s], out_ptr[s + 1]
            if g.terminal[s]:
                continue
            if not (tgt[lo:hi] == s).any():
                total = fmpq(0)
                for o in range(lo, hi):
                    total += int(weight[o]) * (int(cst[o]) + V[int(tgt[o])])
                V[s] = total / int(denom[s])
                continue
        if len(block) > max_block:
            raise TooLarge(f"a cycle of {len(block)} states exceeds the exact limit {max_block}")
        _solve_block(block, g, tgt, cst, V)
    return V


def _solve_block(block: np.ndarray, g: Graph, tgt: np.ndarray, cst: np.ndarray, V: list) -> None:
    """Solve den_s V_s - sum_{inside} w V_t = sum w c + sum_{outside} w V_t exactly."""
    m = len(block)
    pos = {int(s): i for i, s in enumerate(block)}
    rows = [[0] * m for _ in range(m)]
    rhs = []
    for i, s in enumerate(block):
        s = int(s)
        rows[i][i] += int(g.denom[s])
        b = fmpq(0)
        for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
            w, t = int(g.weight[o]), int(tgt[o])
            b += w * int(cst[o])
            if t in pos:
                rows[i][pos[t]] -= w
            else:
                b += w * V[t]
        rhs.append(b)
    scale = math.lcm(*(int(b.q) for b in rhs))
    B = fmpz_mat(m, 1, [int(b * scale) for b in rhs])
    try:
        X = fmpz_mat(rows).solve(B)
    except ZeroDivisionError:
        raise TooLarge("the policy never finishes from some states (singular system)") from None
    for i, s in enumerate(block):
        V[int(s)] = X[i, 0] / scale


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
    improved = best_edge.copy()
    best_q: dict[int, object] = {}
    for e in close:
        o = int(e_out[e])
        b = int(improved[o])
        if e == b:
            continue
        if o not in best_q:
            best_q[o] = int(g.cost[b]) + V[int(g.target[b])]
        qe = int(g.cost[e]) + V[int(g.target[e])]
        if qe < best_q[o]:
            improved[o], best_q[o] = e, qe
    return improved
