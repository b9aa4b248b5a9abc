"""Check a solution file: every number it states, and its claim of optimality.

``perfectplay verify`` and ``perfectplay show`` read a file through `check_document`.
The strategy is replayed by the rules (a deduction tree secret by secret; a Markov
policy state by state, its values recomputed), and then every number the file states at
its top level or in its strategy (value, totals, histogram, worst case, wins, secrets)
must equal what the replay gives: a file that disagrees is refused.

A label is never repeated unchecked. A claim of optimality ("proven optimal") is
re-established by solving the same root again (the same game, objective, horizon and
guess limit), or by the exact Bellman check of a small Markov policy; when it is not
(``resolve=False``), the verdict says plainly that the claim was not checked. A
heuristic's label claims only that its value is an upper bound, which the replay shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .errors import BadFile
from .game import Game
from .objectives import Objective
from .solution import (
    PROVEN,
    PROVEN_GIVEN_FIRST,
    UPPER_BOUNDS,
    exact_text,
    format_value,
    parse_value,
)

#: The labels that claim optimality (of the whole game, or given the first guess).
OPTIMAL = (PROVEN, PROVEN_GIVEN_FIRST)


@dataclass
class Verdict:
    """What the check found: lines for people, fields for ``--json``."""

    game: Game
    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    #: "re-established", "exact check", "not checked", "not claimed"
    optimality: str = "not claimed"


def check_document(doc: Any, *, resolve: bool = True) -> Verdict:
    """Replay the strategy in `doc`, check every number it states, and check (or say we
    did not) its claim of optimality; BadFile (or the engine's own error) if anything is
    wrong."""
    from .strategy import load_strategy

    return load_strategy(doc).verify(resolve)


# --- deduction trees ------------------------------------------------------------------
def verify_tree(strategy, resolve: bool) -> Verdict:
    """The check of a deduction tree (``deduction.document.TreeStrategy``)."""
    from .deduction.verify import verify_document

    game, doc = strategy.game, strategy.document
    stats, _ = verify_document(game, doc)
    tree = strategy.tree
    histogram = {str(k): v for k, v in sorted(stats.histogram.items())}
    horizon = tree.get("horizon")
    verdict = Verdict(game)
    if horizon is not None:
        from .deduction.verify import start

        n = len(start(game, tree.get("after"))[1])
        value = Fraction(stats.secrets, n)
        facts = {
            "objective": "probability",
            "horizon": horizon,
            "value": value,
            "wins": stats.secrets,
            "secrets": n,
            "unreduced": f"{stats.secrets}/{n}",
            "histogram": histogram,
        }
        if doc.get("objective") == "probability-then-cost":
            from .deduction.verify_win import replay_within

            cost = replay_within(
                game, tree["root"], int(horizon), tree.get("after"), bool(tree.get("determine"))
            )[3]
            facts.update(
                {
                    "objective": "probability-then-cost",
                    "total_cost": cost,
                    "expected_cost": format_value(Fraction(cost, n)),
                }
            )
            verdict.lines.append(f"expected cost {Fraction(cost, n)} (total {cost})")
        verdict.lines += [
            f"{game}: replayed all {n} secrets within {horizon} guesses",
            f"won {stats.secrets} of {n}: {value} ({stats.secrets}/{n} = {stats.secrets / n:.9f})",
        ]
    else:
        objective = doc.get("objective")
        if objective not in ("expected", "worst"):
            raise BadFile(
                f"the file's objective {objective!r} is not one a tree without a "
                "horizon can have (expected or worst)"
            )
        average = Fraction(stats.total, stats.secrets)
        value = average if objective == "expected" else Fraction(stats.worst)
        facts = {
            "objective": objective,
            "value": value,
            "total": stats.total,
            "secrets": stats.secrets,
            "worst": stats.worst,
            "histogram": histogram,
        }
        found = "determined" if tree.get("determine") else "solved"
        verdict.lines += [
            f"{game}: every secret {found}",
            f"total {stats.total} over {stats.secrets} secrets, average "
            f"{float(average):.6f} ({average}), worst case {stats.worst}",
        ]
        verdict.data["average"] = str(average)
    verdict.lines.append("histogram " + "  ".join(f"{k}:{v}" for k, v in histogram.items()))
    _agree(doc, facts, tree)
    verdict.data.update(
        {k: (format_value(v) if isinstance(v, Fraction) else v) for k, v in facts.items()}
    )
    verdict.data["value_float"] = float(value)
    _optimality(verdict, strategy, resolve)
    return verdict


def _agree(doc: dict[str, Any], facts: dict[str, Any], strategy: dict[str, Any]) -> None:
    """Every fact the file states (top level, then strategy) equals the replay's."""
    for where, part in (("", doc), ("strategy ", strategy)):
        for name, truth in facts.items():
            if name not in part or (where and name in ("objective", "value")):
                continue
            stated = part[name]
            if name == "value":
                same = _as_fraction(stated) == truth
            elif name == "histogram":
                same = isinstance(stated, dict) and {str(k): v for k, v in stated.items()} == truth
            else:
                same = stated == truth
            if not same:
                raise BadFile(
                    f"the file says {where}{name} {_short(stated)} but the replay "
                    f"gives {_short(format_value(truth) if isinstance(truth, Fraction) else truth)}"
                )
    if "value_float" in doc and "value" in facts:
        if not _close(doc["value_float"], float(facts["value"])):
            raise BadFile(
                f"the file says value_float {_short(doc['value_float'])} but the "
                f"replay gives {float(facts['value'])!r}"
            )


# --- Markov policies --------------------------------------------------------------------
def verify_policy_document(strategy, resolve: bool) -> Verdict:
    """The check of a Markov policy (``markov.document.PolicyStrategy``)."""
    from .markov.verify import TOLERANCE, verify_policy

    game, doc = strategy.game, strategy.document
    if strategy.columns.by_budget:
        verdict = Verdict(
            game,
            [
                f"{game}: a policy by budget left (horizon "
                f"{doc.get('horizon')}): its value and choices were NOT "
                "checked (verify does not replay horizon policies)"
            ],
        )
        verdict.data.update({"value": doc.get("value"), "checked": False})
        verdict.optimality = "unchecked policy"
        _optimality(verdict, strategy, resolve)
        return verdict
    columns = strategy.columns
    if doc.get("objective", "expected") != "expected":
        raise BadFile(
            f"the file's objective {doc.get('objective')!r} does not match its "
            "policy (expected cost)"
        )
    check = verify_policy(game, columns, doc.get("exact") is True)
    if "value" in doc:
        stated = _as_fraction(doc["value"])
        ok = (
            stated == check.value
            if check.exact and doc.get("exact") is True
            else stated is not None and _close(float(stated), float(check.value))
        )
        if not ok:
            raise BadFile(
                f"the file says value {_short(doc['value'])} but the policy's "
                f"recomputed value is {format_value(check.value)}"
            )
    if "value_float" in doc and not _close(doc["value_float"], float(check.value)):
        raise BadFile(
            f"the file says value_float {_short(doc['value_float'])} but the "
            f"policy's recomputed value is {float(check.value)!r}"
        )
    if "states" in doc and doc["states"] != check.states:
        raise BadFile(
            f"the file says states {_short(doc['states'])} but its policy lists {check.states}"
        )
    unit = getattr(game, "cost_unit", "moves")
    verdict = Verdict(game)
    verdict.lines += [
        f"{game}: the policy is legal in all {check.states:,} states and closed",
        f"its expected {unit}, recomputed: {float(check.value):.9f}"
        + (f" = {exact_text(check.value)}" if check.exact else "")
        + f"; recorded values agree to {check.max_error:.1e}",
    ]
    verdict.data.update(
        {
            "states": check.states,
            "value": format_value(check.value),
            "value_float": float(check.value),
            "exact": check.exact,
            "optimal": check.optimal,
            "max_error": check.max_error,
        }
    )
    how = "exact check" if check.exact else f"float check, tolerance {TOLERANCE:g}"
    if check.optimal is False:
        verdict.data["optimal"] = False
        if _claims_optimal(doc):
            raise BadFile(f"the file claims {PROVEN}, but some choice is strictly better ({how})")
        verdict.lines.append(f"the policy is NOT optimal: some choice is strictly better ({how})")
    elif check.optimal:
        verdict.optimality = "exact check" if check.exact else "float check"
        verdict.data["check"] = how
    _optimality(verdict, strategy, resolve)
    return verdict


# --- the claim of optimality ------------------------------------------------------------
def _claims_optimal(doc: dict[str, Any]) -> bool:
    strategy = doc.get("strategy") if isinstance(doc.get("strategy"), dict) else {}
    return (
        doc.get("proven") is True
        or doc.get("status") in OPTIMAL
        or strategy.get("label") in OPTIMAL
    )


def _optimality(verdict: Verdict, strategy, resolve: bool) -> None:
    doc = strategy.document
    claimed = _claims_optimal(doc)
    claim = doc.get("status") if doc.get("status") in OPTIMAL else PROVEN
    value = verdict.data.get("value")
    if verdict.optimality == "unchecked policy":
        verdict.optimality = "not checked"
    elif verdict.optimality in ("exact check", "float check"):
        verdict.lines.append(
            f"the policy is optimal: no better choice anywhere "
            f"({verdict.data.get('check', verdict.optimality)})"
        )
    elif claimed and resolve:
        optimum = _solve_again(strategy)
        if _as_fraction(value) == optimum or (
            not verdict.data.get("exact", True)
            and _close(float(optimum), float(_as_fraction(value)))
        ):
            verdict.optimality = "re-established"
            verdict.lines.append(
                f"{claim}: re-established by solving the same game again "
                f"(optimum {format_value(optimum)})"
            )
        else:
            raise BadFile(
                f"the file claims {claim}, but solving again gives "
                f"{format_value(optimum)} where its strategy gives {value}"
            )
    elif claimed:
        verdict.optimality = "not checked"
        verdict.lines.append(f"the file's claim '{claim}' was NOT checked (--no-solve)")
    elif doc.get("status") not in (None, *UPPER_BOUNDS) or doc.get("proven") not in (None, False):
        verdict.lines.append(f"the file's label {doc.get('status')!r} was NOT checked")
    else:
        verdict.lines.append(
            f"no claim of optimality (the file's value is {doc['status']})"
            if doc.get("status") in UPPER_BOUNDS
            else "no claim of optimality"
        )
    verdict.data["optimality"] = verdict.optimality


def _solve_again(strategy) -> Fraction | float:
    """The optimum of the root the file was solved for (its objective, horizon, limit)."""
    from .engines import solve

    doc = strategy.document
    objective = Objective(
        doc.get("objective", "expected"), doc.get("horizon"), bool(doc.get("determine"))
    )
    return solve(strategy.game, objective, **strategy.solve_options()).value


# --- small helpers ----------------------------------------------------------------------
def _as_fraction(text: Any) -> Fraction | None:
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        return None
    try:
        return parse_value(str(text))
    except (ValueError, ZeroDivisionError):
        return None


def _close(a: Any, b: float) -> bool:
    return (
        isinstance(a, (int, float))
        and not isinstance(a, bool)
        and math.isclose(float(a), b, rel_tol=1e-9, abs_tol=1e-12)
    )


def _short(x: Any) -> str:
    text = repr(x) if isinstance(x, str) else str(x)
    return text if len(text) <= 40 else text[:37] + "..."
