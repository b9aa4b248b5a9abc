"""The verdict of checking a solution document, and the checks both engines share.

Each engine replays its own strategies (``deduction/document_check.py``,
``markov/document_check.py``); what they have in common is here: the `Verdict`, the
rule that every number a file states must equal the replay's (`agree`), and the claim of
optimality, re-established by solving the same root again or said to be unchecked
(`settle_optimality`). A label is never repeated unchecked; a heuristic's label claims
only that its value is an upper bound, which the replay shows. Before any of it, every
field the checks read is of its kind (`check_fields`: a flag, text, a mapping, a finite
number, a whole number within 64 bits), as every field of a shard is (``shards.py``).
"""

from __future__ import annotations

import math
import reprlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

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


@dataclass(frozen=True)
class Kind:
    """What a field of a document must be: said in words for messages, and its test."""

    text: str
    test: Callable[[Any], bool]


FLAG = Kind("true or false", lambda v: isinstance(v, bool))
TEXT = Kind("text", lambda v: isinstance(v, str))
MAPPING = Kind("a mapping", lambda v: isinstance(v, dict))
#: A finite number (a whole one, or a float: never NaN or infinite), not a flag.
NUMBER = Kind(
    "a finite number",
    lambda v: (
        not isinstance(v, bool)
        and (isinstance(v, int) or (isinstance(v, float) and math.isfinite(v)))
    ),
)


def whole(least: int) -> Kind:
    """A whole number (not a flag) of at least `least` that fits the engines' 64 bits."""
    return Kind(
        f"a whole number from {least} to 2^63-1",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and least <= v < 2**63,
    )


def check_kind(part: dict[str, Any], name: str, kind: Kind, where: str) -> None:
    """Field `name` of `part`, if there, is of `kind`: else BadFile saying so, after
    `where` (the file, the field's place)."""
    if name in part and not kind.test(part[name]):
        raise BadFile(f"{where}{name} {short(part[name])} is not {kind.text}")


#: The fields of a solution document (at its top level or in its strategy) that the
#: checks read as they stand, or compare with the replay, and what each must be.
FIELDS: dict[str, Kind] = {
    **dict.fromkeys(("exact", "proven", "determine", "by_budget"), FLAG),
    **dict.fromkeys(("format", "game", "objective", "status", "label", "method"), TEXT),
    **dict.fromkeys(("value", "after", "unreduced", "expected_cost", "kind", "encoding"), TEXT),
    **dict.fromkeys(("params", "histogram", "strategy", "root"), MAPPING),
    **dict.fromkeys(("total", "worst", "wins", "total_cost", "horizon", "version"), whole(0)),
    **dict.fromkeys(("secrets", "max_guesses"), whole(1)),
    "value_float": NUMBER,
}


def check_fields(doc: dict[str, Any]) -> None:
    """Every field of `doc` and of its strategy that `FIELDS` names is of its kind: BadFile
    naming the first that is not (a string for a number, a list for a mapping, a flag
    for a count, a negative count)."""
    strategy = doc.get("strategy")
    for where, part in (("", doc), ("strategy ", strategy if isinstance(strategy, dict) else {})):
        for name, kind in FIELDS.items():
            check_kind(part, name, kind, f"the file's {where}")


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
    """Whether a stated number (an int, float or Fraction; not a bool) equals `b` to 1e-9
    (relative); one too large for a float is close to none."""
    if isinstance(a, bool) or not isinstance(a, (int, float, Fraction)):
        return False
    try:
        return math.isclose(float(a), b, rel_tol=1e-9, abs_tol=1e-12)
    except OverflowError:
        return False


def short(x: Any) -> str:
    """A stated value as a message quotes it (40 characters at most, however long or
    deeply nested it is)."""
    text = _SHORT.repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxlong = _SHORT.maxother = 60
