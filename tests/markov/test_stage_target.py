"""Playing a scored staged game for a target (``markov/stage_target.py``): the best
chance of at least S points, against the same game solved as a graph (exactly where it
is small), against the expected-score strategy's own chances, and through the strategy
document, verify, the advisor and ``play``."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pytest

from perfectplay import load_game, load_strategy, solve
from perfectplay.advice import markov_advice
from perfectplay.errors import BadFile, Unsupported
from perfectplay.markov import contract
from perfectplay.markov.speedups import SpeedUps
from perfectplay.objectives import Objective
from perfectplay.strategy import Decision
from tests.cli_runner import perfectplay
from tests.markov.test_stages import Doubling

SMALL = ["card=6208"]  # three of a kind, Yahtzee, chance: ten stages
TARGET = 60


@pytest.fixture(scope="module")
def small():
    """card=6208 played for 60 points: its solution and its strategy read back."""
    game = load_game("yahtzee", SMALL)
    solution = solve(game, Objective("probability", TARGET))
    return game, solution, load_strategy(solution.export())


def test_a_yahtzee_in_one_turn_is_the_published_fraction():
    """The card of the Yahtzee box alone, played for 50: the chance of five of a kind
    within three rolls, 2783176/60466176; the graph's exact solve says the same."""
    game = load_game("yahtzee", ["card=2048", "joker=none"])
    aim = Objective("probability", 50)
    staged = solve(game, aim)
    assert staged.value == pytest.approx(2783176 / 60466176, rel=1e-14, abs=0)
    graph = solve(game, aim, exact=True, speedups=SpeedUps(stages=False))
    assert graph.value == Fraction(2783176, 60466176)


@pytest.mark.parametrize("target", [25, TARGET])
def test_a_small_card_agrees_with_its_graph(small, target):
    """The start's row holds every target up to 60: each one as the graph's solve for it
    (its exact chance, held to the floats' rounding)."""
    game, solution, _ = small
    graph = solve(game, Objective("probability", target), speedups=SpeedUps(stages=False))
    row = solution.strategy.row(game.stages().start)
    assert row[target] == pytest.approx(float(graph.value), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("target", [1, 4, 9])
def test_a_game_of_the_tests_agrees_with_its_graph(target):
    """Hold-or-double (``test_stages.Doubling``), another game's stages and rule, for a
    target: the graph's exact chance."""
    game, aim = Doubling(turns=3, fee=0), Objective("probability", target)
    exact = solve(game, aim, exact=True, speedups=SpeedUps(stages=False)).value
    assert solve(game, aim).value == pytest.approx(float(exact), rel=1e-14, abs=1e-15)


def test_the_target_strategy_beats_the_expected_one_at_every_target(small):
    """Playing for at least S reaches it at least as often as playing for the most
    points on average, for every S up to the target: the expected strategy's chance of
    at least S is its score distribution's."""
    game, solution, _ = small
    row = solution.strategy.row(game.stages().start)
    expected = solve(game, distribution=True).distribution
    at_least = dict(zip(expected.scores.tolist(), expected.at_least().tolist()))
    for s in range(1, TARGET + 1):
        theirs = next((at_least[x] for x in sorted(at_least) if x >= s), 0.0)
        assert row[s] >= theirs - 1e-12, s
    assert row[TARGET] > next(at_least[x] for x in sorted(at_least) if x >= TARGET) + 1e-3
    assert row[0] == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(row) <= 1e-15)  # more needed: less likely


def test_the_document_reads_back_and_verifies(small, tmp_path):
    game, solution, strategy = small
    assert strategy.value(int(contract.start(game))) == pytest.approx(solution.value, abs=1e-15)
    verdict = strategy.verify()
    assert verdict.optimality == "float check"
    document = solution.export()
    out = tmp_path / "t.json"
    out.write_text(json.dumps(document))
    result = perfectplay("verify", str(out))
    assert result.returncode == 0 and "rows recomputed" in result.stdout


def test_a_changed_chance_is_refused_in_one_line(small):
    """A row changed in the file: verify names the stage whose row its successors' do
    not give."""
    game, solution, _ = small
    rows = solution.strategy
    start = game.stages().start
    kept = rows.data.copy()
    try:
        rows.data[rows.offset[start] + 5] *= 0.999  # (the start stage's, the last solved)
        document = solution.export()
    finally:
        rows.data[:] = kept
    with pytest.raises(BadFile, match="stored row is not the one its successors"):
        load_strategy(document).verify()


def test_the_file_written_a_chunk_at_a_time_is_the_document(small, tmp_path):
    """``Solution.write`` streams the rows' text (Yahtzee's to 300: half a GB), and
    writes the very document ``export`` gives; read back, its rows are the solve's."""
    game, solution, _ = small
    out = tmp_path / "t.json"
    solution.write(out)
    document = json.loads(out.read_text())
    assert document == solution.export()
    again = load_strategy(document).rows
    assert np.array_equal(again.data, solution.strategy.data)
    assert np.array_equal(again.offset, solution.strategy.offset)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: {**s, "columns": s["columns"][:-40]}, "rows end before"),
        (lambda s: {**s, "columns": s["columns"] + "AAAA"}, "run on past it|not base64"),
        (lambda s: {**s, "columns": "%" + s["columns"][1:]}, "not base64"),
        (lambda s: {**s, "columns": "AAAA" + s["columns"][4:]}, "not one zlib stream"),
        (lambda s: {**s, "row_floats": s["row_floats"] - 1}, "rows hold more|run on past"),
        (lambda s: {**s, "row_floats": 10**12}, "do not hold between"),
        (lambda s: {**s, "encoding": "stage-rows-npz-base64"}, "unknown encoding"),
    ],
)
def test_broken_rows_are_refused_in_one_line(small, change, message):
    """Rows cut short, run on, not base64, of another length than the file says, or in
    another encoding: one line naming the fault, nothing allocated beyond the file's
    word."""
    game, solution, _ = small
    document = solution.export()
    document["strategy"] = change(document["strategy"])
    with pytest.raises(BadFile, match=message):
        load_strategy(document)


def test_the_advice_ranks_by_the_chance_and_follows_the_strategy(small):
    """At every decision of a turn the advisor's first option is the strategy's choice,
    ranked by the chance of the points still needed."""
    game, _, strategy = small
    aim = Objective("probability", TARGET)
    start = int(contract.start(game))
    exp = contract.expansion(game, np.array([start], dtype=np.int64))
    for k in np.flatnonzero(exp.weight[0] > 0)[:40].tolist():
        state = int(exp.next[0, k, 0])  # (the roll's state: the keeps after it)
        inner = contract.expansion(game, np.array([state], dtype=np.int64))
        for j in np.flatnonzero(inner.weight[0] > 0)[:3].tolist():
            for needed in (TARGET, 30):
                advice = markov_advice(game, Decision(state, j, needed), aim, strategy)
                values = [o.value for o in advice.options]
                assert values == sorted(values, reverse=True)
                assert advice.options[0].action == strategy.action(Decision(state, j, needed))


def test_games_it_does_not_fit_are_refused_in_one_line():
    """A turn paying on its way (a fee) is refused by the solver; a game of moves by the
    command, in one line."""
    with pytest.raises(Unsupported, match="playing for a target needs a turn whose points"):
        solve(Doubling(turns=3, fee=1), Objective("probability", 5))
    result = perfectplay("solve", "yahtzee", "card=2048", "--objective", "worst")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


def test_play_advises_for_the_target(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFECTPLAY_STRATEGIES", str(tmp_path))
    args = ["play", "yahtzee", *SMALL, "--objective", "probability", "--horizon", "60"]
    result = perfectplay(*args, "--seed", "3", input="\n" * 12)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # (rich wraps long lines)
    assert "scores at least 60 points with probability 0.131826" in text
    assert "chance of at least 60 points" in text
    assert re.search(r"finished with \d+ points, (at least|short of) 60", text)


def test_a_target_too_large_for_the_memory_is_refused_before_anything_is_reserved():
    """A target whose rows (a row of chances for every number of points up to it, for
    every stage) exceed the memory (Yahtzee's to a million: 4 TiB): one line naming the
    estimate, exit 2, at once."""
    result = perfectplay("solve", "yahtzee", "--objective", "probability", "--horizon", "1000000")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "a target of 1,000,000 points: rows of 1,000,001 chances for 536,320" in result.stderr
    assert "TiB of memory, more than the" in result.stderr and "a smaller target" in result.stderr
