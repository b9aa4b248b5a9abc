"""The packed layout of a graph's choices (``compile.Pairs``): each choice finds its own
(target, cost) through it, states with too many pairs fall back to reading their choices
directly, the sweeps give the same values bit for bit with and without it, and policy
evaluation the same values to rounding with its outcomes merged by pair or not."""

import numpy as np
import pytest
from hypothesis import given, settings

from perfectplay import load_game, solve
from perfectplay.markov import solve as markov_solve
from perfectplay.markov.compile import compile_game
from perfectplay.markov.kernels import LOCAL_MAX
from perfectplay.markov.speedups import SpeedUps
from perfectplay.markov.structure import solve_order
from perfectplay.markov.table import TableGame

from .test_properties import games


def check_layout(g, pairs) -> None:
    """Every packed state's row holds its distinct (target, cost) pairs, each choice's
    ``local`` naming its own; a longer row holds every choice."""
    for s in range(g.n_states):
        lo, hi = pairs.ptr[s], pairs.ptr[s + 1]
        edges = range(g.choice_ptr[g.out_ptr[s]], g.choice_ptr[g.out_ptr[s + 1]])
        choices = [(int(g.target[e]), int(g.cost[e])) for e in edges]
        row = list(zip(pairs.target[lo:hi].tolist(), pairs.cost[lo:hi].tolist()))
        if hi - lo > LOCAL_MAX:
            assert row == choices
            continue
        assert len(set(row)) == len(row) and set(row) == set(choices)
        for e, pair in zip(edges, choices):
            assert row[pairs.local[e]] == pair


def many_targets(m: int) -> TableGame:
    """A cycle through state 0, whose one outcome offers m distinct next states."""
    goal = m + 1
    table = {0: [(1, [(k, 1 + k % 5) for k in range(1, m + 1)])]}
    for k in range(1, m + 1):
        table[k] = [(1, [(goal, 1 + k % 7)]), (2, [(0, 2), (goal, 9)])]
    return TableGame(table, terminal=frozenset({goal}))


@pytest.mark.parametrize("name,n", [("dice-cards", 3), ("dice-cards", 4), ("tricky-trios", 3)])
def test_layout_before_and_after_renumbering(name, n):
    g = compile_game(load_game(name, [f"n={n}"]))
    pairs = g.pairs()
    check_layout(g, pairs)
    g.renumber(solve_order(g, pairs), pairs)
    check_layout(g, pairs)


@settings(max_examples=40, deadline=None)
@given(games())
def test_layout_of_random_games(game):
    g = compile_game(game)
    check_layout(g, g.pairs())


def test_a_state_with_more_pairs_than_a_byte_keeps_its_choices():
    g = compile_game(many_targets(LOCAL_MAX + 45))
    pairs = g.pairs()
    assert np.diff(pairs.ptr).max() == LOCAL_MAX + 45
    check_layout(g, pairs)


@pytest.mark.parametrize(
    "game", [load_game("dice-cards", ["n=5"]), many_targets(LOCAL_MAX + 45), many_targets(40)]
)
def test_packed_sweeps_change_no_value(game, monkeypatch):
    monkeypatch.setattr(markov_solve, "LOCAL_BLOCK", 1)  # the global sweeps
    packed = solve(game, exact=False)
    direct = solve(game, exact=False, speedups=SpeedUps(packed=False))
    assert packed.stats["policy_rounds"] >= 1
    assert np.array_equal(packed.strategy.values, direct.strategy.values)
    assert np.array_equal(packed.strategy.chosen, direct.strategy.chosen)
    exact = solve(game, exact=True)
    assert abs(exact.value_float - packed.value_float) < 1e-9


@pytest.mark.parametrize("game", [load_game("dice-cards", ["n=5"]), many_targets(LOCAL_MAX + 45)])
def test_merged_policy_rows_change_no_value(game, monkeypatch):
    monkeypatch.setattr(markov_solve, "LOCAL_BLOCK", 1)
    merged = solve(game, exact=False)
    per_outcome = solve(game, exact=False, speedups=SpeedUps(merged=False))
    assert merged.stats["policy_rounds"] >= 1
    assert abs(merged.strategy.values - per_outcome.strategy.values).max() < 1e-9


def by_code(sol) -> tuple[np.ndarray, np.ndarray]:
    """(codes, values) of a solution's states, in code order: comparable however the
    solver numbered them."""
    g = sol.strategy.graph
    order = np.argsort(g.codes)
    return g.codes[order], np.asarray(sol.strategy.values)[order]


@pytest.mark.parametrize("game", [load_game("dice-cards", ["n=5"]), many_targets(40)])
def test_renumbering_changes_no_value(game, monkeypatch):
    """Small graphs are swept in their visiting order as numbered, large ones renumbered
    into it first (``RENUMBER_STATES``): both give the same values, and the exact one.
    (Dice-cards' own code order, which is never renumbered, is off here.)"""
    monkeypatch.setattr(markov_solve, "LOCAL_BLOCK", 1)  # the global sweeps
    own_order_off = SpeedUps(code_order=False)
    as_numbered = solve(game, exact=False, speedups=own_order_off)
    monkeypatch.setattr(markov_solve, "RENUMBER_STATES", 0)
    renumbered = solve(game, exact=False, speedups=own_order_off)
    assert as_numbered.stats["policy_rounds"] >= 1
    codes, values = by_code(as_numbered)
    codes_r, values_r = by_code(renumbered)
    assert np.array_equal(codes, codes_r)
    assert abs(values - values_r).max() < 1e-9
    assert not np.array_equal(renumbered.strategy.graph.codes, as_numbered.strategy.graph.codes)
    exact = solve(game, exact=True)
    assert abs(exact.value_float - renumbered.value_float) < 1e-9
