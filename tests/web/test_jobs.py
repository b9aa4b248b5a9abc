"""The server's caps on advice: a board that finds the optimal search's places taken gets
the heuristic's guess, labelled; with those taken too, no suggestion, at once."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay.web import jobs as jobs_module  # noqa: E402
from perfectplay.objectives import Objective  # noqa: E402
from perfectplay.advice import PROVEN, RULE_OF_THUMB, Advice  # noqa: E402
from perfectplay.web.jobs import Jobs  # noqa: E402

GAME = "mastermind(pegs=3,colors=4)"


@pytest.fixture(scope="module")
def jobs():
    own = Jobs()
    yield own
    own.close()


def test_the_places_taken_give_the_heuristic_then_nothing(jobs, monkeypatch):
    monkeypatch.setattr(jobs_module, "ADVICE_AT_ONCE", 0)  # as if two boards were advised
    found = jobs.advise(GAME, "", Objective(), budget=20)
    assert found is not None and found.label == RULE_OF_THUMB
    monkeypatch.setattr(jobs_module, "HEURISTICS_AT_ONCE", 0)
    assert jobs.advise(GAME, "123:0B1W", Objective(), budget=20) is None


def test_a_free_place_gives_the_optimal_guess_and_keeps_it(jobs):
    found = jobs.advise(GAME, "123:0B1W", Objective(), budget=20)
    assert found is not None and found.label == PROVEN
    assert jobs.advise(GAME, "123:0B1W", Objective(), budget=0) == found  # kept: no worker asked
    assert isinstance(found, Advice) and found.final


@pytest.mark.parametrize(
    "spec, moves, objective",
    [
        ("mastermind(pegs=3,colors=5)", "241:0B1W", Objective("worst")),  # (expected: 133)
        (
            "item-matching(slots=3,items=4,turns=3,costs=1,5,9,20)",
            "",
            Objective("probability-then-cost", 3),
        ),
        (
            "item-matching(slots=3,items=4,turns=3,costs=1,5,9,20)",
            "123:CWI",
            Objective("probability-then-cost", 3),
        ),
    ],
)
def test_the_advice_plays_for_the_boards_objective(jobs, spec, moves, objective):
    """The optimal suggestion is the first guess of the strategy solved for the objective
    from that position (the worst case's, or the chance to win, then the items' cost),
    at positions where the expected guesses' (or the chance alone's: 112) differs."""
    from perfectplay import load_game, solve
    from perfectplay.engine import engine_of

    game = load_game(spec)
    position = engine_of(game).parse_position(game, moves)
    found = jobs.advise(spec, moves, objective, budget=60)
    assert found is not None and found.label == PROVEN
    solution = solve(game, objective, position=position)
    assert found.suggestion.action == solution.strategy.root.guess


def test_a_review_joining_another_moves_worker_is_not_given_up(jobs, monkeypatch):
    """Two boards of the same game on other moves: the second's positions are not the
    running worker's, so its end leaves them to the next ask ("working"), not "given up"."""
    from perfectplay.web.jobs import Valuing

    game = "mastermind(pegs=2,colors=3)"
    first = [("", 0, None), ("11:1B0W", None, None)]
    second = [("", 1, None), ("12:0B1W", None, None)]
    found = jobs.values(game, first, Objective(), budget=20)
    assert isinstance(found, Valuing) and found.state == "done" and len(found.known) == 2
    monkeypatch.setattr(jobs_module, "REVIEW_WORK", 0.0)  # a worker that ends at once
    late = jobs.values(game, second, Objective(), budget=5)
    assert late.state == "given up"  # (its own worker valued them all: out of time)
    jobs._reviews[(game, Objective())] = (_ended_thread(), frozenset(first))  # another's
    assert jobs.values(game, second, Objective(), budget=0).state == "working"
    jobs._reviews.clear()


def _ended_thread():
    import threading

    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    return thread


def test_a_running_solve_says_how_long_it_has_left_at_its_pace_so_far():
    job = jobs_module.Job("1", "yatzy", "expected", None, exact=False)
    assert job.left is None  # (no count of its work yet)
    job.progress = jobs_module.Progress("solving stages", 250, 1000, "stages")
    job.seconds = 5.0
    assert job.left == 15.0  # a quarter done in 5 s: 15 s more
    job.state = "done"
    assert job.left is None


def test_a_review_valued_ahead_keeps_no_review_page_waiting(jobs):
    """A board starts its review's values as its game goes (niced, a place of its own):
    a review page of another game, asked meanwhile, is valued at once, not "busy"."""
    ahead = jobs.values("mastermind", [("", 0, None)], Objective(), budget=0, ahead=True)
    assert ahead.state == "working"  # (Mastermind's start takes seconds to value)
    asked = jobs.values(
        "mastermind(pegs=2,colors=3)", [("", 1, None), ("12:0B1W", None, None)], Objective(), 20
    )
    assert asked.state == "done" and len(asked.known) == 2
    assert jobs.values("mastermind", [("", 0, None)], Objective(), 0, ahead=True).state in (
        "working",
        "done",
    )
