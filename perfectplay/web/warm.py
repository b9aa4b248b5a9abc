"""The server's warm-up, so that no page pays for loading compiled code or building tables.

Only the games the package ships are warmed (``catalogue.shipped_names``): a plug-in's
rules run when a page asks for them, never at the start.

``workers``: run once by the fork server every worker is forked from (``jobs``; it
imports ``worker_start``, which calls it), before it forks any. It loads the compiled
kernels of both engines, builds the feedback tables of the shipped deduction games at
the web page's default parameters (the games the catalogue's "play" links open) with their first
suggestion's kernels, and solves each Markov game once at its smallest parameters (its
kernels, not its default's seconds of work: the board's own solve does that), so that
every worker, a fork of that process, starts with them. Wordle's table is the longest
part.

``pages``: run by the server itself before it serves: the kernels its boards use to walk
a game (a Markov game's moves from one state, one guess's feedbacks) loaded.

The server's log gives the whole warm-up's time.
"""

from __future__ import annotations

import numpy as np

from ..catalogue import load_game, shipped_names
from ..errors import PerfectplayError
from ..game import Game
from .forms import read_game, read_objective


def _default_games() -> list[Game]:
    """The games the package ships at the web page's default parameters: a plug-in's
    rules are run when a page asks for them, never before (a plug-in whose rules raise
    stopped the server, one of 10^9 codes had it killed for its memory)."""
    games = []
    for name in shipped_names():
        try:
            games.append(read_game(name, {}))
        except PerfectplayError:  # a game too large for the page's defaults
            continue
    return games


def _smallest(game: Game) -> Game:
    """`game` with every whole-number parameter at the least its range allows (the same
    kinds of rules, so the same compiled kernels, in far less work); `game` itself where
    that combination is refused."""
    from ..params import param_specs

    lowest = [
        f"{p.name}={p.low}" for p in param_specs(type(game)) if not (p.choices or p.path or p.text)
    ]
    try:
        return load_game(game.name, lowest)
    except PerfectplayError:
        return game


def workers() -> None:
    """Load the kernels, build the default games' tables and find their first suggestion."""
    from ..engine import engine_of, solve
    from ..advice import stages, whole_objective

    for game in _default_games():
        if game.kind == "deduction":
            aim = whole_objective(game, read_objective(game, {}))
            next(stages(game, (), aim, exact=False))  # the table, the book, the rule of thumb
        else:  # its kernels, on its smallest game (a full Yatzy takes seconds)
            solve(_smallest(game), "expected", exact=False)
    probe = load_game("mastermind", ["pegs=2", "colors=3"])
    for objective in ("expected", "losses"):
        engine_of(probe).load_kernels(probe, objective)
    solve(load_game("dice-cards", ["n=2"]), "expected", exact=False)


def pages() -> None:
    """Load the kernels the boards run in the server: a deduction game's feedbacks for one
    guess, a Markov game's moves from its first state."""
    from ..engine import engine_of

    for game in _default_games():
        if game.kind == "deduction":
            codes = game.secrets()
            engine_of(game).feedback(game, game.guesses()[:1], codes[:2])
        else:
            state = np.array([game.initial_state()], dtype=np.int64)
            game.is_terminal(state)
            game.expand(state)
