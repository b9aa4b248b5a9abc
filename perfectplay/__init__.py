"""perfectplay: exact optimal strategies for one-player games of chance and hidden information.

The public API is flat: ``load_game`` builds a game from the catalogue by name and
parameters, ``solve`` returns a ``Solution`` (exact value, status, strategy), and
``register`` adds a game of your own (docs/custom-games.md).

>>> from perfectplay import load_game, solve
>>> solve(load_game("dice-cards(n=2)")).value_float  # Project Euler 640's worked example
5.673650793650793
"""

from . import kernel_cache, numba_start
from .threading_layer import choose_fork_safe_layer

choose_fork_safe_layer()  # before any numba kernel runs: worker processes are forked
kernel_cache.install()  # before any kernel is defined: where their compiled code is kept
numba_start.install()  # before any kernel is loaded: without numba's whole CPU target

from .advice import Advice, Bound, Option, advise  # noqa: E402
from .catalogue import game_names, load_game, load_strategy, register  # noqa: E402 (after the set-up)
from .engine import solve  # noqa: E402
from .errors import PerfectplayError  # noqa: E402
from .objectives import Objective  # noqa: E402
from .solution import Solution  # noqa: E402

__all__ = [
    "Advice",
    "Bound",
    "Option",
    "advise",
    "Objective",
    "PerfectplayError",
    "Solution",
    "game_names",
    "load_game",
    "load_strategy",
    "register",
    "solve",
]
