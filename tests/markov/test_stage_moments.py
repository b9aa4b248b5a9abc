"""The spread of a staged game's final score (``markov/stage_moments``): each stage's
second moment of the score to come, against the exact distribution's and brute force,
kept beside the kept strategy, and shown by the advisor and ``play``."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from perfectplay import solve
from perfectplay.advice import markov_advice
from perfectplay.catalogue import load_game, load_strategy
from perfectplay.kept import kept_path, strategy_for
from perfectplay.markov import contract
from perfectplay.markov.stage_moments import second_moments
from perfectplay.objectives import Objective
from perfectplay.strategy import Decision

from ..cli_runner import perfectplay
from .test_stage_distribution import brute_distribution
from .test_stages import Doubling


@pytest.mark.parametrize(
    "game",
    [
        load_game("yahtzee", ["card=6208"]),
        load_game("yahtzee", ["card=2063", "joker=none"]),
        load_game("yatzy", ["card=16399"]),
        Doubling(turns=5, fee=1),
    ],
    ids=str,
)
def test_the_start_spread_is_the_distributions_standard_deviation(game):
    sol = solve(game, distribution=True)
    st = game.stages()
    values = sol.strategy.values
    m2 = second_moments(game, values, sol.strategy.solved)
    std = np.sqrt(m2[st.start] - values[st.start] ** 2)
    assert abs(std / sol.distribution.std - 1) <= 1e-9


@pytest.mark.parametrize("turns,fee", [(1, 0), (3, 1), (6, 2)])
def test_the_second_moment_equals_brute_force(turns, fee):
    """`Doubling`'s second moment from its whole distribution, worked out in fractions."""
    game = Doubling(turns=turns, fee=fee)
    sol = solve(game)
    exact = brute_distribution(turns, fee)
    second = sum(p * s * s for s, p in exact.items())
    m2 = second_moments(game, sol.strategy.values, sol.strategy.solved)
    assert m2[game.stages().start] == pytest.approx(float(second), rel=1e-12)
    assert sum(exact.values()) == Fraction(1)


def test_every_option_of_the_advice_carries_its_spread_and_play_shows_it():
    """After the first roll (2 2 4 4 4), each keep's standard deviation is that of the
    score to come from the state it leads to (sqrt(M2 - V^2)); the start's spread is
    the distribution's."""
    game = load_game("yahtzee", ["card=6208"])
    strategy = strategy_for(game)
    sol = solve(game, distribution=True)
    start = contract.start(game)
    assert strategy.spread(start) == pytest.approx(sol.distribution.std, rel=1e-9)
    rolled = int(contract.expansion(game, np.array([start])).next[0, 100, 0])
    assert game.describe_state(rolled).endswith("Roll 1 of 3: 2 2 4 4 4")
    advice = markov_advice(game, Decision(rolled, 0), Objective(), strategy)
    spreads = [o.spread for o in advice.options]
    assert len(spreads) == 12 and all(s > 0 for s in spreads) and len(set(spreads)) == 12
    assert advice.options[0].label == "keep 4 4 4"
    assert advice.options[0].spread == pytest.approx(20.402, abs=1e-3)
    played = perfectplay("play", "yahtzee", "card=6208", "--seed", "2", input="\n" * 40)
    assert played.returncode == 0, played.stderr
    assert re.search(r"expected final score \d+\.\d{4} ±\d+\.\d  <- optimal", played.stdout)


def test_the_moments_are_kept_beside_the_strategy_and_read_back():
    game = load_game("yahtzee", ["card=6208"])
    strategy = strategy_for(game)
    path = kept_path(game, Objective()).with_suffix(".moments.npy")
    assert not path.exists()
    first = strategy.moments
    assert path.is_file() and np.array_equal(np.load(path), first)
    again = strategy_for(game)
    assert again.moments_file == path
    np.save(path, first * 2)  # (read back, not worked out again)
    assert np.array_equal(again.moments, first * 2)


def test_a_strategy_read_from_a_file_works_its_moments_out():
    game = load_game("yahtzee", ["card=6208"])
    sol = solve(game, distribution=True)
    strategy = load_strategy(sol.export())
    assert strategy.moments_file is None
    start = game.stages().start
    assert np.sqrt(strategy.moments[start] - strategy.values[start] ** 2) == pytest.approx(
        sol.distribution.std, rel=1e-9
    )
