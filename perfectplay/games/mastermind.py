"""Seed 004: Mastermind. A secret of `pegs` colours out of `colors` (repeats allowed).

Each guess is answered by black pegs (right colour, right place) and white pegs (right
colour, wrong place), shown as ``1B2W``. Any permutation of the positions and any
relabelling of the colours preserves the rules.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..deduction.model import DeductionGame, Symmetry
from ..params import param
from . import _black_white as bw


@dataclass(frozen=True)
class Mastermind(DeductionGame):
    """Mastermind with `pegs` positions and `colors` colours, repeated colours allowed."""

    name = "mastermind"
    summary = "find a secret code of coloured pegs from black/white feedback"

    pegs: int = param(4, low=1, high=6, help="positions in a code")
    colors: int = param(6, low=1, high=9, help="colours per position")

    def length(self) -> int:
        return self.pegs

    def n_symbols(self) -> int:
        return self.colors

    def guesses(self) -> np.ndarray:
        return np.array(
            list(itertools.product(range(self.colors), repeat=self.pegs)), dtype=np.int8
        ).reshape(-1, self.pegs)

    def n_guesses(self) -> int:
        return self.colors**self.pegs

    def n_feedbacks(self) -> int:
        return (self.pegs + 1) ** 2

    def solved_feedback(self) -> int:
        return bw.encode(self.pegs, 0, self.pegs)

    def feedback(self, guess: Sequence[int], secret: Sequence[int]) -> int:
        return bw.encode(*bw.score(guess, secret), self.pegs)

    def feedback_kernel(self):
        from .feedback_kernels import black_white

        return black_white

    def blind_to_absent_symbols(self) -> bool:
        return True

    def symmetry(self) -> Symmetry:
        return Symmetry.full(self.pegs, symbols=True)

    def format_feedback(self, feedback: int) -> str:
        return bw.display(feedback, self.pegs, "B", "W")

    def parse_feedback(self, text: str) -> int:
        return bw.parse(text, self.pegs, "B", "W", self.name)
