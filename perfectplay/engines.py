"""One entry point for every game: dispatch a solve to the engine of the game's kind."""

from __future__ import annotations

import importlib
from typing import Any

from .errors import Unsupported
from .game import Game
from .objectives import Objective, require_supported
from .solution import Solution

#: Engine per game kind, imported only when a game of that kind is solved.
_ENGINES = {
    "markov": "perfectplay.markov.solve:solve_markov",
    "deduction": "perfectplay.deduction.solve:solve_deduction",
}


def solve(game: Game, objective: Objective | str = "expected", **options: Any) -> Solution:
    """Solve `game` for `objective` with the engine of its kind.

    Examples
    --------
    >>> from perfectplay import load_game
    >>> solve(load_game("tricky-trios", ["n=2"])).value
    Fraction(17, 5)
    """
    if isinstance(objective, str):
        horizon = game.default_horizon() if objective == "probability" else None
        objective = Objective(objective, horizon)
    require_supported(game, objective)
    try:
        target = _ENGINES[game.kind]
    except KeyError:
        raise Unsupported(f"no engine solves games of kind {game.kind!r}") from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)(game, objective, **options)
