"""Seed 004's heuristics as complete strategies, evaluated over all secrets."""

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.deduction.search import SpeedUps


def test_knuth_minimax_4x6():
    # Knuth (1976): worst case 5, total 5801 with "prefer a possible code, then the lowest".
    sol = solve(load_game("mastermind"), strategy="minimax")
    assert (sol.extra["total"], sol.extra["worst"]) == (5801, 5)
    assert not sol.proven and sol.status.startswith("heuristic")
    assert sol.strategy.to_json()["root"]["guess"] == "1122"


@pytest.mark.parametrize(
    "method,total", [("expected-size", 5696), ("entropy", 5722), ("most-parts", 5668)]
)
def test_other_heuristics_4x6(method, total):
    # Irving (1978) 4.395, Neuwirth (1982) 4.415, Kooi (2005) 4.373 guesses on average.
    assert solve(load_game("mastermind"), strategy=method).extra["total"] == total


@pytest.mark.parametrize("method", ["minimax", "expected-size", "entropy", "most-parts"])
@pytest.mark.parametrize("switch", ["obvious", "symmetry"])
def test_shortcuts_do_not_change_the_heuristic_tree(method, switch):
    game = load_game("mastermind(pegs=3,colors=4)")
    on = solve(game, strategy=method).strategy.to_json()
    off = solve(game, strategy=method, speedups=SpeedUps(**{switch: False})).strategy.to_json()
    assert on == off


@pytest.mark.parametrize("spec", ["mastermind(pegs=3,colors=3)", "permutation(n=5)"])
def test_heuristics_are_upper_bounds(spec):
    best = solve(load_game(spec)).extra["total"]
    for method in ("minimax", "expected-size", "entropy", "most-parts"):
        assert solve(load_game(spec), strategy=method).extra["total"] >= best


@pytest.mark.parametrize(
    "spec", ["mastermind(pegs=3,colors=4)", "bulls-and-cows(digits=3,symbols=6)"]
)
def test_cell_sizes_are_the_partition_whatever_the_set(spec):
    # a small set takes one column per secret, a large one one per feedback: either way
    # each row holds the sizes of the cells the guess leaves (as numpy counts them)
    from perfectplay.deduction.feedback import build_table
    from perfectplay.deduction.partition import sizes

    table = build_table(load_game(spec))
    rng = np.random.default_rng(7)
    cand = np.arange(len(table.guesses))
    for k in (1, 2, 3, table.n_feedbacks - 1, table.n_feedbacks, table.n_secrets):
        subset = np.sort(rng.choice(table.n_secrets, size=k, replace=False))
        got = sizes(table, cand, subset)
        assert got.shape == (len(cand), min(k, table.n_feedbacks))
        for g, row in zip(cand, got):
            cells = np.unique(table.fb[g, subset], return_counts=True)[1]
            assert sorted(row[row > 0]) == sorted(cells)


def test_a_heuristic_plays_only_guesses_the_rules_allow():
    """Under item matching's restrict=items an Incorrect bars an item everywhere, so a
    secret still possible may be no allowed guess: the rule of thumb used to guess it
    anyway (2.65625, below the optimum 2.75); it now finds itself stuck, in one line."""
    from perfectplay.errors import Unsupported
    from perfectplay.objectives import Objective

    game = load_game("item-matching", ["slots=3", "items=4", "turns=3", "restrict=items"])
    assert solve(game, Objective()).value == pytest.approx(2.75)
    with pytest.raises(Unsupported, match="the strategy is stuck after 2 guesses"):
        solve(game, Objective(), strategy="most-parts")
