"""A review of a game played on a board: every move beside the optimal one, with what
each was expected to cost from there (the loss of the move) and what chance gave against
what was expected before it (the luck): the dice of a Markov game, the feedback of a
deduction game.

With V(s) the expected cost of state s under optimal play and Q(s, k, c) the cost of
choice c after chance outcome k plus V of where it leads, a move's loss is
Q(s, k, played) - min_c Q(s, k, c) and the roll's luck is V(s) - min_c Q(s, k, c)
(positive: a roll better than the average). The cost paid is then exactly
V(start) + the losses - the luck, less V of where the game stands (0 once it is
finished): the review accounts for every unit paid. A deduction game is reviewed alike
under the board's objective, V(h) being the least expected (or worst-case) guesses
still needed after the moves h and Q(h, g) those after guess g, g included (the values
of the command line's ``rank``, found by one search a position and the guess played
priced alone, in a worker; see ``position_values``): the
feedback's luck is Q(h, g) - 1 - V(h + (g, f)). Under a horizon, V(h) is the best chance
to win within it and Q(h, g) the chance after guess g; the loss is V(h) - Q(h, g), the
luck V(h + (g, f)) - Q(h, g), and the chance at the start, less the losses, plus the
luck, is the chance as the game stands: 1 once won, 0 once lost. A deduction move is held
against the board's own suggestion where the board advised the position (V(h) is then
the suggestion's value: the numbers of the board's table where its advice was exact,
``advised_values``), so that following the suggestions loses exactly 0; the totals
telescope whatever V is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..objectives import WITHIN, Objective
from ..strategy import Decision
from .. import positions


#: Values this close (relative) are a tie: the strategy's choice among them is the best
#: (its sums, in another order, may differ from the review's in the last bits).
TIE = 1e-9


@dataclass(frozen=True)
class Move:
    """One move: the state, the roll, the choice played and the optimal one, the expected
    cost to the end after each, and the roll's luck."""

    turn: int
    state: str
    outcome: str
    played: str
    best: str
    played_cost: float
    best_cost: float
    luck: float
    sign: int = 1  # the game's Measure.sign: -1 where its numbers are points to maximize

    @property
    def loss(self) -> float:
        """How much worse the move played is than the one it is held against (the optimal
        one; a deduction board's own suggestion, which an unproven one may be worse than:
        then negative, a gain)."""
        return self.sign * (self.played_cost - self.best_cost) + 0.0  # (never -0.0)


@dataclass(frozen=True)
class Review:
    """The moves of a game, the expected cost at its start and where it stands now."""

    moves: tuple[Move, ...]
    start: float
    left: float  # expected cost from where the game stands (0 once finished)
    sign: int = 1  # the game's Measure.sign: -1 where its numbers are points to maximize
    #: The luck of chance since the last decision reviewed (a Markov game's roll waiting
    #: for its choice, or its last rolls once no choice is left).
    luck_after: float = 0.0

    @property
    def loss(self) -> float:
        return sum(m.loss for m in self.moves)

    @property
    def luck(self) -> float:
        return sum(m.luck for m in self.moves) + self.luck_after

    @property
    def reached(self) -> float:
        """The start's expected cost, plus the losses, less the luck (for points or a
        chance to win: less the losses, plus the luck): what was paid and is still to be
        paid, or the chance to win as the game stands."""
        return self.start + self.sign * (self.loss - self.luck)

    def terms(self) -> list[tuple[str, float, str]]:
        """The sum that gives `accounted`, its signs written out: (sign, amount, what)
        after the start's value, each amount not negative (bad luck is said as such)."""
        luck = abs(self.luck) + 0.0
        lucky = self.luck >= 0
        less, more = ("−", "+") if self.sign == -1 else ("+", "−")  # (the loss, the luck)
        terms = [
            (less, self.loss + 0.0, "the moves' loss"),
            (more if lucky else less, luck, "the luck" if lucky else "the bad luck"),
        ]
        return terms + ([("−", self.left, "still expected")] if self.left else [])

    @property
    def accounted(self) -> float:
        """What the review says was paid (or scored): `reached` less what is still to be
        paid (or to come)."""
        return self.reached - self.left


def markov_review(game, strategy, steps, now: int) -> Review:
    """The review of the moves `steps` ((state, outcome, choice) each, in order) of
    `game` under its expected-cost (or expected-score) `strategy`; `now` is the state the
    game stands in. One row per decision: a step with one choice is chance alone (a roll
    of dice), whose luck goes to the row of the next decision (or, after the last, to
    ``Review.luck_after``); the row is numbered as the game numbers its turns
    (``MarkovGame.turn``), else by decision. A choice's value is the final total it was
    expected to bring (paid or scored before it, plus its Q). Values are in the game's own terms; the best
    choice is the strategy's, so that a move equal to the suggestion loses exactly 0."""
    sign = game.measure.sign
    moves: list[Move] = []
    paid, luck = 0, 0.0
    for state, k, c in steps:
        exp = positions.expansion(game, np.array([state], dtype=np.int64))
        cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        legal = np.flatnonzero(exp.next[0, k] >= 0).tolist()
        q = {a: float(cost[a]) + _value(game, strategy, int(exp.next[0, k, a])) for a in legal}
        best = strategy.action(Decision(state, k, None))
        ranked = {a: sign * v for a, v in q.items()}  # as costs: the least is the best
        least = min(ranked.values())
        if not (best in ranked and ranked[best] <= least + TIE * max(1.0, abs(least))):
            best = min(ranked, key=ranked.get)
        luck += sign * (_value(game, strategy, state) - q[best])
        if len(legal) > 1:
            turn = game.turn(state, paid)
            moves.append(
                Move(
                    len(moves) + 1 if turn is None else turn,
                    game.describe_state(state),
                    game.describe_outcome(state, k),
                    game.describe_choice(state, k, c),
                    game.describe_choice(state, k, best),
                    paid + q[c],
                    paid + q[best],
                    luck + 0.0,
                    sign,
                )
            )
            luck = 0.0
        paid += int(cost[c])
    start = _value(game, strategy, positions.start(game))
    return Review(tuple(moves), start, _value(game, strategy, now), sign, luck + 0.0)


def _value(game, strategy, state: int) -> float:
    """V(state): the strategy's value (0 for a finished game)."""
    if bool(positions.terminal(game, np.array([state], dtype=np.int64))[0]):
        return 0.0
    value = strategy.value(state)
    if value is None:
        raise ValueError(f"the strategy lists no state {state}")
    return value


@dataclass(frozen=True)
class PositionValues:
    """What the review needs of a deduction position under its objective: V (the least
    expected or worst-case guesses still needed, or the best chance to win within the
    horizon), the optimal guess (None: no guess is left within the horizon), and Q of
    the guess played there (None: none played yet)."""

    best: Fraction
    best_guess: int | None
    played: Fraction | None


def position_values(
    game,
    history,
    played: int | None,
    objective: Objective = Objective(),
    suggested: int | None = None,
) -> PositionValues:
    """The values at the position `history` under `objective`, with Q of the guess
    `played` there (the engine's price of that one guess). V is the value of the guess
    the board `suggested` there where it is given (its price: the move the review holds
    a move against is the one the page suggested, so that following the suggestion
    loses exactly 0, and a guess better than an unproven suggestion gains), else the
    optimum as the search finds it (at the start of a game whose opening book a proof
    over every opening backs, the book's: that search takes hours). A guess that learns
    nothing costs a guess and leaves V as it was; under a horizon it leaves the chance
    of the same position with one guess fewer. A position with no guess left within
    the horizon is lost: V is 0."""
    from ..book import opening_at, proven_opening
    from ..engine import engine_of

    done, engine = len(history), engine_of(game)
    chance = objective.name in WITHIN
    if chance and objective.horizon <= done:
        return PositionValues(Fraction(0), None, None)
    opening = proven_opening(game, history, objective)
    book = opening_at(game, history, objective)

    def price(guess: int) -> Fraction | None:
        if book is not None and guess == book.guess:  # (its strategy's total, at once)
            return book.value(game)
        return engine.price(game, objective, history, guess)

    best = None
    if suggested is not None and (opening is None or suggested != opening.guess):
        best, guess = price(suggested), suggested
    elif opening is not None:
        best, guess = opening.value(game), opening.guess
    if best is not None:
        priced = best if played == guess else None if played is None else price(played)
    else:  # the optimum, and the guess played priced in the same search
        found = engine.value(game, objective, history, played)
        best, guess, priced = found.best, found.guess, found.played
    if not chance:
        best, priced = best - done, None if priced is None else priced - done
    if played is not None and priced is None:  # it learns nothing
        if not chance:
            priced = best + 1
        else:
            fewer = replace(objective, horizon=objective.horizon - 1)
            priced = position_values(game, history, None, fewer).best
    return PositionValues(best, guess, priced)


def advised_values(advice, played: int, chance: bool) -> PositionValues | None:
    """The values at a position straight from the board's exact `advice` there (the
    numbers its table shows: V the suggestion's value, Q the played guess's), or None
    where it cannot give them (not exact, not in the review's terms, the guess not
    listed: then ``position_values`` works them out)."""
    if advice is None or not advice.exact or advice.chance != chance:
        return None
    mine = next((o for o in advice.options if o.action == played), None)
    if mine is None or mine.value is None or advice.suggestion.value is None:
        return None
    first = advice.suggestion
    return PositionValues(first.value, first.action, mine.value)


def deduction_review(
    game, history, values: dict[int, PositionValues], solved: bool, chance: bool = False
) -> Review:
    """The review of the last of the deduction moves `history` whose positions' values are
    known (`values`, by number of moves; the positions nearest the end are the quickest
    to value, so a review too slow for the first turns still reviews the last), from the
    first of those positions on. With `chance` the values are chances to win within a
    horizon (the more the better; a solved game's is 1), else guesses still to play (a
    solved game's is 0)."""
    codes = game.guesses()
    sign = -1 if chance else 1
    won = Fraction(int(chance))  # V once the secret is found
    moves: list[Move] = []
    for turn in range(len(history), 0, -1):
        g, f = history[turn - 1]
        here, after = values.get(turn - 1), values.get(turn)
        if solved and turn == len(history):
            after = PositionValues(won, None, None)
        if here is None or after is None:
            break
        luck = (after.best - here.played) if chance else (here.played - 1 - after.best)
        moves.insert(
            0,
            Move(
                turn,
                "",
                game.format_feedback(f),
                game.format_code(codes[g]),
                game.format_code(codes[here.best_guess]),
                float(here.played),
                float(here.best),
                float(luck),
                sign,
            ),
        )
    first = moves[0].turn - 1 if moves else len(history)
    now = PositionValues(won, None, None) if solved else values.get(len(history))
    start = values.get(first)
    return Review(
        tuple(moves),
        0.0 if start is None else float(start.best),
        0.0 if now is None else float(now.best),
        sign,
    )
