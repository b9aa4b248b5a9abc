"""Bulls and Cows: a secret of `digits` distinct symbols out of `symbols` (0-9).

Each guess (also of distinct symbols) is answered by bulls (right symbol, right place)
and cows (right symbol, wrong place), shown as ``1B2C``. Any permutation of positions
and relabelling of symbols preserves the rules.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..deduction.model import BadCode, DeductionGame, Symmetry
from ..params import param
from . import _black_white as bw


@dataclass(frozen=True)
class BullsAndCows(DeductionGame):
    """Bulls and Cows with `digits` distinct digits out of `symbols`."""

    name = "bulls-and-cows"
    summary = "find a secret of distinct digits from bulls (right place) and cows"

    digits: int = param(4, low=1, high=4, help="positions in a code (distinct symbols)")
    symbols: int = param(10, low=1, high=10, help="number of symbols (digits 0..symbols-1)")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.digits > self.symbols:
            from ..errors import BadParameter

            raise BadParameter(
                f"digits={self.digits} needs at least as many symbols (got {self.symbols})"
            )

    def length(self) -> int:
        return self.digits

    def n_symbols(self) -> int:
        return self.symbols

    def guesses(self) -> np.ndarray:
        return np.array(
            list(itertools.permutations(range(self.symbols), self.digits)), dtype=np.int8
        ).reshape(-1, self.digits)

    def n_guesses(self) -> int:
        return math.perm(self.symbols, self.digits)

    def n_feedbacks(self) -> int:
        return (self.digits + 1) ** 2

    def solved_feedback(self) -> int:
        return bw.encode(self.digits, 0, self.digits)

    def feedback(self, guess: Sequence[int], secret: Sequence[int]) -> int:
        return bw.encode(*bw.score(guess, secret), self.digits)

    def feedback_kernel(self):
        from .feedback_kernels import black_white

        return black_white

    def opening_book(self) -> Path:
        """The whole game solved, shipped for its parameters (``data/book/``, see its
        SOURCE.txt): where none is shipped (only 4 digits of 10 are), None is read."""
        name = f"bulls-and-cows-digits{self.digits}-symbols{self.symbols}.json"
        return Path(__file__).parent / "data" / "book" / name

    def symmetry(self) -> Symmetry:
        return Symmetry.full(self.digits, symbols=True)

    def format_code(self, code: Sequence[int]) -> str:
        return "".join(str(int(c)) for c in code)

    def parse_code(self, text: str) -> np.ndarray:
        text = text.strip()
        if len(text) != self.digits or not (text.isascii() and text.isdigit()):
            raise BadCode(f"{self.name}: cannot read code {text!r} (expected {self.digits} digits)")
        code = np.array([int(ch) for ch in text], dtype=np.int8)
        if code.max() >= self.symbols or len(set(text)) != len(text):
            raise BadCode(
                f"{self.name}: code {text!r} must use distinct digits below {self.symbols}"
            )
        return code

    def format_feedback(self, feedback: int) -> str:
        return bw.display(feedback, self.digits, "B", "C")

    def parse_feedback(self, text: str) -> int:
        return bw.parse(text, self.digits, "B", "C", self.name)
