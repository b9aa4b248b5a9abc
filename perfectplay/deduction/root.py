"""Solving from a position: subproblems handed to workers through an Executor.

A ``Subproblem`` (game, objective, speed-ups, history, consistent set, guesses left,
budget) is a value; its ``Answer`` (value or lower bound, the subtree when within
budget, nodes searched) is another. ``solve_subproblem`` answers one in any process,
with that process's own search and memo. ``solve_position`` values a position on a
set of lanes, each a ``concurrent.futures.Executor`` of one worker: threads of this
process by default (``ThreadLane``: the compiled search releases the GIL; they share
the feedback table), or a Dask cluster's workers. On one lane the whole position is one
subproblem (run on a thread, so the caller stays responsive to Ctrl-C and can report
progress). On several, the position is split the way the core searches it
(``_Split``): guesses in the core's order, one after the other, the cells of each
queued in the core's order (``Search.cells``) as tasks for whichever lane is free,
large cells split in turn.

With a result store (``stored.AnswerStore``) the position and its cells of at least
``MIN_SECRETS`` secrets are looked up before any work and kept as soon as they are
answered; on one lane the position is then split into the cells of its first guesses
(``_Split`` run on that lane, its cells whole and one after the other), so that an
interrupted solve resumes with at most the cells in flight to redo.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable

import numpy as np

from .feedback import build_table
from .model import DeductionGame, History
from .objective import INF, SearchObjective, search_objective
from .search import Search, SpeedUps
from .stored import MIN_SECRETS, AnswerStore
from .tree import NO_ROWS, Answer, Node

#: Below this many secrets a position is searched on one lane (workers cost more to start).
PARALLEL_MIN_SECRETS = 2000

#: Seconds between progress reports while waiting for a lane.
POLL = 0.25

#: Seconds between two keepings of the searches' journals in the store (``_Journaling``).
JOURNAL_EVERY = 1.0

#: On several lanes, a set of at least this many secrets is split rather than handed to
#: one lane whole (``_Split``). Splitting more finely spreads related sets over memos
#: that do not share (the thresholds measured: docs/measurements.md).
SPLIT_MIN_SECRETS = 1000


@dataclass(frozen=True, eq=False)
class Subproblem:
    """A consistent set to value: after `history`, within `cap` guesses, below `budget`."""

    game: DeductionGame
    objective: str | SearchObjective
    speedups: SpeedUps
    history: History
    subset: np.ndarray
    cap: int
    budget: int = INF
    first: int | None = None  # a guess imposed at this position (None: the best one)
    top: int | None = None  # search only this many best guesses by bound at each node


_SEARCHES: dict[tuple, Search] = {}


def search_for(
    game: DeductionGame,
    objective: str | SearchObjective,
    speedups: SpeedUps,
    searches: dict | None = None,
    top: int | None = None,
) -> Search:
    """The search for (game, objective, speed-ups, breadth `top`) in `searches` (by
    default this process's own: one memo shared by every task a worker runs);
    `objective` by name (``objective.OBJECTIVES``) or, when it carries data of its own
    (costs), as a value."""
    searches = _SEARCHES if searches is None else searches
    key = (game, objective, speedups, top)
    if key not in searches:
        searches[key] = Search(build_table(game), search_objective(objective), speedups, top=top)
    return searches[key]


def grow(search: Search, subset: np.ndarray, history: History, cap: int) -> Node | None:
    """The optimal tree of `subset` within `cap` guesses (memo hits once its value is
    known); None when no guess can help. For the losses objective, cells that cannot
    win a secret any more get no subtree."""
    rows = search.tree(subset, history, cap)
    if len(rows) == 0:
        return None
    nodes = [Node(int(g)) for g in rows[:, 0]]
    for node, (_, parent, f) in zip(nodes[1:], rows[1:].tolist()):
        nodes[parent].children[f] = node
    return nodes[0]


def solve_subproblem(
    sub: Subproblem, searches: dict | None = None, seeds: np.ndarray | None = None
) -> Answer:
    """Answer `sub` in this process (a worker's task) with a search of `searches`. A
    relayed task (``Relay``) has `seeds`, the journal rows other lanes found (perhaps
    none), seeded into the memos first, and returns the rows its own search wrote; one
    not relayed (None) neither (so a solve on one lane never compiles the journal's
    reader)."""
    search = search_for(sub.game, sub.objective, sub.speedups, searches, sub.top)
    if seeds is not None:
        search.seed(seeds)
    before, journaled = search.nodes, search.journaled
    valued = search.best(sub.subset, sub.history, sub.cap, sub.budget)
    tree = None
    if valued.guess is not None:
        tree = grow(search, sub.subset, sub.history, sub.cap)
    found = NO_ROWS if seeds is None else search.journal_since(journaled)[0]
    return Answer(valued.value, tree, search.nodes - before, found)


class ThreadLane(Executor):
    """An Executor running its tasks one at a time, in order, on a daemon thread of this
    process, with the searches (memos) of its own that its subproblems use (``_hand``).

    The compiled search releases the GIL, so lanes run side by side on the cores and the
    caller keeps handling signals and reporting progress; they share the feedback table
    and start at once (no process to spawn, no table to rebuild). A daemon thread never
    holds up the exit after Ctrl-C; a task already running when its future is cancelled
    runs to its end (the lane's next task waits for it).
    """

    def __init__(self, searches: dict | None = None) -> None:
        self.searches = {} if searches is None else searches
        self._tasks: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        self._tasks.put((future, fn, args, kwargs))
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, daemon=True)
            self._thread.start()
        return future

    def _work(self) -> None:
        while (task := self._tasks.get()) is not None:
            future, fn, args, kwargs = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to the caller, who re-raises it
                future.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop after the running task (never waited for: see the class docstring)."""
        if cancel_futures:
            pending = []
            while not self._tasks.empty():
                pending.append(self._tasks.get())
            for task in pending:
                if task is not None:
                    task[0].cancel()
        self._tasks.put(None)


def thread_lanes(workers: int) -> list[Executor]:
    """`workers` lanes on threads of this process, each with its own searches."""
    return [ThreadLane() for _ in range(workers)]


def _hand(lane: Executor, sub: Subproblem, seeds: np.ndarray | None = None) -> Future:
    """`sub` solved on `lane` (relayed with `seeds`, see ``solve_subproblem``): on a thread
    lane with the lane's own searches, on a worker process (a cluster's) with that
    process's."""
    if isinstance(lane, ThreadLane):
        return lane.submit(solve_subproblem, sub, lane.searches, seeds)
    return lane.submit(solve_subproblem, sub, None, seeds)


class Relay:
    """What the lanes' searches find inside their tasks, passed on between them.

    Each lane's search keeps its own memo (a Dask worker's is in its own process), so a
    set valued on one lane is searched again when another lane meets it; and which lane
    meets it depends on timing. On Bulls and Cows, a tie-break pass (within one guess
    fewer than the worst case) took 6,000 nodes when its cells landed on the lanes that
    had valued their sets in the uncapped pass, and 57,000 when they did not. So every
    task returns the values and bounds of the large sets it settled (its search's
    journal rows, ``Answer.found``), and each task handed to a lane carries the rows the
    other lanes found since that lane's last task, seeded into its memos before it runs.
    The same for thread lanes and Dask workers: the rows travel with the tasks, through
    the scheduler. One relay serves every pass of a solve on the same lanes; rows pass
    only between searches of the same game, objective and breadth (a set's value under
    one objective is not its value under another), and are let go once every lane has
    been handed them.
    """

    def __init__(self, lanes: list[Executor]) -> None:
        self._lanes = list(lanes)
        self._found: dict[tuple, list[tuple[Executor, np.ndarray]]] = {}  # by search
        self._dropped: dict[tuple, int] = {}  # by search: entries every lane was handed
        self._passed: dict[tuple, int] = {}  # (search, lane) -> entries handed to the lane
        self._lock = threading.Lock()

    def hand(self, lane: Executor, sub: Subproblem) -> Future:
        """`sub` on `lane`, with the rows the other lanes found since its last task."""
        context = (sub.game, sub.objective, sub.top)
        with self._lock:
            found, dropped = self._found.setdefault(context, []), self._dropped.get(context, 0)
            start = self._passed.get((context, lane), 0) - dropped
            self._passed[(context, lane)] = dropped + len(found)
            rows = [rows for origin, rows in found[start:] if origin is not lane]
            every = min(self._passed.get((context, other), 0) for other in self._lanes)
            if every > dropped:  # handed to every lane: kept no longer
                del found[: every - dropped]
                self._dropped[context] = every
        future = _hand(lane, sub, np.concatenate(rows) if rows else NO_ROWS)
        future.add_done_callback(partial(self._returned, context, lane))
        return future

    @property
    def held(self) -> int:
        """Rows kept for lanes that have not been handed them yet."""
        with self._lock:
            return sum(len(rows) for found in self._found.values() for _, rows in found)

    def _returned(self, context: tuple, lane: Executor, future: Future) -> None:
        answer = _result(future)
        if answer is not None and len(answer.found):
            with self._lock:
                self._found[context].append((lane, answer.found))


def relay_for(lanes: list[Executor], speedups: SpeedUps) -> Relay | None:
    """The relay of a solve on `lanes` (None on one lane, or with the relay switched off)."""
    return Relay(lanes) if len(lanes) > 1 and speedups.relay else None


def open_lanes(
    workers: int | None, cluster: str | None, secrets: int, objective_lanes: int | None = None
) -> list[Executor]:
    """The lanes for a position of `secrets` secrets: one below ``PARALLEL_MIN_SECRETS``
    or with one worker; else the Dask `cluster`'s workers ("local:N" or a scheduler's
    address), or `workers` threads of this process. The one place that chooses the
    default: `workers` None takes the objective's own number (`objective_lanes`: one for
    the probability objectives), else every core."""
    if workers is None:
        workers = objective_lanes or os.cpu_count() or 1
    if (workers <= 1 and cluster is None) or secrets < PARALLEL_MIN_SECRETS:
        return [ThreadLane()]
    if cluster is not None:
        from ..cluster import cluster_lanes

        return cluster_lanes(cluster)
    return thread_lanes(workers)


def cluster_use(cluster: str, secrets: int) -> str:
    """What a solve given the Dask `cluster` did with it, for its result: the cluster's
    lanes, or this machine when the position's `secrets` are too few to split."""
    if secrets >= PARALLEL_MIN_SECRETS:
        return f"{cluster}: the cells split over its workers"
    return (
        f"not used: {secrets:,} secrets are too few to split (at least "
        f"{PARALLEL_MIN_SECRETS:,}); solved on this machine"
    )


def close_lanes(lanes: list[Executor], abort: bool = False) -> None:
    """Shut the lanes down, cancelling the tasks not started; with `abort` (Ctrl-C, an
    error) without waiting for those running: a thread lane's ends with this process, a
    local Dask cluster's workers stop with it."""
    for lane in lanes:
        lane.shutdown(wait=not abort, cancel_futures=True)


@dataclass
class Position:
    """What `solve_position` reports: the value (or bound), the tree, the nodes searched."""

    value: int
    tree: Node | None
    nodes: int


def _wait(
    future: Future, search: Search | None = None, progress: Callable[[str], None] | None = None
) -> Answer:
    """The answer of `future`, reporting the nodes `search` counts meanwhile (a search
    running on this process)."""
    start = search.nodes if search is not None else 0
    while True:
        try:
            return future.result(timeout=POLL)
        except TimeoutError:
            if progress and search is not None:
                progress(f"{search.nodes - start:,} nodes searched")


def on_a_thread(fn: Callable[[], object]) -> None:
    """Run `fn` on a daemon thread, waiting for it in short steps: this thread keeps
    answering Ctrl-C meanwhile (numba compiling or running a kernel would not)."""
    lane = ThreadLane()
    try:
        _wait(lane.submit(fn))
    finally:
        lane.shutdown()


@dataclass
class Crew:
    """What positions are solved with, from one call to the next: the lanes, the relay
    that passes what one lane finds to the others (several lanes, ``relay_for``), this
    process's searches (``search_for``; None: the process's own), the store that keeps
    answers across solves, the progress line, and the cell bounds `known` from earlier
    passes (the tie-break passes)."""

    lanes: list[Executor]
    progress: Callable[[str], None] | None = None
    known: dict = field(default_factory=dict)
    searches: dict | None = None
    store: AnswerStore | None = None
    relay: Relay | None = None


def solve_position(sub: Subproblem, crew: Crew) -> Position:
    """Value `sub` with `crew` (see the module's docstring)."""
    store = crew.store
    if store is not None:
        recalled = store.recall(sub)
        if recalled.answer is not None:
            if crew.progress:
                crew.progress("answered from the store")
            return Position(recalled.answer.value, recalled.answer.tree, 0)
    if store is None:
        return _solve_position(sub, crew)
    with _Journaling(sub, crew.lanes, crew.searches, store):
        position = _solve_position(sub, crew)
    store.record(sub, Answer(position.value, position.tree, position.nodes))
    return position


class _Journaling:
    """While a position is solved with a store, the values the searches of this process
    find inside their tasks (``core.journal``) are kept in the store every JOURNAL_EVERY
    seconds, and each search is seeded with those kept before (``AnswerStore.seed``):
    a solve killed inside a long task resumes that task with what it had found. The
    searches are those of the position's game in this process and its thread lanes (a
    Dask worker's are in its own process). The journal only saves time: a failure to
    keep it stops the keeping and fails nothing (the answers' own writes report a
    store that cannot be written)."""

    def __init__(
        self, sub: Subproblem, lanes: list[Executor], searches: dict | None, store: AnswerStore
    ) -> None:
        self.store, self.game, self.done = store, sub.game, threading.Event()
        own = _SEARCHES if searches is None else searches
        self.dicts = [own] + [lane.searches for lane in lanes if isinstance(lane, ThreadLane)]
        fresh = []
        for found in self.dicts:  # each search seeded once, before it runs
            search = search_for(sub.game, sub.objective, sub.speedups, found, sub.top)
            if not search.seeded and all(search is not f for f in fresh):
                fresh.append(search)
        store.seed(fresh)
        for search in fresh:
            search.seeded = True
        self.thread = threading.Thread(target=self._keep, daemon=True)
        self.failed = False

    def __enter__(self) -> "_Journaling":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()
        self._drain()  # what was found since the last keeping, after an interruption too

    def _keep(self) -> None:
        while not self.done.wait(JOURNAL_EVERY):
            self._drain()

    def _drain(self) -> None:
        if self.failed:
            return
        try:
            for found in self.dicts:
                for key, search in list(found.items()):
                    if key[0] == self.game:  # another game's values are not this one's
                        self.store.keep_journal(search)
        except Exception:  # noqa: BLE001 - see the class docstring
            self.failed = True


def _solve_position(sub: Subproblem, crew: Crew) -> Position:
    if len(crew.lanes) > 1 and len(sub.subset) >= PARALLEL_MIN_SECRETS:
        return _on_lanes(sub, crew)
    # one lane: a thread using the caller's searches (this thread's work alternates with it)
    lane = ThreadLane(_SEARCHES if crew.searches is None else crew.searches)
    try:
        return _on_lanes(sub, replace(crew, lanes=[lane], relay=None))
    finally:
        lane.shutdown()


def _on_lanes(sub: Subproblem, crew: Crew) -> Position:
    search = search_for(sub.game, sub.objective, sub.speedups, crew.searches, sub.top)
    alone = len(crew.lanes) == 1
    small = crew.store is None or len(sub.subset) < 2 * MIN_SECRETS
    if alone and sub.first is None and small:
        answer = _wait(_hand(crew.lanes[0], sub), search, crew.progress)  # the core, whole
        return Position(answer.value, answer.tree, answer.nodes)
    # One root loop whatever the lanes: on one lane (a thread sharing this search) the
    # cells run whole, one after the other, each with the budget the others leave.
    split = _Split(crew, search, INF if alone else SPLIT_MIN_SECRETS)
    answer = _wait(split.start(sub), search if alone else None, crew.progress if alone else None)
    return Position(answer.value, answer.tree, split.nodes)


def _answered(answer: Answer) -> Future:
    """A future already holding `answer` (a cell answered from the store)."""
    future: Future = Future()
    future.set_result(answer)
    return future


def _known_bound(known: dict[bytes, dict[int, int]], key: bytes, cap: int) -> int:
    """The best lower bound `known` holds for the cell `key` within `cap` guesses: a value
    or bound found with at least as many guesses (more guesses never cost more)."""
    return max((v for c, v in known.get(key, {}).items() if c >= cap), default=0)


def _guess_cells(search: Search, sub: Subproblem, g: int, known: dict, store):
    """The cells of playing `g` at `sub`'s position (in the core's order), their lower bounds
    (the core's look, what earlier passes found, what the store knows) and the guess's
    bound: (parts, keys, lower, total)."""
    objective, cap, n = search.objective, sub.cap, len(sub.subset)
    parts = [
        (f, part)
        for f, part in search.cells(g, sub.subset)
        if not (objective.determine and len(part) == 1)
    ]  # found, costing nothing
    keys = [part.tobytes() for _, part in parts]
    lower = [
        max(
            _cell_lower(search, part, sub.history + ((g, f),), cap - 1),
            _known_bound(known, k, cap - 1),
        )
        for (f, part), k in zip(parts, keys)
    ]
    if store is not None:  # what the store knows raises the bounds
        for k, (f, part) in enumerate(parts):
            if len(part) >= MIN_SECRETS:
                lower[k] = max(lower[k], store.bound(_cell(sub, g, f, part)))
    price = (
        search.table.game.guess_cost(search.table.guesses[g], sub.history)
        if objective.costed
        else 0
    )
    total = (objective.node_cost + price) * n + sum(lower)
    return parts, keys, lower, total


def guess_bound(search: Search, sub: Subproblem, g: int) -> int:
    """A lower bound of playing `g` first at `sub`'s position, as the core bounds a guess
    before searching it (each cell's look at its own candidates, ``_guess_cells``)."""
    return _guess_cells(search, sub, g, {}, None)[3]


def _cell(sub: Subproblem, g: int, f: int, part: np.ndarray, budget: int = INF) -> Subproblem:
    """The subproblem of the cell `part` that feedback `f` to guess `g` leaves."""
    return replace(
        sub,
        history=sub.history + ((g, f),),
        subset=part,
        cap=sub.cap - 1,
        budget=budget,
        first=None,
    )


def _learn(known: dict, key: bytes, cap: int, value: int) -> None:
    """Remember a cell's value or bound for the later passes (``_known_bound``)."""
    by_cap = known.setdefault(key, {})
    by_cap[cap] = max(by_cap.get(cap, 0), value)


class _Dispatch:
    """Work handed to whichever lane is idle, in the order it was queued (a lane runs one
    task at a time, so a lane that finishes early takes the next, whatever its size).

    What is queued is a *maker*, called only when a lane is free: it returns the
    subproblem to run then (its budget computed from what is known at that moment), or
    a future that answers without a lane (the store's answer, a split set), or None
    when the work is no longer wanted. A task cancelled before it started never runs;
    one running runs to its end (its answer is then ignored)."""

    def __init__(self, lanes: list[Executor], relay: Relay | None = None) -> None:
        self._hand = _hand if relay is None else relay.hand
        self._idle = list(reversed(lanes))
        self._waiting: deque = deque()
        self._lock = threading.Lock()

    def submit(self, make: Callable[[], "Subproblem | Future | None"]) -> Future:
        """The answer of what `make` returns when a lane is free (None: no answer)."""
        ours: Future = Future()
        with self._lock:
            self._waiting.append((make, ours))
        self._pump()
        return ours

    def _pump(self) -> None:
        while True:
            with self._lock:
                if not self._idle or not self._waiting:
                    return
                make, ours = self._waiting.popleft()
                if not ours.set_running_or_notify_cancel():
                    continue
                lane = self._idle.pop()
            try:
                work = make()
            except BaseException as exc:  # handed to whoever waits for the work
                work = _failed(exc)
            if work is not None and not isinstance(work, Future):  # a task for the lane
                self._hand(lane, work).add_done_callback(partial(self._settle, lane, ours))
                continue
            with self._lock:
                self._idle.append(lane)
            if work is None:
                ours.set_result(None)
            else:
                work.add_done_callback(partial(_copy, ours))

    def _settle(self, lane: Executor, ours: Future, theirs: Future) -> None:
        _copy(ours, theirs)
        with self._lock:
            self._idle.append(lane)
        self._pump()


def _failed(exc: BaseException) -> Future:
    """A future holding the exception `exc`."""
    future: Future = Future()
    future.set_exception(exc)
    return future


def _copy(ours: Future, theirs: Future) -> None:
    """Hand the outcome of `theirs` to `ours`."""
    try:
        ours.set_result(theirs.result())
    except BaseException as exc:  # handed to whoever waits for the work
        ours.set_exception(exc)


def _in_a_thread(fn: Callable[[], Answer]) -> Future:
    """`fn()` on a daemon thread of its own, as a future."""
    future: Future = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True).start()
    return future


class _Stop:
    """Set when the work below a node is no longer wanted (its guess lost); set too when
    the node above it is (``parent``)."""

    def __init__(self, parent: "_Stop | None" = None) -> None:
        self.parent, self._set = parent, False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set or (self.parent is not None and self.parent.is_set())


class _Guess:
    """One guess being valued at a split set: its cells' bounds, replaced by their values
    as they come in, and their sum (shared by the makers of its cells' tasks)."""

    def __init__(self, lower: list[int], total: int, best: int, stop: _Stop) -> None:
        self.lower, self.total, self.best, self.stop = list(lower), total, best, stop
        self.done = [False] * len(lower)
        self.lock = threading.Lock()

    def budget(self, k: int) -> int | None:
        """Cell k's budget now (what the best value leaves it), None if the guess lost."""
        with self.lock:
            if self.stop.is_set() or self.total >= self.best:
                return None
            return self.best - (self.total - self.lower[k])

    def learn(self, k: int, answer: Answer | None) -> None:
        """Cell k answered: its value (or bound) replaces its lower bound, once."""
        if answer is None:
            return
        with self.lock:
            if not self.done[k]:
                self.done[k] = True
                self.total += answer.value - self.lower[k]
                self.lower[k] = answer.value


class _Split:
    """A position valued on several lanes, in the core's order, with its cells side by
    side.

    The one root loop of the search, on one lane or several. A set of fewer than
    `split_min` secrets (``SPLIT_MIN_SECRETS`` on several lanes; on one, every set) is one
    task. A larger one is split: its guesses are tried in the core's order, one after the other, each against
    the best value found so far (a guess whose bound reaches it is not tried). A guess's
    cells are queued in the core's order, each as a task made only when a lane is free, with
    the budget that the best value and what its sibling cells have shown by then leave it
    (large cells are split in turn, on a thread of their own); as soon as the guess is
    known to lose, the cells not started are dropped. So the lanes do the work the core
    would do alone, in nearly its order, with looser budgets only for the cells running
    side by side. Tasks go to whichever lane is idle (``_Dispatch``). Cells of at least
    ``MIN_SECRETS`` secrets are looked up in the store first (for an exact answer, then
    again with their budget once it is known: a bound reaching it settles them) and kept
    there once answered (tasks as soon as they finish, so that a kill loses only the
    tasks in flight).

    Values are the core's, as on one lane; which of two equally good guesses a tree keeps
    may differ from run to run (a lane's memo can decide it, and which lane answers a
    task depends on timing).
    """

    def __init__(self, crew: Crew, search: Search, split_min: int) -> None:
        self.dispatch = _Dispatch(crew.lanes, crew.relay)
        self.split_min = split_min  # cells this large are split in turn
        self.search, self.progress, self.known, self.store = (
            search,
            crew.progress,
            crew.known,
            crew.store,
        )
        self._searching = threading.Lock()  # the caller's search serves one thread at a time
        self._counting = threading.Lock()
        self.nodes = 0

    def start(self, sub: Subproblem) -> Future:
        """`sub`'s answer, as a future (the work runs on threads of this process and on
        the lanes)."""
        return _in_a_thread(lambda: self._split(sub, _Stop(), top=True))

    def _counted(self, future: Future) -> Future:
        """`future`'s outcome, handed on once its nodes are counted: whoever waits for the
        returned future sees them in ``nodes`` (a done-callback of `future` itself may run
        after its waiters wake, and a solve's count would then miss its last cell's)."""
        counted: Future = Future()

        def count(done: Future) -> None:
            answer = _result(done)
            if answer is not None:
                with self._counting:
                    self.nodes += answer.nodes
            _copy(counted, done)

        future.add_done_callback(count)
        return counted

    def _split(self, sub: Subproblem, stop: _Stop, top: bool = False) -> Answer:
        """The best of `sub`'s guesses (the one it imposes, if any), or a bound."""
        if sub.first is not None:
            guesses = [(sub.first, 0)]
        else:
            with self._searching:
                obvious, _, cand, bound, _, _ = self.search.prepare(
                    sub.subset, sub.history, sub.cap
                )
            if obvious is not None or len(cand) == 0:  # one task: the core knows at once
                return self._counted(self.dispatch.submit(lambda: sub)).result()
            guesses = list(zip(cand.tolist(), bound.tolist()))
        best, best_tree = sub.budget, None
        for g, bound in guesses:
            if bound >= min(best, INF) or stop.is_set():
                break
            value, tree = self._guess(sub, g, best, stop, top)
            if tree is not None and value < best:
                best, best_tree = value, tree
        return Answer(best, best_tree, 0)

    def _guess(
        self, sub: Subproblem, g: int, best: int, stop: _Stop, top: bool
    ) -> tuple[int, Node | None]:
        """The value of playing `g` first, with its tree, if below `best`; else a lower
        bound and no tree."""
        search, objective, cap = self.search, self.search.objective, sub.cap
        with self._searching:
            parts, keys, lower, total = _guess_cells(search, sub, g, self.known, self.store)
        if total >= min(best, INF):
            return total, None
        guess = _Guess(lower, total, best, _Stop(stop))
        futures, counted = [], []  # (cancel the first; wait for the second)
        for k, (f, part) in enumerate(parts):
            kept = self.store is not None and len(part) >= MIN_SECRETS
            recalled = self.store.recall(_cell(sub, g, f, part)) if kept else None
            if recalled is not None and recalled.answer is not None:
                future = _answered(recalled.answer)
            else:
                future = self.dispatch.submit(partial(self._make, sub, g, f, part, k, guess))
                if kept and len(part) < self.split_min:  # a task: kept as soon as it ends
                    self.store.record_when_done(_cell(sub, g, f, part), future)
            future.add_done_callback(lambda done, k=k: guess.learn(k, _result(done)))
            futures.append(future)
            counted.append(self._counted(future))
        node = Node(g)
        for k, ((f, part), key) in enumerate(zip(parts, keys)):
            answer = counted[k].result()
            if stop.is_set() or answer is None:  # dropped (from above, or this guess lost)
                guess.stop.set()
                return guess.total, None
            guess.learn(k, answer)
            _learn(self.known, key, cap - 1, answer.value)
            if top and self.progress:
                table = search.table
                self.progress(
                    f"{table.game.format_code(table.guesses[g])} (cap {cap}): cell "
                    f"{k + 1}/{len(parts)} of {len(part)} secrets -> "
                    f"{answer.value if answer.tree is not None else 'over budget'}"
                    f"{_stored_note(self.store)}"
                )
            if answer.tree is None or guess.total >= best:
                guess.stop.set()
                for other in futures[k + 1 :]:
                    other.cancel()
                return guess.total, None
            if objective.exhaust_inf or answer.value < objective.exhausted(len(part)):
                node.children[f] = answer.tree
        return guess.total, node

    def _make(
        self, sub: Subproblem, g: int, f: int, part: np.ndarray, k: int, guess: _Guess
    ) -> "Subproblem | Future | None":
        """Cell k's work, made when a lane is free (see ``_Dispatch``)."""
        budget = guess.budget(k)
        if budget is None:
            return None
        cell = _cell(sub, g, f, part, budget)
        if self.store is not None and len(part) >= MIN_SECRETS:  # a bound reaching the budget
            recalled = self.store.recall(cell)
            if recalled.answer is not None:
                return _answered(recalled.answer)
        if len(part) < self.split_min:
            return cell

        def split() -> Answer:
            answer = self._split(cell, guess.stop)
            if self.store is not None and not guess.stop.is_set():  # (dropped: no bound)
                self.store.record(cell, answer)
            return answer

        return _in_a_thread(split)


def _result(future: Future) -> Answer | None:
    """A finished future's answer; None if it was cancelled or failed (the waiting loop
    sees why)."""
    if future.cancelled() or future.exception() is not None:
        return None
    return future.result()


def _cell_lower(search: Search, part: np.ndarray, history: History, cap: int) -> int:
    """A cell's lower bound as the core bounds it: one look at its own candidates
    (``lookahead``) or the bound by size."""
    if search.speed.bounds and search.speed.lookahead:
        return search.cell_bound(part, history, cap)
    return search.lower(len(part), cap)


def _stored_note(store: AnswerStore | None) -> str:
    """How many answers came from the store so far, for the progress line."""
    if store is None:
        return ""
    tally = store.tally
    loaded = f", {tally.journal_read:,} values inside tasks loaded" if tally.journal_read else ""
    return f" ({tally.read} from the store, {tally.written} kept{loaded})"
