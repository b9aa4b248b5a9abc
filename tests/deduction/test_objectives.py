"""Determine vs reveal, possible-only guesses: the engine against the plain brute force."""

import json

import pytest
from click.testing import CliRunner

from perfectplay import load_game, solve
from perfectplay.cli import cli
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.search import SpeedUps
from perfectplay.deduction.tree import tree_stats
from perfectplay.objectives import Objective

from .bruteforce import BruteForce
from .winbrute import brute_wins

SMALL = ["mastermind(pegs=2,colors=3)", "mastermind(pegs=2,colors=4)", "mastermind(pegs=3,colors=2)",
         "permutation(n=3)", "permutation(n=4)"]


@pytest.mark.parametrize("spec", SMALL)
@pytest.mark.parametrize("possible_only", [False, True])
def test_determine_and_possible_only_agree_with_brute_force(spec, possible_only):
    game = load_game(spec, ["possible_only=1"] if possible_only else [])
    for determine in (False, True):
        brute = BruteForce(game, determine=determine, possible_only=possible_only)
        everyone = brute.everything()
        best = solve(game, Objective("expected", determine=determine))
        assert best.extra["total"] == brute.total(everyone, len(everyone))
        worst = solve(game, Objective("worst", determine=determine))
        assert worst.value == brute.worst(everyone)
        assert worst.extra["total"] == brute.total(everyone, int(worst.value))
        st = tree_stats(build_table(game), best.strategy.root, determine=determine)
        assert st.total == best.extra["total"]


def test_determine_differs_from_reveal():
    # two secrets left: one guess determines both, where revealing takes three in all
    game = load_game("permutation(n=4)")
    reveal, determine = (solve(game, Objective("expected", determine=d)) for d in (False, True))
    assert determine.extra["total"] < reveal.extra["total"]
    assert (reveal.extra["total"], determine.extra["total"]) == (86, 75)


@pytest.mark.parametrize("spec,horizon", [("mastermind(pegs=2,colors=4)", 2),
                                          ("mastermind(pegs=2,colors=4)", 3),
                                          ("permutation(n=4)", 3),
                                          ("item-matching(slots=2,items=3,turns=2)", 2)])
def test_within_horizon_determine(spec, horizon):
    game = load_game(spec)
    for determine in (False, True):
        sol = solve(game, Objective("probability", horizon, determine))
        assert sol.extra["wins"] == brute_wins(game, horizon, determine)


def test_determine_switches_change_only_speed():
    game = load_game("mastermind(pegs=3,colors=3)")
    base = solve(game, Objective("expected", determine=True))
    for name in SpeedUps.names():
        off = solve(game, Objective("expected", determine=True), without=(name,))
        assert off.extra["total"] == base.extra["total"], name


def test_possible_only_is_a_parameter_of_every_deduction_game():
    for spec in ("mastermind", "bulls-and-cows", "permutation", "item-matching", "wordle"):
        game = load_game(spec, ["possible_only=1"])
        assert game.restriction().possible_only
        assert game.params["possible_only"] == 1
        assert "possible_only" not in load_game(spec).params
    both = load_game("item-matching", ["possible_only=1"]).restriction()
    assert both.lock == (2,) and both.bar == (0,)  # composed with the game's own rules


def test_cli_determine_export_verify_show(tmp_path):
    out = tmp_path / "d.json"
    runner = CliRunner()
    res = runner.invoke(cli, ["solve", "mastermind", "pegs=2", "colors=4", "--determine",
                              "--possible-only", "--quiet", "--json", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    game = load_game("mastermind(pegs=2,colors=4,possible_only=1)")
    brute = BruteForce(game, determine=True, possible_only=True)
    assert data["determine"] and data["total"] == brute.total(brute.everything(), 16)
    res = runner.invoke(cli, ["verify", str(out)])
    assert res.exit_code == 0 and "every secret determined" in res.output, res.output
    doc = json.loads(out.read_text())
    doc["strategy"].pop("determine")  # replayed as "reveal", the tree leaves secrets unsolved
    out.write_text(json.dumps(doc))
    res = runner.invoke(cli, ["verify", str(out)])
    assert res.exit_code != 0 and "never solved" in res.output
    res = runner.invoke(cli, ["solve", "dice-cards", "--determine"])
    assert res.exit_code != 0 and "determine" in res.output
