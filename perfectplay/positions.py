"""A game's rules read checked, for the screens: what a board needs to play a position
through the Api rather than an engine's protocol (the web package imports no module of
an engine, ``tests/web/test_layers.py``).

Each name is the protocol's own checked reading (``deduction/contract.py``,
``markov/contract.py``: a rule that breaks its protocol refused in one line), so a board
reads the rules exactly as the engine does.

Deduction games: `sizes`, `codes` (the code lists, read once a page), `feedback` (one
pair's answer) and `same_answer` (the kernel's answer held to the rule's). Markov games:
`start`, `terminal` and `expansion` (a state's chance outcomes, choices and costs), and
`reads_positions` (whether a game reads a position of a game played elsewhere).
"""

from __future__ import annotations

from .deduction.contract import Codes, Sizes, codes, feedback, same_answer, sizes
from .markov.contract import expansion, start, terminal
from .markov.model import MarkovGame


def reads_positions(game) -> bool:
    """Whether `game` reads a position written out (``MarkovGame.parse_position``: a
    game played elsewhere, its card and its dice)."""
    return type(game).parse_position is not MarkovGame.parse_position


__all__ = [
    "Codes",
    "Sizes",
    "codes",
    "expansion",
    "feedback",
    "reads_positions",
    "same_answer",
    "sizes",
    "start",
    "terminal",
]
