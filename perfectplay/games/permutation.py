"""Seed 002: the water bottles. The secret is an ordering of n distinct bottles.

Each guess is an ordering too, answered by how many bottles stand in the right place
(shown as a number). Relabelling the bottles or permuting the places preserves the rules.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..deduction.model import BadCode, DeductionGame, Symmetry
from ..params import param


@dataclass(frozen=True)
class Permutation(DeductionGame):
    """Find a hidden permutation of n items from the number of items in the right place."""

    name = "permutation"
    summary = "find a hidden order of n bottles from how many are in the right place"

    n: int = param(4, low=1, high=7, help="number of items (bottles)")

    def length(self) -> int:
        return self.n

    def n_symbols(self) -> int:
        return self.n

    def guesses(self) -> np.ndarray:
        return np.array(list(itertools.permutations(range(self.n))), dtype=np.int8).reshape(
            -1, self.n
        )

    def n_guesses(self) -> int:
        return math.factorial(self.n)

    def n_feedbacks(self) -> int:
        return self.n + 1

    def solved_feedback(self) -> int:
        return self.n

    def feedback(self, guess: Sequence[int], secret: Sequence[int]) -> int:
        return sum(int(a) == int(b) for a, b in zip(guess, secret))

    def feedback_kernel(self):
        from .feedback_kernels import fixed_points

        return fixed_points

    def symmetry(self) -> Symmetry:
        return Symmetry.full(self.n, symbols=True)

    def parse_code(self, text: str) -> np.ndarray:
        code = super().parse_code(text)
        if len(set(code.tolist())) != self.n:
            raise BadCode(f"{self.name}: code {text!r} must use each of 1..{self.n} once")
        return code
