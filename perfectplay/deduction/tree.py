"""Strategy trees: a guess per node, a child per non-solved feedback; statistics and JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import Unsupported
from .feedback import Table
from .model import History
from .partition import cells


@dataclass
class Node:
    """Guess `guess` (an index into the game's guesses); `children[f]` follows feedback f."""

    guess: int
    children: dict[int, "Node"] = field(default_factory=dict)


@dataclass(frozen=True)
class Stats:
    """How a strategy does over all secrets, each equally likely."""

    total: int  # guesses summed over the secrets
    secrets: int
    worst: int
    histogram: dict[int, int]  # number of guesses -> secrets revealed with that many

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "secrets": self.secrets,
            "worst": self.worst,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


@dataclass(frozen=True)
class Wins:
    """How a strategy does within a horizon: the secrets it wins within `horizon` guesses.

    Seed 000's main lemma turns the probability into a count: with W(S, t) the most
    secrets of S a strategy reveals within t guesses, the best probability is W(all
    secrets, T) divided by the number of secrets, an exact fraction. The search core
    computes it as the fewest secrets lost (``objective.LOSSES``); the tree keeps a
    subtree only where a secret can still be won."""

    objective: str  # "probability" or "probability-then-cost"
    horizon: int
    wins: int
    secrets: int
    histogram: dict[int, int]  # number of guesses -> secrets won with that many

    def to_dict(self) -> dict[str, Any]:
        return {
            "objective": self.objective,
            "horizon": self.horizon,
            "wins": self.wins,
            "secrets": self.secrets,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


def build_tree(
    table: Table, subset: np.ndarray, history: History, choose: Callable[[np.ndarray, History], int]
) -> Node:
    """The tree playing ``choose(consistent set, history)`` at every node from `subset`;
    refused in one line where a guess chosen learns nothing (the tree would not end)."""
    node = Node(choose(subset, history))
    for f, part in cells(table, node.guess, subset):
        if f != table.solved:
            if len(part) == len(subset):
                many = len(subset)
                raise Unsupported(
                    f"the strategy is stuck after {len(history)} guesses: the rules allow "
                    f"no guess that helps with the {many} secret{'s' if many != 1 else ''} "
                    "still possible"
                )
            node.children[f] = build_tree(table, part, history + ((node.guess, f),), choose)
    return node


def wins_by_guess(
    table: Table, root: Node, subset: np.ndarray, played: int = 0, determine: bool = False
) -> Counter[int]:
    """How many secrets of `subset` the tree reveals (or, with `determine`, leaves alone
    after a feedback) with its 1st, 2nd, ... guess, counting the `played` guesses before
    it. A cell without a subtree is not counted (a loss, for the probability objective)."""
    wins: Counter[int] = Counter()
    stack = [(root, subset, played + 1)]
    while stack:
        node, part_set, depth = stack.pop()
        for f, part in cells(table, node.guess, part_set):
            if f == table.solved or (determine and len(part) == 1):
                wins[depth] += len(part)
            elif f in node.children:
                stack.append((node.children[f], part, depth + 1))
    return wins


def tree_stats(
    table: Table,
    root: Node,
    subset: np.ndarray | None = None,
    played: int = 0,
    determine: bool = False,
) -> Stats:
    """Replay every secret of `subset` (default: all) down the tree with the feedback table
    (each must be revealed, or with `determine` left alone by a feedback: found with the
    guesses played so far); `played` guesses were made before the tree's root."""
    everyone = np.arange(table.n_secrets) if subset is None else subset
    depths = wins_by_guess(table, root, everyone, played, determine)
    if sum(depths.values()) != len(everyone):
        raise AssertionError(
            f"the strategy tree finds {sum(depths.values())} of {len(everyone)} secrets"
        )
    total = sum(d * k for d, k in depths.items())
    return Stats(total, len(everyone), max(depths), dict(depths))


def prune_determined(table: Table, root: Node, subset: np.ndarray) -> Node:
    """`root` without the subtrees of singleton cells (determined: their guess is not played)."""
    for f, part in cells(table, root.guess, subset):
        if f in root.children:
            if len(part) == 1:
                del root.children[f]
            else:
                prune_determined(table, root.children[f], part)
    return root


def tree_to_json(game, root: Node) -> dict[str, Any]:
    """The tree with codes and feedbacks written as people read them (``1122``, ``1B2W``)."""
    guesses = game.guesses()

    def walk(node: Node) -> dict[str, Any]:
        doc: dict[str, Any] = {"guess": game.format_code(guesses[node.guess])}
        if node.children:
            doc["next"] = {
                game.format_feedback(f): walk(child) for f, child in sorted(node.children.items())
            }
        return doc

    return walk(root)


@dataclass
class DeductionStrategy:
    """A solved strategy: the tree, how it does (`Stats` over every secret, or `Wins`
    within a horizon), and what it is (proven optimal, an upper bound, a heuristic).
    Every deduction tree is written by its `to_json`."""

    game: Any
    root: Node
    stats: Stats | Wins
    label: str
    method: str
    position: tuple = ()  # the guesses played before the root, with their feedbacks
    determine: bool = False  # secrets count as found once determined (not guessed)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "deduction-tree",
            "label": self.label,
            "method": self.method,
            **({"determine": True} if self.determine else {}),
            **position_json(self.game, self.position),
            **self.stats.to_dict(),
            "root": tree_to_json(self.game, self.root),
        }


def position_json(game, position: tuple) -> dict[str, Any]:
    """The ``after`` field of a tree solved from a position (nothing from the start)."""
    if not position:
        return {}
    from .position import format_position

    return {"after": format_position(game, position)}


#: No journal rows.
NO_ROWS = np.empty((0, 5), dtype=np.int64)
NO_ROWS.flags.writeable = False


@dataclass(frozen=True)
class Answer:
    """A subproblem's value (with its optimal subtree) or, with no tree, a lower bound;
    `found`: the values and bounds of large sets its search found on the way (journal
    rows, ``Search.journal_since``), for the other lanes (``Relay``)."""

    value: int
    tree: Node | None
    nodes: int
    found: np.ndarray = field(default_factory=lambda: NO_ROWS, compare=False)
