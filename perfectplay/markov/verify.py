"""Re-check an exported Markov policy without the solver.

Every state listed is expanded again by the game's rules; the policy must name a legal
choice after each chance outcome, and every state it leads to must be listed. The
policy's expected cost is then recomputed from its own linear equations (a sparse float
solve; an exact rational solve when small) and compared with the values recorded, and,
in exact arithmetic, no legal choice may be better than the one the policy makes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PerfectplayError
from ..solution import exact_text, parse_value
from .model import MarkovGame

#: Up to this many states the recomputation and the optimality check are exact.
EXACT_LIMIT = 2000


class BadPolicy(PerfectplayError):
    """A file that is not a valid policy for its game."""


@dataclass
class PolicyCheck:
    """What verification found: the start value, recomputed, and how it was checked."""

    states: int
    value: Fraction | float
    exact: bool
    optimal: bool | None  # None: not checked (too large, or a choice's target not listed)
    max_error: float


def policy_document(doc: Any) -> list[dict[str, Any]]:
    """The state entries of an exported expected-cost policy, checked for shape."""
    strategy = doc.get("strategy") if isinstance(doc, dict) else None
    if not isinstance(strategy, dict) or strategy.get("kind") != "markov-policy":
        raise BadPolicy("the file holds no Markov policy")
    if strategy.get("by_budget"):
        raise BadPolicy("verifying horizon (by-budget) policies is not supported")
    entries = strategy.get("states")
    if not isinstance(entries, list) or not entries:
        raise BadPolicy("the policy lists no states")
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not is_int(e.get("code")) or not 0 <= e["code"] < 2**62:
            raise BadPolicy(f"state entry {i} has no valid integer code")
        try:
            parse_value(e.get("value"))
        except (ValueError, ZeroDivisionError):
            raise BadPolicy(f"state {e['code']} has no readable value") from None
        if "outcomes" in e:
            outs, choose = e.get("outcomes"), e.get("choose")
            if not (isinstance(outs, list) and all(map(is_int, outs)) and isinstance(choose, list)
                    and len(choose) == 1 and isinstance(choose[0], list)
                    and len(choose[0]) == len(outs) and all(map(is_int, choose[0]))):
                raise BadPolicy(f"state {e['code']}: outcomes and choices are malformed")
    return entries


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def verify_policy(game: MarkovGame, entries: list[dict[str, Any]], recorded_exact: bool) -> PolicyCheck:
    """Replay the policy through the rules and recompute its values; BadPolicy if wrong.

    With `recorded_exact`, every recorded value must equal the recomputed exact value.
    """
    codes = np.array([e["code"] for e in entries], dtype=np.int64)
    if codes[0] != game.initial_state():
        raise BadPolicy("the first state is not the game's start")
    index = {int(c): i for i, c in enumerate(codes)}
    if len(index) != len(codes):
        raise BadPolicy("a state is listed twice")
    terminal = np.asarray(game.is_terminal(codes), dtype=bool)
    n = len(codes)
    rows, cols, probs = [], [], []
    costs = [Fraction(0)] * n
    alternatives: list[list[tuple[int, Fraction, list[tuple[int, int]]]]] = [[] for _ in range(n)]
    complete = True  # every legal choice's target is listed (needed for the optimality check)
    live = np.flatnonzero(~terminal)
    for start in range(0, len(live), 4096):
        batch = live[start:start + 4096]
        exp = game.expand(codes[batch])
        cost_all = np.broadcast_to(exp.cost, exp.next.shape)
        for b, i in enumerate(batch):
            weights = np.asarray(exp.weight[b])
            present = [int(k) for k in np.flatnonzero(weights > 0)]
            entry = entries[i]
            if entry.get("outcomes") != present:
                raise BadPolicy(f"state {codes[i]}: its outcomes do not match the rules")
            total = int(weights.sum())
            for k, c in zip(present, entry["choose"][0]):
                nxt = int(exp.next[b, k, c]) if 0 <= c < exp.next.shape[2] else -1
                if nxt < 0:
                    raise BadPolicy(f"state {codes[i]}: choice {c} after outcome {k} is not legal")
                if nxt not in index:
                    raise BadPolicy(f"state {codes[i]} leads to state {nxt}, which is not listed")
                p = Fraction(int(weights[k]), total)
                costs[i] += p * int(cost_all[b, k, c])
                rows.append(i), cols.append(index[nxt]), probs.append(p)
                legal = [(int(cost_all[b, k, d]), index.get(int(t), -1))
                         for d, t in enumerate(exp.next[b, k]) if t >= 0]
                complete &= all(j >= 0 for _, j in legal)
                alternatives[i].append((int(cost_all[b, k, c]), index[nxt], legal))
    values = _solve_float(n, rows, cols, probs, costs)
    recorded = [parse_value(e["value"]) for e in entries]
    err = float(np.max(np.abs(values - np.array([float(r) for r in recorded]))
                       / np.maximum(1.0, np.abs(values))))
    if err > 1e-9:
        raise BadPolicy(f"recorded values differ from the policy's own by up to {err:.2e}")
    if n > EXACT_LIMIT:
        return PolicyCheck(n, float(values[0]), False, None, err)
    exact = _solve_exact(n, rows, cols, probs, costs)
    if recorded_exact:
        wrong = [i for i in range(n) if recorded[i] != exact[i]]
        if wrong:
            raise BadPolicy(f"state {codes[wrong[0]]}: recorded exact value {exact_text(recorded[wrong[0]])} "
                            f"is not the policy's {exact_text(exact[wrong[0]])}")
    optimal = all(_chosen_is_best(alt, exact) for alt in alternatives) if complete else None
    return PolicyCheck(n, exact[0], True, optimal, err)


def _chosen_is_best(outcomes, V: list[Fraction]) -> bool:
    """No legal choice after any outcome is strictly cheaper than the chosen one."""
    for cost, target, legal in outcomes:
        mine = cost + V[target]
        if any(c + V[j] < mine for c, j in legal):
            return False
    return True


def _solve_float(n, rows, cols, probs, costs) -> np.ndarray:
    import scipy.sparse as sp
    from scipy.sparse.linalg import MatrixRankWarning, spsolve

    P = sp.csr_matrix((np.array([float(p) for p in probs]), (rows, cols)), shape=(n, n))
    A = (sp.identity(n, format="csr") - P).tocsc()
    with warnings.catch_warnings():
        warnings.simplefilter("error", MatrixRankWarning)
        try:
            x = spsolve(A, np.array([float(c) for c in costs]))
        except MatrixRankWarning:
            raise BadPolicy("the policy never finishes from some state") from None
    if not np.all(np.isfinite(x)):
        raise BadPolicy("the policy never finishes from some state")
    return np.atleast_1d(x)


def _solve_exact(n, rows, cols, probs, costs) -> list[Fraction]:
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
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]
