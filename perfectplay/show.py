"""Print an exported strategy as an indented tree, to a chosen depth."""

from __future__ import annotations

from typing import Any

from .strategy import Strategy


def strategy_tree(strategy: Strategy, depth: int, verdict=None):
    """A rich Tree of `strategy`'s first `depth` levels. The title shows the numbers of
    `verdict` (``Strategy.verify``: the file's numbers, checked against its replay) and
    says whether the claim of optimality was checked."""
    from rich.markup import escape
    from rich.tree import Tree

    doc = strategy.document
    verdict = verdict or strategy.verify(resolve=False)
    data = verdict.data
    claim = {
        "exact check": "proven optimal (exact check)",
        "not checked": "claimed proven optimal: perfectplay verify checks that",
    }.get(verdict.optimality, escape(str(doc.get("status", "no claim"))))
    what = strategy.game.measure.objective_text(doc.get("objective"), doc.get("horizon"))
    objective = f"{escape(what)}{', determine' if doc.get('determine') else ''}"
    title = (
        f"[bold]{strategy.game}[/bold]: {objective} = {_value_text(data.get('value'))} ({claim})"
    )
    if "total" in data and "worst" in data:
        title += (
            f"; total {data['total']} over {data['secrets']} secrets, worst case {data['worst']}"
        )
    root = Tree(title)
    strategy.render(root, depth)
    return root


def _value_text(value: Any) -> str:
    """A recorded value: an exact fraction in full when short, else its decimal value and
    digit counts; a decimal (a float's digits, not a fraction) to 9 places, said to be
    rounded, never written as the fraction its digits spell."""
    from .solution import exact_text, is_fraction_text, parse_value

    try:
        exact = parse_value(value)
    except (ValueError, ZeroDivisionError):
        return str(value)[:60]
    if not is_fraction_text(value):
        return f"{float(exact):.9f} (rounded)"
    text = exact_text(exact)
    return text if "digits" not in text else f"{float(exact):.9f} (a fraction of {text})"
