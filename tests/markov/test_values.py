"""The seeds' published values, solved by the engine."""

from fractions import Fraction

import pytest

from perfectplay import load_game, solve
from perfectplay.games.tricky_trios import START, TrickyTrios
from perfectplay.markov.speedups import SpeedUps

from ..golden import DICE_CARDS, TRICKY_TRIOS, TRICKY_TRIOS_EXACT


@pytest.mark.parametrize("n,expected", sorted(DICE_CARDS.items()))
def test_dice_cards_published_values(n, expected):
    sol = solve(load_game("dice-cards", [f"n={n}"]))
    assert round(sol.value_float, 6) == expected
    assert sol.exact and sol.proven and isinstance(sol.value, Fraction)


@pytest.mark.parametrize("n,expected", sorted(TRICKY_TRIOS.items()))
def test_tricky_trios_code_jam_samples(n, expected):
    sol = solve(load_game("tricky-trios", [f"n={n}"]))
    assert abs(sol.value_float - expected) < 1e-6
    assert sol.proven
    if n in TRICKY_TRIOS_EXACT:
        assert sol.value == TRICKY_TRIOS_EXACT[n]


def test_smaller_tricky_trios_read_from_one_solve():
    big = TrickyTrios(n=6)
    sol = solve(big)
    for m in range(1, 6):
        start = int(big.encode(START, 0, __import__("numpy").array([m, 0, 0, 0])))
        assert sol.strategy.value_of(start) == solve(TrickyTrios(n=m)).value


def test_float_and_exact_stages_agree():
    floats = solve(load_game("dice-cards", ["n=4"]), exact=False)
    exact = solve(load_game("dice-cards", ["n=4"]), exact=True)
    assert not floats.exact and exact.exact
    assert abs(floats.value_float - exact.value_float) < 1e-9


def test_value_iteration_gives_up_cleanly_without_enough_sweeps(monkeypatch):
    from perfectplay.errors import Unsupported
    from perfectplay.markov import solve as markov_solve

    with pytest.raises(Unsupported, match="did not settle within 1 sweeps of one strong component"):
        solve(load_game("dice-cards", ["n=3"]), exact=False, max_sweeps=1)
    monkeypatch.setattr(markov_solve, "LOCAL_BLOCK", 10)  # its 63-state cycle: the global path
    with pytest.raises(Unsupported, match="no policy that finishes"):
        solve(load_game("dice-cards", ["n=3"]), exact=False, max_sweeps=1)


def test_float_horizon_result_is_not_labelled_proven():
    from perfectplay import Objective

    sol = solve(load_game("dice-cards", ["n=3"]), Objective("probability", 4), exact=False)
    assert not sol.exact and not sol.proven
    exact = solve(load_game("dice-cards", ["n=3"]), Objective("probability", 4))
    assert exact.proven and abs(float(exact.value) - sol.value_float) < 1e-12


@pytest.mark.parametrize("tol", [0.0, -1.0, 1.5, float("nan")])
def test_tolerance_must_be_between_0_and_1(tol):
    from perfectplay.errors import Unsupported

    with pytest.raises(Unsupported, match="tolerance"):
        solve(load_game("dice-cards", ["n=2"]), tol=tol)


@pytest.mark.parametrize("local_block", [1000, 1])  # 1: every policy component looks rough
def test_looser_warm_up_changes_no_value(local_block, monkeypatch):
    from perfectplay.markov import solve as markov_solve

    monkeypatch.setattr(markov_solve, "LOCAL_BLOCK", local_block)
    game = load_game("dice-cards", ["n=5"])
    loose = solve(game, exact=False)
    tight = solve(game, exact=False, speedups=SpeedUps(warm=False))  # the old warm-up
    assert loose.stats["policy_rounds"] >= 1 and tight.stats["policy_rounds"] >= 1
    assert round(loose.value_float, 6) == DICE_CARDS[5]
    assert abs(loose.value_float - tight.value_float) < 1e-9
    assert abs(loose.strategy.values - tight.strategy.values).max() < 1e-9
