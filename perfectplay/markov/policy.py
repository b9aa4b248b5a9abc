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
    ``chosen`` is None where the solve kept no choices (``recomputed``): a choice is then
    read from the values and the rules, as the greedy pass takes it (``choice``), and
    the graph, where it fits, gets every choice so.
    """

    game: MarkovGame
    explored: Graph | ReachedCodes
    chosen: np.ndarray | None
    values: Sequence  # value of every state: exact rationals (list) or floats (array)

    @property
    def graph(self) -> Graph:
        """The game's graph (explored again if the solve did not keep it; refused in one
        line where it would not fit in memory)."""
        if not isinstance(self.explored, Graph):
            from .compile import _refuse_graph, compile_game

            _refuse_graph(self.game, self.explored.reached)
            self.explored = compile_game(self.game, compiled=True, reached=self.explored.reached)
        if self.chosen is None:
            from .compile import Pairs
            from .kernels import greedy_choices

            g = self.explored
            self.chosen = greedy_choices(
                np.asarray(self.values, dtype=float),
                g.out_ptr,
                g.choice_ptr,
                g.target,
                g.cost,
                Pairs.none().arrays(),
            )
        return self.explored

    def value_of(self, code: int) -> Any:
        """The value of the state with game code `code` (a Fraction when exact, else float)."""
        value = self.values[int(self.explored.index_of(np.array([code]))[0])]
        if type(value).__module__.startswith("flint"):
            return Fraction(int(value.p), int(value.q))
        return float(value)

    def choice(self, code: int, k: int, budget: int | None = None) -> int:
        """The game's choice number to play after outcome k in state `code`."""
        if self.chosen is None and budget is None and not isinstance(self.explored, Graph):
            return self._greedy_choice(code, k)
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

    def _greedy_choice(self, code: int, k: int) -> int:
        """The choice after outcome k of state `code` that the values make cheapest, read
        from the rules (a solve that kept no choices): ties, and differences within
        rounding, to the lowest choice, as ``kernels.improve_choices`` takes them."""
        from .contract import expansion
        from .kernels import _margin

        exp = expansion(self.game, np.array([code], dtype=np.int64))
        if not 0 <= k < exp.weight.shape[1] or exp.weight[0, k] <= 0:
            raise KeyError(f"state {code} has no outcome {k}")
        nxt, cost = exp.next[0, k], np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        live = np.flatnonzero(nxt >= 0)
        index = self.explored.index_of(nxt[live])
        q = cost[live] + np.asarray(self.values, dtype=float)[index]
        best = 0
        for j in range(1, len(live)):
            if q[j] < q[best] - _margin(q[best]):
                best = j
        return int(live[best])

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
