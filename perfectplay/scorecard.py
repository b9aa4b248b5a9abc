"""A dice game's score card (Yahtzee, Yatzy) as its players keep it: each box's score,
the upper boxes' total and bonus, the Yahtzee bonuses and the total; kept by the
screens from the boxes a game filled (the state holds only the upper total, capped)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: The upper boxes' total that wins their bonus.
UPPER_BONUS_AT = 63


@dataclass
class Scorecard:
    """The boxes of `game` filled so far (box index -> score) and what was scored in all
    (`scored`: the boxes, the bonuses)."""

    game: object
    scores: dict[int, int] = field(default_factory=dict)
    scored: int = 0

    def kept(self) -> tuple[dict[int, int], int]:
        """What the card holds now, to be put back (``undo``: ``restore``)."""
        return dict(self.scores), self.scored

    def restore(self, kept: tuple[dict[int, int], int]) -> None:
        self.scores, self.scored = dict(kept[0]), kept[1]

    def note(self, state: int, choice: int, paid: int) -> None:
        """Count the move `choice` at `state` that paid `paid`: a box filled, if it is one."""
        self.scored += paid
        if self.game.dice_at(state) is not None and self.game.kept(state, choice) is None:
            self.scores[choice] = self.game.box_score(state, choice)

    @property
    def upper(self) -> int:
        return sum(s for i, s in self.scores.items() if self.game.boxes[i].face >= 0)

    @property
    def bonus(self) -> int:
        """The upper bonus won (0: not yet)."""
        return self.game.upper_bonus if self.upper >= UPPER_BONUS_AT else 0

    @property
    def extra(self) -> int:
        """The Yahtzee bonuses scored (what was scored beyond the boxes and the upper bonus:
        the upper bonus is paid with the last box)."""
        full = len(self.scores) == len(self.game.boxes)
        return self.scored - sum(self.scores.values()) - (self.bonus if full else 0)

    @property
    def total(self) -> int:
        """The card's total: what was scored, with the upper bonus once won (the game pays
        it with the last box)."""
        full = len(self.scores) == len(self.game.boxes)
        return self.scored + (0 if full else self.bonus)

    def line(self) -> str:
        """The card in one line, for the terminal: ``aces 3, chance 20 | upper 3 (bonus
        35: 60 to go) | total 23``."""
        boxes = ", ".join(f"{name} {score}" for name, score, _ in self.rows() if score is not None)
        need = max(UPPER_BONUS_AT - self.upper, 0)
        bonus = f"{self.bonus} won" if self.bonus else f"{self.game.upper_bonus}: {need} to go"
        extra = f" | Yahtzee bonuses {self.extra}" if self.extra else ""
        return (
            f"card: {boxes or 'empty'} | upper {self.upper} (bonus {bonus}){extra} | "
            f"total {self.total}"
        )

    def written(self) -> str:
        """The card as a position writes it (``aces 3, full house 25, bonus 100``: its
        filled boxes, its Yahtzee bonuses), for a form to take up."""
        boxes = [f"{name} {score}" for name, score, _ in self.rows() if score is not None]
        return ", ".join(boxes + ([f"bonus {self.extra}"] if self.extra else []))

    def rows(self) -> list[tuple[str, int | None, bool]]:
        """Each box: its name, its score (None: open) and whether it is an upper box."""
        return [
            (box.name, self.scores.get(i), box.face >= 0) for i, box in enumerate(self.game.boxes)
        ]


def scorecard(game, position: str | None = None) -> Scorecard | None:
    """The score card of `game` (None for a game without one): empty, or that of the
    `position` of a game played elsewhere as ``parse_position`` reads it (its filled
    boxes with their scores, its Yahtzee bonuses)."""
    if not hasattr(game, "box_score"):
        return None
    if position is None:
        return Scorecard(game)
    scores, bonuses = game.card_scores(position.rpartition(";")[0])
    return Scorecard(game, scores, sum(scores.values()) + bonuses)
