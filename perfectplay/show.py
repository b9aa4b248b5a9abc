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
    objective = f"{doc.get('objective')}{', determine' if doc.get('determine') else ''}"
    title = f"[bold]{game}[/bold]: {objective} = {_value_text(data.get('value'))} ({claim})"
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


def learned_table(doc: dict[str, Any]):
    """For a Markov policy whose game labels its kinds of choice, a rich Table of what
    the policy learned (``markov/learned.py``); None otherwise."""
    from .catalogue import game_of_document

    game = game_of_document(doc)
    strategy = doc.get("strategy")
    if (game.kind != "markov" or not game.choice_kind_names or not isinstance(strategy, dict)
            or strategy.get("by_budget") or doc.get("objective") != "expected"):
        return None
    from rich.table import Table

    from .markov.learned import TOLERANCE, summarise_by_kind
    from .markov.policy_file import decode_policy

    counts, decisions, exact = summarise_by_kind(game, decode_policy(strategy))
    how = "exact comparisons" if exact else f"float comparisons, tolerance {TOLERANCE:g}"
    table = Table(title=f"choices by kind over {decisions:,} decisions ({how})")
    for col in ("kind of choice", "available", "chosen", "strictly best", "tied for best"):
        table.add_column(col, justify="left" if col == "kind of choice" else "right")
    for c in counts:
        table.add_row(c.name, f"{c.available:,}", f"{c.chosen:,}", f"{c.strictly_best:,}",
                      f"{c.tied_best:,}")
    return table


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
    from .markov.policy_file import BadPolicy, decode_policy

    cols = decode_policy(strategy)
    order = np.argsort(cols.code, kind="stable")
    sorted_codes, ptr = cols.code[order], cols.out_ptr

    def add(branch, code: int, level: int, budget: int | None) -> None:
        pos = min(int(np.searchsorted(sorted_codes, code)), len(order) - 1)
        if sorted_codes[pos] != code:
            raise BadPolicy(f"the policy does not list state {code}")
        i = int(order[pos])
        shown = f"  [dim]value {cols.value[i]:.6f}[/dim]" if budget in (None, horizon) else ""
        node = branch.add(f"{game.describe_state(code)}{shown}")
        if level >= depth or cols.n_out[i] == 0:
            return
        row = budget if budget is not None else 0
        if not 0 <= row < len(cols.choose):
            raise BadPolicy(f"state {code}: no choices for a budget of {budget}")
        exp = game.expand(np.array([code], dtype=np.int64))
        cost = np.broadcast_to(exp.cost, exp.next.shape)
        for o in range(ptr[i], ptr[i + 1]):
            k, c = int(cols.outcome[o]), int(cols.choose[row, o])
            if not (0 <= k < exp.next.shape[1] and 0 <= c < exp.next.shape[2]
                    and exp.next[0, k, c] >= 0):
                raise BadPolicy(f"state {code}: choice {c} after outcome {k} is not legal")
            label = f"[cyan]{game.describe_outcome(code, k)}[/cyan] -> {game.describe_choice(code, k, c)}"
            left = None if budget is None else budget - int(cost[0, k, c])
            add(node.add(label), int(exp.next[0, k, c]), level + 1, left)

    add(root, int(cols.code[0]), 0, horizon if cols.by_budget else None)


def _value_text(value: Any) -> str:
    """A recorded value: in full when short, else its decimal value and digit counts."""
    from .solution import exact_text, parse_value

    try:
        exact = parse_value(value)
    except (ValueError, ZeroDivisionError):
        return str(value)[:60]
    text = exact_text(exact)
    return text if "digits" not in text else f"{float(exact):.9f} (a fraction of {text})"
