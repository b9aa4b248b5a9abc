"""The check of a Markov policy document: the policy replayed state by state by the
rules, its values recomputed, and every number the file states held against them."""

from __future__ import annotations

from ..errors import BadFile
from ..solution import PROVEN, exact_text, format_value
from ..verdict import Verdict, as_fraction, claims_optimal, close, settle_optimality, short


def verify_policy_document(strategy, resolve: bool) -> Verdict:
    """The check of a Markov policy (``markov.document.PolicyStrategy``)."""
    from .verify import TOLERANCE, verify_policy

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
        settle_optimality(verdict, strategy, resolve)
        return verdict
    columns = strategy.columns
    if doc.get("objective", "expected") != "expected":
        raise BadFile(
            f"the file's objective {short(doc.get('objective'))} does not match its "
            "policy (expected cost)"
        )
    check = verify_policy(game, columns, doc.get("exact") is True)
    if "value" in doc:
        stated = as_fraction(doc["value"])
        ok = (
            stated == check.value
            if check.exact and doc.get("exact") is True
            else stated is not None and close(stated, float(check.value))
        )
        if not ok:
            raise BadFile(
                f"the file says value {short(doc['value'])} but the policy's "
                f"recomputed value is {format_value(check.value)}"
            )
    if "value_float" in doc and not close(doc["value_float"], float(check.value)):
        raise BadFile(
            f"the file says value_float {short(doc['value_float'])} but the "
            f"policy's recomputed value is {float(check.value)!r}"
        )
    if "states" in doc and doc["states"] != check.states:
        raise BadFile(
            f"the file says states {short(doc['states'])} but its policy lists {check.states}"
        )
    verdict = Verdict(game)
    verdict.lines += [
        f"{game}: the policy is legal in all {check.states:,} states and closed",
        f"its {game.measure.expected}, recomputed: {float(check.value):.9f}"
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
        if claims_optimal(doc):
            raise BadFile(f"the file claims {PROVEN}, but some choice is strictly better ({how})")
        verdict.lines.append(f"the policy is NOT optimal: some choice is strictly better ({how})")
    elif check.optimal:
        verdict.optimality = "exact check" if check.exact else "float check"
        verdict.data["check"] = how
    settle_optimality(verdict, strategy, resolve)
    return verdict
