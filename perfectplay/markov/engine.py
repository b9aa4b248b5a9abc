"""The Markov engine: what the front ends ask of Markov games (``engine.Engine``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import Engine, Size, SolveArgs
from ..objectives import Objective

if TYPE_CHECKING:
    from ..solution import Solution
    from .compile import Graph
    from .model import MarkovGame


class MarkovEngine(Engine):
    """Chance and choices: value iteration, then the exact rational stage (``markov/``)."""

    kind = "markov"
    label = "Markov"
    solve_flags = frozenset({"exact", "tol", "without", "written", "cluster"})
    play_flags = frozenset({"enter_chance", "position", "objective"})

    def solve(self, game: MarkovGame, objective: Objective, **options: Any) -> Solution:
        from .solve import solve_markov

        return solve_markov(game, objective, **options)

    def solve_options(self, game: MarkovGame, args: SolveArgs, note=print) -> dict[str, Any]:
        from ..speedups import switched_off
        from .speedups import SpeedUps

        names = args.without_names()
        return {
            "note": note,
            "exact": args.exact,
            "distribution": args.written,
            **({"cluster": args.cluster} if args.cluster is not None else {}),
            **({"tol": args.tol} if args.tol is not None else {}),
            **({"speedups": switched_off(SpeedUps(), names)} if names else {}),
        }

    def player(
        self, game: MarkovGame, progress, kept, objective: Objective = Objective()
    ) -> tuple[float, Any]:
        """The strategy for `objective`, ready to play (``markov.simulate``): a staged
        game's stage values, or its rows for a target score (`kept`: kept, else solved
        and kept); another's policy on its graph (solved in floats), the expected
        objective's."""
        from functools import partial

        from ..errors import Unsupported
        from .simulate import play_graph, play_stages, play_target

        st = game.stages()
        if objective.name == "probability" and st is not None and game.pays:
            strategy = kept(game, objective, progress)
            return strategy.value(int(st.start) * st.width), partial(play_target, st, strategy.rows)
        if objective.name != "expected" or "expected" not in game.objectives:
            raise Unsupported(
                f"{game.name}: simulate plays the expected objective's strategy, or a target "
                "score's in a scored game solved by stages"
            )
        if st is not None:
            strategy = kept(game, objective, progress)
            sign = 1.0 if game.pays else -1.0
            play = partial(play_stages, st, strategy.values, strategy.listed, sign)
            return float(strategy.values[st.start]), play
        solution = self.solve(game, objective, exact=False, progress=progress)
        cost = partial(play_graph, solution.strategy)
        return solution.value_float, lambda *a: game.measure.sign * cost(*a)

    def size(self, game: MarkovGame) -> Size | None:
        """A game solved by stages: its stages, each one pass over the turn template (what
        the solve's time grows with: Yahtzee's 536,320 take seconds), known before
        solving; other games: not known before exploring."""
        st = game.stages()
        if st is None:
            return None
        return Size(sum(len(layer) for layer in st.layers), "stages")

    def graph(self, game: MarkovGame) -> Graph:
        """Every reachable state of `game` and its moves (``compile.compile_game``), for
        the screens that walk the game (the Gymnasium environment)."""
        from .compile import compile_game

        return compile_game(game)


#: The one Markov engine (installed for ``MarkovGame.kind`` by ``engines.py``).
MARKOV = MarkovEngine()
