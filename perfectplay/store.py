"""A persistent result store: proven answers of subproblems in one SQLite file.

Long solves are made of subproblems (``deduction.root.Subproblem``): a consistent set to
value within a number of guesses. Their answers (an exact value with its subtree, or a
proven lower bound) are kept here under a key that the engine derives from everything
the answer depends on (``deduction.stored``), so that a solve run again, or resumed
after any interruption, answers from the store what was already proven, and two
machines do not redo each other's work.

The file is SQLite (the standard library's ``sqlite3``) in WAL mode: each answer is
committed on its own, so a solve killed at any moment (SIGKILL included) loses at most
the answers in flight, and several solves may write the same store at once. Every row
carries a checksum of its contents; a file that is not a store, or whose rows do not
match their checksums, is refused in one line naming the way out, never read as values.
A store written by another engine version (another ``engine_version()``) is not used.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import PerfectplayError

#: Layout of the tables below; a store of another layout is not used.
SCHEMA = 3

#: Environment variable naming the default store file (tests point it elsewhere).
PATH_ENV = "PERFECTPLAY_STORE"

#: Seconds a writer waits for another to finish before giving up.
BUSY_TIMEOUT = 60.0

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    key BLOB PRIMARY KEY,
    game TEXT NOT NULL,
    objective TEXT NOT NULL,
    secrets INTEGER NOT NULL,
    value INTEGER NOT NULL,
    exact INTEGER NOT NULL,
    payload BLOB,
    checksum BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (
    context BLOB NOT NULL,
    entries INTEGER NOT NULL,
    rows BLOB NOT NULL,
    checksum BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_context ON journal (context);
"""

# An exact answer replaces a bound; a bound replaces only a smaller bound.
_UPSERT = """
INSERT INTO answers (key, game, objective, secrets, value, exact, payload, checksum)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(key) DO UPDATE SET
    value = excluded.value, exact = excluded.exact, payload = excluded.payload,
    checksum = excluded.checksum
WHERE answers.exact = 0 AND (excluded.exact = 1 OR excluded.value > answers.value)
"""


class StoreError(PerfectplayError):
    """A store file that cannot be used (not a store, damaged, not writable)."""


def default_path() -> Path:
    """The store used unless told otherwise: ``$PERFECTPLAY_STORE``, else
    ``$XDG_CACHE_HOME/perfectplay/store.sqlite`` (``~/.cache/...`` when unset)."""
    named = os.environ.get(PATH_ENV)
    if named:
        return Path(named)
    from .kernel_cache import cache_home

    return cache_home() / "store.sqlite"


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """The package version and a hash of the sources that decide values (the deduction
    engine and the games): any change to them makes earlier answers unusable."""
    from importlib.metadata import PackageNotFoundError, version

    root = Path(__file__).parent
    digest = hashlib.sha256()
    for folder in ("deduction", "games"):
        for source in sorted((root / folder).glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    try:
        release = version("perfectplay")
    except PackageNotFoundError:  # run from a source tree
        release = "source"
    return f"{release}+{digest.hexdigest()[:16]}"


@dataclass(frozen=True)
class Stored:
    """An answer as kept: `value` exact (with the engine's `payload`, e.g. a subtree) or,
    when not `exact`, a proven lower bound."""

    value: int
    exact: bool
    payload: bytes | None


@dataclass(frozen=True)
class Summary:
    """What ``perfectplay store info`` shows: the file, its size and its answers by game."""

    path: Path
    bytes: int
    engine: str | None
    usable: bool
    rows: list[tuple[str, str, int, int, int]]  # game, objective, exact, bounds, largest set
    journals: int = 0  # searches' journals kept (game, objective and breadth each)
    journal_entries: int = 0  # values and bounds found inside tasks, in all of them


def _checksum(key: bytes, value: int, exact: bool, payload: bytes | None) -> bytes:
    digest = hashlib.blake2b(key, digest_size=16)
    digest.update(f"{value}:{int(exact)}:".encode())
    digest.update(payload or b"")
    return digest.digest()


def _way_out(path: Path) -> str:
    named = "" if path == default_path() else f" --store {path}"
    return f"run with --no-store, or start afresh with `perfectplay store clear{named}`"


class Store:
    """One store file, opened for reading and writing (thread-safe: answers may be
    recorded from the threads that complete a solve's futures).

    `note` receives the one-line notice given when the file was written by another
    engine version; the store is then not used (``usable`` is False: nothing is read
    or written).
    """

    def __init__(self, path: str | os.PathLike, note: Callable[[str], None] | None = None):
        self.path = Path(path)
        self.usable = True
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        with self._guard():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            meta = _retrying(self._open)
        # the WAL folded back even if teardown is skipped; under the lock, as a thread still
        # running at exit (a lane finishing a task no longer wanted) may be writing
        atexit.register(self.close)
        self.engine = meta.get("engine")
        if meta.get("schema") != str(SCHEMA) or self.engine != engine_version():
            self.usable = False
            if note:
                note(
                    f"store {self.path} was written by another engine version "
                    f"({self.engine}); not used (`perfectplay store clear` starts afresh)"
                )

    def _open(self) -> dict[str, str]:
        """Set the file up (write-ahead log, tables, this engine's version unless another
        is recorded) and read its meta table; safe to repeat."""
        conn = self._conn
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("database disk image is malformed")
        with _immediate(conn):
            for statement in _TABLES.split(";"):
                if statement.strip():
                    conn.execute(statement)
            for name, value in (("schema", str(SCHEMA)), ("engine", engine_version())):
                conn.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (name, value))
        return dict(conn.execute("SELECT name, value FROM meta"))

    def _guard(self):
        """A context turning any SQLite or file error into one line naming the file."""
        store = self

        class Guard:
            def __enter__(self):
                store._lock.acquire()

            def __exit__(self, kind, err, tb):
                store._lock.release()
                if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                    raise StoreError(
                        f"store {store.path} stayed locked by another solve for "
                        f"{BUSY_TIMEOUT:.0f} s; {_way_out(store.path)}"
                    ) from None
                if isinstance(err, (sqlite3.Error, OSError)):
                    reason = getattr(err, "strerror", None) or err
                    raise StoreError(
                        f"store {store.path} cannot be used ({reason}); {_way_out(store.path)}"
                    ) from None
                return False

        return Guard()

    def get(self, key: bytes) -> Stored | None:
        """The answer kept under `key`, or None."""
        if not self.usable:
            return None
        with self._guard():
            row = self._conn.execute(
                "SELECT value, exact, payload, checksum FROM answers WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        value, exact, payload, checksum = row
        self._check(_checksum(key, value, bool(exact), payload), checksum)
        return Stored(value, bool(exact), payload)

    def put(self, key: bytes, stored: Stored, game: str, objective: str, secrets: int) -> None:
        """Keep `stored` under `key` (an exact answer replaces a bound, a bound only a
        smaller one), committed at once."""
        if not self.usable:
            return
        self._commit(
            _UPSERT,
            (
                key,
                game,
                objective,
                secrets,
                stored.value,
                int(stored.exact),
                stored.payload,
                _checksum(key, stored.value, stored.exact, stored.payload),
            ),
        )

    def add_journal(self, context: bytes, entries: int, rows: bytes) -> None:
        """Keep a batch of `entries` entries of an engine's journal (``rows``, opaque here)
        under `context`, committed at once."""
        if not self.usable:
            return
        self._commit(
            "INSERT INTO journal VALUES (?, ?, ?, ?)",
            (context, entries, rows, _checksum(context, entries, False, rows)),
        )

    def _commit(self, statement: str, row: tuple) -> None:
        """Run one writing `statement` on `row` in a transaction of its own, committed at
        once (retried while another writer holds the file)."""

        def write() -> None:
            with _immediate(self._conn):
                self._conn.execute(statement, row)

        with self._guard():
            _retrying(write)

    def _check(self, computed: bytes, recorded: bytes) -> None:
        """Refuse, in one line, a row whose checksum does not match its contents."""
        if computed != recorded:
            raise StoreError(
                f"store {self.path} is damaged (a row does not match its "
                f"checksum); {_way_out(self.path)}"
            )

    def journal(self, context: bytes) -> list[bytes]:
        """Every batch kept under `context` (``add_journal``), oldest first."""
        if not self.usable:
            return []
        with self._guard():
            found = self._conn.execute(
                "SELECT entries, rows, checksum FROM journal WHERE context = ? ORDER BY rowid",
                (context,),
            ).fetchall()
        for entries, rows, checksum in found:
            self._check(_checksum(context, entries, False, rows), checksum)
        return [rows for _, rows, _ in found]

    def summary(self) -> Summary:
        """Size and contents, by game and objective."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT game, objective, SUM(exact), SUM(1 - exact), MAX(secrets) "
                "FROM answers GROUP BY game, objective ORDER BY game, objective"
            ).fetchall()
            journal = (0, 0)  # (another layout's journal is not read)
            if self.usable:
                journal = self._conn.execute(
                    "SELECT COUNT(DISTINCT context), COALESCE(SUM(entries), 0) FROM journal"
                ).fetchone()
        size = sum(p.stat().st_size for p in _files(self.path) if p.exists())
        return Summary(self.path, size, self.engine, self.usable, rows, *journal)

    def close(self) -> None:
        """Close the file (the WAL is folded back into it when no one else has it open).
        A closed store reads and keeps nothing, as an unusable one (a lane still finishing
        a task no longer wanted may try)."""
        with self._lock:
            self.usable = False
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        atexit.unregister(self.close)


class _immediate:
    """A write transaction that takes the write lock when it begins (``BEGIN IMMEDIATE``),
    so that SQLite waits for another writer (the busy timeout) instead of failing at
    once, as a transaction that read first fails when another wrote meanwhile."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, err, tb) -> bool:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
        return False


def _retrying(work: Callable[[], object]) -> object:
    """`work()`, tried again while SQLite reports the file busy or locked, up to
    ``BUSY_TIMEOUT`` seconds: some lock conflicts (two connections setting up a new file,
    switching it to write-ahead logging) are reported at once, without waiting."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            return work()
        except sqlite3.OperationalError as err:
            text = str(err)
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _files(path: Path) -> list[Path]:
    """The store file and SQLite's companions (write-ahead log, shared memory)."""
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def clear(path: str | os.PathLike) -> bool:
    """Delete the store at `path` (damaged or not) with its companion files; False if
    there was none."""
    found = False
    for file in _files(Path(path)):
        try:
            file.unlink()
            found = True
        except FileNotFoundError:
            pass
        except OSError as err:
            raise StoreError(f"cannot delete {file}: {err.strerror or err}") from None
    return found
