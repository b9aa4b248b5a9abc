"""A Markov game given as an explicit table: the quickest way to define a small game.

>>> from perfectplay.markov.table import TableGame
>>> coin = TableGame({0: [(1, [(1, 1)]), (1, [(0, 1)])]}, terminal={1})
>>> from perfectplay import solve
>>> solve(coin).value   # flip a fair coin until heads: 2 flips on average
Fraction(2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..errors import IncompleteRules
from .model import Expansion, MarkovGame

Transitions = Mapping[int, Sequence[tuple[int, Sequence[tuple[int, int]]]]]


@dataclass(frozen=True, eq=False)
class TableGame(MarkovGame):
    """States are ints; ``table[s]`` lists ``(weight, [(next_state, cost), ...])`` per outcome.

    State 0 (or ``start``) is the start; states in ``terminal`` end the game.
    """

    name = "table"
    summary = "a game given as an explicit transition table"

    table: Transitions = field(default_factory=dict)
    terminal: frozenset = frozenset()
    start: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        for state, row in self.table.items():
            for k, (_, choices) in enumerate(row):
                for target, _cost in choices:
                    self._require(target, f"state {state}, outcome {k}, leads to state {target}")
        self._require(self.start, f"the start state {self.start}")

    def _require(self, state: int, what: str) -> None:
        if state not in self.table and state not in self.terminal:
            raise IncompleteRules(
                f"{self.name}: {what}, which has no row in the table and is not terminal"
            )

    def __str__(self) -> str:
        if type(self).name != TableGame.name:
            return super().__str__()
        return f"table({len(self.table)} states)"

    def initial_state(self) -> int:
        return self.start

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        return np.array([int(s) in self.terminal for s in states], dtype=bool)

    def expand(self, states: np.ndarray) -> Expansion:
        for s in states:
            self._require(int(s), f"state {int(s)} is reached")
        rows = [self.table[int(s)] for s in states]
        K = max((len(r) for r in rows), default=1)
        C = max((len(ch) for r in rows for _, ch in r), default=1)
        weight = np.zeros((len(rows), K), dtype=np.int64)
        nxt = np.full((len(rows), K, C), -1, dtype=np.int64)
        cost = np.zeros((len(rows), K, C), dtype=np.int64)
        for b, row in enumerate(rows):
            for k, (w, choices) in enumerate(row):
                weight[b, k] = w
                for c, (t, cst) in enumerate(choices):
                    nxt[b, k, c], cost[b, k, c] = t, cst
        return Expansion(weight=weight, next=nxt, cost=cost)
