"""A deduction strategy tree read from its solution document, through `Strategy`.

Nodes are the document's own (``{"guess": CODE, "next": {FEEDBACK: node}}``); a
position is the (guess index, feedback) pairs played since the start of the game,
the tree's own ``after`` position first. An explorer path is the feedbacks followed from
the root, joined by ``/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PerfectplayError
from ..solution import PROVEN_GIVEN_FIRST, format_value
from ..strategy import BadPath, Branch, Option, Strategy, View
from .feedback import compute_feedback
from .model import History

#: Secrets still possible are listed in the explorer up to this many.
LIST_LIMIT = 24


class TreeStrategy(Strategy):
    """A deduction tree (expected, worst or probability objective) from its document."""

    kind = "deduction-tree"
    game_kind = "deduction"

    def __init__(self, game, document: dict[str, Any]):
        from .verify import tree_document

        super().__init__(game, document)
        self.tree = tree_document(document)
        self.root = self.tree["root"]
        self._index: dict[tuple[int, ...], int] | None = None
        self._start: History | None = None

    @property
    def start(self) -> History:
        """The position the tree was solved from (its ``after`` field)."""
        if self._start is None:
            from .position import parse_position

            self._start = parse_position(self.game, self.tree.get("after") or "")
        return self._start

    def guess_index(self, text: str) -> int:
        """The index in ``game.guesses()`` of a guess as the tree writes it."""
        if self._index is None:
            self._index = {tuple(c): i for i, c in enumerate(self.game.guesses().tolist())}
        return self._index[tuple(int(x) for x in self.game.parse_code(text))]

    def _node(self, position: History) -> dict[str, Any] | None:
        """The tree's node after `position`; None off the tree (a guess it did not play,
        or a position before its own start)."""
        start = tuple(self.start)
        if tuple(position[: len(start)]) != start:
            return None
        node = self.root
        for g, f in position[len(start) :]:
            if self.guess_index(node["guess"]) != g:
                return None
            node = (node.get("next") or {}).get(self.game.format_feedback(f))
            if node is None:
                return None
        return node

    def action(self, position: History) -> int | None:
        """The guess the tree plays after `position`; None off the tree."""
        node = self._node(position)
        return None if node is None else self.guess_index(node["guess"])

    def at(self, position: History) -> tuple[int, int, int, int] | None:
        """The tree at `position`: the guess it plays there, its guesses summed over the
        secrets still possible (each counted from the start of the game), the most one
        needs, and how many secrets are still possible; None off the tree."""
        node, game = self._node(position), self.game
        if node is None:
            return None
        guesses, secrets = game.guesses(), game.secrets()
        left = np.arange(len(secrets))
        for g, f in position:
            left = left[compute_feedback(game, guesses[[g]], secrets[left])[0] == f]
        value = _subtree(game, node, left, len(position), self.tree.get("horizon"))
        return self.guess_index(node["guess"]), value.total, value.worst, len(left)

    def verify(self, resolve: bool = True):
        from .document_check import verify_tree

        return verify_tree(self, resolve)

    def solve_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"workers": None, "position": self.start}
        if self.document.get("max_guesses") is not None:
            options["max_guesses"] = self.document["max_guesses"]
        if PROVEN_GIVEN_FIRST in (self.document.get("status"), self.tree.get("label")):
            options["first"] = self.guess_index(self.root["guess"])
        return options

    def render(self, tree, depth: int) -> None:
        _render(tree, self.root, depth)

    # --- the explorer -------------------------------------------------------------
    def _walk(self, path: str) -> tuple[dict, History, list[str]]:
        """The node at `path`, the position before it, and the labels followed."""
        labels = [p for p in path.split("/") if p] if path else []
        node, history = self.root, tuple(self.start)
        for label in labels:
            children = node.get("next") or {}
            if label not in children:
                raise BadPath(f"the tree has no feedback {label!r} there")
            try:
                f = self.game.parse_feedback(label)
            except PerfectplayError:
                raise BadPath(f"unreadable feedback {label!r}") from None
            history = history + ((self.guess_index(node["guess"]), f),)
            node = children[label]
        return node, history, labels

    def explore(self, path: str) -> View:
        game = self.game
        node, history, labels = self._walk(path)
        secrets = game.secrets()
        left = np.arange(len(secrets))
        guesses = game.guesses()
        for g, f in history:
            left = left[compute_feedback(game, guesses[[g]], secrets[left])[0] == f]
        played = len(history)
        horizon = self.tree.get("horizon")
        g = self.guess_index(node["guess"])
        row = compute_feedback(game, guesses[[g]], secrets[left])[0]
        solved = game.solved_feedback()
        whole = _Value(0, 0, 0)  # the node's subtree: its branches' values summed
        branches = []
        for f in sorted(set(row.tolist())):
            label = game.format_feedback(f)
            count = int((row == f).sum())
            detail = f"{count:,} secret{'s' if count != 1 else ''}"
            child = (node.get("next") or {}).get(label)
            if f == solved:
                whole = whole.plus(_Value((played + 1) * count, count, played + 1))
                options = (Option("solved", f"guess {played + 1}", True, None),)
            elif child is None:
                options = (Option("lost (no guess left)", "", True, None),)
            else:
                value = _subtree(game, child, left[row == f], played + 1, horizon)
                if horizon is None or played + 1 < horizon:
                    whole = whole.plus(value)
                options = (
                    Option(
                        f"guess {child['guess']}",
                        value.words(count, horizon),
                        True,
                        "/".join(labels + [label]),
                        self.guess_index(child["guess"]),
                    ),
                )
            branches.append(Branch(label, detail, options, f))
        n = len(left)
        facts = [
            f"{n:,} secret{'s' if n != 1 else ''} still possible"
            + (
                ": " + " ".join(game.format_code(secrets[s]) for s in left)
                if n <= LIST_LIMIT
                else ""
            )
        ]
        if horizon is not None:
            facts.append(
                f"value of the subtree: wins {whole.won:,} of {n:,} within {horizon} guesses"
            )
        else:
            facts.append(
                f"value of the subtree: {whole.total:,} guesses over {n:,} "
                f"secret{'s' if n != 1 else ''}, "
                f"average {format_value(Fraction(whole.total, n)) if n else '0'} "
                f"({whole.total / max(n, 1):.4f}), worst case {whole.worst}"
            )
        parent = "/".join(labels[:-1]) if labels else None
        return View(
            path="/".join(labels),
            title=f"guess {node['guess']}",
            facts=tuple(facts),
            branches=tuple(branches),
            parent=parent,
        )


@dataclass(frozen=True)
class _Value:
    """What a subtree achieves over its secrets: the guesses summed (each secret's from
    the start of the game), the secrets won, the deepest guess that wins one."""

    total: int
    won: int
    worst: int

    def plus(self, other: "_Value") -> "_Value":
        """The value over this value's secrets and `other`'s together."""
        return _Value(self.total + other.total, self.won + other.won, max(self.worst, other.worst))

    def words(self, secrets: int, horizon: int | None) -> str:
        """The value over `secrets` secrets in words: the secrets won within the horizon,
        or the average number of guesses and the worst case."""
        if horizon is not None:
            return f"wins {self.won:,} of {secrets:,}"
        return f"average {self.total / secrets:.4f} guesses, worst {self.worst}"


def _subtree(game, node: dict, left: np.ndarray, played: int, horizon: int | None) -> _Value:
    """The value of the subtree `node` over the secrets `left` after `played` guesses."""
    secrets, guesses = game.secrets(), game.guesses()
    solved = game.solved_feedback()
    total = won = worst = 0
    stack = [(node, left, played + 1)]
    while stack:
        here, part, depth = stack.pop()
        code = game.parse_code(here["guess"])
        row = compute_feedback(
            game, np.asarray(code)[None, :].astype(guesses.dtype), secrets[part]
        )[0]
        for f in np.unique(row):
            cell = part[row == f]
            if f == solved:
                total += depth * len(cell)
                won += len(cell)
                worst = max(worst, depth)
                continue
            child = (here.get("next") or {}).get(game.format_feedback(int(f)))
            if child is not None and (horizon is None or depth < horizon):
                stack.append((child, cell, depth + 1))
    return _Value(total, won, worst)


def _render(branch, node: Any, depth: int) -> None:
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
        _render(sub, child, depth - 1)
