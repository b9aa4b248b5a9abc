"""A solved Markov game's strategy: the choice after every chance outcome in every state."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..solution import format_value
from .compile import Graph
from .model import MarkovGame
from .policy_file import PolicyColumns, encode_policy, segments

if TYPE_CHECKING:
    from .streamed import ReachedCodes


@dataclass
class Policy:
    """Per outcome, the chosen choice edge (one table, or one per remaining budget).

    ``chosen`` has shape (O,) for expected cost, (H+1, O) for the horizon objective,
    where row h is the choice with h cost units of budget left. ``explored`` is the
    game's graph, or, when the solve kept none (``streamed``), its reachable codes: the
    graph is then explored again, once, when ``graph`` is first read (the same states,
    outcomes and choices in the same order, so ``chosen`` and ``values`` index it).
    """

    game: MarkovGame
    explored: Graph | ReachedCodes
    chosen: np.ndarray
    values: Sequence  # value of every state: exact rationals (list) or floats (array)

    @property
    def graph(self) -> Graph:
        """The game's graph (explored again if the solve did not keep it)."""
        if not isinstance(self.explored, Graph):
            from .compile import compile_game

            self.explored = compile_game(self.game, compiled=True, reached=self.explored.reached)
        return self.explored

    def value_of(self, code: int) -> Any:
        """The value of the state with game code `code` (a Fraction when exact, else float)."""
        value = self.values[int(self.explored.index_of(np.array([code]))[0])]
        if type(value).__module__.startswith("flint"):
            return Fraction(int(value.p), int(value.q))
        return float(value)

    def choice(self, code: int, k: int, budget: int | None = None) -> int:
        """The game's choice number to play after outcome k in state `code`."""
        g = self.graph
        if (budget is None) != (self.chosen.ndim == 1) or (
            budget is not None and not 0 <= budget < len(self.chosen)
        ):
            raise ValueError(f"budget {budget} does not fit this policy")
        s = int(g.index_of(np.array([code]))[0])
        for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
            if g.outcome_k[o] == k:
                row = self.chosen if budget is None else self.chosen[budget]
                return int(g.choice_c[row[o]])
        raise KeyError(f"state {code} has no outcome {k}")

    def live_values(self) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the states that are not terminal and their values (floats), for
        the picture of values by state family (``plot``)."""
        live = ~self.graph.terminal
        values = np.asarray([float(v) for v in self.values])
        return self.graph.codes[live], values[live]

    def to_json(self) -> dict[str, Any]:
        """The policy as columns (see ``policy_file``), the start state first."""
        g = self.graph
        order = np.concatenate(([g.start], np.arange(g.start), np.arange(g.start + 1, g.n_states)))
        n_out = np.diff(g.out_ptr)[order]
        outs = segments(g.out_ptr, order)
        rows = self.chosen if self.chosen.ndim == 2 else self.chosen[None]
        exact = not isinstance(self.values, np.ndarray)
        values = (
            np.array([float(v) for v in self.values]) if exact else np.asarray(self.values, float)
        )
        return encode_policy(
            PolicyColumns(
                code=g.codes[order],
                n_out=n_out,
                outcome=g.outcome_k[outs],
                choose=g.choice_c[rows[:, outs]],
                value=values[order],
                exact=[format_value(self.values[s]) for s in order.tolist()] if exact else None,
                by_budget=self.chosen.ndim == 2,
            )
        )
