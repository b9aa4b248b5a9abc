"""Sweeping in two halves (``markov.halves``): values that do not depend on the threads."""

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay.markov import halves
from perfectplay.markov import solve as markov_solve
from perfectplay.markov.speedups import SpeedUps

from ..golden import DICE_CARDS


def _solve(n: int, **speedups):
    return markov_solve.solve_markov(
        load_game("dice-cards", [f"n={n}"]), exact=False, speedups=SpeedUps(**speedups)
    )


def test_one_core_and_two_give_the_same_bits(monkeypatch):
    """Each thread reads only its own half and a copy of the other half made before the
    sweep, so the values are the same bit for bit whether the halves ran at once or one
    after the other."""
    monkeypatch.setattr(markov_solve, "RENUMBER_STATES", 0)
    monkeypatch.setattr(halves, "_cores", lambda: 2)
    two = _solve(6)
    monkeypatch.setattr(halves, "_cores", lambda: 1)
    one = _solve(6)
    assert two.stats["sweeps"] == one.stats["sweeps"]
    assert np.array_equal(np.asarray(two.strategy.values), np.asarray(one.strategy.values))
    assert np.array_equal(two.strategy.chosen, one.strategy.chosen)


@pytest.mark.parametrize("n", [5, 6])
def test_halves_against_one_sweep(n, monkeypatch):
    """The halves read the other half one sweep late: the same values to rounding (and
    the seed's published value at n=5)."""
    monkeypatch.setattr(markov_solve, "RENUMBER_STATES", 0)
    split, whole = _solve(n), _solve(n, halves=False)
    assert "sweeps" in split.stats and split.stats["policy_rounds"] >= 1
    assert (
        round(split.value_float, 6)
        == round(whole.value_float, 6)
        == DICE_CARDS.get(n, round(whole.value_float, 6))
    )
    assert abs(np.asarray(split.strategy.values) - np.asarray(whole.strategy.values)).max() < 1e-9


def test_greedy_choices_in_halves_are_the_one_thread_ones(monkeypatch):
    """A large graph solved by strong components takes its greedy choices in two halves
    at once: the same choices as on one thread."""
    game = load_game("tricky-trios", ["n=6"])
    whole = markov_solve.solve_markov(game, exact=False)
    monkeypatch.setattr(markov_solve, "RENUMBER_STATES", 0)
    split = markov_solve.solve_markov(game, exact=False)
    one_thread = markov_solve.solve_markov(game, exact=False, speedups=SpeedUps(halves=False))
    assert "components" in split.stats
    assert np.array_equal(whole.strategy.chosen, split.strategy.chosen)
    assert np.array_equal(one_thread.strategy.chosen, split.strategy.chosen)
    assert np.array_equal(np.asarray(whole.strategy.values), np.asarray(split.strategy.values))
