"""A persistent result store: proven answers of subproblems in one SQLite file.

Long solves are made of subproblems (``deduction.root.Subproblem``): a consistent set to
value within a number of guesses. Their answers (an exact value with its subtree, or a
proven lower bound) are kept here under a key that the engine derives from everything
the answer depends on (``deduction.stored``), so that a solve run again, or resumed
after any interruption, answers from the store what was already proven, and two
machines do not redo each other's work.

The file is SQLite (the standard library's ``sqlite3``) in WAL mode: each answer is
committed on its own, so a solve killed at any moment (SIGKILL included) loses at most
the answers in flight, and several solves may write the same store at once. A file is
a store when its tables are the store's own (``meta`` and ``answers`` with its columns;
an empty file is set up as one): another file, SQLite or not, is refused in one line and
never written to, nor deleted by `clear`. Every row carries a checksum of its contents;
a store whose rows do not match their checksums is refused in one line naming the way
out (the engine checks the answers themselves against the game, ``deduction.stored``).
A store written by another engine version (another ``engine_version()``) is not used;
the first command of this version that opens it says so, once.
A store that another process holds locked for ``BUSY_TIMEOUT`` seconds, or that may not
be written, is refused saying so; neither is ever called damaged.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
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

#: Seconds a solve waits for another process's hold on the store to end before saying
#: that the store is in use: a solve's own writes hold it for milliseconds (one row), so
#: a hold this long is another program's transaction (or a `clear` under way).
BUSY_TIMEOUT = 10.0

#: The columns of the answers table, in order: with a ``meta`` table, what makes an
#: SQLite file a perfectplay store (every layout so far has had them).
ANSWER_COLUMNS = ("key", "game", "objective", "secrets", "value", "exact", "payload", "checksum")

#: The meta row naming the engine version that said a store of another version is not
#: used (``Store``: said once per store file, not at every command).
NOTED = "noted_unused_by"

#: SQLite's companions of a database file (write-ahead log, its shared memory, and the
#: rollback journal a file has while it is switched to write-ahead logging).
COMPANIONS = ("-wal", "-shm", "-journal")

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
    """A store file that cannot be used (not a store, damaged, in use, read-only)."""


class _NotAStore(Exception):
    """A file that is not a perfectplay store (the message says what it is instead)."""


def default_path() -> Path:
    """The store used unless told otherwise: ``$PERFECTPLAY_STORE``, else
    ``$XDG_CACHE_HOME/perfectplay/store.sqlite`` (``~/.cache/...`` when unset)."""
    named = os.environ.get(PATH_ENV)
    if named:
        return Path(named)
    from .kernel_cache import cache_home

    return cache_home() / "store.sqlite"


def chosen_path(given: str | os.PathLike | None) -> Path:
    """The store file `given` names (``--store``), else `default_path`; an empty name is
    refused in one line (it meant the default store, silently)."""
    if given is None:
        return default_path()
    if not os.fspath(given):
        raise StoreError("--store: empty path; name a file, or leave --store out")
    return Path(given)


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
    """The advice for a store that is damaged or unusable: it names the store's file (the
    default store too), so that the command advised clears that file and no other."""
    return f"run with --no-store, or start afresh with `perfectplay store clear --store {path}`"


def _busy(err: BaseException) -> bool:
    """Whether `err` is SQLite saying another connection holds the store."""
    text = str(err)
    return isinstance(err, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _full(err: BaseException) -> bool:
    """Whether `err` is SQLite or the system saying the disk (or the user's quota) is full:
    nothing wrong with the store, nothing to clear."""
    if isinstance(err, sqlite3.Error):
        code = getattr(err, "sqlite_errorcode", None)
        return code == sqlite3.SQLITE_FULL or "disk is full" in str(err)
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)


def _elsewhere() -> str:
    """The advice for a file that is not a store, or one in use or read-only (never to
    delete it)."""
    return "run with --no-store, or name another file with --store"


class Store:
    """One store file, opened for reading and writing (thread-safe: answers may be
    recorded from the threads that complete a solve's futures).

    `note` receives the one-line notice given when the file was written by another
    engine version, the first time this version opens it (recorded in its meta table);
    the store is then not used (``usable`` is False: no answer is read or written).
    """

    def __init__(self, path: str | os.PathLike, note: Callable[[str], None] | None = None):
        self.path = Path(path)
        self.usable = True
        self.identified = False  # known to be a store (from its tables): damage is its own
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        why = _read_only(self.path)
        if why is not None:
            raise StoreError(
                f"store {self.path} is read-only ({why}): a solve keeps what it proves there "
                f"as it goes; make it writable, or {_elsewhere()}"
            )
        try:
            with self._guard():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(
                    self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
                )
                self._conn.text_factory = _text
                meta = _retrying(self._open)
        except StoreError:
            self.close()  # (a connection left open would hold the file: `clear` refuses it)
            raise
        # the WAL folded back even if teardown is skipped; under the lock, as a thread still
        # running at exit (a lane finishing a task no longer wanted) may be writing
        atexit.register(self.close)
        self.engine = meta.get("engine")
        if meta.get("schema") != str(SCHEMA) or self.engine != engine_version():
            self.usable = False
            if note and meta.get(NOTED) != engine_version():
                note(
                    f"store {self.path} was written by another engine version "
                    f"({self.engine!r}); not used (`perfectplay store clear --store "
                    f"{self.path}` starts afresh; said once, `perfectplay store info` "
                    "says it again)"
                )
                self._record_noted()

    def _record_noted(self) -> None:
        """Record in the meta table that this engine version said the store is not used,
        so that the next command opening it does not say it again: the one row written
        to a store of another version (its answers are neither read nor written). A
        store that does not take the row (another layout's meta table, a hold that does
        not end) is left as it is: the note is then said again, nothing worse."""

        def record() -> None:
            with _immediate(self._conn):
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
                    (NOTED, engine_version()),
                )

        with self._lock, contextlib.suppress(sqlite3.Error):
            _retrying(record)

    def _open(self) -> dict[str, str]:
        """Check that the file is a store (an empty one is set up as one: write-ahead
        log, tables, this engine's version), then read its meta table; safe to repeat.
        Nothing is written to a file that is not a store."""
        conn = self._conn
        fresh = _identify(conn, self.path)
        self.identified = not fresh
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("database disk image is malformed")
        if fresh:
            with _immediate(conn):  # (IF NOT EXISTS: another solve may set it up at once)
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                for name, value in (("schema", str(SCHEMA)), ("engine", engine_version())):
                    conn.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (name, value))
            self.identified = True
        return dict(conn.execute("SELECT name, value FROM meta"))

    @contextlib.contextmanager
    def _guard(self):
        """Hold the store's lock, turning any SQLite or file error into one line naming
        the file and what to do (``_trouble``)."""
        with self._lock:
            try:
                yield
            except _NotAStore as err:
                raise StoreError(
                    f"store {self.path} is not a perfectplay store ({err}); {_elsewhere()}"
                ) from None
            except (sqlite3.Error, OSError) as err:
                raise self._trouble(err) from None
            except UnicodeDecodeError:  # (SQLite's message quoting a damaged schema's text)
                raise self._trouble(sqlite3.DatabaseError("malformed schema text")) from None

    def _trouble(self, err: sqlite3.Error | OSError) -> StoreError:
        """The one-line error for `err`: another process holding the store, a store that
        may not be written, a damaged store (the way out clears it), or another failure
        (clearing is advised only for a file known to be a store)."""
        text = str(err)
        if _busy(err):
            return StoreError(
                f"store {self.path} is in use by another process (it held the store for "
                f"{BUSY_TIMEOUT:g} s); try again once it has finished, or {_elsewhere()}"
            )
        if "readonly" in text or isinstance(err, PermissionError):
            return StoreError(
                f"store {self.path} is read-only ({getattr(err, 'strerror', None) or text}); "
                f"make it writable, or {_elsewhere()}"
            )
        reason = getattr(err, "strerror", None) or text
        if _full(err):
            return StoreError(
                f"store {self.path} cannot be written: the disk is full ({reason}); free "
                f"some space, or {_elsewhere()}"
            )
        if not self.identified:
            return StoreError(f"store {self.path} cannot be used ({reason}); {_elsewhere()}")
        if "malformed" in text or "no such" in text:
            return self.damaged(reason)
        return StoreError(f"store {self.path} cannot be used ({reason}); {_way_out(self.path)}")

    def damaged(self, reason: str) -> StoreError:
        """The one-line error for a store holding something it should not (`reason`): a
        row that does not match its checksum, or an answer that does not agree with
        itself or with its game (``deduction.stored``)."""
        return StoreError(f"store {self.path} is damaged ({reason}); {_way_out(self.path)}")

    def get(self, key: bytes, game: str, objective: str, secrets: int) -> Stored | None:
        """The answer kept under `key`, or None; a row kept for another `game`,
        `objective` or number of `secrets` than the key's (those ``put`` was given) is
        refused as damage."""
        if not self.usable:
            return None
        with self._guard():
            row = self._conn.execute(
                "SELECT game, objective, secrets, value, exact, payload, checksum "
                "FROM answers WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        kept_for, (value, exact, payload, checksum) = row[:3], row[3:]
        if not isinstance(value, int) or exact not in (0, 1):
            raise self.damaged(f"a row holds value {value!r} and exact {exact!r}")
        if payload is not None and not isinstance(payload, bytes):
            raise self.damaged("a row's payload is not bytes")
        self._check(_checksum(key, value, bool(exact), payload), checksum)
        if kept_for != (game, objective, secrets):
            raise self.damaged(
                f"a row for {game} {objective} with {secrets:,} secrets says it is for "
                f"{' '.join(map(repr, kept_for))}"  # (quoted: the file's text, any text)
            )
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
            raise self.damaged("a row does not match its checksum")

    def journal(self, context: bytes) -> list[tuple[int, bytes]]:
        """Every batch kept under `context` (``add_journal``), oldest first: its number of
        entries and its rows."""
        if not self.usable:
            return []
        with self._guard():
            found = self._conn.execute(
                "SELECT entries, rows, checksum FROM journal WHERE context = ? ORDER BY rowid",
                (context,),
            ).fetchall()
        for entries, rows, checksum in found:
            if not isinstance(entries, int) or not isinstance(rows, bytes):
                raise self.damaged("a journal row holds no entries or no rows")
            self._check(_checksum(context, entries, False, rows), checksum)
        return [(entries, rows) for entries, rows, _ in found]

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
        if kind is not None:
            self._roll_back()
            return False
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error:  # (a full disk can fail the commit, the transaction left open)
            self._roll_back()
            raise
        return False

    def _roll_back(self) -> None:
        """End the transaction that failed, if SQLite has not (it ends some itself: on a
        full disk), so that its own error is the one said, not the rollback's."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")


def _retrying(work: Callable[[], object]) -> object:
    """`work()`, tried again while SQLite reports the file busy or locked, up to
    ``BUSY_TIMEOUT`` seconds: some lock conflicts (two connections setting up a new file,
    switching it to write-ahead logging) are reported at once, without waiting."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            return work()
        except sqlite3.OperationalError as err:
            if not _busy(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _text(data: bytes) -> str:
    """Text as the file holds it, read whatever its bytes (invalid UTF-8, in a damaged
    row, becomes U+FFFD): a store's text is compared with what is expected, never
    trusted, and reading it must not fail."""
    return data.decode("utf-8", "replace")


def _identify(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the file at `path`, open on `conn`, is empty (True: to be set up as a
    store) or a store (False: its tables are a store's, ``ANSWER_COLUMNS``, or, when
    SQLite cannot read them, its first page is a store's, `_written_as_store`);
    `_NotAStore` saying what it is otherwise. SQLite's own failures (a lock, a file that
    cannot be opened) are raised as they are."""
    try:
        objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    except sqlite3.OperationalError:
        raise
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # (not SQLite, or damaged)
        if _written_as_store(path):
            return False  # a store, damaged (what reads it next fails, as damage)
        raise _NotAStore(f"not a readable SQLite database: {err}") from None
    if not objects:
        return True
    tables = {name for kind, name in objects if kind == "table"}
    columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(answers)"))
    if "meta" not in tables or columns != ANSWER_COLUMNS:
        raise _NotAStore("an SQLite database of something else")
    return False


#: The statements creating the tables that make a store, as SQLite keeps them in the
#: first page of the file (without IF NOT EXISTS).
_MARKS = tuple(
    statement.strip().replace("IF NOT EXISTS ", "").encode()
    for statement in _TABLES.split(";")
    if statement.strip().startswith(
        tuple(f"CREATE TABLE IF NOT EXISTS {t} " for t in ("meta", "answers"))
    )
)


def _written_as_store(path: Path) -> bool:
    """Whether the first page of the file at `path`, read as bytes, is a store's:
    SQLite's header and the statements that created the store's tables (``_MARKS``).
    What marks a store whose other pages are damaged or cut off, which SQLite no longer
    reads (a store just set up may have its tables in the write-ahead log only: SQLite
    reads those, ``_identify``)."""
    try:
        with open(path, "rb") as file:
            head = file.read(1 << 16)
    except OSError:
        return False
    if not head.startswith(b"SQLite format 3\0"):
        return False
    size = int.from_bytes(head[16:18], "big")
    page = head[: 1 << 16 if size == 1 else size]
    return all(mark in page for mark in _MARKS)


def _read_only(path: Path) -> str | None:
    """Why the store at `path` may not be written (None: as far as the files' modes and
    this user's rights show, it may): the file or a companion with no write permission
    for anyone (``chmod a-w``, which even the superuser's writes would ignore) or for
    this user, or a folder in which the companions cannot be made."""
    for file in _files(path):
        if file.is_file() and (not file.stat().st_mode & 0o222 or not os.access(file, os.W_OK)):
            return f"{file.name} may not be written"
    folder = path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} may not be written"
    return None


#: Where SQLite locks a database file (its pending, reserved and shared bytes): every
#: connection open on a store holds a lock there (a shared one, even when idle).
_LOCK_BYTES = (0x40000000, 512)


def _held_elsewhere(path: Path) -> bool:
    """Whether another process holds SQLite's lock on the file at `path` (``_LOCK_BYTES``),
    asked of the system by taking the exclusive lock without waiting and letting it go:
    for a damaged store, which SQLite no longer reads far enough to lock. False where
    the system has no such locks (Windows: a file open elsewhere is not deleted there)."""
    try:
        import fcntl
    except ImportError:
        return False
    fd = os.open(path, os.O_RDWR)
    try:
        start, length = _LOCK_BYTES
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, length, start)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _files(path: Path) -> list[Path]:
    """The store file and SQLite's companions of it (``COMPANIONS``)."""
    return [path, *(path.with_name(path.name + suffix) for suffix in COMPANIONS)]


def clear(path: str | os.PathLike) -> bool:
    """Delete the store at `path` (damaged or not, of any engine version) with its
    companion files; False if there is no file there. Nothing is deleted, and
    StoreError says why in one line, when the file is not a perfectplay store (by its
    tables, ``_identify``), is read-only, or is open in another process: the check holds
    SQLite's exclusive lock without waiting (``locking_mode=EXCLUSIVE``, which fails
    while any other connection has the file open, even an idle one), and the files are
    deleted while it is held."""
    path = Path(path)
    if not os.path.lexists(path):
        return False
    if path.is_symlink() or not path.is_file():
        raise StoreError(f"{path}: not deleted: not a regular file, so not a store")
    why = _read_only(path)
    if why is not None:
        raise StoreError(f"{path}: not deleted: the store is read-only ({why})")
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    conn.text_factory = _text
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        if _identify(conn, path):
            raise _NotAStore("an empty file")
        try:
            conn.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError:  # a damaged store, which SQLite no longer locks
            if _held_elsewhere(path):
                raise sqlite3.OperationalError("database is locked") from None
        for file in _files(path):
            file.unlink(missing_ok=True)
    except _NotAStore as err:
        raise StoreError(f"{path}: not deleted: not a perfectplay store ({err})") from None
    except sqlite3.OperationalError as err:
        if _busy(err):
            raise StoreError(
                f"{path}: not deleted: another process is using the store (a solve?); "
                f"try again once it has finished"
            ) from None
        raise StoreError(f"{path}: not deleted: {err}") from None
    except OSError as err:
        raise StoreError(f"cannot delete {err.filename}: {err.strerror or err}") from None
    finally:
        conn.close()
    return True
