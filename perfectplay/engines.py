"""The list of engines: every engine perfectplay has, installed for its kind of game.

Importing this module installs them (``engine.install``); the package does so before
anything else runs, so ``engine.engine_of(game)`` finds the engine of every game. The
engine modules are light: each imports its solver only when asked to solve.
"""

from __future__ import annotations

from .deduction.engine import DEDUCTION
from .engine import Engine, install
from .markov.engine import MARKOV

#: Every engine, in the order messages list them.
ENGINES: tuple[Engine, ...] = (DEDUCTION, MARKOV)

install(*ENGINES)
