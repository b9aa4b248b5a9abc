"""How a person plays a deduction board by clicks: the keys of the game's symbols, and
the feedback another game gave as marks per position (a click on a tile cycles it), as
two counts (black and white pegs, bulls and cows) or as one number
(``templates/pad.html`` draws the pad, ``static/board.js`` makes its clicks type into
the same boxes a keyboard types into, which the server reads as before).

Everything is read off the game's own formatting, so a plug-in deduction game gets a pad
too: its symbols are ``format_code`` of each symbol alone; its feedback is per position
when there are 3**length feedbacks (``format_feedback`` of 0, 1, 2 names the first
position's marks) unless ``format_feedback(0)`` reads like ``0B0W`` (two counts: 3**2
feedbacks for two pegs too), else a number from 0 to ``n_feedbacks() - 1``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..game import Game

#: What the two counts are called, by their letters (others are shown as their letters).
COUNT_NAMES = {("B", "W"): ("black", "white"), ("B", "C"): ("bulls", "cows")}
#: The rows of an on-screen keyboard for letters a-z (the usual layout).
QWERTY = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@dataclass(frozen=True)
class Key:
    """A key of the pad: the symbol it types and what is known of it so far (the best
    mark it got in any guess, as the feedback's letter; "" when none)."""

    symbol: str
    state: str = ""


@dataclass(frozen=True)
class Pad:
    """The pad of a game: its keys in rows, the code's length, whether a code uses each
    symbol once, and its feedback entry: `marks` (per-position letters, the cycle of a
    click, worst first), `counts` (the letters of the two counts) or `numbers` (how many
    values)."""

    rows: tuple[tuple[Key, ...], ...]
    length: int
    distinct: bool
    marks: tuple[str, ...] = ()
    counts: tuple[str, str] | None = None
    numbers: int = 0

    @property
    def count_names(self) -> tuple[str, str]:
        """The names of the two counts, for their rows of buttons."""
        return COUNT_NAMES.get(self.counts, self.counts) if self.counts else ("", "")

    @property
    def feedback_kind(self) -> str:
        return "marks" if self.marks else "counts" if self.counts else "number"

    def script_data(self) -> dict:
        """What ``board.js`` needs, as JSON."""
        return {
            "length": self.length,
            "distinct": self.distinct,
            "marks": list(self.marks),
            "counts": list(self.counts or ()),
        }


def pad_of(game: Game, history) -> Pad:
    """The pad of `game` after the moves `history` ((guess index, feedback) pairs): for
    games with per-position marks, each key shows the best mark its symbol got."""
    length = game.length()
    symbols = [game.format_code([s]) for s in range(game.n_symbols())]
    counts = _counts(game)
    marks = () if counts else _marks(game)
    best: dict[str, int] = {}
    if marks:
        guesses = game.guesses()
        for g, f in history:
            for p, ch in enumerate(game.format_code(guesses[g])):
                digit = (int(f) // 3**p) % 3
                best[ch] = max(best.get(ch, -1), digit)
    keys = {s: Key(s, marks[best[s]] if s in best else "") for s in symbols}
    if set(symbols) == set("".join(QWERTY)):
        rows = tuple(tuple(keys[ch] for ch in row) for row in QWERTY)
    else:
        rows = (tuple(keys[s] for s in symbols),)
    return Pad(
        rows=rows,
        length=length,
        distinct=game.n_guesses() == math.perm(game.n_symbols(), length) and length > 1,
        marks=marks,
        counts=counts,
        numbers=0 if marks or counts else game.n_feedbacks(),
    )


def _marks(game: Game) -> tuple[str, ...]:
    """The letters of a position's marks 0, 1, 2 (Wordle's B, Y, G), or () when the
    feedback is not one mark per position."""
    if game.n_feedbacks() != 3 ** game.length():
        return ()
    return tuple(game.format_feedback(d)[0] for d in range(3))


def _counts(game: Game) -> tuple[str, str] | None:
    """The letters of the two counts (Mastermind's B and W), or None."""
    match = re.fullmatch(r"0([A-Za-z])0([A-Za-z])", game.format_feedback(0))
    return (match[1], match[2]) if match else None
