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
for the expected number of guesses, V(h) being the least expected guesses still needed
after the moves h and Q(h, g) the expected guesses to the end after guess g, g included
(the command line's ``rank`` at each position, worked out in a worker; see
``position_values``): the feedback's luck is Q(h, g) - 1 - V(h + (g, f)).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..objectives import Objective
from ..strategy import Decision


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
        """How much worse the move played is than the optimal one (never negative)."""
        return self.sign * (self.played_cost - self.best_cost)


@dataclass(frozen=True)
class Review:
    """The moves of a game, the expected cost at its start and where it stands now."""

    moves: tuple[Move, ...]
    start: float
    left: float  # expected cost from where the game stands (0 once finished)
    sign: int = 1  # the game's Measure.sign: -1 where its numbers are points to maximize

    @property
    def loss(self) -> float:
        return sum(m.loss for m in self.moves)

    @property
    def luck(self) -> float:
        return sum(m.luck for m in self.moves)

    @property
    def accounted(self) -> float:
        """What the review says was paid (or scored): the start's expected cost, plus the
        losses, less the luck and what is still to be paid (for points: the start's
        expected score, less the losses, plus the luck, less what is still to come)."""
        return self.start + self.sign * (self.loss - self.luck) - self.left


def markov_review(game, strategy, steps, now: int) -> Review:
    """The review of the moves `steps` ((state, outcome, choice) each, in order) of
    `game` under its expected-cost (or expected-score) `strategy`; `now` is the state the
    game stands in. Values are in the game's own terms; the best choice is the one its
    ``Measure`` ranks first (least cost, most points)."""
    sign = game.measure.sign
    moves = []
    for turn, (state, k, c) in enumerate(steps, 1):
        exp = game.expand(np.array([state], dtype=np.int64))
        cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        legal = np.flatnonzero(exp.next[0, k] >= 0).tolist()
        q = {a: float(cost[a]) + _value(game, strategy, int(exp.next[0, k, a])) for a in legal}
        chosen = strategy.action(Decision(state, k, None))
        ranked = {a: sign * v for a, v in q.items()}  # as costs: the least is the best
        if not (chosen in ranked and ranked[chosen] <= min(ranked.values())):
            chosen = min(ranked, key=ranked.get)
        best = chosen
        moves.append(
            Move(
                turn,
                game.describe_state(state),
                game.describe_outcome(state, k),
                game.describe_choice(state, k, c),
                game.describe_choice(state, k, best),
                q[c],
                q[best],
                sign * (_value(game, strategy, state) - q[best]),
                sign,
            )
        )
    start = _value(game, strategy, game.initial_state())
    return Review(tuple(moves), start, _value(game, strategy, now), sign)


def _value(game, strategy, state: int) -> float:
    """V(state): the strategy's value (0 for a finished game)."""
    if bool(np.asarray(game.is_terminal(np.array([state], dtype=np.int64)))[0]):
        return 0.0
    value = strategy.value(state)
    if value is None:
        raise ValueError(f"the strategy lists no state {state}")
    return value


@dataclass(frozen=True)
class PositionValues:
    """What the review needs of a deduction position: V (the least expected guesses still
    needed), the optimal guess, and Q of the guess played there (None: none played yet)."""

    best: Fraction
    best_guess: int
    played: Fraction | None


def position_values(game, history, played: int | None) -> PositionValues:
    """The values at the position `history` (``rank_guesses`` for the expected number of
    guesses), with Q of the guess `played` there (one that learns nothing costs a guess
    and leaves V as it was)."""
    from ..engine import engine_of

    ranking = engine_of(game).ranking(game, Objective(), history)
    done = len(history)
    best = ranking.best - done
    value = None
    if played is not None:
        priced = ranking.price(played)
        value = best + 1 if priced is None else priced.value - done
    return PositionValues(best, ranking.guesses[0].guess, value)


def deduction_review(game, history, values: dict[int, PositionValues], solved: bool) -> Review:
    """The review of the last of the deduction moves `history` whose positions' values are
    known (`values`, by number of moves; the positions nearest the end are the quickest
    to value, so a review too slow for the first turns still reviews the last), from the
    first of those positions on."""
    codes = game.guesses()
    moves: list[Move] = []
    for turn in range(len(history), 0, -1):
        g, f = history[turn - 1]
        here, after = values.get(turn - 1), values.get(turn)
        if here is None or (after is None and not (solved and turn == len(history))):
            break
        left = 0 if after is None else float(after.best)
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
                float(here.played) - 1 - left,
            ),
        )
    first = moves[0].turn - 1 if moves else len(history)
    now = values.get(len(history))
    start = values.get(first)
    return Review(
        tuple(moves),
        0.0 if start is None else float(start.best),
        0.0 if now is None else float(now.best),
    )
