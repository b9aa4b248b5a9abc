"""The result store: answers kept and answered, resume after SIGKILL, concurrent writers,
other engine versions and damaged files refused in one line; files that are not stores,
stores in use or read-only never called damaged, and `store clear` deleting a store only."""

import contextlib
import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay import store as store_module
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.objective import EXPECTED, INF
from perfectplay.deduction.root import Subproblem, grow
from perfectplay.deduction.tree import Answer
from perfectplay.deduction.search import Search, SpeedUps
from perfectplay.deduction.stored import AnswerStore
from perfectplay.store import Store, Stored, StoreError, clear, default_path

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as run

#: Mastermind 4x4 (256 secrets): solved in about a second, split into cells by the store.
SMALL = ("mastermind", "pegs=4", "colors=4")
#: Optimal expected guesses of Mastermind 4x4 (Koyama and Lai's method; 905 over 256 secrets).
SMALL_VALUE = "905/256"


def solve_json(*args: str) -> dict:
    res = run("solve", *args, "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def answer_rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]


def test_default_store_is_the_tests_own():
    assert default_path().name == "store.sqlite" and ".cache" not in str(default_path())


def test_second_run_is_answered_whole_from_the_store(tmp_path):
    first = solve_json(*SMALL, "--out", str(tmp_path / "first.json"))
    assert first["value"] == SMALL_VALUE and first["from_store"] is False
    assert first["store"]["written"] > 0 and first["store"]["path"] == str(default_path())
    second = solve_json(*SMALL, "--out", str(tmp_path / "second.json"))
    assert second["from_store"] is True and second["value"] == SMALL_VALUE
    assert second["store"] == {"path": str(default_path()), "read": 1, "written": 0}
    docs = [json.loads((tmp_path / f"{n}.json").read_text()) for n in ("first", "second")]
    assert docs[0]["strategy"] == docs[1]["strategy"]
    verdict = run("verify", str(tmp_path / "second.json"))
    assert verdict.returncode == 0 and "proven optimal" in verdict.stdout, verdict.stdout
    off = solve_json(*SMALL, "--no-store")
    assert "from_store" not in off and off["value"] == SMALL_VALUE


def test_cells_answer_other_solves_of_the_same_game(tmp_path):
    """The worst case solve has no whole solution stored, but its last pass (least total
    within its worst case, 4) is the expected solve's pass within 4: keys are the
    subproblem, not the command."""
    solve_json(*SMALL)
    worst = solve_json(*SMALL, "--objective", "worst")
    assert worst["value"] == "4" and worst["total"] == 905 and worst["from_store"] is False
    assert worst["store"]["read"] >= 1


def test_store_info_and_clear(tmp_path):
    path = tmp_path / "other.sqlite"
    solve_json(*SMALL, "--store", str(path))
    info = run("store", "info", "--store", str(path))
    assert info.returncode == 0
    assert "mastermind(pegs=4,colors=4) expected:" in info.stdout and "MB" in info.stdout
    assert "found inside tasks (for resuming):" in info.stdout
    cleared = run("store", "clear", "--store", str(path))
    assert cleared.returncode == 0 and "deleted" in cleared.stdout and not path.exists()
    assert "no store yet" in run("store", "info", "--store", str(path)).stdout


def test_bounds_never_overwrite_values(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    key = b"k" * 32
    row = ("g", "expected", 100)  # what the key is for
    store.put(key, Stored(5, False, None), *row)
    store.put(key, Stored(3, False, None), *row)
    assert store.get(key, *row) == Stored(5, False, None)  # a smaller bound is not kept
    store.put(key, Stored(7, True, b"tree"), *row)
    store.put(key, Stored(9, False, None), *row)
    assert store.get(key, *row) == Stored(7, True, b"tree")  # an exact value stays
    assert store.get(b"x" * 32, *row) is None


def test_answers_with_more_guesses_bound_fewer(tmp_path):
    """More guesses never cost more: what is kept of a set with more guesses (one more,
    or one per secret: the uncapped pass before a tie-break) bounds it with fewer, and
    settles it at a budget the bound reaches; what is kept with fewer bounds nothing."""
    game = load_game("mastermind(pegs=4,colors=4)")
    table = build_table(game)
    answers = AnswerStore(Store(tmp_path / "s.sqlite"), game, table)
    cell = np.arange(40)
    search = Search(table, EXPECTED)
    value = search.best(cell, (), len(cell)).value
    tree = grow(search, cell, (), len(cell))

    def sub(cap: int, budget: int = INF) -> Subproblem:
        return Subproblem(game, "expected", SpeedUps(), (), cell, cap, budget)

    answers.record(sub(len(cell)), Answer(value, tree, 0))  # exact, with every guess
    answers.record(sub(3), Answer(value + 20, None, 0))  # a bound within 3 guesses
    assert answers.bound(sub(2)) == value + 20 and answers.bound(sub(4)) == value
    settled = answers.recall(sub(2, budget=value + 10)).answer
    assert settled.value == value + 20 and settled.tree is None
    assert answers.recall(sub(3, budget=value + 21)).answer is None
    assert answers.recall(sub(4, budget=value + 1)).answer is None  # not value + 20: fewer
    assert answers.recall(sub(4, budget=value)).answer == Answer(value, None, 0)
    assert answers.recall(sub(2)).answer is None  # no budget: a bound settles nothing
    assert answers.tally.read == 2
    assert answers.recall(sub(len(cell))).answer == Answer(value, tree, 0)


def _write_many(path: str, worker: int, rounds: int) -> None:
    store = Store(path)
    for i in range(rounds):
        store.put(f"key{i % 50}".encode(), Stored(i, False, None), "g", "expected", 0)
    store.close()


def test_two_writers_at_once_are_safe(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_write_many, args=(path, w, 400)) for w in range(2)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(120)
        assert p.exitcode == 0
    store = Store(path)
    for j in range(50):  # the largest bound written under each key survives
        assert store.get(f"key{j}".encode(), "g", "expected", 0) == Stored(350 + j, False, None)


def test_two_solves_writing_one_store_at_once(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    cmd = [
        sys.executable,
        "-m",
        "perfectplay",
        "solve",
        *SMALL,
        "--json",
        "--quiet",
        "--store",
        path,
        "--workers",
        "1",
    ]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert json.loads(out)["value"] == SMALL_VALUE
    assert solve_json(*SMALL, "--store", path)["from_store"] is True
    info = run("store", "info", "--store", path)  # the store stays readable
    assert info.returncode == 0 and "another engine version" not in info.stdout, info.stderr


def test_another_engine_version_is_not_used(tmp_path):
    path = tmp_path / "old.sqlite"
    solve_json(*SMALL, "--store", str(path))
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE meta SET value = '0.0.1+old' WHERE name = 'engine'")
    rows = answer_rows(path)
    res = run("solve", *SMALL, "--json", "--quiet", "--store", str(path))
    assert res.returncode == 0
    notes = res.stderr.strip().splitlines()
    assert len(notes) == 1 and "another engine version" in notes[0]
    assert f"`perfectplay store clear --store {path}` starts afresh" in notes[0]
    out = json.loads(res.stdout)
    assert out["value"] == SMALL_VALUE and "from_store" not in out
    assert answer_rows(path) == rows  # nothing read, nothing added


def test_another_engine_versions_store_is_said_once(tmp_path):
    """The note that a store of another engine version is not used is given by the first
    command of this version that opens it, not by every one; store info says it still,
    and the store's answers stay as they were."""
    path = tmp_path / "old.sqlite"
    solve_json(*SMALL, "--store", str(path))
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE meta SET value = '0.0.1+old' WHERE name = 'engine'")
    rows = answer_rows(path)
    said = [
        run("solve", *SMALL, "--json", "--quiet", "--store", str(path)).stderr for _ in range(3)
    ]
    assert "another engine version" in said[0] and said[1:] == ["", ""]
    info = run("store", "info", "--store", str(path)).stdout
    assert "engine 0.0.1+old (another engine version: not used)" in info
    assert answer_rows(path) == rows


def test_a_store_that_does_not_take_the_notes_row_is_said_again_and_used_by_none(tmp_path):
    """Another layout's meta table may not take the row recording the note: the note is
    then said again at the next command, which solves as before."""
    path = tmp_path / "other.sqlite"
    solve_json(*SMALL, "--store", str(path))
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("ALTER TABLE meta RENAME TO old_meta")
        conn.execute("CREATE TABLE meta (name TEXT, value TEXT, since TEXT NOT NULL)")
        conn.execute("INSERT INTO meta SELECT name, '0.0.1+old', 'then' FROM old_meta")
        conn.execute("DROP TABLE old_meta")
    for _ in range(2):
        res = run("solve", *SMALL, "--json", "--quiet", "--store", str(path))
        assert res.returncode == 0 and "another engine version" in res.stderr, res.stderr


@pytest.mark.parametrize("damage", ["truncated", "tampered"])
def test_a_damaged_store_is_one_line_naming_it_and_the_way_out(tmp_path, damage):
    path = tmp_path / "bad.sqlite"
    solve_json(*SMALL, "--store", str(path))
    if damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:  # a value changed behind the store's back: its checksum no longer matches
        with contextlib.closing(sqlite3.connect(path)) as conn, conn:
            conn.execute("UPDATE answers SET value = value - 1 WHERE exact = 1")
    res = run("solve", *SMALL, "--store", str(path))
    assert_one_line_error(res, f"store {path} is damaged")
    assert (
        f"--no-store, or start afresh with `perfectplay store clear --store {path}`" in res.stderr
    )
    assert run("store", "clear", "--store", str(path)).returncode == 0 and not path.exists()
    assert solve_json(*SMALL, "--store", str(path))["value"] == SMALL_VALUE


def _foreign_database(path) -> None:
    """An SQLite database of another program (a table of its own)."""
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")


@pytest.mark.parametrize("kind", ["text", "sqlite", "store-like"])
def test_a_file_that_is_not_a_store_is_neither_written_nor_deleted(tmp_path, kind):
    """`--store important.txt` is refused without a word of deleting it, and `store clear`
    refuses it too: a text file, another program's SQLite database, or one with tables
    named as a store's but not its columns."""
    path = tmp_path / "important.txt"
    if kind == "text":
        path.write_text("my notes\n" * 100)
    elif kind == "sqlite":
        _foreign_database(path)
    else:
        with contextlib.closing(sqlite3.connect(path)) as conn, conn:
            conn.execute("CREATE TABLE meta (name TEXT)")
            conn.execute("CREATE TABLE answers (key BLOB, value INTEGER)")
    before = path.read_bytes()
    res = run("solve", *SMALL, "--store", str(path))
    assert_one_line_error(res, f"store {path} is not a perfectplay store")
    assert "clear" not in res.stderr and "delet" not in res.stderr
    cleared = run("store", "clear", "--store", str(path))
    assert_one_line_error(cleared, f"{path}: not deleted: not a perfectplay store")
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["important.txt"]


def test_store_clear_deletes_a_store_and_its_companions(tmp_path):
    path = tmp_path / "s.sqlite"
    solve_json(*SMALL, "--store", str(path))
    companions = [tmp_path / f"s.sqlite{suffix}" for suffix in ("-wal", "-shm", "-journal")]
    for file in companions:  # (as a solve killed at the wrong moment leaves them)
        file.touch()
    cleared = run("store", "clear", "--store", str(path))
    assert cleared.returncode == 0 and f"{path}: deleted" in cleared.stdout
    assert os.listdir(tmp_path) == []
    assert "no store to delete" in run("store", "clear", "--store", str(path)).stdout


HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":  # as another program's transaction may hold it
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
conn.execute("SELECT COUNT(*) FROM answers").fetchone()
print("holding", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def held(path, how: str):
    """Another process holding the store at `path` open (idle, as a solve between its
    writes) or locked (`exclusive`) until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "holding"
        yield
    finally:
        proc.stdin.close()
        proc.wait(30)


@pytest.mark.parametrize("how", ["idle", "exclusive", "damaged"])
def test_store_clear_never_deletes_a_store_another_process_holds(tmp_path, how):
    """Open in another process (as a solve between two writes), locked by one, or open in
    one and then damaged (its header's format numbers: SQLite no longer reads it far
    enough to lock it, and the system's lock is asked instead)."""
    path = tmp_path / "s.sqlite"
    solve_json(*SMALL, "--store", str(path))
    with held(path, "exclusive" if how == "exclusive" else "idle"):
        if how == "damaged":
            with open(path, "r+b") as file:
                file.seek(18)  # the file format's write and read versions (1 or 2)
                file.write(bytes([3, 3]))
        res = run("store", "clear", "--store", str(path))
        assert_one_line_error(res, f"{path}: not deleted: another process is using the store")
        assert path.exists()
    assert run("store", "clear", "--store", str(path)).returncode == 0 and not path.exists()


def test_a_store_locked_by_another_process_is_said_to_be_in_use(tmp_path, monkeypatch):
    """A solve waits for the lock a bounded time (``BUSY_TIMEOUT``, shortened here), then
    says another process is using the store, never that it is damaged or to clear it."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.5)
    path = tmp_path / "s.sqlite"
    solve_json(*SMALL, "--store", str(path))
    with held(path, "exclusive"):
        res = run("solve", *SMALL, "--store", str(path))
    assert_one_line_error(res, f"store {path} is in use by another process")
    assert "clear" not in res.stderr and "damaged" not in res.stderr
    assert solve_json(*SMALL, "--store", str(path))["from_store"] is True  # untouched


def test_a_full_disk_is_said_to_be_full_never_to_clear_the_store(tmp_path, monkeypatch):
    """SQLite's own full-disk error (a page limit on every connection: the store may not
    grow) is said as a full disk; it was hidden by the rollback after it ('no transaction
    is active': SQLite ends such a transaction itself) and advised `store clear`."""
    path = tmp_path / "s.sqlite"
    solve_json("mastermind", "pegs=2", "colors=3", "--store", str(path))  # (a store, known)
    connect = sqlite3.connect

    def full(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.execute("PRAGMA max_page_count = 1")  # (no more pages than it has)
        return conn

    monkeypatch.setattr(store_module.sqlite3, "connect", full)
    res = run("solve", *SMALL, "--store", str(path), "--quiet")
    assert_one_line_error(res, f"store {path} cannot be written: the disk is full")
    assert "clear" not in res.stderr and "damaged" not in res.stderr


def test_a_read_only_store_is_said_to_be_read_only(tmp_path):
    """A store no one may write (chmod a-w: the superuser's writes would ignore it) is
    refused as read-only by a solve and by `store clear`; neither advises deleting it."""
    path = tmp_path / "s.sqlite"
    solve_json(*SMALL, "--store", str(path))
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        res = run("solve", *SMALL, "--store", str(path))
        assert_one_line_error(res, f"store {path} is read-only")
        assert "clear" not in res.stderr and "damaged" not in res.stderr
        cleared = run("store", "clear", "--store", str(path))
        assert_one_line_error(cleared, f"{path}: not deleted: the store is read-only")
        assert path.read_bytes() == before
    finally:
        path.chmod(0o644)


def test_store_options_are_for_deduction_games(tmp_path):
    res = run("solve", "dice-cards", "n=2", "--store", str(tmp_path / "s.sqlite"))
    assert_one_line_error(res, "--store")
    res = run("solve", *SMALL, "--store", str(tmp_path / "s.sqlite"), "--no-store")
    assert_one_line_error(res, "exclude each other")


def _cell_rows(path) -> int:
    """Answers of cells kept so far (not the whole solution, whose set size is 0)."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM answers WHERE secrets > 0").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


def kill_and_resume(
    tmp_path, game: tuple[str, ...], value: str | None, cells: int, workers: str
) -> None:
    """Start a solve, SIGKILL it once `cells` answers are kept, solve again with the same
    store: the value of a solve from scratch (and `value`, when given), a tree that
    verifies, less work than from scratch."""
    path = tmp_path / "resume.sqlite"
    cmd = [
        sys.executable,
        "-m",
        "perfectplay",
        "solve",
        *game,
        "--quiet",
        "--json",
        "--store",
        str(path),
        "--workers",
        workers,
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 600
    while _cell_rows(path) < cells and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the solve ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    kept = _cell_rows(path)
    assert kept >= cells
    out = tmp_path / "resumed.json"
    resumed = json.loads(
        subprocess.run(
            cmd + ["--out", str(out)], capture_output=True, text=True, timeout=900, check=True
        ).stdout
    )
    assert resumed["from_store"] is False
    assert resumed["store"]["read"] >= 1  # what the killed solve proved was not redone
    verdict = run("verify", str(out), "--no-solve")
    assert verdict.returncode == 0 and "every secret solved" in verdict.stdout, verdict.stdout
    fresh = solve_json(*game, "--store", str(tmp_path / "fresh.sqlite"), "--workers", workers)
    assert resumed["value"] == fresh["value"] == (value or fresh["value"])
    assert resumed["nodes"] < fresh["nodes"]


def test_a_solve_killed_part_way_resumes(tmp_path):
    # On one lane Bulls and Cows with 4 of 8 symbols keeps its sixth cell of nine about
    # 0.3 s into its search and its eighth 0.9 s later, just before its end: a window of
    # about a third of the search, which a busy machine stretches with it. Resumed from
    # the six cells it searches 1,812 nodes, against 3,108 from scratch. (Mastermind 4x5,
    # used once, kept all its 18 cells within 0.07 s of its end; Mastermind 4x7, five
    # times as long, is the slow test below.)
    kill_and_resume(tmp_path, ("bulls-and-cows", "digits=4", "symbols=8"), None, 6, "1")


@pytest.mark.slow
def test_a_mid_size_solve_killed_half_way_on_two_workers_resumes(tmp_path):
    kill_and_resume(
        tmp_path, ("mastermind", "pegs=4", "colors=7"), "1604/343", 10, "2"
    )  # 11228/2401


def test_store_errors_are_perfectplay_errors(tmp_path):
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"\0" * 10 + b"garbage" * 100)
    with pytest.raises(StoreError, match="is not a perfectplay store.*run with --no-store"):
        Store(path)
    with pytest.raises(StoreError, match="not deleted: not a perfectplay store"):
        clear(path)
    Store(tmp_path / "s.sqlite").close()
    assert clear(tmp_path / "s.sqlite") and not clear(tmp_path / "s.sqlite")
