"""The verdict of checking a solution document, and the checks both engines share.

Each engine replays its own strategies (``deduction/document_check.py``,
``markov/document_check.py``); what they have in common is here: the `Verdict`, the
rule that every number a file states must equal the replay's (`agree`), and the claim of
optimality, re-established by solving the same root again or said to be unchecked
(`settle_optimality`). A label is never repeated unchecked; a heuristic's label claims
only that its value is an upper bound, which the replay shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .engine import solve
from .errors import BadFile
from .game import Game
from .objectives import Objective
from .solution import PROVEN, PROVEN_GIVEN_FIRST, UPPER_BOUNDS, format_value, parse_value

if TYPE_CHECKING:
    from .strategy import Strategy

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


def agree(doc: dict[str, Any], facts: dict[str, Any], strategy: dict[str, Any]) -> None:
    """Every fact the file states (top level, then strategy) equals the replay's."""
    for where, part in (("", doc), ("strategy ", strategy)):
        for name, truth in facts.items():
            if name not in part or (where and name in ("objective", "value")):
                continue
            stated = part[name]
            if name == "value":
                same = as_fraction(stated) == truth
            elif name == "histogram":
                same = isinstance(stated, dict) and {str(k): v for k, v in stated.items()} == truth
            else:
                same = stated == truth
            if not same:
                raise BadFile(
                    f"the file says {where}{name} {short(stated)} but the replay "
                    f"gives {short(format_value(truth) if isinstance(truth, Fraction) else truth)}"
                )
    if "value_float" in doc and "value" in facts:
        if not close(doc["value_float"], float(facts["value"])):
            raise BadFile(
                f"the file says value_float {short(doc['value_float'])} but the "
                f"replay gives {float(facts['value'])!r}"
            )


# --- the claim of optimality ------------------------------------------------------------
def claims_optimal(doc: dict[str, Any]) -> bool:
    """Whether the document claims optimality (its status, label or ``proven``)."""
    strategy = doc.get("strategy") if isinstance(doc.get("strategy"), dict) else {}
    return (
        doc.get("proven") is True
        or doc.get("status") in OPTIMAL
        or strategy.get("label") in OPTIMAL
    )


def settle_optimality(verdict: Verdict, strategy: Strategy, resolve: bool) -> None:
    """Check the document's claim of optimality, or say it was not checked, in `verdict`."""
    doc = strategy.document
    claimed = claims_optimal(doc)
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
        optimum = solve_again(strategy)
        if as_fraction(value) == optimum or (
            not verdict.data.get("exact", True) and close(float(optimum), float(as_fraction(value)))
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


def solve_again(strategy: Strategy) -> Fraction | float:
    """The optimum of the root the file was solved for (its objective, horizon, limit)."""
    doc = strategy.document
    objective = Objective(
        doc.get("objective", "expected"), doc.get("horizon"), bool(doc.get("determine"))
    )
    return solve(strategy.game, objective, **strategy.solve_options()).value


# --- small helpers ----------------------------------------------------------------------
def as_fraction(text: Any) -> Fraction | None:
    """A stated value as a Fraction; None if it is not one."""
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        return None
    try:
        return parse_value(str(text))
    except (ValueError, ZeroDivisionError):
        return None


def close(a: Any, b: float) -> bool:
    """Whether a stated float equals `b` to 1e-9 (relative)."""
    return (
        isinstance(a, (int, float))
        and not isinstance(a, bool)
        and math.isclose(float(a), b, rel_tol=1e-9, abs_tol=1e-12)
    )


def short(x: Any) -> str:
    """A stated value as a message quotes it (40 characters at most)."""
    text = repr(x) if isinstance(x, str) else str(x)
    return text if len(text) <= 40 else text[:37] + "..."
