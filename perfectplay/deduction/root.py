"""Solving from a position: subproblems handed to workers through an Executor.

A ``Subproblem`` (game, objective, speed-ups, history, consistent set, guesses left,
budget) is a value; its ``Answer`` (value or lower bound, the subtree when within
budget, nodes searched) is another. ``solve_subproblem`` answers one in any process,
with that process's own search and memo. ``solve_position`` values a position on a
set of lanes, each a ``concurrent.futures.Executor`` of one worker: threads of this
process by default (``ThreadLane``: the compiled search releases the GIL; they share
the feedback table), or a Dask cluster's workers. On one lane the whole position is one
subproblem (run on a thread, so the caller stays responsive to Ctrl-C and can report
progress); on several, the first guesses are tried in the order
the core would try them and the cells of each are handed out, largest first to the
least loaded lane, each with the budget it alone may spend. A cell keeps its lane
across passes, so a later pass (the worst-case tie-break, with one guess less) finds
that lane's memo. Any Executor fits here, a cluster's included.

With a result store (``stored.AnswerStore``) the position and the cells of its first
guesses are looked up before any work and kept as soon as they are answered; the
position is then split into its cells even on one lane, so that an interrupted solve
resumes with at most the cells in flight to redo.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .feedback import build_table
from .model import DeductionGame, History
from .objective import INF, OBJECTIVES, SearchObjective
from .search import Search, SpeedUps
from .stored import MIN_SECRETS, AnswerStore
from .tree import Node

#: Below this many secrets a position is searched on one lane (workers cost more to start).
PARALLEL_MIN_SECRETS = 2000

#: Seconds between progress reports while waiting for a lane.
POLL = 0.25


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


@dataclass(frozen=True)
class Answer:
    """A subproblem's value (with its optimal subtree) or, with no tree, a lower bound."""

    value: int
    tree: Node | None
    nodes: int


_SEARCHES: dict[tuple, Search] = {}


def search_for(game: DeductionGame, objective: str | SearchObjective, speedups: SpeedUps,
               searches: dict | None = None, top: int | None = None) -> Search:
    """The search for (game, objective, speed-ups, breadth `top`) in `searches` (by
    default this process's own: one memo shared by every task a worker runs);
    `objective` by name (``objective.OBJECTIVES``) or, when it carries data of its own
    (costs), as a value."""
    searches = _SEARCHES if searches is None else searches
    key = (game, objective, speedups, top)
    if key not in searches:
        data = OBJECTIVES[objective] if isinstance(objective, str) else objective
        searches[key] = Search(build_table(game), data, speedups, top=top)
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


def solve_subproblem(sub: Subproblem, searches: dict | None = None) -> Answer:
    """Answer `sub` in this process (a worker's task) with a search of `searches`."""
    search = search_for(sub.game, sub.objective, sub.speedups, searches, sub.top)
    before = search.nodes
    valued = search.best(sub.subset, sub.history, sub.cap, sub.budget)
    tree = None
    if valued.guess is not None:
        tree = grow(search, sub.subset, sub.history, sub.cap)
    return Answer(valued.value, tree, search.nodes - before)


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


def _hand(lane: Executor, sub: Subproblem) -> Future:
    """`sub` solved on `lane`: on a thread lane with the lane's own searches, on a worker
    process (a cluster's) with that process's."""
    if isinstance(lane, ThreadLane):
        return lane.submit(solve_subproblem, sub, lane.searches)
    return lane.submit(solve_subproblem, sub)


def open_lanes(workers: int, cluster: str | None, secrets: int) -> list[Executor]:
    """The lanes for a position of `secrets` secrets: one below ``PARALLEL_MIN_SECRETS``
    or with one worker; else the Dask `cluster`'s workers ("local:N" or a scheduler's
    address), or `workers` threads of this process."""
    if (workers <= 1 and cluster is None) or secrets < PARALLEL_MIN_SECRETS:
        return [ThreadLane()]
    if cluster is not None:
        from ..cluster import cluster_lanes

        return cluster_lanes(cluster)
    return thread_lanes(workers)


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


def _wait(future: Future, search: Search | None = None,
          progress: Callable[[str], None] | None = None) -> Answer:
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


def solve_position(sub: Subproblem, lanes: list[Executor],
                   progress: Callable[[str], None] | None = None,
                   known: dict | None = None, searches: dict | None = None,
                   store: AnswerStore | None = None) -> Position:
    """Value `sub` on `lanes` (see the module's docstring); `known` carries cell bounds
    from one call to the next (the tie-break passes); `searches` holds this process's
    searches (see ``search_for``); `store` keeps answers across solves."""
    if store is not None:
        recalled = store.recall(sub)
        if recalled.answer is not None:
            if progress:
                progress("answered from the store")
            return Position(recalled.answer.value, recalled.answer.tree, 0)
    position = _solve_position(sub, lanes, progress, known, searches, store)
    if store is not None:
        store.record(sub, Answer(position.value, position.tree, position.nodes))
    return position


def _solve_position(sub: Subproblem, lanes: list[Executor],
                    progress: Callable[[str], None] | None, known: dict | None,
                    searches: dict | None, store: AnswerStore | None) -> Position:
    if len(lanes) > 1 and len(sub.subset) >= PARALLEL_MIN_SECRETS:
        return _on_lanes(sub, lanes, progress, known, searches, store)
    # one lane: a thread using the caller's searches (this thread's work alternates with it)
    lane = ThreadLane(_SEARCHES if searches is None else searches)
    try:
        return _on_lanes(sub, [lane], progress, known, searches, store)
    finally:
        lane.shutdown()


def _on_lanes(sub: Subproblem, lanes: list[Executor],
              progress: Callable[[str], None] | None, known: dict | None,
              searches: dict | None, store: AnswerStore | None) -> Position:
    search = search_for(sub.game, sub.objective, sub.speedups, searches, sub.top)
    one_lane = len(lanes) == 1
    if sub.first is not None:
        return _try_guesses(sub, [(sub.first, 0)], lanes, search, progress, known, searches,
                            store)
    split = not one_lane or (store is not None and len(sub.subset) >= 2 * MIN_SECRETS)
    if not split:
        answer = _wait(_hand(lanes[0], sub), search, progress)
        return Position(answer.value, answer.tree, answer.nodes)
    obvious, _, cand, bound, _, _ = search.prepare(sub.subset, sub.history, sub.cap)
    if obvious is not None:
        answer = solve_subproblem(sub, searches)
        return Position(answer.value, answer.tree, answer.nodes)
    return _try_guesses(sub, list(zip(cand.tolist(), bound.tolist())), lanes, search, progress,
                        known, searches, store)


def _answered(answer: Answer) -> Future:
    """A future already holding `answer` (a cell answered from the store)."""
    future: Future = Future()
    future.set_result(answer)
    return future


def _known_bound(known: dict[bytes, dict[int, int]], key: bytes, cap: int) -> int:
    """The best lower bound `known` holds for the cell `key` within `cap` guesses: a value
    or bound found with at least as many guesses (more guesses never cost more)."""
    return max((v for c, v in known.get(key, {}).items() if c >= cap), default=0)


def _try_guesses(sub: Subproblem, guesses: list[tuple[int, int]], lanes: list[Executor],
                 search: Search, progress: Callable[[str], None] | None, known: dict | None,
                 searches: dict | None, store: AnswerStore | None = None) -> Position:
    """The best of `guesses` ((guess, bound) in the order to try) at `sub`'s position,
    their cells solved on `lanes`: all at once on several (largest first to the least
    loaded lane), one after the other, smallest first like the core (each with the budget
    the others leave), on one. Cells of at least ``MIN_SECRETS`` secrets
    are looked up in `store` first and kept there once answered."""
    known = {} if known is None else known
    table, objective = search.table, search.objective
    n, cap = len(sub.subset), sub.cap
    best, best_tree, nodes = sub.budget, None, 0
    if not guesses:
        return Position(max(best, objective.exhausted(n)), None, 0)
    concurrent = len(lanes) > 1
    for g, b in guesses:
        if b >= min(best, INF):
            break
        parts = [(f, part) for f, part in search.cells(g, sub.subset)
                 if not (objective.determine and len(part) == 1)]  # found, costing nothing
        keys = [part.tobytes() for _, part in parts]
        lower = [max(_cell_lower(search, part, sub.history + ((g, f),), cap - 1),
                     _known_bound(known, k, cap - 1))
                 for (f, part), k in zip(parts, keys)]
        kept = [store is not None and len(part) >= MIN_SECRETS for _, part in parts]

        def cell(k: int, budget: int = INF) -> Subproblem:
            f, part = parts[k]
            return replace(sub, history=sub.history + ((g, f),), subset=part, cap=cap - 1,
                           budget=budget, first=None)

        for k in range(len(parts)):  # what the store knows raises the bounds
            if kept[k]:
                lower[k] = max(lower[k], store.bound(cell(k)))
        price = table.game.guess_cost(table.guesses[g], sub.history) if objective.costed else 0
        total = (objective.node_cost + price) * n + sum(lower)
        if total >= min(best, INF):
            continue
        cells = [cell(k, best - (total - lower[k])) for k in range(len(parts))]
        futures: list[Future | None] = [None] * len(parts)
        for k in range(len(parts)):
            recalled = store.recall(cells[k]) if kept[k] else None
            if recalled is not None and recalled.answer is not None:
                futures[k] = _answered(recalled.answer)
        if concurrent:
            load = [0] * len(lanes)
            for k in sorted(range(len(parts)), key=lambda k: -len(parts[k][1])):
                part = parts[k][1]  # largest first, to the least loaded lane
                w = load.index(min(load))
                load[w] += len(part)
                if futures[k] is None:
                    futures[k] = _hand(lanes[w], cells[k])
                    if kept[k]:
                        store.record_when_done(cells[k], futures[k])
        node, complete = Node(g), True
        for k, ((f, part), key) in enumerate(zip(parts, keys)):
            future = futures[k]
            if future is None:  # one lane: the budget the cells answered so far leave
                later = cell(k, best - (total - lower[k]))
                future = _hand(lanes[0], later)
                if kept[k]:
                    store.record_when_done(later, future)
            answer = _wait(future, None if concurrent else search, progress)
            nodes += answer.nodes
            by_cap = known.setdefault(key, {})
            by_cap[cap - 1] = max(by_cap.get(cap - 1, 0), answer.value)
            total += answer.value - lower[k]
            if progress:
                progress(f"{table.game.format_code(table.guesses[g])} (cap {cap}): cell "
                         f"{k + 1}/{len(parts)} of {len(part)} secrets -> "
                         f"{answer.value if answer.tree is not None else 'over budget'}"
                         f"{_stored_note(store)}")
            if answer.tree is None or total >= best:
                complete = False
                for other in futures:
                    if other is not None:
                        other.cancel()
                break
            if objective.exhaust_inf or answer.value < objective.exhausted(len(part)):  # can still win
                node.children[f] = answer.tree
        if complete and total < best:
            best, best_tree = total, node
    return Position(best, best_tree, nodes)


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
    return f" ({store.tally.read} from the store, {store.tally.written} kept)"
