"""``--top N``: the search restricted to the N best guesses by bound at every node.

Its value is that of a real strategy (the tree it returns replays to it), so never
better than the optimum, and equal to it once N admits every guess. It is labelled an
upper bound, not an optimum, and never enters the result store.
"""

import json

import pytest

from perfectplay import load_game, solve
from perfectplay.objectives import Objective
from perfectplay.solution import SEARCHED_TOP

from ..cli_runner import assert_one_line_error, perfectplay
from .test_search import replayed

GAMES = [
    "mastermind(pegs=3,colors=4)",
    "permutation(n=5)",
    "bulls-and-cows(digits=2,symbols=5)",
    "item-matching(slots=3,items=3)",
]


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("objective", ["expected", "worst"])
def test_top_is_a_real_strategy_never_better_than_the_optimum(spec, objective):
    game = load_game(spec)
    best = solve(game, objective)
    values = []
    for top in (1, 2, 3):
        sol = solve(game, objective, top=top)
        st = replayed(sol)
        assert (st.total, st.worst) == (sol.total, sol.worst)
        assert sol.value >= best.value
        assert (sol.status, sol.proven, sol.method) == (SEARCHED_TOP, False, f"top {top}")
        values.append(sol.value)
    every = solve(game, objective, top=len(game.guesses()))
    assert (every.value, every.total, every.worst) == (best.value, best.total, best.worst)
    assert values[0] > best.value or values == [best.value] * 3  # a test that can fail


def test_top_one_is_worse_than_the_optimum_somewhere():
    """Mastermind 3x4: one guess per node by bound costs guesses (else --top proves nothing)."""
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    assert solve(game, top=1).total > solve(game).total


def test_top_for_the_probability_objective():
    game = load_game("item-matching", ["slots=3", "items=3", "turns=2"])
    best = solve(game, Objective("probability", 2))
    for top in (1, 2):
        sol = solve(game, Objective("probability", 2), top=top)
        assert sol.value <= best.value and not sol.proven
    assert solve(game, Objective("probability", 2), top=len(game.guesses())).value == best.value


def test_top_by_the_command_line(tmp_path):
    out, store = tmp_path / "tree.json", tmp_path / "store.sqlite"
    res = perfectplay(
        "solve",
        "mastermind",
        "pegs=3",
        "colors=4",
        "--top",
        "2",
        "--json",
        "--out",
        str(out),
        "--store",
        str(store),
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (doc["status"], doc["proven"], doc["method"]) == (SEARCHED_TOP, False, "top 2")
    assert not store.exists()  # upper bounds never enter the store
    res = perfectplay("verify", str(out))
    assert res.returncode == 0, res.stderr
    assert "no claim of optimality" in res.stdout
    res = perfectplay("solve", "mastermind", "pegs=3", "colors=4")
    assert res.returncode == 0 and "upper bound" not in res.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["mastermind", "--top", "0"], "--top"),
        (["mastermind", "--top", "2", "--strategy", "entropy"], "--top"),
        (["dice-cards", "n=2", "--top", "2"], "--top"),
    ],
)
def test_bad_top_is_a_one_line_error(args, needle):
    assert_one_line_error(perfectplay("solve", *args), needle)
