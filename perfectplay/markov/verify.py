"""Re-check an exported Markov policy without the solver.

Every state listed is expanded again by the game's rules; the policy must name a legal
choice after each chance outcome, and every state it leads to must be listed. The
policy must finish from every state, and the recorded values must satisfy its own linear
equations (to a relative 1e-9 in floats; when small, its values are solved exactly in
rationals and must equal the recorded exact values) and compared with the values recorded, and no
legal choice may be better than the one the policy makes (in exact arithmetic when
small, else to a stated float tolerance). The work is vectorised over batches of states
(the file is read as columns, ``policy_file``), so a million states take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..solution import exact_text, parse_value
from .model import MarkovGame
from .policy_file import BadPolicy, PolicyColumns, segments
from . import contract

#: Up to this many states the recomputation and the optimality check are exact.
EXACT_LIMIT = 2000
#: Relative tolerance of the float comparisons (recorded values, better choices).
TOLERANCE = 1e-9
BATCH = 1 << 14
#: Codes are looked up through a table indexed by code when the game's code bound is at
#: most this many times the states listed.
DENSE_CODES = 4

__all__ = ["BadPolicy", "PolicyCheck", "verify_policy"]


@dataclass
class PolicyCheck:
    """What verification found: the start value, recomputed, and how it was checked."""

    states: int
    value: Fraction | float
    exact: bool  # values and optimality checked in exact arithmetic
    optimal: bool | None  # None: not checked (a choice's target is not listed)
    max_error: float


@dataclass
class _Chosen:
    """The policy's own system: per chosen edge its state, target, weight and cost."""

    state: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    denom: np.ndarray
    cost: np.ndarray


def verify_policy(game: MarkovGame, cols: PolicyColumns, recorded_exact: bool) -> PolicyCheck:
    """Replay the policy through the rules and recompute its values; BadPolicy if wrong.

    With `recorded_exact`, recorded exact values must equal the recomputed ones (every
    state when the exact stage runs, else the start's)."""
    if cols.by_budget:
        raise BadPolicy("verifying horizon (by-budget) policies is not supported")
    code, n = cols.code, len(cols.code)
    if code[0] != contract.start(game):
        raise BadPolicy("the first state is not the game's start")
    order = np.argsort(code, kind="stable")
    if (np.diff(code[order]) == 0).any():
        raise BadPolicy("a state is listed twice")
    terminal = contract.terminal(game, code)
    bad = np.flatnonzero(terminal != (cols.n_out == 0))
    if len(bad):
        raise BadPolicy(f"state {code[bad[0]]}: its outcomes do not match the rules")
    position = _Positions(game, code, order)
    chosen = _replay(game, cols, order, position)
    values = _apply_policy(n, chosen, cols.value)
    err = float(np.max(np.abs(values - cols.value) / np.maximum(1.0, np.abs(values))))
    if not err <= TOLERANCE:
        raise BadPolicy(f"recorded values differ from the policy's own by up to {err:.2e}")
    if n > EXACT_LIMIT:
        if recorded_exact and cols.exact is not None:
            start = parse_value(cols.exact[0])
            if abs(float(start) - values[0]) > TOLERANCE * max(1.0, abs(values[0])):
                raise BadPolicy(
                    f"the start's recorded exact value {exact_text(start)} is not "
                    f"the policy's {values[0]!r}"
                )
        optimal = _optimal(game, cols, order, position, values)
        return PolicyCheck(n, float(values[0]), False, optimal, err)
    exact = _solve_exact(n, chosen)
    if recorded_exact:
        if cols.exact is None:
            raise BadPolicy("the file claims exact values but records none")
        for i in range(n):
            try:
                recorded = parse_value(cols.exact[i])
            except (ValueError, ZeroDivisionError):
                raise BadPolicy(f"state {code[i]} has no readable value") from None
            if recorded != exact[i]:
                raise BadPolicy(
                    f"state {code[i]}: recorded exact value {exact_text(recorded)} "
                    f"is not the policy's {exact_text(exact[i])}"
                )
    return PolicyCheck(n, exact[0], True, _optimal(game, cols, order, position, exact), err)


def _batches(game: MarkovGame, cols: PolicyColumns, order: np.ndarray):
    """For each batch of live states: (state indices, expansion, per-outcome state row b,
    outcome k, chosen c, outcome indices), with the recorded outcomes checked against
    the rules."""
    live = np.flatnonzero(cols.n_out > 0)
    ptr = cols.out_ptr
    for lo in range(0, len(live), BATCH):
        idx = live[lo : lo + BATCH]
        exp = contract.expansion(game, cols.code[idx])
        present = np.asarray(exp.weight) > 0
        b_of, k_rules = np.nonzero(present)
        if len(idx) and not np.array_equal(np.bincount(b_of, minlength=len(idx)), cols.n_out[idx]):
            bad = idx[np.flatnonzero(present.sum(axis=1) != cols.n_out[idx])[0]]
            raise BadPolicy(f"state {cols.code[bad]}: its outcomes do not match the rules")
        outs = segments(ptr, idx)
        k = cols.outcome[outs]
        if not np.array_equal(k, k_rules):
            bad = idx[b_of[np.flatnonzero(k != k_rules)[0]]]
            raise BadPolicy(f"state {cols.code[bad]}: its outcomes do not match the rules")
        c = cols.choose[0, outs]
        yield idx, exp, b_of, k, c


def _replay(
    game: MarkovGame, cols: PolicyColumns, order: np.ndarray, position: _Positions
) -> _Chosen:
    """Check every chosen choice is legal and leads to a listed state; the chosen edges."""
    parts = []
    for idx, exp, b_of, k, c in _batches(game, cols, order):
        nxt_all = np.asarray(exp.next)
        ok = (c >= 0) & (c < nxt_all.shape[2])
        nxt = np.where(ok, nxt_all[b_of, k, np.clip(c, 0, nxt_all.shape[2] - 1)], -1)
        if (nxt < 0).any():
            i = np.flatnonzero(nxt < 0)[0]
            raise BadPolicy(
                f"state {cols.code[idx[b_of[i]]]}: choice {c[i]} after outcome {k[i]} is not legal"
            )
        target = position(nxt)
        if (target < 0).any():
            i = np.flatnonzero(target < 0)[0]
            raise BadPolicy(
                f"state {cols.code[idx[b_of[i]]]} leads to state {nxt[i]}, which is not listed"
            )
        weight = np.asarray(exp.weight, dtype=np.int64)
        cost = np.broadcast_to(np.asarray(exp.cost, dtype=np.int64), nxt_all.shape)
        parts.append(
            (idx[b_of], target, weight[b_of, k], weight.sum(axis=1)[b_of], cost[b_of, k, c])
        )
    return _Chosen(
        *(
            np.concatenate([p[i] for p in parts]) if parts else np.zeros(0, np.int64)
            for i in range(5)
        )
    )


class _Positions:
    """Position in the file of game codes, -1 where a code is not listed: one gather from
    a table indexed by code when the game's codes are dense (dice-cards: all 2^2n codes
    are states), else a binary search of the sorted codes (measured: the binary search
    was the largest single cost of verifying dice-cards n=10, 162M choices)."""

    def __init__(self, game: MarkovGame, code: np.ndarray, order: np.ndarray):
        bound = contract.code_bound(game)
        self.table = None
        if bound is not None and bound <= DENSE_CODES * len(code) and code.max() < bound:
            self.table = np.full(bound, -1, dtype=np.int64)
            self.table[code] = np.arange(len(code))
        else:
            self.sorted, self.order = code[order], order

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        if self.table is not None:
            inside = (codes >= 0) & (codes < len(self.table))
            return np.where(inside, self.table[np.clip(codes, 0, len(self.table) - 1)], -1)
        pos = np.minimum(np.searchsorted(self.sorted, codes), len(self.sorted) - 1)
        return np.where(self.sorted[pos] == codes, self.order[pos], -1)


def _finishes(n: int, chosen: _Chosen, terminal_rows: np.ndarray) -> bool:
    """Does the policy reach a terminal state from every state (with positive chance)?"""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    # reversed policy edges, plus a source n pointing at every terminal state
    rows = np.concatenate((chosen.target, np.full(len(terminal_rows), n)))
    cols = np.concatenate((chosen.state, terminal_rows))
    rev = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n + 1, n + 1))
    return len(breadth_first_order(rev, n, directed=True, return_predecessors=False)) == n + 1


def _apply_policy(n: int, chosen: _Chosen, recorded: np.ndarray) -> np.ndarray:
    """One application of the policy's equations to the recorded values: for each state,
    its expected cost of one step plus the recorded values where the step leads. Values
    are the policy's own exactly when this changes nothing (the policy finishing from
    every state, checked first, makes the solution unique); the difference is the residual
    reported. (A direct sparse solve fills in: minutes on 16,384 states.)"""
    import scipy.sparse as sp

    has_edge = np.zeros(n, dtype=bool)
    has_edge[chosen.state] = True
    if not _finishes(n, chosen, np.flatnonzero(~has_edge)):
        raise BadPolicy("the policy never finishes from some state")
    p = chosen.weight / chosen.denom
    P = sp.csr_matrix((p, (chosen.state, chosen.target)), shape=(n, n))
    return np.bincount(chosen.state, weights=p * chosen.cost, minlength=n) + P @ recorded


def _solve_exact(n: int, chosen: _Chosen) -> list[Fraction]:
    from flint import fmpq, fmpq_mat

    A = fmpq_mat(n, n)
    b = [fmpq(0)] * n
    for i in range(n):
        A[i, i] = 1
    for s, t, w, d, c in zip(
        *(
            a.tolist()
            for a in (chosen.state, chosen.target, chosen.weight, chosen.denom, chosen.cost)
        )
    ):
        A[s, t] -= fmpq(w, d)
        b[s] += fmpq(w * c, d)
    try:
        x = A.solve(fmpq_mat(n, 1, b))
    except ZeroDivisionError:
        raise BadPolicy("the policy never finishes from some state") from None
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]


def _optimal(
    game: MarkovGame, cols: PolicyColumns, order: np.ndarray, position: _Positions, values
) -> bool | None:
    """Is no legal choice better than the chosen one after any outcome? Exact when
    `values` are Fractions, else to TOLERANCE; None when a legal choice leads to a state
    the file does not list (its value is unknown). A game's points and values are
    compared as the engine's costs (``Measure.sign``): less is better."""
    exact = isinstance(values, list)
    sign = game.measure.sign
    if sign != 1:  # (points compared as costs)
        values = [sign * v for v in values] if exact else sign * values
    vf = np.array([float(v) for v in values]) if exact else values
    for _, exp, b_of, k, c in _batches(game, cols, order):
        nxt = np.asarray(exp.next)[b_of, k]
        cost = (
            sign
            * np.broadcast_to(np.asarray(exp.cost, dtype=np.int64), np.asarray(exp.next).shape)[
                b_of, k
            ]
        )
        legal = nxt >= 0
        target = np.where(legal, position(nxt), 0)
        if (legal & (target < 0)).any():
            return None
        q = np.where(legal, cost + vf[target], np.inf)
        mine = q[np.arange(len(c)), c]
        close = legal & (q < mine[:, None] + TOLERANCE * np.maximum(1.0, np.abs(mine))[:, None])
        if not exact:
            if (q < (mine - TOLERANCE * np.maximum(1.0, np.abs(mine)))[:, None]).any():
                return False
            continue
        for r, d in zip(*np.nonzero(close)):
            if (
                d != c[r]
                and cost[r, d] + values[target[r, d]] < cost[r, c[r]] + values[target[r, c[r]]]
            ):
                return False
    return True
