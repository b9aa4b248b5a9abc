"""Stored answers are checked before they are believed: a row rewritten with its checksum
recomputed (a whole solution, an answer with its subtree, a journal batch) is refused in
one line naming the store, never printed as proven; the answers a solve keeps, of every
kind, are believed."""

import contextlib
import json
import shutil
import sqlite3
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

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


def test_an_exact_answer_recalled_the_first_time_is_decoded_once(store, monkeypatch):
    """The check of a row decodes its subtree; recalled at once, that tree is the one the
    solve takes (it was decoded again): with the whole solution gone, the solve reads two
    answers, one exact with its subtree, decoded once (twice before); the value as before."""
    from perfectplay.deduction import stored

    with opened(store) as conn:
        conn.execute("DELETE FROM answers WHERE secrets = 0")  # the whole solution
    decoded, decode = [], stored.decode_tree
    monkeypatch.setattr(
        stored, "decode_tree", lambda payload, limit: decoded.append(1) or decode(payload, limit)
    )
    res = solve(store)
    assert res.returncode == 0 and json.loads(res.stdout)["value"] == VALUE, res.stderr
    assert (json.loads(res.stdout)["store"]["read"], len(decoded)) == (2, 1)


# --- any store, mutated: exit 0 with the true value, or exit 2 with one line -----------

#: JSON values of any type, as a mutated document may hold them.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=4,
)

#: Places of a kept solution's document (``stored.keep_solution``) a mutation may change.
DOCUMENT_PLACES = [
    ("value",),
    ("status",),
    ("proven",),
    *(
        ("facts", name)
        for name in ("method", "max_guesses", "after", "secrets", "total", "worst", "histogram")
    ),
    ("facts", "histogram", "3"),
    ("stats", "nodes"),
    ("stats", "value"),
    ("strategy",),
    ("strategy", "label"),
    ("strategy", "total"),
    ("strategy", "after"),
    ("strategy", "determine"),
    ("strategy", "horizon"),
    ("strategy", "root", "guess"),
    ("strategy", "root", "next"),
]

row = st.integers(0, 10**6)  # which answer (modulo the rows kept)
recompute = st.booleans()  # whether the checksum is recomputed (a forger's rewrite)
MUTATIONS = st.one_of(
    st.tuples(
        st.just("value"), row, st.integers(-3, 3) | st.integers(-(2**63), 2**63 - 1), recompute
    ),
    st.tuples(st.just("exact"), row, recompute),
    st.tuples(st.just("byte"), row, st.integers(0, 10**6), st.integers(0, 255), recompute),
    st.tuples(st.just("cut"), row, st.integers(0, 10**6), recompute),
    st.tuples(st.just("bytes"), row, st.binary(max_size=64), recompute),
    st.tuples(st.just("document"), st.sampled_from(DOCUMENT_PLACES), st.booleans(), JSON),
    st.tuples(
        st.just("subtree"), row, st.lists(st.integers(0, 10**6), min_size=1, max_size=6), JSON
    ),
    st.tuples(st.just("checksum"), row, st.binary(max_size=20)),
    st.tuples(st.just("kept for"), row, st.sampled_from(["game", "objective", "secrets"]), JSON),
    st.tuples(st.just("delete"), row),
    st.tuples(
        st.just("meta"),
        st.sampled_from(["schema", "engine", "other"]),
        st.none() | st.text(max_size=8),
    ),
    st.tuples(st.just("table"), st.sampled_from(["meta", "answers", "journal"]), st.booleans()),
    st.tuples(st.just("journal"), row, st.integers(-5, 5), st.integers(0, 10**6), recompute),
    st.tuples(st.just("file cut"), st.integers(0, 10**6)),
    st.tuples(st.just("file bytes"), st.integers(0, 10**6), st.binary(min_size=1, max_size=32)),
)


def _sql_value(value):
    """A JSON value as SQLite stores it (text for what it has no type for)."""
    if value is None or isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return value if not isinstance(value, int) or -(2**63) <= value < 2**63 else str(value)
    return json.dumps(value)


def _set(doc, place: tuple, drop: bool, value) -> None:
    """Set (or drop) `place` in the JSON document `doc`, where it can be reached."""
    *way, last = place
    for step in way:
        doc = doc.get(step) if isinstance(doc, dict) else None
    if isinstance(doc, dict):
        if drop:
            doc.pop(last, None)
        else:
            doc[last] = value


def _edit_subtree(flat, choices: list[int], value) -> None:
    """Replace one element of a flat subtree (``stored.encode_tree``) by `value`, at a
    place `choices` walks to."""
    item = flat
    for choice in choices[:-1]:
        inner = [x for x in item if isinstance(x, list)] if isinstance(item, list) else []
        if not inner:
            break
        item = inner[choice % len(inner)]
    if isinstance(item, list) and item:
        item[choices[-1] % len(item)] = value


def _readable(payload: bytes | None):
    """The JSON a payload holds; None when an earlier mutation left it unreadable."""
    try:
        return json.loads(zlib.decompress(payload))
    except (TypeError, ValueError, zlib.error):
        return None


def _mutate(conn, mutation: tuple) -> None:
    """Apply one mutation (``MUTATIONS``) through SQLite. A bound's value or a journal's
    values are never rewritten with their checksums recomputed: they are claims of the
    search's own, which nothing short of that search checks (see ``stored``)."""
    kind, *args = mutation
    rows = conn.execute(
        "SELECT key, secrets, value, exact, payload FROM answers ORDER BY secrets DESC, key"
    ).fetchall()
    pick = (lambda i: rows[i % len(rows)]) if rows else None
    if kind == "meta":
        name, value = args
        if value is None:
            conn.execute("DELETE FROM meta WHERE name = ?", (name,))
        else:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))
    elif kind == "table":
        table, drop = args
        if drop:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        elif table == "answers":
            conn.execute("ALTER TABLE answers RENAME COLUMN payload TO tree")
        else:
            conn.execute(f"DELETE FROM {table}")
    elif kind == "journal":
        index, more, position, forge = args
        batches = conn.execute("SELECT rowid, context, entries, rows FROM journal").fetchall()
        if batches:
            rowid, context, entries, blob = batches[index % len(batches)]
            blob = bytearray(blob)
            blob[position % len(blob)] ^= 0xFF  # (zlib's own check sees a changed stream)
            entries += more
            checksum = _checksum(context, entries, False, bytes(blob)) if forge else b"x"
            conn.execute(
                "UPDATE journal SET entries = ?, rows = ?, checksum = ? WHERE rowid = ?",
                (entries, bytes(blob), checksum, rowid),
            )
    elif kind == "document":
        place, drop, value = args
        key, _, stored, exact, payload = next((r for r in rows if r[1] == 0), (None,) * 5)
        doc = _readable(payload)
        if key is not None and doc is not None:
            _set(doc, place, drop, value)
            rewrite(conn, key, stored, exact, zlib.compress(json.dumps(doc).encode()))
    elif rows:
        key, secrets, value, exact, payload = pick(args[0])
        checksum = b"forged"
        if kind == "value":
            value += args[1]
            value = value if -(2**63) <= value < 2**63 else 0
            forge = args[2] and exact  # (a bound's value is not forged: see above)
        elif kind == "exact":
            exact, forge = 1 - exact, args[1]
        elif kind in ("byte", "cut", "bytes") and payload:
            if kind == "byte":
                payload = bytearray(payload)
                payload[args[1] % len(payload)] = args[2]
                payload = bytes(payload)
            else:
                payload = payload[: args[1] % len(payload)] if kind == "cut" else args[1]
            forge = args[-1]
        elif kind == "subtree" and secrets and _readable(payload) is not None:
            flat = _readable(payload)
            _edit_subtree(flat, args[1], args[2])
            payload, forge = zlib.compress(json.dumps(flat).encode()), True
        elif kind == "checksum":
            checksum, forge = args[1], False
        elif kind == "kept for":
            column, new = args[1], _sql_value(args[2])
            conn.execute(f"UPDATE answers SET {column} = ? WHERE key = ?", (new, key))
            return
        elif kind == "delete":
            conn.execute("DELETE FROM answers WHERE key = ?", (key,))
            return
        else:
            return
        if forge:
            rewrite(conn, key, value, exact, payload)
        else:
            conn.execute(
                "UPDATE answers SET value = ?, exact = ?, payload = ?, checksum = ? WHERE key = ?",
                (value, exact, payload, checksum, key),
            )


def _mutate_file(path: Path, mutation: tuple) -> None:
    """Apply a mutation of the file's bytes (cut short, or overwritten somewhere)."""
    data = bytearray(path.read_bytes())
    if mutation[0] == "file cut":
        del data[mutation[1] % (len(data) + 1) :]
    else:
        at = mutation[1] % (len(data) + 1)
        data[at : at + len(mutation[2])] = mutation[2]
    path.write_bytes(bytes(data))


#: Answers deleted before the mutations, so that a solve reads deeper into the store.
FORGET = {
    "nothing": "0",
    "the solution": "secrets = 0",
    "the position": "secrets IN (0, 343)",
    "every answer": "1",
}


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(forget=st.sampled_from(list(FORGET)), mutations=st.lists(MUTATIONS, min_size=1, max_size=3))
def test_a_mutated_store_gives_the_true_value_or_one_line(solved, forget, mutations):
    """Whatever is done to a store (values, flags, payloads, documents, subtrees,
    checksums, the rows' games and sizes, rows deleted, meta and tables, journals, the
    file cut short or overwritten), `solve --store` exits 0 with the true value, or 2
    with one line naming the store; never a traceback (exit 1), never another value.
    Answers are forgotten first (`FORGET`) so that the solve reads the position's
    answers, the cells' or the journal's, and the mutations meet them."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite"
        shutil.copy(solved, path)
        with opened(path) as conn:
            conn.execute(f"DELETE FROM answers WHERE {FORGET[forget]}")
        for mutation in mutations:
            if mutation[0].startswith("file"):
                _mutate_file(path, mutation)
                continue
            try:
                with opened(path) as conn:
                    _mutate(conn, mutation)
            except (sqlite3.DatabaseError, UnicodeDecodeError):
                pass  # (a file an earlier mutation damaged: SQLite cannot change it)
        res = solve(path)
        assert res.returncode in (0, 2) and "Traceback" not in res.stderr, res.stderr
        lines = res.stderr.strip().splitlines()
        said = lines[0].replace(str(path), "PATH").split("(")[0] if lines else ""
        event(f"exit {res.returncode} {said}")
        if res.returncode == 2:
            assert len(lines) == 1 and f"store {path}" in lines[0], res.stderr
        else:
            assert json.loads(res.stdout)["value"] == VALUE and len(lines) <= 1, res.stderr
