"""The Dask back end: the same values as the thread lanes, with trees that replay to
them; a one-line error without Dask."""

import sys

import pytest

from perfectplay import load_game
from perfectplay.deduction import root
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.tree import tree_stats
from perfectplay.deduction.solve import SolveOptions, solve_deduction
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
    lanes = solve_deduction(game, Objective(objective), SolveOptions(workers=2))
    dask = solve_deduction(game, Objective(objective), SolveOptions(cluster="local:2"))
    assert dask.value == lanes.value == {"expected": 905 / 256, "worst": 4}[objective]
    assert (dask.extra["total"], dask.extra["worst"]) == (
        lanes.extra["total"],
        lanes.extra["worst"],
    )
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


def _refusing_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("game", [("mastermind", "pegs=3", "colors=5"), ("bulls-and-cows",)])
def test_an_address_is_checked_before_the_solve_whatever_its_size(game):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_refusing_port()}"
    res = run("solve", *game, "--no-store", "--cluster", address)
    assert_one_line_error(res, f"--cluster {address}: cannot reach the Dask scheduler")
    assert "ConnectionRefusedError" in res.stderr
    shard = run("openings", "value", *game, "--bound", "1", "--cluster", address)
    assert_one_line_error(shard, f"--cluster {address}: cannot reach the Dask scheduler")


def test_an_address_answering_another_protocol_is_one_line():
    import socket
    import threading

    pytest.importorskip("distributed")
    server = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:  # as a web server would, to whatever it is sent
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)

    threading.Thread(target=answer, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    res = run("solve", "mastermind", "pegs=3", "colors=5", "--no-store", "--cluster", address)
    server.close()
    assert_one_line_error(res, "not a Dask scheduler")


def test_a_position_too_small_to_split_says_it_was_solved_here():
    import json

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        res = run(
            "solve",
            "mastermind",
            "pegs=3",
            "colors=5",
            "--no-store",
            "--json",
            "--quiet",
            "--cluster",
            cluster.scheduler_address,
        )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["value"] == "451/125"
    assert out["cluster"] == (
        "not used: 125 secrets are too few to split (at least 2,000); solved on this machine"
    )
    heuristic = run(
        "solve", "mastermind", "pegs=3", "colors=5", "--strategy", "minimax", "--cluster", "local:1"
    )
    assert_one_line_error(heuristic, "--cluster goes with the optimal strategy")
