"""The Markov engine: what the front ends ask of Markov games (``engines.Engine``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engines import Engine, PlayArgs, SolveArgs
from ..objectives import Objective

if TYPE_CHECKING:
    from ..play.console import Console
    from ..solution import Solution
    from .model import MarkovGame


class MarkovEngine(Engine):
    """Chance and choices: value iteration, then the exact rational stage (``markov/``)."""

    kind = "markov"
    label = "Markov"
    solve_flags = frozenset({"exact", "tol", "without"})
    gym_env = "perfectplay.gym:MarkovEnv"
    web_board = "perfectplay.web.play:markov_board"

    def solve(self, game: MarkovGame, objective: Objective, **options: Any) -> Solution:
        from .solve import solve_markov

        return solve_markov(game, objective, **options)

    def solve_options(self, game: MarkovGame, args: SolveArgs, note=print) -> dict[str, Any]:
        from ..speedups import switched_off
        from .speedups import SpeedUps

        names = args.without_names()
        return {
            "exact": args.exact,
            **({"tol": args.tol} if args.tol is not None else {}),
            **({"speedups": switched_off(SpeedUps(), names)} if names else {}),
        }

    def play(self, game: MarkovGame, console: Console, seed: int | None, args: PlayArgs) -> None:
        from ..engines import solve
        from ..play.markov_play import play_markov
        from ..strategy import load_strategy

        play_markov(game, load_strategy(solve(game, exact=False).export()), console, seed)


#: The one Markov engine (``MarkovGame.engine``).
MARKOV = MarkovEngine()
