"""What a game's numbers measure: costs to minimize, or a score to maximize, and their words.

A game either charges a cost on its choices (moves, rounds, guesses: fewer is better) or
pays a score (points: more is better; ``MarkovGame.pays``). The engine minimizes costs
only: a game that pays has its points negated where they enter the engine
(``markov.compile``), and its values turned back once, when a solve ends. Everything a
person reads is in the game's own terms; a screen asks the game's `Measure` for its
words instead of telling the two kinds of game apart itself.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """The unit of a game's numbers (plural: "moves", "points") and whether it pays them
    (a score to maximize) or charges them (a cost to minimize)."""

    unit: str
    pays: bool = False

    @property
    def sign(self) -> int:
        """A game's number times the sign is the cost the engine minimizes (-1: points)."""
        return -1 if self.pays else 1

    @property
    def expected(self) -> str:
        """The expected objective's name: ``expected moves``, ``expected score (points)``."""
        return f"expected score ({self.unit})" if self.pays else f"expected {self.unit}"

    @property
    def expected_final(self) -> str:
        """What a choice's final total measures (paid or scored so far plus to come):
        ``expected final score``, ``expected total moves``."""
        return "expected final score" if self.pays else f"expected total {self.unit}"

    @property
    def to_go(self) -> str:
        """What a state's value measures: ``moves left``, ``points to come``."""
        return f"{self.unit} to come" if self.pays else f"{self.unit} left"

    def within(self, horizon: int | None) -> str:
        """The probability objective's name for `horizon`."""
        if self.pays:
            return f"P(score at least {horizon} {self.unit})"
        return f"P(finish within {horizon} {self.unit})"

    def objective_text(self, name: object, horizon: object = None) -> str:
        """An objective in the game's words (``expected score (points)``, ``worst-case
        guesses``, ``P(finish within 4 moves)``); any other by its name."""
        if name == "expected":
            return self.expected
        if name == "worst":
            return f"worst-case {self.unit}"
        if name == "probability" and isinstance(horizon, int):
            return self.within(horizon)
        return str(name)

    def chance_text(self, budget: int) -> str:
        """What a probability is the chance of, with `budget` units (score still needed)."""
        if self.pays:
            return f"of scoring at least {budget} {self.unit} more"
        return f"of finishing within {budget} {self.unit}"

    def budget_text(self, budget: int) -> str:
        """The budget of a policy by budget, for a person."""
        if self.pays:
            return f"still needed: {budget} {self.unit}"
        return f"budget left: {budget} {self.unit}"

    def next_budget(self, budget: int, number: int) -> int | None:
        """The budget after a choice of `number` (the game's own, cost or points): a cost
        spends it (None: overspent, the choice loses), points pay off what is still
        needed (never below 0)."""
        if self.pays:
            return max(0, budget - number)
        left = budget - number
        return left if left >= 0 else None

    def met(self, left: int) -> bool:
        """Whether a game that ended with budget `left` (``next_budget``; -1: overspent)
        met its horizon: finished within it, or scored at least it (nothing still needed)."""
        return left == 0 if self.pays else left >= 0

    def amount(self, count: int) -> str:
        """``1 move``, ``12 points``: a count with its unit (singular for 1)."""
        unit = self.unit
        return f"{count} {unit[:-1] if count == 1 and unit.endswith('s') else unit}"

    @property
    def so_far_word(self) -> str:
        """What a game in progress does with its numbers: ``paid``, ``scored``."""
        return "scored" if self.pays else "paid"

    def so_far(self, count: int) -> str:
        """What a game in progress has paid or scored: ``paid 3 moves``, ``scored 12 points``."""
        return f"{self.so_far_word} {self.amount(count)}"

    def paid_by(self, number: int) -> str:
        """What a choice pays, where a strategy is read: ``pays 6 points`` for a choice that
        pays something; "" for one that pays nothing, or a cost (the values left show it:
        the state a choice leads to counts only the points still to come)."""
        return f"pays {self.amount(number)}" if self.pays and number else ""

    def final_score(self, scored: int, to_come: float) -> str:
        """A game that paid `scored` points before a state whose value is `to_come`, for a
        person reading a strategy: ``scored 6 points, expected final score 6.000000``;
        "" before anything is scored, or for a cost."""
        if not (self.pays and scored):
            return ""
        return f"{self.so_far(scored)}, expected final score {scored + to_come:.6f}"

    def finished(self, count: int) -> str:
        """The end of a game played: ``finished in 3 moves``, ``finished with 12 points``."""
        return f"finished {'with' if self.pays else 'in'} {self.amount(count)}"

    def optimal(self, value: float) -> str:
        """What optimal play achieves on average, for a person."""
        verb = "scores" if self.pays else "needs"
        return f"optimal play {verb} {value:.6f} {self.unit} on average"

    def optimal_chance(self, horizon: int, value: float) -> str:
        """What optimal play achieves under the probability objective, for a person."""
        if self.pays:
            return (
                f"optimal play scores at least {horizon} {self.unit} with probability {value:.6f}"
            )
        return f"optimal play finishes within {horizon} {self.unit} with probability {value:.6f}"

    def finished_within(self, count: int, horizon: int) -> str:
        """The end of a game played for the probability objective: ``finished in 5 moves,
        within 6``, ``finished with 12 points, at least 10`` (or ``short of 10``)."""
        if self.pays:
            return f"{self.finished(count)}, {'at least' if count >= horizon else 'short of'} {horizon}"
        return f"{self.finished(count)}, within {horizon}"

    def regret(self, chosen: float, best: float) -> float:
        """How much worse `chosen` is than `best` (expected values in the game's terms),
        a non-negative number when `best` is the optimum."""
        return self.sign * (chosen - best)

    def regret_text(self, regret: float) -> str:
        """``that costs 0.5 moves more ...``, ``that scores 0.5 points less ...``."""
        how = "scores" if self.pays else "costs"
        more = "less" if self.pays else "more"
        return f"that {how} {regret:.4f} {self.unit} {more} than optimal on average"
