"""The check of a deduction tree document: replayed secret by secret by the rules, and
every number the file states held against the replay (``verdict.agree``)."""

from __future__ import annotations

from fractions import Fraction

from ..errors import BadFile
from ..solution import format_value
from ..verdict import Verdict, agree, settle_optimality, short


def verify_tree(strategy, resolve: bool) -> Verdict:
    """The check of a deduction tree (``deduction.document.TreeStrategy``)."""
    from .verify import verify_document

    game, doc = strategy.game, strategy.document
    replayed, _ = verify_document(game, doc)
    stats = replayed.stats
    tree = strategy.tree
    histogram = {str(k): v for k, v in sorted(stats.histogram.items())}
    horizon = tree.get("horizon")
    verdict = Verdict(game)
    if horizon is not None:
        n = replayed.secrets
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
            cost = replayed.cost
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
                f"the file's objective {short(objective)} is not one a tree without a "
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
    agree(doc, facts, tree)
    verdict.data.update(
        {k: (format_value(v) if isinstance(v, Fraction) else v) for k, v in facts.items()}
    )
    verdict.data["value_float"] = float(value)
    settle_optimality(verdict, strategy, resolve)
    return verdict
