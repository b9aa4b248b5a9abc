"""The Dask back end: the same values as the thread lanes, with trees that replay to
them; a one-line error without Dask."""

import sys

import pytest

from perfectplay import load_game
from perfectplay.deduction import root
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.tree import tree_stats
from perfectplay.deduction.solve import solve_deduction
from perfectplay.errors import Unsupported
from perfectplay.objectives import Objective

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as run


@pytest.fixture
def split_small_games(monkeypatch):
    """Hand out the cells of games far smaller than usual (256 secrets), so that a test
    exercises the lanes in seconds."""
    monkeypatch.setattr(root, "PARALLEL_MIN_SECRETS", 100)


@pytest.mark.parametrize("objective", ["expected", "worst"])
def test_local_dask_cluster_gives_the_thread_lanes_value(split_small_games, objective):
    # Tasks go to whichever lane is idle, so which of two equally good guesses a tree
    # keeps may differ (a lane's memo decides it): the values must not, and each tree
    # must replay, by the scalar rules, to the total and worst case it states.
    pytest.importorskip("distributed")
    game = load_game("mastermind(pegs=4,colors=4)")
    lanes = solve_deduction(game, Objective(objective), workers=2)
    dask = solve_deduction(game, Objective(objective), cluster="local:2")
    assert dask.value == lanes.value == {"expected": 905 / 256, "worst": 4}[objective]
    assert (dask.extra["total"], dask.extra["worst"]) == (lanes.extra["total"], lanes.extra["worst"])
    for solution in (lanes, dask):
        replay = tree_stats(build_table(game), solution.strategy.root)
        assert (replay.total, replay.worst) == (solution.extra["total"], solution.extra["worst"])
    assert dask.stats["nodes"] > 0


def test_cluster_without_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    from perfectplay.cluster import cluster_lanes

    with pytest.raises(Unsupported, match=r"pip install 'perfectplay\[cluster\]'"):
        cluster_lanes("local:2")


def test_cluster_bad_address_is_one_line():
    pytest.importorskip("distributed")
    res = run("solve", "mastermind", "pegs=4", "colors=7", "--cluster", "local:zero")
    assert_one_line_error(res, "--cluster local:N")
