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
from perfectplay.speedups import switch_names

from .bruteforce import BruteForce
from .winbrute import brute_wins

SMALL = [
    "mastermind(pegs=2,colors=3)",
    "mastermind(pegs=2,colors=4)",
    "mastermind(pegs=3,colors=2)",
    "permutation(n=3)",
    "permutation(n=4)",
]


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


@pytest.mark.parametrize(
    "spec,horizon",
    [
        ("mastermind(pegs=2,colors=4)", 2),
        ("mastermind(pegs=2,colors=4)", 3),
        ("permutation(n=4)", 3),
        ("item-matching(slots=2,items=3,turns=2)", 2),
    ],
)
def test_within_horizon_determine(spec, horizon):
    game = load_game(spec)
    for determine in (False, True):
        sol = solve(game, Objective("probability", horizon, determine))
        assert sol.extra["wins"] == brute_wins(game, horizon, determine)


def test_determine_switches_change_only_speed():
    game = load_game("mastermind(pegs=3,colors=3)")
    base = solve(game, Objective("expected", determine=True))
    for name in switch_names(SpeedUps):
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
    res = runner.invoke(
        cli,
        [
            "solve",
            "mastermind",
            "pegs=2",
            "colors=4",
            "--determine",
            "--possible-only",
            "--quiet",
            "--json",
            "--out",
            str(out),
        ],
    )
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


def test_rank_prices_every_guess_like_the_brute_force():
    from fractions import Fraction

    from perfectplay.deduction.position import parse_position
    from perfectplay.deduction.rank import rank_guesses

    game = load_game("mastermind(pegs=2,colors=4)")
    for determine in (False, True):
        brute = BruteForce(game, determine=determine)
        for after in ("", "12:0B1W"):
            history = parse_position(game, after)
            secrets = frozenset(
                s
                for s in brute.secrets
                if all(brute.fb[brute.guesses[g], s] == f for g, f in history)
            )
            n, played = len(secrets), len(history)
            ranking = rank_guesses(game, Objective("expected", determine=determine), history)
            expected = {}
            for i, g in enumerate(brute.guesses):
                cells = brute.split(g, secrets)
                if len(cells) == 1 and brute.solved not in cells:
                    continue
                total = n + sum(
                    brute.total(frozenset(c), n) for f, c in cells.items() if f != brute.solved
                )
                expected[i] = Fraction(played * n + total, n)
            assert {p.guess: p.value for p in ranking.guesses} == expected
            best = min(expected.values())
            assert len(ranking.optimal()) == sum(v == best for v in expected.values())
            assert 1 <= ranking.optimal_classes <= ranking.classes


def test_rank_cli():
    res = CliRunner().invoke(
        cli, ["rank", "mastermind", "pegs=3", "colors=3", "--json", "--quiet", "--top", "2"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["top"][0]["guess"] == "112" and len(data["top"]) == 2
    assert data["optimal_classes"] >= 1 and data["classes"] <= data["allowed"]
    res = CliRunner().invoke(cli, ["rank", "dice-cards"])
    assert res.exit_code != 0 and "deduction games only" in res.output


@pytest.mark.slow
def test_mastermind_4x6_first_guesses():
    # seed 004's "an optimal strategy is not unique": every guess of the form AABC (720)
    # reaches 5625/1296; Mastermind with only possible guesses: 5660/1296, worst case 6
    from fractions import Fraction

    from perfectplay.deduction.rank import rank_guesses

    ranking = rank_guesses(load_game("mastermind"))
    assert ranking.best == Fraction(5625, 1296)
    assert (len(ranking.optimal()), ranking.optimal_classes, ranking.classes) == (720, 1, 5)
    hard = load_game("mastermind", ["possible_only=1"])
    assert solve(hard, "expected").extra["total"] == 5660
    assert solve(hard, "worst").value == 6


def test_first_guess_path_under_determine():
    # --first goes through the root's cell-by-cell path (the one several workers use)
    game = load_game("permutation(n=4)")
    best = solve(game, Objective("expected", determine=True))
    first = best.strategy.root.guess
    given = solve(game, Objective("expected", determine=True), first=first)
    assert given.extra["total"] == best.extra["total"] == 75
