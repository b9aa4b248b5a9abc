"""Item costs (seed 000, Note 2): probability-then-cost, the frontier, the trade-off."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from perfectplay import load_game, solve
from perfectplay.cli import cli
from perfectplay.deduction.frontier import frontier
from perfectplay.deduction.search import SpeedUps
from perfectplay.objectives import Objective
from perfectplay.speedups import switch_names

from .costbrute import CostBrute

SMALL = [
    "item-matching(slots=2,items=3,turns=2)",
    "item-matching(slots=2,items=3,turns=2,costs=1,2,4)",
    "item-matching(slots=2,items=3,turns=2,costs=1,2,4,locked=empty)",
    "item-matching(slots=2,items=4,turns=3,costs=3,1,2,5,locked=empty)",
    "item-matching(slots=3,items=2,turns=2,costs=1,3,restrict=none)",
    "item-matching(slots=3,items=2,turns=3,costs=2,1,locked=empty,restrict=slots)",
]


@pytest.mark.parametrize("spec", SMALL)
def test_probability_then_cost_agrees_with_brute_force(spec):
    game = load_game(spec)
    wins, cost = CostBrute(game).lexicographic(game.turns)
    n = len(game.secrets())
    sol = solve(game, Objective("probability-then-cost", game.turns))
    assert (sol.value, sol.extra["total_cost"]) == (Fraction(wins, n), cost)
    assert sol.extra["expected_cost"] == str(Fraction(cost, n))
    for name in switch_names(SpeedUps):  # every speed-up off: the same value
        off = solve(game, Objective("probability-then-cost", game.turns), without=(name,))
        assert (off.value, off.extra["total_cost"]) == (sol.value, cost), name
    # the frontier's most probable point is the lexicographic optimum
    front = frontier(game, game.turns)
    top = front.points[-1]
    assert (top.wins, top.cost) == (wins, cost)


@pytest.mark.parametrize("spec", SMALL[1:4])
@pytest.mark.parametrize("weight", [Fraction(0), Fraction(1, 30), Fraction(1, 7), Fraction(2)])
def test_cost_weight_agrees_with_brute_force(spec, weight):
    game = load_game(spec)
    value, _ = frontier(game, game.turns).weighted(weight)
    assert value == CostBrute(game).weighted(game.turns, weight)


def test_frontier_is_pareto_and_each_strategy_reaches_its_point():
    game = load_game("item-matching(slots=2,items=3,turns=2,costs=1,2,4)")
    front = frontier(game, 2)
    pairs = [(p.wins, p.cost) for p in front.points]
    assert pairs[0] == (0, 0)  # stopping at once
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(pairs, pairs[1:]))
    from perfectplay.deduction.feedback import build_table
    from perfectplay.deduction.solve import tree_cost, wins_by_guess
    import numpy as np

    table = build_table(game)
    for p in front.points[1:]:
        everyone = np.arange(table.n_secrets)
        assert sum(wins_by_guess(table, p.tree, everyone).values()) == p.wins
        assert tree_cost(game, table, p.tree, everyone) == p.cost


def test_costs_parameter_and_cli(tmp_path):
    with pytest.raises(Exception, match="must list 3 whole numbers"):
        load_game("item-matching", ["items=3", "costs=1,2"])
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "solve",
            "item-matching",
            "slots=2",
            "items=3",
            "turns=2",
            "costs=1,2,4",
            "--objective",
            "probability-then-cost",
            "--json",
            "--quiet",
            "--out",
            str(tmp_path / "s.json"),
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["value"] == "7/9" and data["expected_cost"] == "61/9"
    res = runner.invoke(cli, ["verify", str(tmp_path / "s.json")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        cli,
        [
            "solve",
            "item-matching",
            "slots=2",
            "items=3",
            "turns=2",
            "costs=1,2,4",
            "--frontier",
            "--cost-weight",
            "1/20",
            "--json",
        ],
    )
    data = json.loads(res.output)
    assert data["value"] == "79/180" and len(data["frontier"]) == 8
    res = runner.invoke(cli, ["solve", "item-matching", "--cost-weight", "x", "--frontier"])
    assert (
        res.exit_code != 0
        and "frontier is for at most" in res.output
        or "cost-weight" in res.output
    )


def test_first_guess_path_with_costs():
    game = load_game("item-matching(slots=2,items=4,turns=3,costs=3,1,2,5,locked=empty)")
    objective = Objective("probability-then-cost", 3)
    best = solve(game, objective)
    given = solve(game, objective, first=best.strategy.root.guess)
    assert (given.value, given.extra["total_cost"]) == (best.value, best.extra["total_cost"])
