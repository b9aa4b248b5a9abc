"""Games played by the optimal strategy (``markov/simulate``, ``perfectplay simulate``):
their scores drawn from the exact distribution (``stage_distribution``) and their mean
the exact value, seeded runs repeated, and the command's output and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfectplay import solve
from perfectplay.catalogue import load_game
from perfectplay.markov.simulate import play_stages
from perfectplay.objectives import Objective
from perfectplay.simulation import simulate

from ..cli_runner import perfectplay
from .test_stage_distribution import assert_drawn_from
from .test_stages import Doubling, expectimax


def _played(game, games: int, seed: int, distribution: bool = True):
    """A staged game solved (its distribution too) and `games` games played by it."""
    sol = solve(game, distribution=distribution)
    st = game.stages()
    sign = 1.0 if game.pays else -1.0
    solved = np.ones(st.count, dtype=bool)
    return sol, play_stages(st, sol.strategy.values, solved, sign, games, seed)


@pytest.mark.parametrize("turns,fee", [(1, 0), (3, 1), (6, 2)])
def test_the_mean_of_a_tiny_game_is_its_brute_force_value(turns, fee):
    """`Doubling` (no groups: its stages 64 to a block, its exits from the rule's arrays),
    its value by brute force over the whole game."""
    _, scores = _played(Doubling(turns=turns, fee=fee), 40_000, seed=3, distribution=False)
    exact = float(expectimax(turns, fee))
    assert abs(scores.mean() - exact) <= 5 * scores.std() / np.sqrt(len(scores))


@pytest.mark.parametrize(
    "game",
    [
        load_game("yahtzee", ["card=6208"]),
        load_game("yatzy", ["card=16399"]),
        Doubling(turns=4, fee=1),
    ],
    ids=str,
)
def test_games_score_as_the_exact_distribution_says(game):
    """100,000 games of a small card (its groups' lanes side by side) and of a game
    without groups: every score's share within sampling error of its exact chance."""
    sol, scores = _played(game, 100_000, seed=11)
    assert_drawn_from(scores, sol.distribution)


@pytest.mark.slow
def test_games_of_the_whole_yahtzee_card_score_as_the_exact_distribution_says():
    """100,000 games of full Yahtzee's optimal strategy against its exact distribution
    (``solve yahtzee --json``'s), in bins of chance 1/1000: its tail of scores too
    rare to be drawn (past 1,500) is held as a whole."""
    sol, scores = _played(load_game("yahtzee", []), 100_000, seed=2026)
    assert_drawn_from(scores, sol.distribution, per_score=False)


def test_a_seeded_run_plays_the_same_games_and_another_seed_others():
    game = load_game("yahtzee", ["card=6208"])
    first = simulate(game, 3000, seed=5).scores
    assert np.array_equal(first, simulate(game, 3000, seed=5).scores)
    assert not np.array_equal(first, simulate(game, 3000, seed=6).scores)
    # a game's draws are its own: the first games of a longer run are the same games
    assert np.array_equal(first[:1000], simulate(game, 1000, seed=5).scores)


def test_a_game_solved_on_its_graph_averages_its_value():
    run = simulate(load_game("dice-cards", ["n=3"]), 50_000, seed=1)
    assert abs(run.mean - run.value) <= 5 * run.stderr
    assert run.scores.min() >= 1 and np.all(run.scores == np.round(run.scores))


def test_a_deduction_game_counts_the_guesses_of_random_secrets():
    """Each secret's guesses counted by playing the strategy's tree against it, secrets
    drawn at random: the shares of each count within sampling error of the solve's
    histogram (secrets found in that many guesses)."""
    game = load_game("mastermind", ["pegs=2", "colors=4"])
    run = simulate(game, 20_000, seed=8)
    sol = solve(game)
    assert abs(run.mean - run.value) <= 5 * run.stderr and run.value == sol.value_float
    for guesses, secrets in sol.histogram.items():
        p = secrets / sol.secrets
        share = float(np.mean(run.scores == guesses))
        assert abs(share - p) <= 5 * np.sqrt(p * (1 - p) / run.games)
    assert set(np.unique(run.scores)) <= set(sol.histogram)


def test_a_staged_game_whose_turn_can_bust_averages_its_value():
    """Pig alone (docs/custom-games.md): the bust returns to the stage itself, a game
    of costs (turns): the mean of its games is the staged solve's value."""
    from perfectplay.markov.stage_model import END, Stages

    from .test_stage_proof import pig_turn

    goal = 12

    def exits(stages: np.ndarray):
        held = stages[:, None] + np.arange(2, goal + 1)[None, :]
        nxt = np.concatenate([np.where(held < goal, held, END), stages[:, None]], axis=1)
        return np.ones((len(stages), goal, 1)), nxt[:, :, None]

    st = Stages(
        count=goal,
        layers=tuple(np.array([s]) for s in range(goal - 1, -1, -1)),
        start=0,
        template=pig_turn(goal, 6),
        options=1,
        exits=exits,
    )
    values = np.zeros(goal)
    from perfectplay.markov.stages import stage_batches

    solved = np.zeros(goal, dtype=bool)
    for batch, best in stage_batches(st, -1.0, values, solved):
        values[batch] = best
    scores = play_stages(st, -values, solved, -1.0, 40_000, seed=9)
    assert scores.min() >= 1 and abs(scores.mean() + values[0]) <= 5 * scores.std() / 200


def test_the_command_prints_the_mean_its_error_and_a_histogram():
    result = perfectplay("simulate", "yahtzee", "card=6208", "--games", "2000", "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert "2,000 games of the optimal strategy (seed 4" in result.stdout
    assert " ± " in result.stdout and "exact " in result.stdout and "█" in result.stdout
    again = perfectplay(
        "simulate", "yahtzee", "card=6208", "--games", "2000", "--seed", "4", "--json"
    )
    data = json.loads(again.stdout)
    run = simulate(load_game("yahtzee", ["card=6208"]), 2000, seed=4)
    assert data["mean"] == run.mean and data["seed"] == 4 and data["games"] == 2000
    assert f"mean {run.mean_text()} points" in result.stdout
    assert sum(b["games"] for b in data["histogram"]) == 2000


@pytest.mark.parametrize(
    "game,target",
    [(Doubling(turns=3, fee=0), 9), (Doubling(turns=3, fee=0), 4), ("card=6208", 60)],
)
def test_games_played_for_a_target_reach_it_as_often_as_its_solved_chance(game, target):
    """Played for at least `target` points by the target's rows (``play_target``): the
    share of games that reach it is the solved chance within sampling error (the
    expected-score strategy reaches 60 on card 6208 less often: 0.12 or so), for
    Yahtzee's card of groups and for hold-or-double, another game's rule."""
    game = load_game("yahtzee", [game]) if isinstance(game, str) else game
    aim = Objective("probability", target)
    run = simulate(game, 100_000, seed=7, objective=aim)
    exact = solve(game, aim).value
    assert run.target == target and run.value == pytest.approx(exact, rel=1e-12)
    assert abs(run.reached - exact) <= 4 * max(run.reached_stderr, 1e-3)


def test_the_command_prints_the_share_that_reached_the_target():
    args = ["yahtzee", "card=6208", "--objective", "probability", "--horizon", "60"]
    result = perfectplay("simulate", *args, "--games", "3000", "--seed", "4")
    assert result.returncode == 0, result.stderr
    run = simulate(
        load_game("yahtzee", ["card=6208"]), 3000, 4, objective=Objective("probability", 60)
    )
    said = f"at least 60 points in {run.reached:.4f} ± {run.reached_stderr:.4f}"
    text = " ".join(result.stdout.split())  # (lines wrapped at 80 columns)
    assert said in text and "exact chance 0.131826" in text
    data = json.loads(
        perfectplay("simulate", *args, "--games", "3000", "--seed", "4", "--json").stdout
    )
    assert data["target"] == 60 and data["reached"] == run.reached


@pytest.mark.parametrize(
    "args,message",
    [
        (["yahtzee", "--objective", "probability"], "needs a horizon"),
        (["mastermind", "--objective", "probability", "--horizon", "3"], "expected guesses only"),
        (["dice-cards", "--objective", "probability", "--horizon", "5"], "a target score's"),
        (["yahtzee", "--games", "0"], "--games must be an integer from 1 to 10,000,000, got 0"),
        (["yahtzee", "--games", "many"], "--games must be an integer"),
        (["yahtzee", "--seed", "-1"], "--seed"),
        (["chess"], "unknown game 'chess'"),
        (["yahtzee", "card=0"], "card"),
    ],
)
def test_bad_input_is_one_line(args, message):
    result = perfectplay("simulate", *args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
