"""The relay between lanes: what one lane's search finds reaches the others with their
next tasks, once, never back to its finder, never to a search of another objective; and
it changes no value."""

import threading

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.deduction import root
from perfectplay.deduction.root import Relay, Subproblem, ThreadLane
from perfectplay.deduction.tree import Answer
from perfectplay.deduction.search import SpeedUps
from perfectplay.objectives import Objective


def _rows(k: int) -> np.ndarray:
    return np.full((1, 5), k, dtype=np.int64)


def test_rows_reach_the_other_lanes_once(monkeypatch):
    seeded = []  # (lane's searches, the seeds its task got) in order

    def task(sub, searches=None, seeds=None):
        seeded.append((id(searches), None if seeds is None else seeds[:, 0].tolist()))
        return Answer(0, None, 0, _rows(len(seeded)))

    monkeypatch.setattr(root, "solve_subproblem", task)
    game = load_game("mastermind(pegs=2,colors=3)")
    expected = Subproblem(game, "expected", SpeedUps(), (), np.arange(9), 9)
    worst = Subproblem(game, "worst", SpeedUps(), (), np.arange(9), 9)
    a, b = ThreadLane(), ThreadLane()
    relay = Relay([a, b])

    def run(lane, sub):
        done = threading.Event()
        future = relay.hand(lane, sub)
        future.add_done_callback(lambda _: done.set())  # after the relay's own callback
        assert done.wait(10)

    try:
        run(a, expected)  # finds rows 1
        run(b, expected)  # gets 1, finds 2
        run(a, expected)  # gets 2 (not its own 1), finds 3
        run(b, expected)  # gets 3 (1 again: no), finds 4
        run(b, worst)  # another objective: nothing yet, finds 5
        run(a, worst)  # gets 5 (not the expected searches' rows)
        run(a, expected)  # gets 4 (and not 2 again)
        # of the 7 sets of rows found, 1, 2 and 3 were handed to both lanes: let go
        assert relay.held == 4
    finally:
        root.close_lanes([a, b])
    assert [s for _, s in seeded] == [[], [1], [2], [3], [], [5], [4]]


@pytest.mark.parametrize("objective", ["expected", "worst"])
def test_the_relay_changes_no_value_and_passes_rows(objective, monkeypatch):
    # thresholds far below the usual, so that Mastermind 4x4 is split over two lanes
    monkeypatch.setattr(root, "PARALLEL_MIN_SECRETS", 100)
    monkeypatch.setattr(root, "SPLIT_MIN_SECRETS", 100)
    from perfectplay.deduction import core

    monkeypatch.setattr(core, "JOURNAL_MIN_SECRETS", 4)
    passed = []
    solve_subproblem = root.solve_subproblem

    def counted(sub, searches=None, seeds=None):
        passed.append(0 if seeds is None else len(seeds))
        return solve_subproblem(sub, searches, seeds)

    monkeypatch.setattr(root, "solve_subproblem", counted)
    game = load_game("mastermind(pegs=4,colors=4)")
    one = solve(game, Objective(objective))
    relayed = solve(game, Objective(objective), workers=2)
    assert sum(passed) > 0
    alone = solve(game, Objective(objective), workers=2, without=["relay"])
    for two in (relayed, alone):
        assert two.value == one.value
        assert (two.extra["total"], two.extra["worst"]) == (one.extra["total"], one.extra["worst"])
