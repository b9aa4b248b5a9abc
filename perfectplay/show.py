"""Print an exported strategy as an indented tree, to a chosen depth."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import PerfectplayError


def strategy_tree(doc: dict[str, Any], depth: int):
    """A rich Tree of the strategy in an exported solution document."""
    from rich.tree import Tree

    from .catalogue import load_game

    strategy = doc.get("strategy") if isinstance(doc, dict) else None
    kind = strategy.get("kind") if isinstance(strategy, dict) else None
    if kind not in ("deduction-tree", "markov-policy"):
        raise PerfectplayError("not a perfectplay solution file with a strategy")
    params = doc.get("params") if isinstance(doc.get("params"), dict) else {}
    game = load_game(str(doc.get("game")), [f"{k}={v}" for k, v in params.items()])
    title = f"[bold]{game}[/bold]: {doc.get('objective')} = {doc.get('value')} ({doc.get('status')})"
    root = Tree(title)
    if kind == "deduction-tree":
        _deduction(root, strategy["root"], depth)
    else:
        _markov(root, game, strategy, depth)
    return root


def _deduction(branch, node: dict[str, Any], depth: int) -> None:
    here = branch.add(f"guess [green]{node.get('guess')}[/green]")
    children = node.get("next") or {}
    if depth <= 0:
        if children:
            here.add(f"... {len(children)} feedbacks")
        return
    for fb, child in children.items():
        sub = here.add(f"[cyan]{fb}[/cyan]")
        _deduction(sub, child, depth - 1)


def _markov(root, game, strategy: dict[str, Any], depth: int) -> None:
    entries = strategy["states"]
    by_code = {int(e["code"]): e for e in entries}

    def add(branch, code: int, level: int) -> None:
        entry = by_code[code]
        node = branch.add(f"{game.describe_state(code)}  [dim]value {_short(entry['value'])}[/dim]")
        if level >= depth or "outcomes" not in entry:
            return
        exp = game.expand(np.array([code], dtype=np.int64))
        for k, c in zip(entry["outcomes"], entry["choose"][-1]):
            label = f"[cyan]{game.describe_outcome(code, k)}[/cyan] -> {game.describe_choice(code, k, c)}"
            add(node.add(label), int(exp.next[0, k, c]), level + 1)

    add(root, int(entries[0]["code"]), 0)


def _short(value: str) -> str:
    from fractions import Fraction

    return f"{float(Fraction(value)):.6f}"
