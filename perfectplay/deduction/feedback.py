"""The feedback table of a game, built once: every guess against every secret.

A ``Table`` is what every algorithm of the engine reads: the codes, the table
``fb[g, s]`` (uint8), the solved feedback, and the number of distinct non-solved
feedbacks that occur (the branching factor of the lower bounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import Unsupported
from .model import DeductionGame, Symmetry

#: Largest table built (guesses x secrets entries, one byte each).
MAX_TABLE = 120_000_000


@dataclass(frozen=True, eq=False)
class Table:
    game: DeductionGame
    guesses: np.ndarray        # (G, L) int8
    secrets: np.ndarray        # (S, L) int8
    fb: np.ndarray             # (G, S) uint8
    solved: int                # the feedback meaning "guess == secret"
    n_feedbacks: int
    branching: int             # distinct non-solved feedbacks that occur
    secret_of_guess: np.ndarray  # (G,) index of the equal secret, or -1
    guess_of_secret: np.ndarray  # (S,) index of the equal guess
    symmetry: Symmetry

    @property
    def n_secrets(self) -> int:
        return len(self.secrets)


def compute_feedback(game: DeductionGame, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Feedback of each guess (rows) against each secret (columns) by the game's kernel."""
    out = np.empty((len(guesses), len(secrets)), dtype=np.uint8)
    game.feedback_kernel()(np.ascontiguousarray(guesses), np.ascontiguousarray(secrets), out)
    return out


@lru_cache(maxsize=8)
def build_table(game: DeductionGame) -> Table:
    """The game's feedback table and code indices (cached per game: built once)."""
    guesses, secrets = game.guesses(), game.secrets()
    if len(guesses) * len(secrets) > MAX_TABLE:
        raise Unsupported(f"{game}: {len(guesses):,} guesses x {len(secrets):,} secrets is too large "
                          f"(limit {MAX_TABLE:,} table entries)")
    fb = compute_feedback(game, guesses, secrets)
    solved = game.solved_feedback()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    guess_of_secret = np.array([index[tuple(s)] for s in secrets.tolist()], dtype=np.int64)
    secret_of_guess = np.full(len(guesses), -1, dtype=np.int64)
    secret_of_guess[guess_of_secret] = np.arange(len(secrets))
    present = np.zeros(256, dtype=bool)
    for row in range(0, len(fb), 256):
        present[np.unique(fb[row:row + 256])] = True
    branching = max(1, int(present.sum()) - int(present[solved]))
    return Table(game, guesses, secrets, fb, solved, game.n_feedbacks(), branching,
                 secret_of_guess, guess_of_secret, game.symmetry())
