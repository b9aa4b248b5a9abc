"""Everything the server computes, in worker processes under one set of caps.

Four kinds of work, each capped:

* solves (a solve asked for on the page, or the strategy a Markov board plays), at most
  `SOLVES_AT_ONCE` at a time, each stopped after `TIME_LIMIT` seconds, its progress sent
  back on a queue; more are refused (``Busy``) until one ends;
* advice (``perfectplay.advise``: a deduction board's suggestion and its table of
  options, one advice for both), at most `ADVICE_AT_ONCE` positions at a time, each by a
  worker that sends the advisor's stages as they come (the rule of thumb at once, then
  bounds, then the exact ranking), each stage kept; after its page answered it goes on
  for up to `ADVICE_WORK` seconds (at most `CONTINUING_AT_ONCE` such, the oldest ended
  first), so that asking again (the table's script does) finds better. A board that finds those places taken gets the heuristic's stage alone (at
  most `HEURISTICS_AT_ONCE` such workers, each ended once it has answered); only when
  those are taken too does it answer without advice (``advise`` returns None), never
  waiting;
* the values a review needs (``web/review.py``), at most `REVIEWS_AT_ONCE` reviews at a
  time, each by a worker that goes on for up to `REVIEW_WORK` seconds after its page
  answered, each value kept as it comes (``values``).

Workers are forks of one warm process (multiprocessing's fork server, which imports
``worker_start`` first: the compiled kernels loaded, the default games' tables built), so
a worker starts in milliseconds with everything loaded. Each worker watches the server's
process and ends when it ends, however it ends (SIGKILL included); the fork server then
ends too, once its last worker has.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import select
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadRules, IncompleteRules, PerfectplayError
from ..kept import keep_solution, kept_path, kept_strategy, read_kept
from ..objectives import Objective
from ..advice import Advice
from ..progress import Silent

#: The strategy object of the document of a job whose strategy is kept in a file.
KEPT = {"kind": "kept in a file"}
#: Solves running at once; more are refused until one ends.
SOLVES_AT_ONCE = 1
#: Advices computed at once; a board that finds them all taken answers without one.
ADVICE_AT_ONCE = 2
#: Heuristic-only suggestions computed at once, for boards that find the places above taken.
HEURISTICS_AT_ONCE = 3
#: Seconds a solve may run before it is stopped.
TIME_LIMIT = 300.0
#: Finished solves kept with their strategy read (the oldest are let go first): older ones
#: keep their document (small: the result, the histogram, the strategy's file), read
#: again when a page asks, so that a result stays reachable while the server runs.
KEEP = 20
#: The memory the strategies of finished solves may hold together besides the one a
#: board asks for (``Strategy.held_bytes``): beyond it, those asked for least recently
#: are let go, read again when asked (a target of 300 points holds 1.2 GB of rows).
STRATEGY_BYTES = 2 << 30
#: Seconds an advice worker may go on after its page answered (the table of options is
#: asked for again, 1.5 s apart, for about this long).
ADVICE_WORK = 12.0
#: Optimal searches going on at once after their page answered (the oldest ended first).
CONTINUING_AT_ONCE = 1
#: Reviews valued at once, each by one worker that goes on after its page answered.
REVIEWS_AT_ONCE = 1
#: Reviews valued ahead at once, as boards' games go (their workers niced).
REVIEWS_AHEAD = 1
#: Seconds a review's worker may go on (the board's script asks again, a second apart,
#: for about this long; pricing a Wordle opening other than the book's takes about 5 s).
REVIEW_WORK = 20.0
#: How much a review's worker yields the processors to the advice a page waits for (its
#: values are worked out as the game goes, each board's view starting them).
REVIEW_NICENESS = 10
#: Seconds past its budget a page waits for an advice worker's first stage (the heuristic's).
HEURISTIC_GRACE = 0.5
#: Advices kept, by game and position (a position seen again answers at once).
ADVICE_KEPT = 512


@dataclass(frozen=True)
class Valuing:
    """The values of a review's positions known so far (``Jobs.values``), by position,
    and how its valuing stands: "done" (all known), "working" (a worker goes on: ask
    again), "given up" (its worker ran out of time) or "busy" (another review's worker
    has the place)."""

    known: dict
    state: str


def _keep(cache: OrderedDict, key: Any, value: Any) -> None:
    """Keep `value` as the newest of `cache`, the oldest let go beyond `ADVICE_KEPT`."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > ADVICE_KEPT:
        cache.popitem(last=False)


class Busy(PerfectplayError):
    """Refused: as many solves run as the server allows."""


@dataclass
class Progress:
    """The last progress a solve reported."""

    stage: str = "starting"
    done: float = 0
    total: float | None = None
    unit: str = ""
    info: str = ""


@dataclass
class Job:
    """A solve: its request, its process, its progress and, once done, its document
    (``Solution.export()``) or its one-line error."""

    id: str
    game: str
    objective: str
    horizon: int | None
    exact: bool = True
    #: Who started it (``pages.visitor``), the one visitor who may cancel it; None for the
    #: server's own solves (the strategy a Markov board plays, shared by every visitor).
    visitor: str | None = None
    #: The first guess the solve was told to play (a deduction game's), or None.
    first: str | None = None
    process: Any = None
    channel: Any = None
    started: float = field(default_factory=time.monotonic)
    progress: Progress = field(default_factory=Progress)
    state: str = "running"  # running | done | failed | cancelled
    document: dict[str, Any] | None = None
    #: A Markov result's picture and policy summary (``pictures.Pictures``), or None.
    pictures: Any = None
    error: str = ""
    #: Whether the error is the game's rules' (``BadRules``, ``IncompleteRules``): the
    #: catalogue then shows the game as broken (``app._note_broken``).
    rules_broken: bool = False
    seconds: float = 0.0
    #: The file the strategy is kept in (``kept``: a board's), its document then holding
    #: none (``KEPT``); None: the document holds it.
    kept_file: str | None = None
    #: When a board last asked for its strategy (``Jobs.strategy``).
    asked: float = 0.0
    _strategy: Any = None
    #: Held while the job reads its channel or ends its process: the pages that poll it
    #: run in the server's thread pool, several at once.
    _lock: Any = field(default_factory=threading.RLock, repr=False, compare=False)

    @property
    def left(self) -> float | None:
        """The seconds the solve is likely still to take, at the pace of its progress so
        far (None: no count of its work yet, or not running)."""
        p = self.progress
        if self.state != "running" or not p.total or p.done <= 0:
            return None
        return round(self.seconds * (p.total - p.done) / p.done, 1)

    @property
    def strategy(self):
        """The solved strategy (``catalogue.load_strategy`` of the document, or of the
        kept file), read once."""
        if self._strategy is None:
            from ..catalogue import load_strategy

            if self.kept_file is None:
                self._strategy = load_strategy(self.document)
            else:
                self._strategy = read_kept(Path(self.kept_file))
                if self._strategy is None:
                    raise PerfectplayError(f"the strategy kept in {self.kept_file} is gone")
        return self._strategy

    def poll(self) -> None:
        """Read what the process sent; notice its end or its time limit."""
        with self._lock:
            self._poll()

    def _poll(self) -> None:
        if self.state != "running":
            return
        try:
            while True:
                what, payload = self.channel.get_nowait()
                if what == "progress":
                    self.progress = Progress(*payload)
                elif what == "done":
                    (self.document, self.pictures, self.kept_file), self.state = payload, "done"
                elif what in ("error", "broken"):
                    self.error, self.state = payload, "failed"
                    self.rules_broken = what == "broken"
        except queue.Empty:
            pass
        except (EOFError, OSError):  # the queue closed under us (the server is stopping)
            pass
        self.seconds = time.monotonic() - self.started
        if self.state == "running":
            if self.seconds > TIME_LIMIT:
                self.stop(f"stopped after the time limit of {TIME_LIMIT:.0f} seconds", "failed")
            elif not self.process.is_alive() and self.channel.empty():
                self.stop("the solve ended without a result", "failed")
        if self.state != "running":
            _end(self.process)

    def settle(self) -> None:
        """Let go of what a finished job holds beyond its document: the strategy read
        from it (read again when asked), its ended process and its progress queue (their
        file descriptors)."""
        with self._lock:
            if self.state == "running":
                return
            self._strategy = None
            if self.process is not None:
                self.process.close()
                self.process = None
            if self.channel is not None:
                self.channel.close()
                self.channel.join_thread()
                self.channel = None

    def stop(self, why: str, state: str = "cancelled") -> None:
        """End the solve (its process and the engine's workers)."""
        with self._lock:
            _end(self.process)
            if self.state == "running":
                self.state, self.error = state, why


def _end(process, grace: float = 2.0) -> None:
    """End `process` if it still runs (SIGTERM, then SIGKILL after `grace` seconds)."""
    if process is None:
        return
    if process.is_alive():
        process.terminate()
        process.join(grace)
        if process.is_alive():
            process.kill()
    process.join(grace)


def _die_with_server(server: int) -> None:
    """In a worker: end this process as soon as the server's process `server` ends,
    however it ends (a thread waits on a descriptor of that process)."""
    try:
        handle = os.pidfd_open(server)
    except ProcessLookupError:  # it ended already
        os._exit(1)
    except (OSError, AttributeError):  # no pidfd (not Linux): the server's stop ends us
        return

    def wait() -> None:
        select.select([handle], [], [])
        os._exit(1)

    threading.Thread(target=wait, name="perfectplay-watch-server", daemon=True).start()


class _Reporter(Silent):
    """Progress sent to the server, at most ten times a second."""

    def __init__(self, channel):
        self.channel = channel
        self.last = 0.0
        self.current = Progress()

    def stage(self, name: str, total: float | None = None, unit: str = "") -> None:
        self.stage_name = name
        self.current = Progress(name, 0, total, unit, "")
        self._send(force=True)

    def update(self, done: float, info: str = "") -> None:
        self.done = done
        self.current.done, self.current.info = done, info
        self._send()

    def _send(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last > 0.1:
            self.last = now
            c = self.current
            self.channel.put(("progress", (c.stage, c.done, c.total, c.unit, c.info)))


def _solve(
    server: int,
    channel,
    spec: str,
    objective: str,
    horizon: int | None,
    exact: bool,
    first: str | None = None,
    keep: str | None = None,
) -> None:
    """A solve's worker: solve (from the guess `first`, if given) and send the document
    and, for a Markov result asked for on the page (`exact`), its picture and policy
    summary (``pictures.policy_pictures``); or the one-line error. The document is kept
    in the file `keep` if given (``kept``: a board's strategy, for the next server)."""
    from ..catalogue import load_game
    from ..engine import engine_of, solve

    _die_with_server(server)
    try:
        game = load_game(spec)
        options: dict[str, Any] = {} if exact else {"exact": False}  # (a Markov engine's)
        if first:
            options["first"] = engine_of(game).guess_index(game, first)
        reporter = _Reporter(channel)
        aim = Objective(objective, horizon)
        solution = solve(game, aim, progress=reporter, **options)
        if keep is not None and keep_solution(Path(keep), solution):  # (the server reads
            # the file: a target's strategy is half a GB of text, not sent through a pipe)
            channel.put(("done", (solution.export(KEPT), None, keep)))
            return
        document, pictures = solution.export(), None
        if exact and game.kind == "markov":
            from .pictures import policy_pictures

            reporter.stage("drawing the value by state and summing up the policy")
            pictures = policy_pictures(game, solution, document)
        channel.put(("done", (document, pictures, None)))
    except (BadRules, IncompleteRules) as err:
        channel.put(("broken", str(err)))
    except PerfectplayError as err:
        channel.put(("error", str(err)))
    except MemoryError:
        channel.put(("error", "out of memory; try smaller parameters"))


def _advise(server: int, send, spec: str, moves: str, objective: Objective, optimal: bool) -> None:
    """An advice worker: the heuristic's guess for `objective` at once, then (if
    `optimal`) the optimal one (the server ends this process when its budget is spent)."""
    from ..catalogue import load_game
    from ..engine import engine_of
    from ..advice import stages, whole_objective

    _die_with_server(server)
    try:
        game = load_game(spec)
        history = engine_of(game).parse_position(game, moves)
        for advice in stages(game, history, whole_objective(game, objective)):
            send.send(advice)
            if not optimal:
                break
    except (PerfectplayError, MemoryError):
        pass


def _values(
    server: int, send, spec: str, positions: list[tuple], objective: Objective, nice: int = 0
) -> None:
    """A review's worker: the values at each position (its moves, the guess played there
    or None, the guess the board suggested there or None) under `objective`
    (``review.position_values``), the last first, each sent as it is worked out (the
    server ends this process when its budget is spent); `nice`: how much it yields the
    processors to others."""
    from ..catalogue import load_game
    from ..engine import engine_of
    from .review import position_values

    _die_with_server(server)
    os.nice(nice)
    try:
        game = load_game(spec)
        engine = engine_of(game)
        for key in reversed(positions):  # (the last are the quickest)
            moves, played, suggested = key
            try:
                history = engine.parse_position(game, moves)
                value = position_values(game, history, played, objective, suggested)
            except PerfectplayError:  # this one cannot be valued; the others still can
                continue
            send.send((key, value))
    except (PerfectplayError, MemoryError):
        pass


def _noop(server: int) -> None:
    _die_with_server(server)


class Jobs:
    """The server's solves (by id) and suggestions, under the caps above."""

    def __init__(self):
        self._jobs: dict[str, Job] = {}
        self._strategies: dict[tuple, Job] = {}  # the Markov boards' solves, by request
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # an advice arrived, or its worker ended
        self._advice: OrderedDict[tuple, Advice] = OrderedDict()  # the last found, by position
        # positions a worker is advising, by kind: "optimal", "heuristic" (its first stage
        # alone), "continuing" (an optimal one no page waits for)
        self._running: dict[tuple, str] = {}
        self._waiting: dict[tuple, int] = {}  # pages waiting, by position
        self._continuing: list[tuple] = []  # the continuing, oldest first
        self._preempted: set[tuple] = set()  # continuing ones ended for a newer one
        self._advice_workers: dict[tuple, Any] = {}  # their worker processes
        self._advised: OrderedDict[tuple, bool] = OrderedDict()  # searched for all its time
        self._values: OrderedDict[tuple, Any] = OrderedDict()  # a review's, by position
        # reviews being valued, by game and objective: the thread and the positions it values
        self._reviews: dict[tuple, tuple[threading.Thread, frozenset]] = {}
        self._ahead: dict[tuple, tuple[threading.Thread, frozenset]] = {}  # as games go
        self._workers: set = set()  # advice workers running
        self._closed = False
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(["perfectplay.web.worker_start"])

    def warm_up(self) -> float:
        """Start the fork server (which loads the kernels and builds the default games'
        tables, ``warm.workers``), load the kernels the boards run here (``warm.pages``),
        and wait until the fork server forks a first worker; the seconds it took."""
        from . import warm

        t0 = time.monotonic()
        worker = self.context.Process(target=_noop, args=(os.getpid(),))
        worker.start()
        warm.pages()
        worker.join()
        return time.monotonic() - t0

    # --- solves ---------------------------------------------------------------------
    def start(
        self,
        spec: str,
        objective: str,
        horizon: int | None,
        exact: bool = True,
        visitor: str | None = None,
        first: str | None = None,
    ) -> Job:
        """Start solving the game `spec` (``name(k=v,...)``) for `visitor`, from the guess
        `first` if given; Busy if too many run."""
        with self._lock:
            return self._start(spec, objective, horizon, exact, visitor, first)

    def _start(
        self,
        spec: str,
        objective: str,
        horizon: int | None,
        exact: bool,
        visitor: str | None = None,
        first: str | None = None,
        keep: Path | None = None,
    ) -> Job:
        if self._closed:
            raise Busy("the server is stopping")
        for job in self._jobs.values():
            job.poll()
        running = [j for j in self._jobs.values() if j.state == "running"]
        if len(running) >= SOLVES_AT_ONCE:
            n = len(running)
            raise Busy(
                f"{n} solve{'s' if n != 1 else ''} already running (at most "
                f"{SOLVES_AT_ONCE} at a time); wait for {'it' if n == 1 else 'one'} "
                f"or cancel {'it' if n == 1 else 'one'}"
            )
        channel = self.context.Queue()
        job = Job(
            str(next(self._ids)), spec, objective, horizon, exact, visitor, first, channel=channel
        )
        job.process = self.context.Process(
            target=_solve,
            args=(os.getpid(), channel, spec, objective, horizon, exact, first, keep and str(keep)),
        )
        job.process.start()
        self._jobs[job.id] = job
        for old in [j for j in self._jobs.values() if j.state != "running"][:-KEEP]:
            old.settle()
        return job

    def get(self, job_id: str) -> Job | None:
        job = self._jobs.get(job_id)
        if job is not None:
            job.poll()
        return job

    def strategy(self, spec: str, objective: str, horizon: int | None = None) -> Job:
        """The solve of `spec`'s strategy a Markov board plays (floating point) for
        `objective` (within `horizon`): the one started already (running or done), else
        the one kept on this machine (``kept``: a staged game's, solved by an earlier
        server), else a new one (Busy if the cap is taken), kept once solved."""
        from ..catalogue import load_game

        key = (spec, objective, horizon)
        with self._lock:
            job = self._strategies.get(key)
            if job is not None:
                job.poll()
                if job.state in ("running", "done") and job.id in self._jobs:
                    return self._held(job)
        # read outside the lock (Yatzy's kept file takes 0.6 s; every board's advice and
        # review take this lock), then held against what another thread made meanwhile
        game, aim = load_game(spec), Objective(objective, horizon)
        kept = kept_strategy(game, aim)
        with self._lock:
            job = self._strategies.get(key)
            if job is not None and job.state in ("running", "done") and job.id in self._jobs:
                return self._held(job)
            if kept is not None:  # solved on this machine before: no solve
                job = Job(str(next(self._ids)), spec, objective, horizon, exact=False)
                job.document, job._strategy, job.state = kept.document, kept, "done"
                job.kept_file = str(kept_path(game, aim))
                self._jobs[job.id] = job
                self._strategies[key] = job
                return self._held(job)
            job = self._start(spec, objective, horizon, False, keep=kept_path(game, aim))
            self._strategies[key] = job
            return self._held(job)

    def _held(self, wanted: Job) -> Job:
        """`wanted`, marked asked for now, the strategies the other finished solves hold
        brought within STRATEGY_BYTES: those asked for least recently let go first."""
        wanted.asked = time.monotonic()
        held = []  # (job, the memory its strategy holds), its strategy read once here
        for job in self._jobs.values():
            strategy = job._strategy
            if job is not wanted and job.state != "running" and strategy is not None:
                held.append((job, strategy.held_bytes))
        total = sum(size for _, size in held)
        for job, size in sorted(held, key=lambda pair: pair[0].asked):
            if total <= STRATEGY_BYTES:
                break
            total -= size
            job.settle()
        return wanted

    # --- advice ---------------------------------------------------------------------
    def advise(self, spec: str, moves: str, objective: Objective, budget: float) -> Advice | None:
        """The advice (``perfectplay.advise``) for `objective` at the position `moves` of
        the game `spec`, as far as it got within `budget` seconds: the final advice if it
        came, else the last stage (the heuristic's at least). One worker advises a
        position, each stage kept as it comes, so that the board's line and its table of
        options (which both ask here) read the same advice. Once no page waits for it,
        an optimal search goes on (up to `ADVICE_WORK` seconds; at most
        `CONTINUING_AT_ONCE` such, the oldest ended first), so that asking again finds
        better, without taking a place a page waits for. A board that finds the
        optimal search's places taken gets the heuristic's stage alone; None when the
        heuristics' places are taken too and nothing is known (never waited for)."""
        key = (spec, moves, objective)
        with self._changed:
            if key not in self._running:
                found = self._advice.get(key)
                if found is not None:
                    self._advice.move_to_end(key)
                    if found.final or key in self._advised:
                        return found
                if self._closed:
                    return found
                kinds = list(self._running.values())
                optimal = kinds.count("optimal") < ADVICE_AT_ONCE
                if not optimal and kinds.count("heuristic") >= HEURISTICS_AT_ONCE:
                    return found
                self._running[key] = "optimal" if optimal else "heuristic"
                threading.Thread(target=self._advise_work, args=(key, optimal), daemon=True).start()
            self._waiting[key] = self._waiting.get(key, 0) + 1
            try:
                deadline = time.monotonic() + budget
                while key in self._running:
                    found = self._advice.get(key)
                    if found is not None and found.final:
                        break
                    left = deadline - time.monotonic() + (HEURISTIC_GRACE if found is None else 0)
                    if left <= 0:
                        break
                    self._changed.wait(left)
            finally:
                self._waiting[key] -= 1
                if not self._waiting[key]:
                    del self._waiting[key]
                    if self._running.get(key) == "optimal":  # no page waits: it goes on
                        self._running[key] = "continuing"
                        self._continuing.append(key)
                        while len(self._continuing) > CONTINUING_AT_ONCE:
                            oldest = self._continuing.pop(0)
                            self._preempted.add(oldest)
                            worker = self._advice_workers.get(oldest)
                            if worker is not None:
                                worker.terminate()  # (its thread joins it and lets go)
            return self._advice.get(key)

    def _advise_work(self, key: tuple, optimal: bool) -> None:
        """An advice worker's thread: each stage kept as it comes (the heuristic's alone
        if not `optimal`); ended after `ADVICE_WORK` seconds, or when let go."""
        spec, moves, objective = key

        def arrived(advice: Advice) -> bool:
            with self._changed:
                _keep(self._advice, key, advice)
                self._changed.notify_all()
            return advice.final or not optimal

        def started(worker) -> None:
            with self._changed:
                self._advice_workers[key] = worker

        try:
            self._run_worker(
                _advise, (spec, moves, objective, optimal), ADVICE_WORK, arrived, started=started
            )
        finally:
            with self._changed:
                self._running.pop(key, None)
                self._advice_workers.pop(key, None)
                if key in self._continuing:
                    self._continuing.remove(key)
                if optimal and key not in self._preempted:  # (asked again: what was found)
                    _keep(self._advised, key, True)
                self._preempted.discard(key)
                self._changed.notify_all()

    def _run_worker(
        self, target, args: tuple, budget: float, last, grace: float = 0.0, started=None
    ):
        """What a worker running `target` (the server's pid, a pipe's end, `args`) sent
        last within `budget` seconds (`grace` more for its first answer), or None; read
        until `last` of an answer is true (`started`: told the worker once it runs). The
        worker is then ended."""
        receive, send = self.context.Pipe(duplex=False)
        worker = self.context.Process(target=target, args=(os.getpid(), send, *args))
        worker.start()
        if started is not None:
            started(worker)
        send.close()
        with self._lock:
            self._workers.add(worker)
            closed = self._closed  # (closed while it started: it is ended at once)
        if closed:
            receive.close()
            _end(worker, grace=0.5)
            with self._lock:
                self._workers.discard(worker)
            return None
        found = None
        deadline = time.monotonic() + budget
        try:
            while True:
                left = deadline - time.monotonic()
                if found is None:  # the first answer is worth a little longer
                    left += grace
                if left <= 0 or not receive.poll(left):
                    break
                found = receive.recv()
                if last(found):
                    break
        except (EOFError, OSError):  # the worker ended (all it had to say is said)
            pass
        finally:
            receive.close()
            _end(worker, grace=0.5)
            with self._lock:
                self._workers.discard(worker)
        return found

    # --- the values a review needs ----------------------------------------------------
    def values(
        self,
        spec: str,
        positions: list[tuple],
        objective: Objective,
        budget: float,
        ahead: bool = False,
    ) -> Valuing:
        """The values (``review.PositionValues``) under `objective` at the deduction
        `positions` of the game `spec` ((moves, the guess played there or None, the guess
        the board suggested there or None) each)
        known after `budget` seconds: a worker values those not known yet, the last
        first, and goes on after the page answered (for up to `REVIEW_WORK` seconds),
        keeping each value as it comes, so that asking again finds more. `ahead`: asked by
        a board as its game goes (a place of its own, `REVIEWS_AHEAD`, so that a review
        page never waits behind another board's)."""
        review = (spec, objective)
        with self._lock:
            unknown = self._unknown(review, positions)
            if not unknown:
                return Valuing(self._known(review, positions), "done")
            places = self._ahead if ahead else self._reviews
            running, valuing = self._reviews.get(review) or self._ahead.get(review) or (None, ())
            if running is None:
                cap = REVIEWS_AHEAD if ahead else REVIEWS_AT_ONCE
                if self._closed or len(places) >= cap:
                    return Valuing(self._known(review, positions), "busy")
                running, valuing = (
                    threading.Thread(
                        target=self._review, args=(review, unknown, ahead), daemon=True
                    ),
                    frozenset(unknown),
                )
                running.start()
                places[review] = (running, valuing)
        running.join(budget)
        with self._lock:
            known = self._known(review, positions)
            if len(known) == len(positions):
                return Valuing(known, "done")
            # given up only by a worker that was valuing them all (another board's, on
            # other moves of the same game, leaves the rest to the next ask)
            ended = not running.is_alive() and set(unknown) <= valuing
            return Valuing(known, "given up" if ended else "working")

    def _known(self, review: tuple, positions: list) -> dict:
        return {k: self._values[(*review, *k)] for k in positions if (*review, *k) in self._values}

    def _unknown(self, review: tuple, positions: list) -> list:
        return [k for k in positions if (*review, *k) not in self._values]

    def _review(self, review: tuple, todo: list, ahead: bool = False) -> None:
        """A review's values worker, run by a thread of the server: each value kept as it
        arrives; ended after `REVIEW_WORK` seconds (niced when valued `ahead`: the advice
        a page waits for goes first)."""
        left = set(todo)

        def arrived(answer) -> bool:
            key, value = answer
            with self._lock:
                _keep(self._values, (*review, *key), value)
            left.discard(key)
            return not left

        try:
            nice = REVIEW_NICENESS if ahead else 0
            self._run_worker(_values, (review[0], todo, review[1], nice), REVIEW_WORK, arrived)
        finally:
            with self._lock:
                self._reviews.pop(review, None)
                self._ahead.pop(review, None)

    def advice_known(self, spec: str, moves: str, objective: Objective) -> Advice | None:
        """The advice kept for the position `moves` (what the board said there), or None;
        nothing is worked out."""
        with self._lock:
            return self._advice.get((spec, moves, objective))

    def close(self) -> None:
        """End every worker (solves, advice, options and reviews); refuse new work."""
        with self._lock:
            self._closed = True
            jobs, workers = list(self._jobs.values()), list(self._workers)
        for job in jobs:
            job.stop("the server stopped")
        for worker in workers:
            _end(worker, grace=0.5)
        with self._lock:  # their queues' semaphores freed now, not reported leaked at exit
            self._jobs.clear()
            self._strategies.clear()
