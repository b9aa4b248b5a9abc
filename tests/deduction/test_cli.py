"""The deduction command line: JSON fields, strategies, exported trees and their verification."""

import json

import pytest

from ..cli_runner import assert_one_line_error
from ..cli_runner import perfectplay as run


def solve_json(*args):
    res = run("solve", *args, "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_json_has_totals_and_histogram():
    doc = solve_json("mastermind", "pegs=3", "colors=3")
    assert doc["value"] == "73/27" and doc["total"] == 73 and doc["secrets"] == 27
    assert doc["worst"] == 4 and doc["histogram"] == {"1": 1, "2": 7, "3": 18, "4": 1}
    assert doc["proven"] and doc["status"] == "proven optimal"


def test_knuth_on_the_command_line():
    doc = solve_json("mastermind", "--strategy", "minimax")
    assert (doc["total"], doc["secrets"], doc["worst"]) == (5801, 1296, 5)
    assert doc["value"] == "5801/1296" and not doc["proven"]


def test_worst_objective_value_is_the_worst_case():
    doc = solve_json("permutation", "n=4", "--objective", "worst")
    assert doc["value"] == str(doc["worst"]) == "5"


def test_speedups_switched_off_from_the_command_line_keep_the_value():
    base = solve_json("bulls-and-cows", "digits=3", "symbols=5")
    off = solve_json(
        "bulls-and-cows", "digits=3", "symbols=5", "--without", "symmetry,lookahead,table"
    )
    assert (off["total"], off["worst"]) == (base["total"], base["worst"]) == (196, 4)
    assert off["nodes"] > base["nodes"]
    assert_one_line_error(
        run("solve", "mastermind", "--without", "speed"), "unknown speed-up 'speed'"
    )
    assert_one_line_error(
        run("solve", "dice-cards", "--without", "memo"), "unknown speed-up 'memo'"
    )


@pytest.fixture(scope="module")
def exported_once(tmp_path_factory):
    target = tmp_path_factory.mktemp("tree") / "tree.json"
    res = run("solve", "mastermind", "pegs=3", "colors=3", "--out", str(target), "--quiet")
    assert res.returncode == 0, res.stderr
    return target.read_text()


@pytest.fixture
def exported(exported_once, tmp_path):
    """A fresh copy of one exported tree, for each test to read or break."""
    target = tmp_path / "tree.json"
    target.write_text(exported_once)
    return target


def test_verify_replays_an_exported_tree(exported):
    doc = json.loads(exported.read_text())
    assert doc["strategy"]["kind"] == "deduction-tree"
    assert (
        doc["strategy"]["label"] == "proven optimal" and doc["strategy"]["root"]["guess"] == "112"
    )
    res = run("verify", str(exported))
    assert res.returncode == 0, res.stderr
    assert "total 73 over 27 secrets" in res.stdout and "worst case 4" in res.stdout
    res = run("verify", str(exported), "--json")
    assert json.loads(res.stdout)["average"] == "73/27"


def _break(path, how):
    doc = json.loads(path.read_text())
    root = doc["strategy"]["root"]
    if how == "swap-edges":
        a, b = list(root["next"])[:2]
        root["next"][a], root["next"][b] = root["next"][b], root["next"][a]
    elif how == "drop-branch":
        del root["next"][next(iter(root["next"]))]
    elif how == "forbidden-guess":
        root["guess"] = "114"
    elif how == "extra-edge":
        root["next"]["3B0W"] = {"guess": "111"}
    elif how == "not-a-tree":
        doc = {"hello": 1}
    elif how == "wrong-total":
        doc["strategy"]["total"] = 72
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    "how,needle",
    [
        ("swap-edges", "never solved"),
        ("drop-branch", "never solved"),
        ("forbidden-guess", "bad guess"),
        ("extra-edge", "wrong feedback edge"),
        ("not-a-tree", "not a perfectplay solution"),
        ("wrong-total", "the file says total 72"),
    ],
)
def test_verify_rejects_broken_trees(exported, how, needle):
    _break(exported, how)
    res = run("verify", str(exported))
    assert_one_line_error(res, needle)


def test_verify_rejects_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("not json")
    res = run("verify", str(bad))
    assert res.returncode == 2 and "not a JSON document" in res.stderr


@pytest.mark.parametrize(
    "args,needle",
    [
        (["solve", "mastermind", "--strategy", "random"], "unknown strategy 'random'"),
        (
            ["solve", "mastermind", "pegs=3", "colors=3", "--max-guesses", "2", "--quiet"],
            "cannot be solved within 2",
        ),
        (
            ["solve", "mastermind", "pegs=3", "colors=3", "--max-guesses", "0"],
            "must be an integer from 1 to",
        ),
        (["solve", "dice-cards", "--strategy", "minimax"], "deduction games only"),
        (["solve", "bulls-and-cows", "digits=4", "symbols=3"], "needs at least as many symbols"),
        (["solve", "mastermind", "--objective", "probability"], "needs a horizon"),
    ],
)
def test_bad_deduction_input_is_one_line_exit_2(args, needle):
    res = run(*args)
    assert_one_line_error(res, needle)


def test_show_prints_the_first_levels(exported):
    res = run("show", str(exported), "--depth", "2")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "guess 112" in out and "0B0W" in out and "total" in out


def test_ctrl_c_stops_the_worker_processes_at_once(tmp_path):
    # Bulls and Cows takes minutes; its workers sit in compiled cells that cannot be
    # interrupted, so they must be killed, not waited for (pexpect gives up after 60 s).
    # The signal goes to the main process alone, as from `kill -INT`.
    import signal

    import pexpect

    from ..cli_runner import in_terminal

    out = tmp_path / "tree.json"
    child = in_terminal(
        "solve", "bulls-and-cows", "--workers", "2", "--out", str(out), cwd=str(tmp_path)
    )
    child.expect(r"cell \d+/\d+ of \d+ secrets")  # past the table, in the first guess's cells
    child.kill(signal.SIGINT)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted while" in child.before and "Traceback" not in child.before
    assert list(tmp_path.iterdir()) == []


def _descendants(pid: int) -> set[int]:
    """The processes below `pid` (from /proc: Linux)."""
    import os

    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:

    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_parallel_solve_ends_at_once_on_a_signal(how):
    # the lanes of a parallel solve are threads of its process: a signal to that process
    # ends the whole solve at once, however busy its lanes are, and leaves nothing behind
    import signal
    import subprocess
    import sys
    import time

    from ..cli_runner import default_signals

    solve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "solve",
            "bulls-and-cows",
            "--workers",
            "2",
            "--no-store",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    try:
        deadline = time.time() + 240  # (the first run after installing compiles first)
        while time.time() < deadline and _threads(solve.pid) < 3:  # main and two lanes
            time.sleep(0.2)
        assert _threads(solve.pid) >= 3
        time.sleep(1.0)  # the lanes at work
        before = _descendants(solve.pid)
        solve.send_signal(getattr(signal, how))
        assert solve.wait(timeout=15) != 0
        assert not any(_alive(p) for p in before)
        if how == "SIGINT":
            assert "interrupted" in solve.stderr.read()
    finally:
        solve.kill()


def _threads(pid: int) -> int:
    import os

    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


@pytest.fixture(scope="module")
def permutation_trees(tmp_path_factory):
    """The optimal tree of permutation n=4 (total 86) and Knuth's minimax tree (total 93)."""
    where = tmp_path_factory.mktemp("perm")
    trees = {}
    for strategy in ("optimal", "minimax"):
        target = where / f"{strategy}.json"
        res = run(
            "solve", "permutation", "n=4", "--strategy", strategy, "--out", str(target), "--quiet"
        )
        assert res.returncode == 0, res.stderr
        trees[strategy] = json.loads(target.read_text())
    return trees


def _write(tmp_path, doc):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_verify_re_establishes_a_claim_of_optimality(permutation_trees, tmp_path):
    path = _write(tmp_path, permutation_trees["optimal"])
    res = run("verify", path)
    assert res.returncode == 0, res.stderr
    assert "total 86 over 24 secrets" in res.stdout
    assert "proven optimal: re-established by solving the same game again" in res.stdout
    res = run("verify", path, "--no-solve")
    assert res.returncode == 0 and "'proven optimal' was NOT checked" in res.stdout
    assert "re-established" not in res.stdout


def test_verify_refuses_a_heuristic_tree_relabelled_optimal(permutation_trees, tmp_path):
    doc = permutation_trees["minimax"]
    assert doc["total"] == 93 and doc["status"] == "heuristic (upper bound)"
    doc["status"] = doc["strategy"]["label"] = "proven optimal"
    doc["proven"] = True
    res = run("verify", _write(tmp_path, doc))
    assert_one_line_error(
        res,
        "the file claims proven optimal, but solving again gives 43/12 "
        "where its strategy gives 31/8",
    )


@pytest.mark.parametrize(
    "field,value,needle",
    [
        ("value", "1/1", "the file says value '1/1' but the replay gives '43/12'"),
        ("value_float", 1.0, "the file says value_float 1.0"),
        ("total", 80, "the file says total 80 but the replay gives 86"),
        ("worst", 4, "the file says worst 4"),
        ("secrets", 25, "the file says secrets 25"),
        ("histogram", {"1": 24}, "the file says histogram"),
        ("objective", "probability", "objective 'probability'"),
    ],
)
def test_verify_and_show_check_every_number_the_file_states(
    permutation_trees, tmp_path, field, value, needle
):
    doc = dict(permutation_trees["optimal"], **{field: value})
    path = _write(tmp_path, doc)
    assert_one_line_error(run("verify", path, "--no-solve"), needle)
    assert_one_line_error(run("show", path), needle)
