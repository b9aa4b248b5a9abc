"""Positions people type: guesses with their feedback (``salet:BBYBB,crony:BGGBB``).

A position is checked as the game would check it: every code and feedback must read,
every guess must be one the rules allowed at its turn (hard modes), and some secret must
answer them all; otherwise a one-line error says which part is wrong.
"""

from __future__ import annotations

import numpy as np

from ..errors import Unsupported
from .feedback import Table
from .model import DeductionGame, History
from .partition import consistent_after


def guess_index(game: DeductionGame, text: str) -> int:
    """The index in ``game.guesses()`` of the code written `text` (BadCode if unreadable)."""
    code = game.parse_code(text)
    hits = np.flatnonzero((game.guesses() == code).all(axis=1))
    if len(hits) == 0:
        raise Unsupported(f"{game.name}: {text.strip()!r} is not a guess the game allows")
    return int(hits[0])


def parse_position(game: DeductionGame, text: str) -> History:
    """The history written ``GUESS:FEEDBACK[,GUESS:FEEDBACK...]`` (empty text: none). A
    feedback that says the guess was the secret ends the game, so only the last may say
    it (a finished game, as a board shows it); a guess after it is refused."""
    history: list[tuple[int, int]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        guess, sep, feedback = part.partition(":")
        if not sep:
            raise Unsupported(
                f"cannot read {part!r} in the position (expected GUESS:FEEDBACK, "
                f"e.g. {game.format_code(game.guesses()[0])}:"
                f"{game.format_feedback(0)})"
            )
        if history and history[-1][1] == game.solved_feedback():
            raise Unsupported(
                f"{game.name}: {format_position(game, history)} already finds the secret: "
                f"no guess can follow it ({part.strip()!r})"
            )
        history.append((guess_index(game, guess), game.parse_feedback(feedback)))
    return tuple(history)


def position_to_solve(game: DeductionGame, text: str) -> History:
    """The position `text` writes (``parse_position``) as one to solve, rank or value
    openings from (``--after``): refused when its last feedback says the secret was
    found, since nothing is left to solve there (a value would count guesses never
    played)."""
    history = parse_position(game, text)
    if history and history[-1][1] == game.solved_feedback():
        raise Unsupported(
            f"{game.name}: the secret is already found after "
            f"{format_position(game, history)}: nothing left to solve"
        )
    return history


def format_position(game: DeductionGame, history: History) -> str:
    """`history` written as ``parse_position`` reads it."""
    guesses = game.guesses()
    return ",".join(f"{game.format_code(guesses[g])}:{game.format_feedback(f)}" for g, f in history)


def position_secrets(table: Table, history: History) -> np.ndarray:
    """The secrets still possible after `history`, checking every guess was allowed."""
    game = table.game
    for turn in range(len(history)):
        g = history[turn][0]
        mask = game.restrict_guesses(history[:turn], table.guesses[g][None, :])
        if mask is not None and not mask[0]:
            raise Unsupported(
                f"{game.name}: {game.format_code(table.guesses[g])} is not allowed "
                f"after {format_position(game, history[:turn])} (the game's hard mode)"
            )
    left = consistent_after(table, history)
    if len(left) == 0:
        raise Unsupported(f"{game.name}: no secret answers {format_position(game, history)}")
    return left
