"""Seed 001: dice and cards (Project Euler 640 for n=6).

Cards 1..2n start face up. Each turn two fair n-sided dice show x and y; the player turns
over card x, card y or card x+y. The game ends when every card is face down. A state is
the bitmask of face-down cards (bit i-1 for card i).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..markov.model import Expansion, MarkovGame
from ..params import param


@dataclass(frozen=True)
class DiceCards(MarkovGame):
    """Turn all 2n cards face down, flipping x, y or x+y after rolling two n-sided dice."""

    name = "dice-cards"
    summary = "roll two n-sided dice, turn over card x, y or x+y; all 2n cards face down to win"
    cost_unit = "moves"
    family_label = "cards still face up"

    n: int = param(5, low=1, high=16, help="faces on each die (2n cards)")

    @cached_property
    def _rolls(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unordered rolls (x <= y), their weights, and the cards each lets you turn."""
        pairs = [(x, y) for x in range(1, self.n + 1) for y in range(x, self.n + 1)]
        weights = np.array([1 if x == y else 2 for x, y in pairs], dtype=np.int64)
        cards = np.array([(x, y if y != x else 0, x + y) for x, y in pairs], dtype=np.int64)
        return np.array(pairs, dtype=np.int64), weights, cards

    def initial_state(self) -> int:
        return 0

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        return states == (1 << (2 * self.n)) - 1

    def expand(self, states: np.ndarray) -> Expansion:
        _, weights, cards = self._rolls
        masks = np.where(cards > 0, np.left_shift(1, np.maximum(cards, 1) - 1), 0)
        nxt = np.where(cards > 0, states[:, None, None] ^ masks[None], -1)
        weight = np.broadcast_to(weights, (len(states), len(weights)))
        return Expansion(weight=weight, next=nxt, cost=np.ones_like(nxt))

    def state_bound(self) -> int:
        return 1 << (2 * self.n)

    code_bound = state_bound

    def describe_state(self, state: int) -> str:
        down = [str(i + 1) for i in range(2 * self.n) if state >> i & 1]
        return "face down: " + (" ".join(down) if down else "none")

    def describe_outcome(self, state: int, k: int) -> str:
        x, y = self._rolls[0][k]
        return f"rolled {x} and {y}"

    def describe_choice(self, state: int, k: int, c: int) -> str:
        card = int(self._rolls[2][k][c])
        way = "down" if not state >> (card - 1) & 1 else "up"
        return f"turn card {card} {way}"

    def state_family(self, state: int) -> int:
        return 2 * self.n - int(state).bit_count()
