"""Stored answers are checked before they are believed: a row rewritten with its checksum
recomputed (a whole solution, an answer with its subtree, a journal batch) is refused in
one line naming the store, never printed as proven; the answers a solve keeps, of every
kind, are believed."""

import contextlib
import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from perfectplay.store import _checksum

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as run

#: Mastermind with 3 pegs and 7 colours (343 secrets): solved in a fraction of a second,
#: and large enough that the store keeps the cells of its first guesses (64 secrets or
#: more), bounds, the whole position and the whole solution.
GAME = ("mastermind", "pegs=3", "colors=7")
VALUE = "1474/343"


def solve(path: Path, *options: str):
    return run("solve", *GAME, *options, "--store", str(path), "--json", "--quiet")


@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> Path:
    """A store that a solve of GAME wrote (copied by each test: `store`)."""
    path = tmp_path_factory.mktemp("solved") / "store.sqlite"
    res = solve(path)
    assert res.returncode == 0 and json.loads(res.stdout)["value"] == VALUE, res.stderr
    return path


@pytest.fixture
def store(solved, tmp_path) -> Path:
    path = tmp_path / "store.sqlite"
    shutil.copy(solved, path)
    return path


@contextlib.contextmanager
def opened(path: Path):
    """The store's file opened as anyone may open it (committed, closed at the end)."""
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        yield conn


def answers(path: Path) -> list[tuple[bytes, int, int, int, bytes | None]]:
    """The answers kept (key, secrets, value, exact, payload), largest sets first."""
    with opened(path) as conn:
        return conn.execute(
            "SELECT key, secrets, value, exact, payload FROM answers ORDER BY secrets DESC"
        ).fetchall()


def rewrite(conn, key: bytes, value: int, exact: int, payload: bytes | None) -> None:
    """Rewrite an answer with its checksum recomputed, as the store would have written it."""
    conn.execute(
        "UPDATE answers SET value = ?, exact = ?, payload = ?, checksum = ? WHERE key = ?",
        (value, exact, payload, _checksum(key, value, bool(exact), payload), key),
    )


def assert_refused(res, path: Path, needle: str) -> None:
    """Refused as a damaged store, in one line naming it (``--store PATH``) and `needle`,
    and nothing printed as a value."""
    assert_one_line_error(res, f"store {path} is damaged")
    assert needle in res.stderr and f"--store {path}`" in res.stderr
    assert res.stdout == ""


def _edit_total(doc: dict) -> None:  # the issue's: total 2000, and the value it gives
    doc["facts"]["total"] = 2000
    doc["value"] = "2000/343"


SOLUTION_EDITS = {
    "total and value": (_edit_total, "the file says value '2000/343'"),
    "histogram": (
        lambda doc: doc["facts"]["histogram"].update({"1": 2}),
        "the file says histogram",
    ),
    "secrets": (lambda doc: doc["facts"].update(secrets=300), "the file says secrets 300"),
    "worst": (lambda doc: doc["facts"].update(worst=3), "the file says worst 3"),
    "label": (
        lambda doc: doc.update(status="proven optimal given its first guess"),
        "it is labelled",
    ),
    "position": (lambda doc: doc["facts"].update(after="123:0B1W"), "it was solved after"),
    "guess limit": (lambda doc: doc["facts"].update(max_guesses=9), "within 9 guesses"),
    "a statistic restating the value": (
        lambda doc: doc["stats"].update(value="1/2"),
        "its statistics are not a solve's",
    ),
    "the tree's first guess": (
        lambda doc: doc["strategy"]["root"].update(guess="777"),
        "does not hold",
    ),
    "not a document": (lambda doc: doc.clear(), "its document is not one a solve writes"),
}


@pytest.mark.parametrize("edit", SOLUTION_EDITS)
def test_a_solution_rewritten_with_its_checksum_is_refused(store, edit):
    change, needle = SOLUTION_EDITS[edit]
    key, _, value, exact, payload = next(row for row in answers(store) if row[1] == 0)
    doc = json.loads(zlib.decompress(payload))
    change(doc)
    with opened(store) as conn:
        rewrite(conn, key, value, exact, zlib.compress(json.dumps(doc).encode()))
    assert_refused(solve(store), store, needle)


def _drop_tree_branch(payload: bytes) -> bytes:
    flat = json.loads(zlib.decompress(payload))
    return zlib.compress(json.dumps(flat[:-2]).encode())  # a cell left without its subtree


ANSWER_EDITS = {
    "value": (lambda k, v, e, p: (v + 1, e, p), "whose subtree gives"),
    "value lowered": (lambda k, v, e, p: (v - 1, e, p), "whose subtree gives"),
    "a branch dropped": (
        lambda k, v, e, p: (v, e, _drop_tree_branch(p)),
        "(a secret is never found)",
    ),
    "exact without a tree": (lambda k, v, e, p: (v, e, None), "an exact answer without"),
    "a bound with a tree": (lambda k, v, e, p: (v, 0, p), "or a bound with one"),
    "a payload that is no tree": (
        lambda k, v, e, p: (v, e, zlib.compress(b'{"guess": 3}')),
        "a subtree is not [guess, feedback, child, ...]",
    ),
    "a payload that is not compressed": (
        lambda k, v, e, p: (v, e, b"\x00" * 40),
        "not compressed data",
    ),
}


@pytest.mark.parametrize("where", ["position", "cell"])
@pytest.mark.parametrize("edit", ANSWER_EDITS)
def test_an_answer_rewritten_with_its_checksum_is_refused(store, edit, where):
    """The whole solution gone (so that answers are read), an exact answer rewritten: of
    the whole position, or (the position's answers gone too) of a first guess's cell."""
    change, needle = ANSWER_EDITS[edit]
    rows = answers(store)
    with opened(store) as conn:
        conn.execute("DELETE FROM answers WHERE secrets = 0")
        if where == "cell":
            conn.execute("DELETE FROM answers WHERE secrets = 343")
        exact = [row for row in rows if row[3] == 1 and row[1] > 0]
        key, secrets, value, _, payload = exact[0] if where == "position" else exact[-1]
        assert (secrets == 343) == (where == "position")
        rewrite(conn, key, *change(key, value, 1, payload))
    res = solve(store)
    assert_refused(res, store, needle)
    assert f"for a set of {secrets} secrets of mastermind(pegs=3,colors=7)" in res.stderr


def test_a_row_kept_for_another_set_is_refused(store):
    with opened(store) as conn:
        conn.execute("UPDATE answers SET secrets = 5 WHERE secrets = 0")
    assert_refused(solve(store), store, "with 0 secrets says it is for")


def _journal_edit(conn, change) -> None:
    """Rewrite the first journal batch's rows by `change` (an array of rows, and its
    number of entries), with its checksum recomputed."""
    context, entries, blob = conn.execute(
        "SELECT context, entries, rows FROM journal ORDER BY rowid"
    ).fetchone()
    rows = np.frombuffer(zlib.decompress(blob), dtype=np.int64).reshape(-1, 5).copy()
    rows, entries = change(rows, entries)
    new = zlib.compress(rows.tobytes())
    conn.execute(
        "UPDATE journal SET entries = ?, rows = ?, checksum = ? WHERE rows = ?",
        (entries, new, _checksum(context, entries, False, new), blob),
    )


def _guess_out_of_range(rows, entries):
    rows[0, 4] = 10**6
    return rows, entries


JOURNAL_EDITS = {
    "a guess that is none of the game's": (_guess_out_of_range, "a cap, value or guess"),
    "more entries than it holds": (lambda r, e: (r, e + 1), "holds"),
    "no entries": (lambda r, e: (r[:0], 0), "a batch of 0 entries"),
}


@pytest.mark.parametrize("edit", JOURNAL_EDITS)
def test_a_journal_rewritten_with_its_checksum_is_refused(store, edit):
    """Values found inside tasks are read when a position is searched (its answers gone);
    a batch that is not one a search writes is refused before the compiled memo sees it."""
    change, needle = JOURNAL_EDITS[edit]
    with opened(store) as conn:
        conn.execute("DELETE FROM answers")
        _journal_edit(conn, change)
    assert_refused(solve(store), store, needle)


KINDS = {
    "expected": (),
    "worst, determined": ("--objective", "worst", "--determine"),
    "probability": ("--objective", "probability", "--horizon", "4"),
    "a first guess": ("--first", "123"),
    "after a guess": ("--after", "123:0B1W"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_the_answers_a_solve_keeps_are_believed(tmp_path, kind):
    """No false alarm: the answers of a solve (whole, the position's, the cells'), read
    again as each becomes the first one a solve finds, give the same value."""
    path = tmp_path / "store.sqlite"
    first = solve(path, *KINDS[kind])
    assert first.returncode == 0, first.stderr
    value = json.loads(first.stdout)["value"]
    largest = answers(path)[0][1]
    for gone in ("secrets = 0", f"secrets = {largest}"):
        with opened(path) as conn:
            conn.execute(f"DELETE FROM answers WHERE {gone}")
        again = solve(path, *KINDS[kind])
        assert again.returncode == 0, again.stderr
        out = json.loads(again.stdout)
        assert out["value"] == value and out["store"]["read"] >= 1
