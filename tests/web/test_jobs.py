"""The server's caps on advice: a board that finds the optimal search's places taken gets
the heuristic's guess, labelled; with those taken too, no suggestion, at once."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay.web import jobs as jobs_module  # noqa: E402
from perfectplay.play.deduction_play import Suggestion  # noqa: E402
from perfectplay.web.jobs import Jobs  # noqa: E402

GAME = "mastermind(pegs=3,colors=4)"


@pytest.fixture(scope="module")
def jobs():
    own = Jobs()
    yield own
    own.close()


def test_the_places_taken_give_the_heuristic_then_nothing(jobs, monkeypatch):
    monkeypatch.setattr(jobs_module, "ADVICE_AT_ONCE", 0)  # as if two boards were advised
    found = jobs.advise(GAME, "", None, budget=20)
    assert found is not None and found.source == "most-parts"
    monkeypatch.setattr(jobs_module, "HEURISTICS_AT_ONCE", 0)
    assert jobs.advise(GAME, "123:0B1W", None, budget=20) is None


def test_a_free_place_gives_the_optimal_guess_and_keeps_it(jobs):
    found = jobs.advise(GAME, "123:0B1W", None, budget=20)
    assert found is not None and found.source == "optimal"
    assert jobs.advise(GAME, "123:0B1W", None, budget=0) == found  # kept: no worker asked
    assert isinstance(found, Suggestion) and found.final
