"""A solved Markov game's strategy: the choice after every chance outcome in every state."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..solution import format_value
from .compile import Graph
from .model import MarkovGame

#: Above this many states the exported policy omits human-readable state labels.
LABEL_LIMIT = 100_000


@dataclass
class Policy:
    """Per outcome, the chosen choice edge (one table, or one per remaining budget).

    ``chosen`` has shape (O,) for expected cost, (H+1, O) for the horizon objective,
    where row h is the choice with h cost units of budget left.
    """

    game: MarkovGame
    graph: Graph
    chosen: np.ndarray
    values: Sequence  # value of every state: exact rationals (list) or floats (array)

    def value_of(self, code: int) -> Any:
        """The value of the state with game code `code` (a Fraction when exact, else float)."""
        value = self.values[int(self.graph.index_of(np.array([code]))[0])]
        if type(value).__module__.startswith("flint"):
            return Fraction(int(value.p), int(value.q))
        return float(value)

    def choice(self, code: int, k: int, budget: int | None = None) -> int:
        """The game's choice number to play after outcome k in state `code`."""
        g = self.graph
        if (budget is None) != (self.chosen.ndim == 1) or (budget is not None
                                                           and not 0 <= budget < len(self.chosen)):
            raise ValueError(f"budget {budget} does not fit this policy")
        s = int(g.index_of(np.array([code]))[0])
        for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
            if g.outcome_k[o] == k:
                row = self.chosen if budget is None else self.chosen[budget]
                return int(g.choice_c[row[o]])
        raise KeyError(f"state {code} has no outcome {k}")

    def to_json(self) -> dict[str, Any]:
        g = self.graph
        labels = g.n_states <= LABEL_LIMIT
        rows = self.chosen if self.chosen.ndim == 2 else self.chosen[None]
        states = []
        for s in [g.start, *range(g.start), *range(g.start + 1, g.n_states)]:  # start first
            code = int(g.codes[s])
            lo, hi = g.out_ptr[s], g.out_ptr[s + 1]
            entry: dict[str, Any] = {"code": code, "value": format_value(self.values[s])}
            if labels:
                entry["label"] = self.game.describe_state(code)
            if hi > lo:
                entry["outcomes"] = g.outcome_k[lo:hi].tolist()
                entry["choose"] = [g.choice_c[row[lo:hi]].tolist() for row in rows]
            states.append(entry)
        return {"kind": "markov-policy", "by_budget": self.chosen.ndim == 2, "states": states}
