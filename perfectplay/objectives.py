"""What "optimal" means: the objectives shared by both engines."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Unsupported
from .ranges import MOST, within

OBJECTIVES: dict[str, str] = {
    "expected": "minimum expected cost (moves, rounds or guesses) to finish, or maximum "
    "expected score of a game that pays points",
    "worst": "minimum worst-case number of guesses",
    "probability": "maximum probability of finishing within a horizon (--horizon), or of "
    "scoring at least the horizon's points in a game that pays them",
    "probability-then-cost": "deduction games: maximum probability of winning within the "
    "horizon, then least expected total cost of the guesses "
    "(item costs, seed 000's Note 2)",
}

#: The objectives that take a horizon.
WITHIN = ("probability", "probability-then-cost")


@dataclass(frozen=True)
class Objective:
    """An objective name with its parameters (the horizon for ``probability``).

    ``determine`` (deduction games, seed 004): a secret counts as found once the feedback
    leaves it alone, so the last guess is not played, rather than once it is guessed
    ("reveal", the default).
    """

    name: str = "expected"
    horizon: int | None = None
    determine: bool = False

    def __post_init__(self) -> None:
        if self.name not in OBJECTIVES:
            raise Unsupported(f"unknown objective {self.name!r} (known: {', '.join(OBJECTIVES)})")
        if self.name not in WITHIN and self.horizon is not None:
            raise Unsupported(f"--horizon goes with --objective probability, not {self.name!r}")
        if self.name in WITHIN:
            if self.horizon is None:
                raise Unsupported(f"objective {self.name!r} needs a horizon (--horizon H)")
            within(self.horizon, 0, MOST, what="the horizon")

    @property
    def ranked(self) -> Objective:
        """The objective guesses are priced under (a ranking, a review): this one, but
        ``probability-then-cost`` priced by its chance to win alone (a ranking prices no
        item costs)."""
        if self.name == "probability-then-cost":
            return Objective("probability", self.horizon, self.determine)
        return self

    def __str__(self) -> str:
        text = f"{self.name}(horizon={self.horizon})" if self.name in WITHIN else self.name
        return f"{text}, determine" if self.determine else text


def objective_for(
    game, name: str | None = None, horizon: int | None = None, determine: bool = False
) -> Objective:
    """The objective `name` for `game` (the game's own by default), with the game's own
    horizon where the objective takes one and none is given."""
    name = name or game.default_objective
    if name in WITHIN and horizon is None:
        horizon = game.default_horizon()
    return Objective(name, horizon, determine)
