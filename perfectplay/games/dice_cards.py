"""Seed 001: dice and cards (Project Euler 640 for n=6).

Cards 1..2n start face up. Each turn two fair n-sided dice show x and y; the player turns
over card x, card y or card x+y. The game ends when every card is face down. A state is
the bitmask of face-down cards (bit i-1 for card i).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from numba import njit

from ..markov.compiled import expand_batch, fill, reach, rules_kernel
from ..markov.model import CompiledRules, MarkovGame
from ..params import param


@rules_kernel
def _rules(params, code, weight, nxt, cost):
    """One state's rolls (x <= y, weight 2 when x != y) and its choices: turn card x, card
    y (when y != x) or card x+y; every move costs 1. Terminal: every card face down."""
    n = params[0]
    if code == (1 << (2 * n)) - 1:
        return True
    k = 0
    for x in range(1, n + 1):
        for y in range(x, n + 1):
            weight[k] = 1 if x == y else 2
            nxt[k, 0] = code ^ (1 << (x - 1))
            if y != x:
                nxt[k, 1] = code ^ (1 << (y - 1))
            nxt[k, 2] = code ^ (1 << (x + y - 1))
            cost[k, 0] = cost[k, 1] = cost[k, 2] = 1
            k += 1
    return False


@njit(cache=True)
def _expand_batch(params, codes, K, C):
    return expand_batch(_rules, params, codes, K, C)


@njit(cache=True)
def _reach(params, start, bound, K, C):
    return reach(_rules, params, start, bound, K, C)


@njit(cache=True, nogil=True)
def _fill(params, bits, start, K, C, arrays):
    return fill(_rules, params, bits, start, K, C, arrays)


@dataclass(frozen=True)
class DiceCards(MarkovGame):
    """Turn all 2n cards face down, flipping x, y or x+y after rolling two n-sided dice."""

    name = "dice-cards"
    summary = "roll two n-sided dice, turn over card x, y or x+y; all 2n cards face down to win"
    cost_unit = "moves"
    family_label = "cards still face up"
    #: A state's code is its face-down cards, the end all of them: the higher the code,
    #: the more cards are down, as a rule. Swept in decreasing code order, n=9 and n=10
    #: take the same sweeps and policy rounds as in the solver's own order (36 and 2, 39
    #: and 3); in increasing order, n=9 takes 63 sweeps and 6 rounds.
    ends_at_high_codes = True

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

    def compiled_rules(self) -> CompiledRules:
        return CompiledRules(
            np.array([self.n], dtype=np.int64),
            self.n * (self.n + 1) // 2,
            3,
            _expand_batch,
            _reach,
            _fill,
        )

    #: Peak resident memory per bound state, measured: n = 10 peaks at 2,710 MiB for its
    #: 1,048,576 states (every code of the bound is reachable): about 2,710 bytes each.
    bytes_per_state = 2750

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

    def turn(self, state: int, paid: int) -> int:
        """The roll: every move costs one."""
        return paid + 1
