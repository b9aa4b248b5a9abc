"""Solving from a position (--after) and with an imposed first guess (--first)."""

import json
from fractions import Fraction

import pytest

from perfectplay import load_game, solve
from perfectplay.deduction.position import format_position, parse_position
from perfectplay.verify_file import check_document

from ..cli_runner import assert_one_line_error, perfectplay
from .bruteforce import BruteForce


@pytest.mark.parametrize(
    "spec",
    ["mastermind(pegs=2,colors=3)", "permutation(n=4)", "bulls-and-cows(digits=2,symbols=4)"],
)
def test_first_guess_values_equal_the_brute_force(spec):
    game = load_game(spec)
    brute = BruteForce(game)
    everyone = brute.everything()
    n = len(everyone)
    for g, code in enumerate(brute.guesses):
        cells = brute.split(code, everyone)
        expected = n + sum(
            brute.total(frozenset(c), n) for f, c in cells.items() if f != brute.solved
        )
        sol = solve(game, "expected", first=g)
        assert sol.extra["total"] == expected, game.format_code(code)
        assert sol.strategy.root.guess == g and sol.status == "proven optimal given its first guess"


@pytest.mark.parametrize(
    "spec,after",
    [
        ("mastermind(pegs=3,colors=3)", "112:1B1W"),
        ("mastermind(pegs=3,colors=4)", "112:0B1W,334:1B0W"),
        ("permutation(n=4)", "1234:0"),
    ],
)
def test_a_position_is_solved_from_there(spec, after):
    game = load_game(spec)
    brute = BruteForce(game)
    history = parse_position(game, after)
    assert format_position(game, history) == after
    left = frozenset(
        s for s in brute.secrets if all(brute.fb[brute.guesses[g], s] == f for g, f in history)
    )
    sol = solve(game, "expected", position=history)
    played = len(history)
    assert sol.extra["total"] == brute.total(left, len(left)) + played * len(left)
    assert sol.value == Fraction(sol.extra["total"], len(left))
    assert sol.extra["after"] == after
    worst = solve(game, "worst", position=history)
    assert worst.value == brute.worst(left) + played
    doc = json.loads(json.dumps(sol.export()))
    assert check_document(doc).optimality == "re-established"


def test_probability_from_a_position_and_its_tree_verifies():
    game = load_game("item-matching(slots=3,items=4,turns=3)")
    history = parse_position(game, "112:CWI")
    sol = solve(game, "probability", position=history)
    doc = json.loads(json.dumps(sol.export()))
    verdict = check_document(doc)
    assert verdict.optimality == "re-established" and sol.extra["secrets"] < 64


def test_position_errors_are_one_line(tmp_path):
    assert_one_line_error(
        perfectplay("solve", "mastermind", "--after", "1122:5B0W"), "cannot read feedback"
    )
    assert_one_line_error(
        perfectplay("solve", "mastermind", "--after", "1122:1B0W,1122:0B0W"), "no secret answers"
    )
    assert_one_line_error(perfectplay("solve", "mastermind", "--after", "1122"), "GUESS:FEEDBACK")
    assert_one_line_error(perfectplay("solve", "mastermind", "--first", "1127"), "1127")
    assert_one_line_error(
        perfectplay("solve", "item-matching", "slots=3", "items=4", "--after", "112:CWI,122:CWW"),
        "not allowed",
    )
    assert_one_line_error(perfectplay("solve", "dice-cards", "--first", "x"), "--first")


#: For each deduction game: its parameters, a first move, the winning move and a move
#: that could follow the win (consistent with the one secret left).
SOLVED = [
    (("mastermind", "pegs=2", "colors=3"), "11:0B0W", "23:2B0W", "32:0B2W"),
    (("wordle",), "salet:BBYBB", "crony:GGGGG", "irony:BGGGG"),
    (("permutation", "n=3"), "123:0", "231:3", "312:0"),
    (("bulls-and-cows", "digits=2", "symbols=4"), "01:0B0C", "23:2B0C", "32:0B2C"),
    (("item-matching", "slots=3", "items=3", "turns=3"), "111:CWW", "123:CCC", "132:CWW"),
]


@pytest.mark.parametrize("game,first,win,after", SOLVED, ids=[s[0][0] for s in SOLVED])
def test_a_position_whose_secret_is_found_is_refused_by_solve_rank_and_openings(
    game, first, win, after
):
    # The issue: `solve mastermind pegs=2 colors=3 --after 12:2B0W` reported value 2,
    # "proven optimal", counting guesses never played.
    name, *params = game
    for position in (win, f"{first},{win}"):
        found = f"{name}: the secret is already found after {position}: nothing left to solve"
        for command in (
            ("solve", name, *params, "--after", position),
            ("rank", name, *params, "--after", position),
            ("openings", "list", name, *params, "--after", position),
        ):
            assert_one_line_error(perfectplay(*command), found)
    # a win that is not the last move: the game ended there
    res = perfectplay("solve", name, *params, "--after", f"{first},{win},{after}")
    assert_one_line_error(
        res, f"{name}: {first},{win} already finds the secret: no guess can follow it"
    )


def test_the_frontier_refuses_a_found_secret_too():
    game = ("item-matching", "slots=3", "items=3", "turns=3")
    res = perfectplay("solve", *game, "--frontier", "--after", "123:CCC")
    assert_one_line_error(res, "the secret is already found after 123:CCC")


def test_the_board_reads_a_finished_game_and_refuses_a_move_after_the_win():
    # The web board reads its moves with the engine's parse_position: a game whose last
    # move found the secret is a finished game to show; a move after the win is refused.
    from perfectplay.engine import engine_of
    from perfectplay.errors import PerfectplayError

    game = load_game("mastermind(pegs=2,colors=3)")
    engine = engine_of(game)
    finished = engine.parse_position(game, "11:0B0W,23:2B0W")
    assert finished[-1][1] == game.solved_feedback()
    with pytest.raises(PerfectplayError, match="already finds the secret"):
        engine.parse_position(game, "11:0B0W,23:2B0W,32:0B2W")
    with pytest.raises(PerfectplayError, match="nothing left to solve"):
        engine.position(game, "11:0B0W,23:2B0W", "openings to value")
