"""The proof over every opening, in shards: slices of the openings valued against a known
bound (the shard records and their combination: ``perfectplay/shards.py``).

Proving a game's optimum (Wordle's: which of 12,972 first guesses is best) needs every
opening valued, far too much for one run. An opening here is a first guess at a
position: allowed, one per symmetry class, and useful (it splits the secrets or may be
the secret), numbered in the game's guess order (``openings``). Each is valued with a
known bound B on the total (``value_openings``): its exact total when it is within B,
else the proof that it exceeds B, which a poor opening gives as soon as its cells'
bounds reach the budget, long before its value would be known. A shard is a slice of
the openings (a range of their numbers, or a list of guesses); its document records
the job (game, position, guess limit, bound) and one result per opening, and is
rewritten after each so that a shard run again with the same file resumes. ``combine``
reads the documents of one job: once they cover every opening, the least exact total
is the optimum, proven, with every opening that reaches it; if none is within B, the
optimum exceeds B.

Totals count every guess from the start of the game over the secrets the position
leaves, as ``solve`` reports them; the objective is the expected number of guesses
(its total), within the game's guess limit or ``max_guesses``.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ..errors import BadFile, Unsupported
from ..reading import read_text
from ..shards import Job, Shard, Valued, describe
from ..solution import read_document, write_json_atomically
from ..store import Store
from ..verdict import short
from .model import DeductionGame, History
from .position import format_position, guess_index, position_secrets
from .root import (
    Crew,
    Subproblem,
    close_lanes,
    guess_bound,
    open_lanes,
    relay_for,
    search_for,
    solve_position,
)
from .search import Search, SpeedUps
from .solve import guesses_left
from .stored import AnswerStore

#: Memory a file of openings takes for each of its bytes: a Python string for each
#: word of a few bytes, and its place in the lists.
OPENINGS_BYTES_PER_BYTE = 40


def openings(game: DeductionGame, position: History = ()) -> list[int]:
    """The openings at `position` (guess indices, in guess order): allowed, one per
    symmetry class, useful."""
    return _openings(*_search_at(game, position), position)


def _openings(search: Search, subset: np.ndarray, position: History) -> list[int]:
    """``openings``, with the search and the secrets `position` leaves (``_search_at``)."""
    cand = search.candidates(subset, position)
    useful = [int(g) for g in np.sort(cand) if _useful(search, int(g), subset)]
    if not useful:
        raise Unsupported(f"{search.table.game.name}: no allowed guess helps at this position")
    return useful


def ranked(
    game: DeductionGame, numbered: list[int], method: str, position: History = ()
) -> list[int]:
    """The numbers of the openings `numbered` (as ``openings`` gives them) ordered by
    seed 004's one-step heuristic `method` at `position`, best first: a ranking of the
    project's own to choose which openings to value first."""
    from .heuristics import SCORES, ranking

    if method not in SCORES:
        raise Unsupported(f"unknown heuristic {method!r} (known: {', '.join(SCORES)})")
    search, subset = _search_at(game, position)
    order = ranking(search, np.asarray(numbered, dtype=np.int64), subset, SCORES[method])
    return [int(k) for k in order]


def _search_at(game: DeductionGame, position: History) -> tuple[Search, np.ndarray]:
    """The search that ``openings`` and ``ranked`` look with (expected guesses, every
    speed-up), and the secrets `position` leaves on its table."""
    search = search_for(game, "expected", SpeedUps())
    return search, position_secrets(search.table, position)


def _useful(search, guess: int, subset: np.ndarray) -> bool:
    """A guess that may be the secret or splits the set (else it only wastes a turn)."""
    parts = search.cells(guess, subset)
    return len(parts) != 1 or len(parts[0][1]) != len(subset)


def select(game: DeductionGame, numbered: list[int], spec: str) -> list[int]:
    """The openings `spec` names: ``all``, a range ``A:B`` of their numbers (from 0, B
    excluded), or guesses (comma-separated, or ``@FILE`` with one per line)."""
    spec = spec.strip()
    if spec == "all":
        return list(range(len(numbered)))
    if ":" in spec and all(p.strip().isdigit() or not p.strip() for p in spec.split(":", 1)):
        a, b = (p.strip() for p in spec.split(":", 1))
        start, stop = int(a or 0), int(b) if b else len(numbered)
        if not 0 <= start < stop <= len(numbered):
            raise Unsupported(
                f"the range {spec!r} is not within the {len(numbered)} openings (0:{len(numbered)})"
            )
        return list(range(start, stop))
    if spec.startswith("@"):
        try:
            words = read_text(spec[1:], OPENINGS_BYTES_PER_BYTE, "the openings file").split()
        except (OSError, UnicodeDecodeError) as err:
            raise Unsupported(f"cannot read the openings file {spec[1:]!r}: {err}") from None
    else:
        words = [w for w in spec.split(",") if w.strip()]
    number = {g: k for k, g in enumerate(numbered)}
    chosen = []
    for word in words:
        g = guess_index(game, word)
        if g not in number:
            raise Unsupported(
                f"{word.strip()!r} is not an opening here (another guess of its "
                f"symmetry class stands for it, or it learns nothing)"
            )
        chosen.append(number[g])
    if not chosen:
        raise Unsupported("no opening selected (--openings all, A:B, GUESS,... or @FILE)")
    return sorted(set(chosen))


class ShardCheck:
    """A job of openings valued against `bound` as its game gives it: the job's record
    (``shards.Job``: the secrets the position leaves, the guess limit, the openings and
    their names), and each opening's least total; `check` holds a shard read from a file
    against it, record by record."""

    def __init__(
        self, game: DeductionGame, position: History, bound: int, max_guesses: int | None = None
    ):
        self.game, self.position = game, position
        self.search, self.subset = _search_at(game, position)
        self.numbered = _openings(self.search, self.subset, position)
        n, played = len(self.subset), len(position)
        self.limit = guesses_left(game, n, self.search.table.n_secrets, played, max_guesses)
        self.job = Job(
            game.name,
            dict(game.params),
            format_position(game, position),
            n,
            self.limit + played,
            bound,
            len(self.numbered),
        )

    def name(self, k: int) -> str:
        """Opening number `k` as the game writes it."""
        return self.game.format_code(self.search.table.guesses[self.numbered[k]])

    def least_total(self, k: int) -> int:
        """A lower bound of opening `k`'s total, counted from the start as shards count
        them: the core's bound of each cell it leaves (``root.guess_bound``)."""
        sub = Subproblem(self.game, "expected", SpeedUps(), self.position, self.subset, self.limit)
        played = len(self.position) * len(self.subset)
        return played + guess_bound(self.search, sub, self.numbered[k])

    def check(self, shard: Shard, source: str) -> None:
        """Refuse, in one line naming `source` and the record, a shard of another job
        than this one (a count of secrets or openings, a limit, a position the game does
        not give) or with a record the game belies: an opening number beyond its
        openings, a name not the game's for that number, a total marked exact above the
        bound or below the opening's least total, or a proof of exceeding the bound with
        a total within it."""
        for name, want in asdict(self.job).items():
            got = getattr(shard.job, name)
            if got != want:
                raise BadFile(
                    f"{source}: the shard says {name} {short(got)} where the game gives "
                    f"{short(want)} ({self.game})"
                )
        bound, count = shard.job.bound, len(self.numbered)
        for i, r in enumerate(shard.results):
            where = f"{source}: results[{i}] (opening {r.index}, {short(r.guess)})"
            if r.index >= count:
                raise BadFile(f"{where}: the game has {count} openings, numbered 0 to {count - 1}")
            if r.guess != self.name(r.index):
                raise BadFile(f"{where}: the game's opening {r.index} is {self.name(r.index)}")
            if r.exact and r.total > bound:
                raise BadFile(f"{where}: an exact total {r.total} above the bound {bound}")
            if not r.exact and r.total <= bound:
                raise BadFile(
                    f"{where}: its total {r.total} is within the bound {bound}, but not exact "
                    "(an opening that exceeds the bound has a total above it)"
                )
            least = self.least_total(r.index) if r.exact else 0
            if r.total < least:
                raise BadFile(f"{where}: an exact total {r.total} below its least total {least}")


def value_openings(
    game: DeductionGame,
    chosen: Iterable[int],
    bound: int,
    *,
    position: History = (),
    max_guesses: int | None = None,
    workers: int | None = None,
    cluster: str | None = None,
    store: Store | None = None,
    out: str | os.PathLike | None = None,
    progress: Callable[[str], None] | None = None,
) -> Shard:
    """Value the openings numbered `chosen` against `bound` (see the module's docstring),
    resuming from `out` when it holds a shard of the same job, rewriting it after each;
    on `workers` lanes (None: every core, ``root.open_lanes``)."""
    if bound < 0:
        raise Unsupported(f"--bound must be a total of guesses (at least 0), got {bound}")
    if cluster is not None:  # reached (or refused) before any work, whatever the size
        from ..cluster import check_cluster

        check_cluster(cluster)
    expected = ShardCheck(game, position, bound, max_guesses)
    job, subset, numbered, limit = expected.job, expected.subset, expected.numbered, expected.limit
    n, played = len(subset), len(position)
    shard = Shard(job)
    if out is not None and Path(out).exists():
        shard = Shard.from_json(read_document(out), str(out))
        if shard.job != job:
            raise BadFile(
                f"{out} holds a shard of another job ({describe(shard.job)}); give another --out"
            )
        expected.check(shard, str(out))
    elif out is not None:
        write_json_atomically(out, shard.to_json())  # the job, before any work
    done = {r.index for r in shard.results}
    usable = store is not None and store.usable
    answers = AnswerStore(store, game, expected.search.table) if usable else None
    lanes = open_lanes(workers, cluster, n)
    crew = Crew(lanes, progress, {}, {}, answers, relay_for(lanes, SpeedUps()))
    budget = bound - played * n + 1
    todo = [k for k in chosen if k not in done]
    try:
        for step, k in enumerate(todo, 1):
            g, started = numbered[k], time.perf_counter()
            sub = Subproblem(game, "expected", SpeedUps(), position, subset, limit, budget, g)
            found = solve_position(sub, crew)
            exact = found.tree is not None
            total = played * n + (found.value if exact else max(found.value, budget))
            shard.results.append(
                Valued(k, expected.name(k), total, exact, round(time.perf_counter() - started, 3))
            )
            shard.results.sort(key=lambda r: r.index)
            if out is not None:
                write_json_atomically(out, shard.to_json())
            if progress:
                progress(
                    f"opening {step}/{len(todo)}: {shard.results[-1].guess} "
                    f"{total if exact else f'> {bound}'}"
                )
    except BaseException:
        close_lanes(lanes, abort=True)
        raise
    close_lanes(lanes)
    return shard
