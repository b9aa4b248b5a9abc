"""The table of a Markov game drawn for the play page: dice with pips, cards face up or
face down (``templates/board.html`` draws them as inline SVG; nothing is fetched).

A game whose state this module can draw has a function in `DRAWINGS`; the others are
shown as their ``describe_state`` text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..game import Game

#: Pip centres on a die face of 100 x 100: the 3 x 3 grid's cells (0 top left .. 8).
_GRID = tuple((25 + 25 * (i % 3), 25 + 25 * (i // 3)) for i in range(9))
#: The cells holding pips for each value (1 to 9), as on ordinary dice.
_PIPS = {
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
    7: (0, 2, 3, 4, 5, 6, 8),
    8: (0, 1, 2, 3, 5, 6, 7, 8),
    9: tuple(range(9)),
}


@dataclass(frozen=True)
class Die:
    """A die showing `value`, its pips as centres on a 100 x 100 face."""

    value: int

    @property
    def pips(self) -> tuple[tuple[int, int], ...]:
        return tuple(_GRID[i] for i in _PIPS[self.value])


@dataclass(frozen=True)
class Card:
    """One card: face up (its label shown) or face down (its back; a card the player
    knows shows its label small on the back); `hint` marks the cards the roll lets
    you turn."""

    label: str
    face_up: bool
    known: bool = False
    hint: bool = False


@dataclass(frozen=True)
class Group:
    """Cards that belong together on the table (a trio), or an empty place (removed)."""

    cards: tuple[Card, ...]
    removed: bool = False


@dataclass(frozen=True)
class Board:
    """What the play page draws: the dice (if any), the cards in groups, a caption."""

    dice: tuple[Die, ...]
    groups: tuple[Group, ...]
    caption: str


def draw(game: Game, state: int, outcome: int | None) -> Board | None:
    """The board of `game` in `state` after the chance `outcome` (None: none drawn yet),
    or None where the game has no drawing."""
    drawing = DRAWINGS.get(game.name)
    return None if drawing is None else drawing(game, state, outcome)


def _dice_cards(game, state: int, outcome: int | None) -> Board:
    """dice-cards: the two dice rolled and the 2n numbered cards (a face-down card shows
    its number on its back), those the roll lets you turn (x, y, x+y) marked."""
    dice: tuple[Die, ...] = ()
    turnable: set[int] = set()
    if outcome is not None:
        x, y = (int(v) for v in game._rolls[0][outcome])
        dice = (Die(x), Die(y))
        turnable = {x, y, x + y}
    cards = tuple(
        Card(str(i), face_up=not state >> (i - 1) & 1, known=True, hint=i in turnable)
        for i in range(1, 2 * game.n + 1)
    )
    up = sum(c.face_up for c in cards)
    return Board(dice, (Group(cards),), f"{up} of {len(cards)} cards face up")


#: Trio phases (``games/tricky_trios.py``) -> cards of the face-up trio lying face up.
_FACE_UP_CARDS = {1: 1, 2: 2, 4: 1, 5: 2}


def _tricky_trios(game, state: int, outcome: int | None) -> Board:
    """Tricky Trios: every trio as three cards (trios are interchangeable, so the cards
    are drawn grouped by trio): face up, face down but remembered (its trio's letter on
    the back), or never seen; removed trios as empty places."""
    phase, f, counts = (np.asarray(v)[0] for v in game.decode(np.array([state])))
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    groups: list[Group] = []
    up = _FACE_UP_CARDS.get(int(phase), 0)
    if up:
        name = next(letters)
        groups.append(Group(tuple(Card(name, face_up=i < up, known=i < int(f)) for i in range(3))))
    for known in (3, 2, 1, 0):
        for _ in range(int(counts[known])):
            name = next(letters) if known else "?"
            groups.append(
                Group(tuple(Card(name, face_up=False, known=i < known) for i in range(3)))
            )
    removed = game.n - len(groups)
    groups += [Group((), removed=True)] * removed
    return Board(
        (),
        tuple(groups),
        f"{removed} of {game.n} trios removed; {up} card{'s' if up != 1 else ''} face up",
    )


def _five_dice(game, state: int, outcome: int | None) -> Board:
    """Yahtzee, Yatzy: the five dice showing (a roll to keep from, or the final roll's
    box to choose); the score card is the board's (``play.Scorecard``)."""
    counts = game.dice_at(state) if outcome is not None else None
    if counts is None:
        return Board((), (), "")
    dice = tuple(Die(f + 1) for f in range(6) for _ in range(counts[f]))
    return Board(dice, (), "")


#: The games drawn, by catalogue name.
DRAWINGS: dict[str, Callable[[Game, int, int | None], Board]] = {
    "dice-cards": _dice_cards,
    "tricky-trios": _tricky_trios,
    "yahtzee": _five_dice,
    "yatzy": _five_dice,
}
