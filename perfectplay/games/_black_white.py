"""Black/white feedback shared by Mastermind and Bulls and Cows: encoding, display, parsing."""

from __future__ import annotations

import re
from typing import Sequence

from ..deduction.model import BadCode
from ..ranges import shown


def score(guess: Sequence[int], secret: Sequence[int]) -> tuple[int, int]:
    """(symbols in the right place, further symbols in common) of a guess against a secret."""
    black = sum(int(a) == int(b) for a, b in zip(guess, secret))
    common = sum(
        min(list(guess).count(c), list(secret).count(c)) for c in set(int(x) for x in guess)
    )
    return black, common - black


def encode(black: int, white: int, length: int) -> int:
    return black * (length + 1) + white


def display(feedback: int, length: int, right: str, misplaced: str) -> str:
    black, white = divmod(int(feedback), length + 1)
    return f"{black}{right}{white}{misplaced}"


def parse(text: str, length: int, right: str, misplaced: str, game: str) -> int:
    # (ASCII digits, a few: a count of 5,000 digits is no count, and int() refuses it)
    count = "([0-9]{1,9})"
    match = re.fullmatch(rf"\s*{count}\s*{right}\s*{count}\s*{misplaced}\s*", text, re.IGNORECASE)
    if not match or int(match[1]) + int(match[2]) > length:
        raise BadCode(
            f"{game}: cannot read feedback {shown(text)!r} (expected e.g. 1{right}2{misplaced})"
        )
    return encode(int(match[1]), int(match[2]), length)
