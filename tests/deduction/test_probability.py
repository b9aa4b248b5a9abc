"""The probability objective (most secrets won within T guesses) on the deduction engine."""

import json
from fractions import Fraction

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay.deduction.feedback import compute_feedback
from perfectplay.deduction.root import search_for
from perfectplay.deduction.search import SpeedUps
from perfectplay.deduction.solve import SolveOptions, solve_deduction
from perfectplay.deduction.verify import BadStrategy, verify_document
from perfectplay.engine import solve
from perfectplay.objectives import Objective
from perfectplay.speedups import switch_names

from .winbrute import brute_wins

TINY = [
    ("item-matching(slots=2,items=3)", 2),
    ("item-matching(slots=2,items=3)", 3),
    ("item-matching(slots=2,items=4)", 3),
    ("item-matching(slots=3,items=3)", 2),
    ("item-matching(slots=3,items=3)", 3),
    ("item-matching(slots=2,items=3,restrict=items)", 3),
    ("item-matching(slots=2,items=4,restrict=slots)", 3),
    ("item-matching(slots=2,items=4,restrict=none)", 3),
    ("item-matching(slots=3,items=3,restrict=items)", 3),
    ("mastermind(pegs=2,colors=3)", 2),
    ("mastermind(pegs=2,colors=4)", 3),
    ("mastermind(pegs=3,colors=2)", 3),
    ("permutation(n=3)", 2),
    ("bulls-and-cows(digits=2,symbols=4)", 3),
]


def wins(spec, horizon, speedups=SpeedUps()):
    game = load_game(spec)
    return solve_deduction(
        game, Objective("probability", horizon), SolveOptions(speedups=speedups)
    ).extra["wins"]


@pytest.mark.parametrize("spec,horizon", TINY)
def test_engine_equals_brute_force(spec, horizon):
    assert wins(spec, horizon) == brute_wins(load_game(spec), horizon)


NAMES = switch_names(SpeedUps)


@pytest.mark.parametrize(
    "speedups", [SpeedUps(**{name: False}) for name in NAMES], ids=[f"no-{name}" for name in NAMES]
)
@pytest.mark.parametrize(
    "spec,horizon",
    [
        ("item-matching(slots=3,items=4)", 3),
        ("item-matching(slots=3,items=4,restrict=items)", 3),
        ("mastermind(pegs=3,colors=3)", 3),
    ],
)
def test_speedups_change_only_the_speed(spec, horizon, speedups):
    assert wins(spec, horizon, speedups) == wins(spec, horizon)


@pytest.mark.parametrize(
    "spec,horizon",
    [
        ("item-matching(slots=3,items=3)", 3),
        ("item-matching(slots=2,items=4,restrict=items)", 3),
        ("mastermind(pegs=2,colors=4)", 3),
    ],
)
def test_all_speedups_off_change_nothing(spec, horizon):
    assert wins(spec, horizon, SpeedUps(*[False] * len(NAMES))) == wins(spec, horizon)


# Seed 000, Section 0 (S = 5, T = 4); the seed prints 59045 for I = 9, but 9^5 = 59049.
SEED_TABLE = {
    5: (3119, 3125),
    6: (7735, 7776),
    7: (16621, 16807),
    8: (31322, 32768),
    9: (49728, 59049),
    10: (68327, 100000),
}


@pytest.mark.slow
@pytest.mark.parametrize("items", [6, 7, 8])
def test_the_seed_table_slow_rows(items):
    game = load_game("item-matching", [f"items={items}"])
    solution = solve(game, Objective("probability", 4))
    assert (solution.extra["wins"], solution.extra["secrets"]) == SEED_TABLE[items]


def test_the_seed_first_row_and_its_strategy_verifies(tmp_path):
    """Seed 000, S=5, T=4, I=5: 3119/3125; the exported tree replays to the same count."""
    game = load_game("item-matching", ["items=5"])
    solution = solve(game, Objective("probability", 4))
    assert (solution.extra["wins"], solution.extra["secrets"]) == SEED_TABLE[5]
    assert solution.value == Fraction(3119, 3125)
    assert solution.extra["unreduced"] == "3119/3125"
    doc = json.loads(json.dumps(solution.export()))
    replayed, label = verify_document(game, doc)
    stats = replayed.stats
    assert stats.secrets == 3119 and label == "proven optimal"


def test_a_tampered_tree_is_rejected():
    game = load_game("item-matching", ["slots=3", "items=4", "turns=3"])
    doc = json.loads(json.dumps(solve(game, Objective("probability", 3)).export()))
    root = doc["strategy"]["root"]
    label, child = next(iter(root["next"].items()))
    barred = [
        game.format_code([x] * 3)
        for x in range(4)
        if x in [int(ch) - 1 for ch, f in zip(root["guess"], label) if f == "I"]
    ]
    if barred:
        child["guess"] = barred[0]
        with pytest.raises(BadStrategy, match="not allowed"):
            verify_document(game, doc)
    doc = json.loads(json.dumps(solve(game, Objective("probability", 3)).export()))
    doc["strategy"]["root"]["next"]["CCC"] = {"guess": "111"}
    with pytest.raises(BadStrategy, match="wrong feedback edge"):
        verify_document(game, doc)
    doc = json.loads(json.dumps(solve(game, Objective("probability", 3)).export()))
    doc["strategy"]["horizon"] = 2
    with pytest.raises(BadStrategy, match="beyond the horizon"):
        verify_document(game, doc)


def test_remark_1_four_correct():
    """Seed 000, Remark 1 (S=5, I=7, T=4): whatever the first guess, 30 of the 7^5 secrets
    answer four Correct (CCCCW never occurs), and from there half of them are won."""
    game = load_game("item-matching", ["items=7"])
    search = search_for(game, "losses", SpeedUps())
    for first in ("11111", "12345", "11223"):
        q = game.parse_code(first)
        index = int(np.flatnonzero((game.guesses() == q).all(axis=1))[0])
        fb = compute_feedback(game, q[None, :], game.secrets())[0]
        labels = [game.format_feedback(f) for f in fb.tolist()]
        four = [i for i, lab in enumerate(labels) if lab.count("C") == 4]
        assert len(four) == 30
        assert {lab.replace("C", "") for lab in (labels[i] for i in four)} == {"I"}
        cell = np.array([i for i in four if labels[i] == labels[four[0]]])
        assert len(cell) == 6
        lost = search.best(cell, ((index, int(fb[cell[0]])),), 3).value
        assert len(cell) - lost == 3  # 1/2 of six


@pytest.mark.parametrize(
    "spec",
    [
        "item-matching(slots=3,items=3,turns=3)",
        "item-matching(slots=4,items=3,turns=4)",
        "item-matching(slots=3,items=4,turns=4,restrict=items)",
        "item-matching(slots=5,items=4,turns=4)",
    ],
)
def test_enough_turns_always_win(spec):
    """Under restriction 1, T >= I guesses always win (guess 11..1, 22..2, ...)."""
    game = load_game(spec)
    assert solve(game, Objective("probability", game.turns)).value == 1


def test_horizon_defaults_to_turns_and_probability_is_the_default_objective():
    game = load_game("item-matching", ["slots=3", "items=5", "turns=3"])
    assert game.default_objective == "probability" and game.default_horizon() == 3
    assert load_game("mastermind").default_horizon() is None


def test_two_lanes_give_the_same_value(monkeypatch):
    # 625 secrets: lanes start from 2,000, so the thresholds are lowered to split here
    from perfectplay.deduction import root

    monkeypatch.setattr(root, "PARALLEL_MIN_SECRETS", 100)
    monkeypatch.setattr(root, "SPLIT_MIN_SECRETS", 100)
    game = load_game("item-matching", ["slots=4", "items=5", "turns=3"])
    one = solve_deduction(game, Objective("probability", 3))
    two = solve_deduction(game, Objective("probability", 3), SolveOptions(workers=2))
    assert two.extra["wins"] == one.extra["wins"]
    assert verify_document(game, json.loads(json.dumps(two.export())))[0].won == one.extra["wins"]


def test_feedbacks_beyond_one_byte():
    """Six slots answer 3^6 = 729 feedbacks: a two-byte table, values as the brute force."""
    from perfectplay.deduction.feedback import build_table

    game = load_game("item-matching(slots=6,items=2,turns=3)")
    assert build_table(game).fb.dtype == np.uint16
    assert wins("item-matching(slots=6,items=2,turns=3)", 3) == brute_wins(game, 3)
    assert wins("item-matching(slots=6,items=2,turns=2)", 2, SpeedUps(table=False)) == brute_wins(
        load_game("item-matching(slots=6,items=2,turns=2)"), 2
    )
