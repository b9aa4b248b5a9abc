"""A review of a Markov game played on a board: every move beside the optimal one, with
what each was expected to cost from there (the loss of the move) and what the dice gave
against what was expected before they were rolled (the luck).

With V(s) the expected cost of state s under optimal play and Q(s, k, c) the cost of
choice c after chance outcome k plus V of where it leads, a move's loss is
Q(s, k, played) - min_c Q(s, k, c) and the roll's luck is V(s) - min_c Q(s, k, c)
(positive: a roll better than the average). The cost paid is then exactly
V(start) + the losses - the luck, less V of where the game stands (0 once it is
finished): the review accounts for every unit paid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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

    @property
    def loss(self) -> float:
        return self.played_cost - self.best_cost


@dataclass(frozen=True)
class Review:
    """The moves of a game, the expected cost at its start and where it stands now."""

    moves: tuple[Move, ...]
    start: float
    left: float  # expected cost from where the game stands (0 once finished)

    @property
    def loss(self) -> float:
        return sum(m.loss for m in self.moves)

    @property
    def luck(self) -> float:
        return sum(m.luck for m in self.moves)

    @property
    def accounted(self) -> float:
        """What the review says was paid: the start's expected cost, plus the losses,
        less the luck and what is still to be paid."""
        return self.start + self.loss - self.luck - self.left


def markov_review(game, strategy, steps, now: int) -> Review:
    """The review of the moves `steps` ((state, outcome, choice) each, in order) of
    `game` under its expected-cost `strategy`; `now` is the state the game stands in."""
    moves = []
    for turn, (state, k, c) in enumerate(steps, 1):
        exp = game.expand(np.array([state], dtype=np.int64))
        cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        legal = np.flatnonzero(exp.next[0, k] >= 0).tolist()
        q = {a: float(cost[a]) + _value(game, strategy, int(exp.next[0, k, a])) for a in legal}
        chosen = strategy.action(Decision(state, k, None))
        best = chosen if chosen in q and q[chosen] <= min(q.values()) else min(q, key=q.get)
        moves.append(
            Move(
                turn,
                game.describe_state(state),
                game.describe_outcome(state, k),
                game.describe_choice(state, k, c),
                game.describe_choice(state, k, best),
                q[c],
                q[best],
                _value(game, strategy, state) - q[best],
            )
        )
    start = _value(game, strategy, game.initial_state())
    return Review(tuple(moves), start, _value(game, strategy, now))


def _value(game, strategy, state: int) -> float:
    """V(state): the strategy's value (0 for a finished game)."""
    if bool(np.asarray(game.is_terminal(np.array([state])))[0]):
        return 0.0
    value = strategy.value(state)
    if value is None:
        raise ValueError(f"the strategy lists no state {state}")
    return value
