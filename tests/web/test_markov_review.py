"""A Markov game's review (``web/review.py``), away from the board: the suggestion
followed loses exactly nothing, and the review accounts for every point or move."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from perfectplay.catalogue import load_game, load_strategy
from perfectplay.engine import solve
from perfectplay.markov import contract
from perfectplay.strategy import Decision
from perfectplay.web.render import signed
from perfectplay.web.review import markov_review


def _played(game, strategy, seed: int):
    """The steps of one game following the strategy, chance drawn from `seed`, and what
    the game paid (or scored)."""
    rng, state, steps, paid = random.Random(seed), contract.start(game), [], 0
    while not contract.terminal(game, np.array([state], dtype=np.int64))[0]:
        exp = contract.expansion(game, np.array([state], dtype=np.int64))
        ks = np.flatnonzero(exp.weight[0] > 0).tolist()
        k = rng.choices(ks, weights=[int(exp.weight[0, j]) for j in ks])[0]
        c = strategy.action(Decision(state, k))
        steps.append((state, k, c))
        paid += int(np.broadcast_to(exp.cost, exp.next.shape)[0, k, c])
        state = int(exp.next[0, k, c])
    return steps, paid


@pytest.mark.parametrize(
    "name, params", [("yahtzee", ["card=4161"]), ("tricky-trios", ["n=3"]), ("dice-cards", ["n=3"])]
)
def test_the_suggestion_followed_loses_exactly_nothing_and_the_review_adds_up(name, params):
    game = load_game(name, params)
    strategy = load_strategy(solve(game, exact=False).export())
    for seed in range(3):
        steps, paid = _played(game, strategy, seed)
        review = markov_review(game, strategy, steps, _end(game, steps))
        assert all(m.loss == 0.0 and math.copysign(1, m.loss) == 1 for m in review.moves)
        assert all(m.played == m.best for m in review.moves)
        assert len(review.moves) <= len(steps)
        assert review.accounted == pytest.approx(paid)


def _end(game, steps) -> int:
    """The state the steps end in."""
    state, k, c = steps[-1]
    return int(contract.expansion(game, np.array([state], dtype=np.int64)).next[0, k, c])


def test_a_signed_number_is_never_minus_zero():
    assert signed(-0.0) == signed(-1e-9) == "+0.0000"
    assert signed(-0.00006) == "-0.0001" and signed(2.5) == "+2.5000"
