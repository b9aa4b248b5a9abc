"""The Dask back end: the same values as the thread lanes, with trees that replay to
them; a one-line error without Dask."""

import contextlib
import http.server
import os
import socket
import sys
import threading
import time

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay.cluster import CONNECT_TIMEOUT, TIMEOUT_ENV
from perfectplay.deduction import root
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.tree import tree_stats
from perfectplay.deduction.solve import SolveOptions, solve_deduction
from perfectplay.errors import Unsupported
from perfectplay.objectives import Objective

from .cli_runner import assert_one_line_error, in_process_of_its_own
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


#: Seconds a test's listener lives at most, whatever happens to the test.
LISTENER_LIFE = 60


@contextlib.contextmanager
def _listener(kind: str):
    """The address of a loopback port that is not a Dask scheduler, for the time of the
    block: ``closed`` (nothing listens), ``http`` (Python's HTTP server, which waits for
    a request line Dask never sends) or ``silent`` (accepts, reads nothing, never
    writes). The servers stop at the block's end, and by themselves after
    ``LISTENER_LIFE`` seconds."""
    if kind == "closed":
        yield f"tcp://127.0.0.1:{_refusing_port()}"
        return
    if kind == "http":
        http_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PatientHandler)
        http_server.daemon_threads = True
        port = http_server.server_address[1]
        serving = threading.Thread(target=http_server.serve_forever, daemon=True)

        def stop() -> None:
            http_server.shutdown()
            http_server.server_close()
    else:
        server = socket.create_server(("127.0.0.1", 0))
        server.settimeout(0.1)
        port = server.getsockname()[1]
        closing = threading.Event()
        serving = threading.Thread(target=_hold_silently, args=(server, closing), daemon=True)
        stop = closing.set
    timer = threading.Timer(LISTENER_LIFE, stop)
    timer.daemon = True
    serving.start()
    timer.start()
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        timer.cancel()
        stop()
        serving.join(LISTENER_LIFE)


class _PatientHandler(http.server.BaseHTTPRequestHandler):
    """Python's HTTP server's handler, giving up on a silent client after 10 s."""

    timeout = 10

    def log_message(self, *args) -> None:  # not on the test's stderr
        pass


def _hold_silently(server: socket.socket, closing: threading.Event) -> None:
    """Accept connections on `server` (its accept timing out) and never write to them,
    until `closing` is set; then close them all and the server."""
    held = []
    with server:
        while not closing.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
    for conn in held:
        conn.close()


def _threads_left(before: set[threading.Thread]) -> set[threading.Thread]:
    """The threads not in `before` still alive after up to 5 s: none once the command
    has let everything go (the HTTP server's thread for the command's connection ends
    when the command closes that connection, else after the handler's 10 s)."""
    deadline = time.monotonic() + 5
    while (left := set(threading.enumerate()) - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("kind", ["closed", "http", "silent"])
def test_an_address_that_is_no_scheduler_is_one_line_within_the_wait(monkeypatch, kind):
    # The case: an HTTP server or a silent listener held Dask's client for ever
    # (its handshake has no timeout). Now the whole connection has a bounded wait
    # (shortened here through its documented setting), and nothing is left running.
    pytest.importorskip("distributed")
    monkeypatch.setenv(TIMEOUT_ENV, "2")
    with _listener(kind) as address:
        threads = set(threading.enumerate())
        start = time.monotonic()
        res = run("solve", "mastermind", "pegs=3", "colors=4", "--no-store", "--cluster", address)
        took = time.monotonic() - start
        left = _threads_left(threads)
    assert_one_line_error(res, f"--cluster {address}: ")
    expected = {
        "closed": "cannot reach the Dask scheduler (ConnectionRefusedError",
        "http": "no Dask scheduler answered within 2 s",
        "silent": "no Dask scheduler answered within 2 s",
    }[kind]
    assert expected in res.stderr
    assert took < 2 + 10, took  # the wait, and a margin for a loaded machine
    assert not left, left


@pytest.mark.slow
def test_a_silent_address_is_refused_within_the_documented_30_s():
    # The default wait, whole process (start and close included), as docs/cluster.md says.
    pytest.importorskip("distributed")
    env = {key: value for key, value in os.environ.items() if key != TIMEOUT_ENV}
    with _listener("silent") as address:
        start = time.monotonic()
        res = in_process_of_its_own(
            "solve", "mastermind", "pegs=3", "colors=4", "--no-store", "--cluster", address, env=env
        )
        took = time.monotonic() - start
    assert_one_line_error(res, f"no Dask scheduler answered within {CONNECT_TIMEOUT:g} s")
    assert took < 30, took


def test_a_dask_worker_or_a_scheduler_without_workers_is_one_line(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv(TIMEOUT_ENV, "1")
    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty,
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
    ):
        worker = next(iter(cluster.scheduler_info["workers"]))
        idle = run(
            "solve", "mastermind", "pegs=3", "colors=4", "--cluster", empty.scheduler_address
        )
        not_scheduler = run("solve", "mastermind", "pegs=3", "colors=4", "--cluster", worker)
    assert_one_line_error(idle, "the Dask scheduler answered but no worker joined it within 1 s")
    assert_one_line_error(not_scheduler, "a Dask process answers there, but not as a scheduler")


@pytest.mark.parametrize("setting", ["0", "-1", "nan", "inf", "1e300", "9" * 5000, "soon"])
def test_the_wait_setting_is_checked(monkeypatch, setting):
    pytest.importorskip("distributed")
    monkeypatch.setenv(TIMEOUT_ENV, setting)
    res = run("solve", "mastermind", "pegs=3", "colors=4", "--cluster", "tcp://127.0.0.1:1")
    assert_one_line_error(res, f"${TIMEOUT_ENV} must be a number of seconds from 0.001 to 86400")


def test_a_position_too_small_to_split_says_it_was_solved_here():
    import json

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
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


@pytest.mark.parametrize("objective", [Objective(), Objective("probability", 60)], ids=str)
def test_a_staged_solve_split_over_two_workers_gives_the_same_values(objective):
    """Yahtzee's small card, each layer split over a local cluster of two workers: every
    stage's value (or row of chances, for a target) as the solve on one machine."""
    from perfectplay import solve

    game = load_game("yahtzee", ["card=6208"])
    here = solve(game, objective)
    spread = solve(game, objective, cluster="local:2")
    assert spread.stats["cluster"] == "local:2: each layer split over its 2 workers"
    assert spread.value == here.value
    if objective.name == "expected":
        assert np.array_equal(spread.strategy.values, here.strategy.values)
    else:
        start = game.stages().start
        assert np.array_equal(spread.strategy.row(start), here.strategy.row(start))
        for stage in np.flatnonzero(here.strategy.solved).tolist():
            assert np.array_equal(spread.strategy.row(stage), here.strategy.row(stage))


def test_cluster_is_refused_in_one_line_for_a_markov_game_not_staged():
    res = run("solve", "dice-cards", "n=3", "--cluster", "local:2")
    assert_one_line_error(res, "--cluster splits the layers of a game solved by stages")
