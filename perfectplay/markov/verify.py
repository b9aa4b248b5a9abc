"""Re-check an exported Markov policy without the solver.

Every state listed is expanded again by the game's rules; the policy must name a legal
choice after each chance outcome, and every state it leads to must be listed. The
policy's expected cost is then recomputed from its own linear equations (a sparse float
solve, and an exact rational solve when small) and compared with the values recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PerfectplayError
from .model import MarkovGame

#: Up to this many states the recomputation is also done in exact rationals.
EXACT_LIMIT = 2000


class BadPolicy(PerfectplayError):
    """A file that is not a valid policy for its game."""


@dataclass
class PolicyCheck:
    states: int
    value: Fraction | float
    exact: bool
    max_error: float


def policy_document(doc: Any) -> dict[str, Any]:
    strategy = doc.get("strategy") if isinstance(doc, dict) else None
    if not isinstance(strategy, dict) or strategy.get("kind") != "markov-policy":
        raise BadPolicy("the file holds no Markov policy")
    if strategy.get("by_budget"):
        raise BadPolicy("verifying horizon (by-budget) policies is not supported")
    if not isinstance(strategy.get("states"), list) or not strategy["states"]:
        raise BadPolicy("the policy lists no states")
    return strategy


def verify_policy(game: MarkovGame, strategy: dict[str, Any]) -> PolicyCheck:
    """Replay the policy through the rules and recompute its values; BadPolicy if wrong."""
    entries = strategy["states"]
    try:
        codes = np.array([int(e["code"]) for e in entries], dtype=np.int64)
    except (KeyError, TypeError, ValueError):
        raise BadPolicy("a state has no integer code") from None
    if codes[0] != game.initial_state():
        raise BadPolicy("the first state is not the game's start")
    index = {int(c): i for i, c in enumerate(codes)}
    if len(index) != len(codes):
        raise BadPolicy("a state is listed twice")
    terminal = np.asarray(game.is_terminal(codes), dtype=bool)
    rows, cols, probs, costs = [], [], [], np.zeros(len(codes), dtype=object)
    live = np.flatnonzero(~terminal)
    for start in range(0, len(live), 4096):
        batch = live[start:start + 4096]
        exp = game.expand(codes[batch])
        for b, i in enumerate(batch):
            weights = np.asarray(exp.weight[b])
            present = [int(k) for k in np.flatnonzero(weights > 0)]
            entry = entries[i]
            if entry.get("outcomes") != present or not isinstance(entry.get("choose"), list):
                raise BadPolicy(f"state {codes[i]}: its outcomes do not match the rules")
            choice_row = entry["choose"][0]
            if len(choice_row) != len(present):
                raise BadPolicy(f"state {codes[i]}: one choice per outcome is needed")
            total = int(weights.sum())
            cost = Fraction(0)
            for k, c in zip(present, choice_row):
                nxt = int(exp.next[b, k, c]) if isinstance(c, int) and 0 <= c < exp.next.shape[2] else -1
                if nxt < 0:
                    raise BadPolicy(f"state {codes[i]}: choice {c} after outcome {k} is not legal")
                if nxt not in index:
                    raise BadPolicy(f"state {codes[i]} leads to state {nxt}, which is not listed")
                p = Fraction(int(weights[k]), total)
                cost += p * int(np.broadcast_to(exp.cost, exp.next.shape)[b, k, c])
                rows.append(i), cols.append(index[nxt]), probs.append(p)
            costs[i] = cost
    costs[terminal] = Fraction(0)
    values = _solve_float(len(codes), rows, cols, probs, costs)
    recorded = np.array([float(Fraction(str(e.get("value")))) for e in entries])
    err = float(np.max(np.abs(values - recorded) / np.maximum(1.0, np.abs(recorded))))
    if err > 1e-9:
        raise BadPolicy(f"recorded values differ from the policy's own by up to {err:.2e}")
    if len(codes) <= EXACT_LIMIT:
        exact = _solve_exact(len(codes), rows, cols, probs, costs)
        if "/" in str(entries[0]["value"]) and Fraction(str(entries[0]["value"])) != exact:
            raise BadPolicy(f"the recorded exact value {entries[0]['value']} is not the policy's {exact}")
        return PolicyCheck(len(codes), exact, True, err)
    return PolicyCheck(len(codes), float(values[0]), False, err)


def _solve_float(n, rows, cols, probs, costs) -> np.ndarray:
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve

    P = sp.csr_matrix((np.array([float(p) for p in probs]), (rows, cols)), shape=(n, n))
    A = (sp.identity(n, format="csr") - P).tocsc()
    x = spsolve(A, np.array([float(c) for c in costs]))
    if not np.all(np.isfinite(x)):
        raise BadPolicy("the policy never finishes from some state")
    return x


def _solve_exact(n, rows, cols, probs, costs) -> Fraction:
    from flint import fmpq, fmpq_mat

    A = fmpq_mat(n, n)
    for i in range(n):
        A[i, i] = 1
    for r, c, p in zip(rows, cols, probs):
        A[r, c] -= fmpq(p.numerator, p.denominator)
    b = fmpq_mat(n, 1, [fmpq(c.numerator, c.denominator) for c in costs])
    try:
        x = A.solve(b)
    except ZeroDivisionError:
        raise BadPolicy("the policy never finishes from some state") from None
    return Fraction(int(x[0, 0].p), int(x[0, 0].q))
