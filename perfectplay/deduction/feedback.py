"""The feedback table of a game, built once: every guess against every secret.

A ``Table`` is what every algorithm of the engine reads: the codes, the table
``fb[g, s]`` (uint8 where the feedbacks fit in a byte, else uint16; None for games too
large to tabulate, whose feedbacks are then computed where needed), the solved
feedback, and the number of distinct non-solved feedbacks that occur (the branching
factor of the lower bounds).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from ..errors import Unsupported, call_rule, in_rule
from ..memory import refuse_beyond
from .contract import (
    Codes,
    check_feedbacks,
    codes,
    count,
    feedback,
    feedback_breach,
    kernel_rule,
    same_answer,
    sizes,
)
from .model import MAX_FEEDBACKS, DeductionGame, Symmetry, too_many_symbols

#: Tables of at least this many entries are filled on every core.
PARALLEL_ENTRIES = 1 << 22

#: Largest game searched without a table (guesses x secrets pairs).
MAX_SEARCHED = 100_000_000_000

#: Largest table built (guesses x secrets entries, one byte each).
MAX_TABLE = 120_000_000


@dataclass(frozen=True, eq=False)
class Table:
    game: DeductionGame
    guesses: np.ndarray  # (G, L) int8
    secrets: np.ndarray  # (S, L) int8
    fb: np.ndarray | None  # (G, S) uint8 or uint16; None: computed where needed
    solved: int  # the feedback meaning "guess == secret"
    n_feedbacks: int
    branching: int  # distinct non-solved feedbacks that occur
    secret_of_guess: np.ndarray  # (G,) index of the equal secret, or -1
    guess_of_secret: np.ndarray  # (S,) index of the equal guess
    symmetry: Symmetry
    kept: Path | None = None  # the file keeping `fb` between runs (``_kept_table``), if any

    @property
    def n_secrets(self) -> int:
        return len(self.secrets)

    @cached_property
    def by_secret(self) -> np.ndarray | None:
        """The table transposed, (S, G): one secret's feedbacks to every guess in a row, so
        that scoring a set's candidates in index order reads each secret's row along, a
        few cache lines at a time (``core.score``). Made once, on first use, for one-byte
        tables, and kept beside a kept table; None otherwise."""
        if self.fb is None or self.fb.dtype != np.uint8:
            return None
        shape = self.fb.shape[::-1]
        beside = None if self.kept is None else self.kept.with_suffix(".by-secret.npy")
        if beside is not None and (found := _read_kept(beside, shape, self.fb.dtype)) is not None:
            return found
        from .kernels import transpose

        out = np.empty(shape, dtype=self.fb.dtype)
        transpose(self.fb, out)
        if beside is not None:
            _keep(beside, out)
        return out


#: Tables of at least this many entries are kept between runs (``_kept_table``).
KEEP_ENTRIES = 1 << 23
#: Set to 0 to neither read nor write kept tables.
KEEP_ENV = "PERFECTPLAY_KEEP_TABLES"


def source_file(definition: object) -> Path | None:
    """The readable source file defining `definition` (a class or function), whose
    bytes key the values its rules compute; None if there is none."""
    import inspect

    try:
        path = Path(inspect.getsourcefile(definition))
    except TypeError:
        return None
    return path if path.is_file() else None


def _kept_table(
    game: DeductionGame, guesses: np.ndarray, secrets: np.ndarray
) -> tuple[np.ndarray, Path | None]:
    """The game's table, read from the user's cache where an earlier run kept it (large
    tables only, where reading is far quicker than computing: docs/measurements.md),
    else computed and kept; and the file keeping it (None: not kept). The file is named
    by a digest of all that decides the table (the codes, the sources of the rules and
    of the feedback kernel, the type), so a changed list or rule computes afresh; it is
    written under another name and renamed, so an interrupted run leaves no half table;
    any file that cannot be read as this table, or whose feedbacks break the protocol
    (``contract.feedback_breach``), is ignored, and a cache that cannot be written is
    left alone. A kept table is mapped rather than read (``_read_kept``)."""
    if len(guesses) * len(secrets) < KEEP_ENTRIES or os.environ.get(KEEP_ENV) == "0":
        return compute_feedback(game, guesses, secrets), None
    import hashlib

    from ..kernel_cache import cache_home

    dtype = np.dtype(feedback_dtype(game))
    digest = hashlib.sha256(repr((guesses.shape, secrets.shape, dtype.str)).encode())
    for array in (guesses, secrets):
        digest.update(np.ascontiguousarray(array).tobytes())
    kernel = game.feedback_kernel()
    rules = (type(game), getattr(kernel, "py_func", kernel))
    for source in sorted({source_file(definition) for definition in rules}, key=str):
        if source is None:  # no source to read: nothing kept
            return compute_feedback(game, guesses, secrets), None
        digest.update(source.read_bytes())
    path = cache_home() / "tables" / f"{digest.hexdigest()[:32]}.npy"
    kept = _read_kept(path, (len(guesses), len(secrets)), dtype)
    if kept is not None and feedback_breach(game, guesses, secrets, kept) is None:
        return kept, path
    fb = compute_feedback(game, guesses, secrets)
    return fb, path if _keep(path, fb) else None


def _read_kept(path: Path, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """The array kept in `path` if it is one of `shape` and `dtype`, else None. The file is
    mapped copy-on-write, not read: its pages come from the system's file cache as the
    search first touches them, where reading would fill fresh memory, a page fault per
    4 kB page (a tenth of a second for Wordle's 30 MB on this project's machine). A plain
    array view of the mapping, writable, so the kernels take it as any other array. (A
    file that cannot be mapped is read.)"""
    try:
        try:
            kept = np.load(path, mmap_mode="c", allow_pickle=False)
        except (OSError, ValueError):
            kept = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if kept.shape != shape or kept.dtype != dtype:
        return None
    return kept.view(np.ndarray)


def _keep(path: Path, array: np.ndarray) -> bool:
    """Write `array` to `path` under another name, then rename it (an interrupted run
    leaves no half file); False where the cache cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.stem}.{os.getpid()}.part")
        with open(part, "wb") as out:
            np.save(out, array, allow_pickle=False)
        os.replace(part, path)
    except OSError:
        return False
    return True


def feedback_dtype(game: DeductionGame) -> type:
    """The narrowest unsigned type holding the game's feedbacks (one byte where they fit)."""
    if game.n_feedbacks() > MAX_FEEDBACKS:
        raise Unsupported(
            f"{game}: {game.n_feedbacks():,} feedbacks are more than {MAX_FEEDBACKS:,}"
        )
    return np.uint8 if game.n_feedbacks() <= 256 else np.uint16


def compute_feedback(game: DeductionGame, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Feedback of each guess (rows) against each secret (columns) by the game's kernel,
    checked as the rules promise it (``contract.check_feedbacks``: in range, solved
    exactly where the guess is the secret) before anything reads it."""
    out = np.empty((len(guesses), len(secrets)), dtype=feedback_dtype(game))
    kernel = call_rule(game, "feedback_kernel")
    guesses, secrets = _read_only(guesses), _read_only(secrets)
    workers = os.cpu_count() or 1
    with in_rule(game, kernel_rule(game)):
        if workers == 1 or out.size < PARALLEL_ENTRIES:
            kernel(guesses, secrets, out)
        else:  # rows in chunks on threads: the kernels release the GIL
            from concurrent.futures import ThreadPoolExecutor

            step = -(-len(guesses) // workers)
            with ThreadPoolExecutor(workers) as pool:
                list(
                    pool.map(
                        lambda a: kernel(guesses[a : a + step], secrets, out[a : a + step]),
                        range(0, len(guesses), step),
                    )
                )
    check_feedbacks(game, guesses, secrets, out)
    return out


def _read_only(codes: np.ndarray) -> np.ndarray:
    """`codes` as the kernels take them: contiguous (copied only where they are not) and
    read-only, as a game's own codes are. Why: numba compiles a kernel once more for
    writable arrays, so codes a person typed (the advisor's) would compile, after
    installing, what the shipped kernels hold for the game's codes (1.6 s for Wordle)."""
    view = np.ascontiguousarray(codes).view()
    view.flags.writeable = False
    return view


#: Bytes a code costs beside its symbols while it is listed: its row as Python numbers
#: and its entry in the index of the guesses (``build_table``), measured about 190.
CODE_BYTES = 200


def codes_bytes(game: DeductionGame, guesses: int, secrets: int) -> int:
    """The memory of listing `game`'s `guesses` guesses and `secrets` secrets (the
    arrays, the index of the guesses) and of its table where one is built (``MAX_TABLE``):
    what ``build_table`` allocates."""
    pairs = guesses * secrets
    table = pairs * (1 if game.n_feedbacks() <= 256 else 2) if pairs <= MAX_TABLE else 0
    return (guesses + secrets) * (game.length() + CODE_BYTES) + table


def declared_counts(game: DeductionGame) -> tuple[int, int] | None:
    """(guesses, secrets) as `game` counts them without listing them (its own
    ``n_guesses``), or None where counting them would list them (the default)."""
    if type(game).n_guesses is DeductionGame.n_guesses:
        return None
    return count(game, "n_guesses"), count(game, "n_secrets")


def check_size(game: DeductionGame, listed: tuple[int, int] | None = None) -> None:
    """Refuse, in one line, a game whose codes cannot be listed: more symbols than its
    codes hold (``too_many_symbols``), or codes and table that would not fit in the
    memory available (``codes_bytes``). Asked before the codes are listed, from the
    counts the game declares (``n_guesses``, ``n_secrets``); a game that declares none
    is held to the counts `listed` (guesses, secrets) once they are, or not at all."""
    refusal = too_many_symbols(game)
    if refusal is not None:
        raise Unsupported(refusal)
    listed = listed or declared_counts(game)
    if listed is None:
        return
    g, s = listed
    refuse_beyond(
        codes_bytes(game, g, s),
        f"{game}: listing its {g:,} guesses and {s:,} secrets",
        "try smaller parameters (fewer codes)",
    )


@lru_cache(maxsize=8)
def build_table(game: DeductionGame) -> Table:
    """The game's feedback table and code indices (cached per game: built once), and the
    symmetry the search uses (``_symmetry``).

    Beyond MAX_TABLE entries no table is built (``fb`` is None): the engine then
    computes the feedbacks of each node's guesses against its secrets. A game of more
    symbols than its codes hold, of more pairs than ``MAX_SEARCHED``, or whose codes
    and table would not fit in memory (``check_size``) is refused before they are
    listed, where it declares its counts. Everything read of the rules is checked as it
    is read (``contract``: the sizes, the code lists, every feedback of the table), the
    scalar ``feedback`` is held to the table on a sample (``_sampled``), and a declared
    symmetry is checked on the table before it is used (``declared``): a broken rule is
    refused in one line, never solved.
    """
    size = sizes(game)
    counts = declared_counts(game)
    check_size(game, counts)
    if counts is not None:
        _check_searchable(game, *counts)
    listed = codes(game, size)
    guesses, secrets = listed.guesses, listed.secrets
    if counts is None:
        _check_searchable(game, len(guesses), len(secrets))
        check_size(game, (len(guesses), len(secrets)))
    fb, kept = None, None
    if len(guesses) * len(secrets) <= MAX_TABLE:
        fb, kept = _kept_table(game, guesses, secrets)
    _sampled(game, listed, fb)
    guess_of_secret = listed.guess_of_secret
    secret_of_guess = np.full(len(guesses), -1, dtype=np.int64)
    secret_of_guess[guess_of_secret] = np.arange(len(secrets))
    present = np.zeros(size.n_feedbacks, dtype=bool)
    if fb is not None:
        from .kernels import feedbacks_present

        present = feedbacks_present(fb, size.n_feedbacks)
    else:  # without the table, any feedback may occur (a sound, weaker bound)
        present[:] = True
    branching = max(1, int(present.sum()) - int(present[size.solved]))
    return Table(
        game,
        guesses,
        secrets,
        fb,
        size.solved,
        size.n_feedbacks,
        branching,
        secret_of_guess,
        guess_of_secret,
        _symmetry(game, listed, fb),
        kept,
    )


def _check_searchable(game: DeductionGame, guesses: int, secrets: int) -> None:
    """Refuse, in one line, a game of more guess-secret pairs than ``MAX_SEARCHED``."""
    if guesses * secrets > MAX_SEARCHED:
        raise Unsupported(
            f"{game}: {guesses:,} guesses x {secrets:,} secrets is too "
            f"large to search (limit {MAX_SEARCHED:,} pairs)"
        )


#: Pairs on which the scalar ``feedback`` is held to the table as it is built (a few of
#: them a guess against itself); a table of at most ALL_PAIRS entries, every pair.
SAMPLED_PAIRS = 24
ALL_PAIRS = 1024


def _sampled(game: DeductionGame, listed: Codes, fb: np.ndarray | None) -> None:
    """Hold the scalar ``feedback`` (each answer checked: ``contract.feedback``) to the
    table `fb` (or, too large to tabulate, the kernel's block) on SAMPLED_PAIRS pairs,
    a third of them a secret against itself, or on every pair of a table of at most
    ALL_PAIRS entries: rules that answer the same pair two ways (a kernel that is not
    the scalar rule, or rules that draw at random) are refused in one line naming the
    pair, not solved."""
    guesses, secrets = listed.guesses, listed.secrets
    if len(guesses) * len(secrets) <= ALL_PAIRS:
        picked, cols = (a.ravel() for a in np.indices((len(guesses), len(secrets))))
    else:
        rng = np.random.default_rng(0)
        cols = rng.integers(0, len(secrets), SAMPLED_PAIRS)
        picked = rng.integers(0, len(guesses), SAMPLED_PAIRS)
        picked[: SAMPLED_PAIRS // 3] = listed.guess_of_secret[cols[: SAMPLED_PAIRS // 3]]
    if fb is None:
        table = [
            compute_feedback(game, guesses[[i]], secrets[[j]])[0, 0] for i, j in zip(picked, cols)
        ]
    else:
        table = fb[picked, cols]
    for i, j, f in zip(picked.tolist(), cols.tolist(), np.asarray(table).tolist()):
        same_answer(game, guesses[i], secrets[j], feedback(game, guesses[i], secrets[j]), f)


def _symmetry(game: DeductionGame, listed: Codes, fb: np.ndarray | None) -> Symmetry:
    """The symmetry the search uses: the game's own, checked on the table first
    (``declared.check_declared``), or, for a game that declares none, the one its table
    is found to keep (``undeclared``)."""
    from .declared import check_declared
    from .undeclared import used_symmetry

    declared = check_declared(game, listed.guesses, listed.secrets, fb, compute_feedback)
    return used_symmetry(game, fb, compute_feedback) or declared
