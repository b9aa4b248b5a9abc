"""The rules protocol of a Markov game: what a game module writes, and nothing else.

A state is an integer code (a canonical encoding chosen by the game). For a batch of
states the game returns its chance outcomes (integer weights, so probabilities are exact
rationals) and, after each outcome, the player's choices of next state with their cost.
"Roll, then choose" is one step; "choose, then chance" is a choice leading to a state
whose only content is the pending chance event (its outcomes each have one forced choice
of cost 0). Rules are written once, vectorised over the batch, and read by the solver,
the simulator and the advisor alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import missing_rule
from ..game import Game

#: What a Markov game must define (named in the error when one is missing).
NEEDS = "a Markov game defines initial_state, is_terminal and expand"


@dataclass
class Expansion:
    """Outcomes and choices for a batch of B states, padded to K outcomes and C choices.

    weight[b, k]   chance weight of outcome k (0 = no such outcome); the probability is
                   weight / weight[b].sum().
    next[b, k, c]  state code after choice c following outcome k (-1 = no such choice).
    cost[b, k, c]  cost of that choice (a non-negative integer).
    """

    weight: np.ndarray
    next: np.ndarray
    cost: np.ndarray


class MarkovGame(Game):
    """Base class of Markov games (seed 001's dice and cards, seed 003's Tricky Trios)."""

    kind: ClassVar[str] = "markov"
    objectives: ClassVar[tuple[str, ...]] = ("expected", "probability")
    #: What one unit of cost is called in summaries ("moves", "rounds").
    cost_unit: ClassVar[str] = "moves"
    #: What ``state_family`` measures, for plots.
    family_label: ClassVar[str] = "state family"

    def initial_state(self) -> int:
        raise missing_rule(self, "initial_state", NEEDS)

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """Boolean array: which of `states` end the game (the goal)."""
        raise missing_rule(self, "is_terminal", NEEDS)

    def expand(self, states: np.ndarray) -> Expansion:
        """Outcomes and choices of non-terminal `states` (an int64 array)."""
        raise missing_rule(self, "expand", NEEDS)

    #: Measured peak memory of a whole solve per state of ``state_bound()`` (bytes), for
    #: the up-front refusal of sizes that cannot fit; None: estimated from the choices of
    #: the start state instead.
    bytes_per_state: ClassVar[int | None] = None

    def state_bound(self) -> int | None:
        """An upper bound on the number of reachable states, to refuse what cannot fit."""
        return None

    def code_bound(self) -> int | None:
        """One more than the largest state code, if known (lets exploration use a bitmap)."""
        return None

    def describe_state(self, state: int) -> str:
        return str(state)

    def describe_outcome(self, state: int, k: int) -> str:
        return f"outcome {k}"

    def describe_choice(self, state: int, k: int, c: int) -> str:
        return f"choice {c}"

    def state_family(self, state: int) -> int:
        """A small integer grouping states for plots (e.g. cards still face up)."""
        return 0
