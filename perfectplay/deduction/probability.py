"""The probability objective's strategy: the tree that wins the most secrets within T guesses.

Seed 000's main lemma turns the probability into a count: with W(S, t) the most secrets
of S a strategy reveals within t guesses, the best probability is W(all secrets, T)
divided by the number of secrets, an exact fraction. The search core computes it as the
fewest secrets lost (``objective.LOSSES``); the tree keeps a subtree only where a
secret can still be won.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..solution import PROVEN
from .tree import Node, position_json, tree_to_json


@dataclass
class WinStrategy:
    """A strategy for the probability objective (optimal unless its label says otherwise):
    a tree of at most `horizon` levels."""

    game: Any
    root: Node
    horizon: int
    wins: int
    secrets: int
    histogram: dict[int, int]
    position: tuple = ()  # the guesses played before the root, with their feedbacks
    determine: bool = False  # a secret is won once determined (a singleton cell)
    objective: str = "probability"  # or probability-then-cost
    label: str = PROVEN  # or given its first guess, or an upper bound (``solution.py``)
    method: str = "optimal"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "deduction-tree",
            "label": self.label,
            "method": self.method,
            **({"determine": True} if self.determine else {}),
            **position_json(self.game, self.position),
            "objective": self.objective,
            "horizon": self.horizon,
            "wins": self.wins,
            "secrets": self.secrets,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "root": tree_to_json(self.game, self.root),
        }
