"""``perfectplay play``: an advised game at the terminal, the advisor chosen by the
game's kind (the screen holds its kind-specific views; the engines know no screen)."""

from __future__ import annotations

from ..advice import check_markov_objective
from ..engine import PlayArgs
from ..errors import Unsupported
from ..game import Game
from ..kept import strategy_for
from ..objectives import Objective
from .console import Console

#: Seconds the deduction advisor's optimal search may take when --budget is not given.
BUDGET = 2.0


def play_game(game: Game, console: Console, seed: int | None, args: PlayArgs) -> None:
    """One advised game of `game` (``perfectplay play``); `seed` draws chance or the secret."""
    if game.kind == "deduction":
        from .deduction_play import play_deduction

        play_deduction(
            game,
            console,
            secret=args.secret,
            seed=seed,
            budget=BUDGET if args.budget is None else args.budget,
            objective=args.objective,
        )
    elif game.kind == "markov":
        from .markov_play import play_markov, read_position

        start, written = (None, None)
        if args.position is not None:
            start, written = read_position(game, console, args.position)
        aim = args.objective or Objective()
        check_markov_objective(game, aim)  # (before a solve)
        strategy = strategy_for(game, aim)  # (solved once, then kept: ``kept``)
        play_markov(
            game, strategy, console, seed, enter_chance=args.enter_chance, start=start,
            position=written, objective=aim,
        )  # fmt: skip
    else:
        raise Unsupported(f"{game.name} cannot be played at the terminal")
