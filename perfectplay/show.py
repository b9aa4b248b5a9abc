"""Print an exported strategy as an indented tree, to a chosen depth."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import PerfectplayError


def strategy_tree(doc: dict[str, Any], depth: int, verdict=None):
    """A rich Tree of the strategy in an exported solution document. The title shows the
    numbers of `verdict` (``verify_file.check_document``: the file's numbers, checked
    against its replay) and says whether the claim of optimality was checked."""
    from rich.markup import escape
    from rich.tree import Tree

    from .catalogue import game_of_document
    from .verify_file import check_document

    verdict = verdict or check_document(doc, resolve=False)
    game = game_of_document(doc)
    strategy = doc.get("strategy")
    kind = strategy.get("kind") if isinstance(strategy, dict) else None
    data = verdict.data
    claim = {"exact check": "proven optimal (exact check)",
             "not checked": "claimed proven optimal: perfectplay verify checks that"}.get(verdict.optimality, escape(str(doc.get("status", "no claim"))))
    title = f"[bold]{game}[/bold]: {doc.get('objective')} = {data.get('value')} ({claim})"
    if "total" in data and "worst" in data:
        title += f"; total {data['total']} over {data['secrets']} secrets, worst case {data['worst']}"
    root = Tree(title)
    if kind == "deduction-tree" and game.kind == "deduction":
        from .deduction.verify import tree_document

        _deduction(root, tree_document(doc)["root"], depth)
    elif kind == "markov-policy" and game.kind == "markov":
        _markov(root, game, strategy, depth, doc.get("horizon"))
    else:
        raise PerfectplayError(f"the file holds no strategy for {game.name}")
    return root


def _deduction(branch, node: Any, depth: int) -> None:
    if not isinstance(node, dict):
        raise PerfectplayError("the strategy tree has a node that is not an object")
    here = branch.add(f"guess [green]{node.get('guess')}[/green]")
    children = node.get("next") or {}
    if not isinstance(children, dict):
        raise PerfectplayError(f"the node guessing {node.get('guess')} has malformed children")
    if depth <= 0:
        if children:
            here.add(f"... {len(children)} feedback{'s' if len(children) != 1 else ''}")
        return
    for fb, child in children.items():
        sub = here.add(f"[cyan]{fb}[/cyan]")
        _deduction(sub, child, depth - 1)


def _markov(root, game, strategy: dict[str, Any], depth: int, horizon: int | None) -> None:
    """The policy from the start, following each outcome's chosen choice; for a horizon
    policy, each level uses the choices for the budget left there."""
    from .markov.verify import BadPolicy, is_int

    entries = strategy.get("states")
    if not isinstance(entries, list) or not entries or not all(
            isinstance(e, dict) and is_int(e.get("code")) for e in entries):
        raise BadPolicy("the policy's states are malformed")
    by_code = {e["code"]: e for e in entries}

    def add(branch, code: int, level: int, budget: int | None) -> None:
        entry = by_code.get(code)
        if entry is None:
            raise BadPolicy(f"the policy does not list state {code}")
        shown = f"  [dim]value {_short(entry.get('value'))}[/dim]" if budget in (None, horizon) else ""
        node = branch.add(f"{game.describe_state(code)}{shown}")
        if level >= depth or "outcomes" not in entry:
            return
        try:
            row = entry["choose"][budget if budget is not None else 0]
            pairs = list(zip(entry["outcomes"], row, strict=True))
        except (IndexError, KeyError, TypeError, ValueError):
            raise BadPolicy(f"state {code}: outcomes and choices are malformed") from None
        exp = game.expand(np.array([code], dtype=np.int64))
        cost = np.broadcast_to(exp.cost, exp.next.shape)
        for k, c in pairs:
            if not (is_int(k) and is_int(c) and 0 <= k < exp.next.shape[1]
                    and 0 <= c < exp.next.shape[2] and exp.next[0, k, c] >= 0):
                raise BadPolicy(f"state {code}: choice {c} after outcome {k} is not legal")
            label = f"[cyan]{game.describe_outcome(code, k)}[/cyan] -> {game.describe_choice(code, k, c)}"
            left = None if budget is None else budget - int(cost[0, k, c])
            add(node.add(label), int(exp.next[0, k, c]), level + 1, left)

    add(root, entries[0]["code"], 0, horizon if strategy.get("by_budget") else None)


def _short(value: Any) -> str:
    from fractions import Fraction

    try:
        return f"{float(Fraction(str(value))):.6f}"
    except (ValueError, ZeroDivisionError):
        return "?"
