"""The result store seen from the deduction engine: subproblems' keys and answers.

A subproblem's answer depends on the game (its rules, codes and word lists), the
objective, the consistent set, the guesses left, the restriction state the history
leaves (hard modes) and an imposed guess if any; not on the rest of the history, nor on
the speed-ups (they change the time, never the value). The key hashes exactly that
(``fingerprint`` for the game, ``key`` for the rest): two histories leaving the same
set and state share their answers, within a solve, across solves and across machines.

What is kept: every position a pass values (so a finished solve is answered whole from
the store) and the cells of root guesses of at least ``MIN_SECRETS`` secrets (so an
interrupted solve resumes with at most its cells in flight to redo); small cells are
cheaper to search again than to keep.

What is read: a subproblem's own answer, else the answers of the same set with more
guesses, which bound it from below (more guesses never cost more). So the capped pass
of a tie-break is bounded by the uncapped pass before it, as the searches' memos bound
it in one process, also when the uncapped answers were read from the store (a resumed
solve, whose memos never saw the sets below them).
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from dataclasses import dataclass

import numpy as np

from ..objectives import Objective
from ..solution import Solution, format_value, parse_value
from ..store import Store, Stored
from .feedback import Table, source_file
from .model import DeductionGame
from .objective import INF
from .tree import Answer, Node

#: Cells with fewer secrets are not kept (searched again in well under a second).
MIN_SECRETS = 64


def fingerprint(game: DeductionGame, table: Table | None = None) -> bytes:
    """What identifies a game's values: name, parameters, its codes (word lists
    included), the source of its rules (the module defining the game's class: plug-ins
    too), its hard mode and, given the `table`, its feedbacks."""
    digest = hashlib.sha256()
    digest.update(json.dumps([game.name, game.params], sort_keys=True, default=str).encode())
    for array in (game.guesses(), game.secrets()):
        digest.update(np.ascontiguousarray(array).tobytes())
    source = source_file(type(game))  # a class without a source file: its name
    digest.update(source.read_bytes() if source is not None else type(game).__qualname__.encode())
    digest.update(repr(game.restriction()).encode())
    if table is not None and table.fb is not None:
        digest.update(np.ascontiguousarray(table.fb).tobytes())
    return digest.digest()


def encode_tree(tree: Node | None) -> bytes | None:
    """A subtree as compressed JSON: [guess, feedback, child, feedback, child, ...]."""
    if tree is None:
        return None

    def flat(node: Node) -> list:
        out: list = [node.guess]
        for f, child in node.children.items():
            out += [f, flat(child)]
        return out

    return zlib.compress(json.dumps(flat(tree), separators=(",", ":")).encode())


def decode_tree(payload: bytes) -> Node:
    """The subtree ``encode_tree`` wrote."""

    def build(item: list) -> Node:
        node = Node(int(item[0]))
        for i in range(1, len(item), 2):
            node.children[int(item[i])] = build(item[i + 1])
        return node

    return build(json.loads(zlib.decompress(payload)))


@dataclass(frozen=True)
class Recalled:
    """What the store knows of a subproblem: an answer settling it at its budget
    (value with subtree, or a bound reaching the budget), else a lower bound (0: none)."""

    answer: object | None  # root.Answer
    bound: int


@dataclass
class Tally:
    """Answers read from the store and written to it during one solve."""

    read: int = 0
    written: int = 0
    journal_read: int = 0  # values found inside earlier tasks, loaded into the searches
    journal_written: int = 0  # values found inside this solve's tasks, kept


@dataclass
class StoredStrategy:
    """A strategy read back from the store, as the JSON document it was exported as."""

    document: dict

    def to_json(self) -> dict:
        return self.document


def solution_key(
    game: DeductionGame,
    objective: Objective,
    max_guesses: int | None,
    position: tuple,
    first: int | None,
) -> bytes:
    """The key of a whole solve's solution (found without building the feedback table,
    so that a solve done before is answered in about the time Python takes to start)."""
    digest = hashlib.sha256(b"solution|" + fingerprint(game))
    digest.update(
        json.dumps(
            [
                objective.name,
                objective.horizon,
                objective.determine,
                max_guesses,
                [list(map(int, p)) for p in position],
                first,
            ]
        ).encode()
    )
    return digest.digest()


def keep_solution(store: Store, key: bytes, solution: Solution, game: DeductionGame) -> None:
    """Keep a proven solution whole (value, labels, statistics and strategy)."""
    stats = {k: v for k, v in solution.stats.items() if k not in ("store", "from_store")}
    document = {
        "value": format_value(solution.value),
        "status": solution.status,
        "proven": solution.proven,
        "facts": _facts(solution),
        "stats": stats,
        "strategy": solution.strategy.to_json(),
    }
    payload = zlib.compress(json.dumps(document, separators=(",", ":")).encode())
    store.put(key, Stored(0, True, payload), str(game), solution.objective.name, 0)


def stored_solution(
    store: Store, key: bytes, game: DeductionGame, objective: Objective
) -> Solution | None:
    """The solution kept under `key`, labelled as read from the store; None if none."""
    found = store.get(key)
    if found is None or not found.exact:
        return None
    document = json.loads(zlib.decompress(found.payload))
    stats = {
        **document["stats"],
        "from_store": True,
        "store": {"path": str(store.path), "read": 1, "written": 0},
    }
    return Solution(
        game=game.name,
        params=game.params,
        objective=objective,
        value=parse_value(document["value"]),
        exact=True,
        proven=document["proven"],
        status=document["status"],
        strategy=StoredStrategy(document["strategy"]),
        stats=stats,
        **_read_facts(document["facts"]),
    )


#: The Solution fields a kept solution carries beside its value and strategy.
_FACTS = (
    "method",
    "max_guesses",
    "after",
    "secrets",
    "total",
    "worst",
    "wins",
    "histogram",
    "total_cost",
)


def _facts(solution: Solution) -> dict:
    facts = {name: getattr(solution, name) for name in _FACTS}
    if facts["histogram"] is not None:
        facts["histogram"] = {str(k): v for k, v in facts["histogram"].items()}
    return facts


def _read_facts(facts: dict) -> dict:
    facts = {name: facts.get(name) for name in _FACTS}
    if facts["histogram"] is not None:
        facts["histogram"] = {int(k): v for k, v in facts["histogram"].items()}
    return facts


class AnswerStore:
    """The answers of one game's subproblems in a ``Store`` (thread-safe)."""

    def __init__(self, store: Store, game: DeductionGame, table: Table) -> None:
        self.store, self.game = store, game
        self.context = fingerprint(game, table)
        self.tally = Tally()
        self._lock = threading.Lock()
        self._failure: Exception | None = None  # a write that failed in another thread

    def key(self, sub) -> bytes:
        """The key of a ``root.Subproblem`` (see the module's docstring)."""
        return self._key(sub, sub.cap)

    def _key(self, sub, cap: int) -> bytes:
        """The key of `sub` within `cap` guesses."""
        cap = self._capped(sub, cap)
        digest = hashlib.sha256(self.context)
        digest.update(f"{_objective_name(sub)}|{cap}|{sub.first}|".encode())
        digest.update(np.ascontiguousarray(sub.subset, dtype=np.int64).tobytes())
        rule = self.game.restriction()
        if rule is not None and rule.per_position:
            allowed, least = self.game.restriction_state(sub.history)
            digest.update(allowed.tobytes() + least.astype(np.int64).tobytes())
        return digest.digest()

    def _capped(self, sub, cap: int) -> int:
        """`cap` as the key names it: at most one guess per secret when the consistent
        secrets are allowed guesses (more cannot help)."""
        return min(cap, len(sub.subset)) if self.game.consistent_secrets_allowed() else cap

    def _wider(self, sub) -> int:
        """The best lower bound of `sub`'s value that its answers with more guesses give
        (one more, or as many as it has secrets; 0: none kept): more guesses never cost
        more, so a value or bound found with more is a bound with fewer (see the module's
        docstring)."""
        cap = self._capped(sub, sub.cap)
        wider = {self._capped(sub, c) for c in (cap + 1, len(sub.subset))}
        found = (self.store.get(self._key(sub, c)) for c in sorted(wider) if c > cap)
        return max((stored.value for stored in found if stored is not None), default=0)

    def bound(self, sub) -> int:
        """A proven lower bound of `sub`'s value (its value when known, or what its
        answers with more guesses show; 0: nothing known)."""
        self._raise_failure()
        stored = self.store.get(self.key(sub))
        return max(0 if stored is None else stored.value, self._wider(sub))

    def recall(self, sub) -> Recalled:
        """What is known of `sub` (a ``root.Subproblem``) at its budget: its own answer,
        or an answer with more guesses bounding it at the budget or over."""
        self._raise_failure()
        stored = self.store.get(self.key(sub))
        own = 0 if stored is None else stored.value
        if stored is not None and stored.exact and stored.value < sub.budget:
            answer = Answer(stored.value, decode_tree(stored.payload), 0)
        elif own >= sub.budget:
            answer = Answer(own, None, 0)
        else:
            bound = max(own, self._wider(sub)) if sub.budget < INF else own
            if bound < sub.budget:
                return Recalled(None, bound)
            answer = Answer(bound, None, 0)
        with self._lock:
            self.tally.read += 1
        return Recalled(answer, answer.value)

    def record(self, sub, answer) -> None:
        """Keep `answer` (a ``root.Answer``) of `sub`: exact with its subtree, or, without
        one, as a lower bound (a value at or over the budget)."""
        exact = answer.tree is not None
        stored = Stored(answer.value, exact, encode_tree(answer.tree))
        self.store.put(self.key(sub), stored, str(self.game), _objective_name(sub), len(sub.subset))
        with self._lock:
            self.tally.written += 1

    def record_when_done(self, sub, future) -> None:
        """Record `sub`'s answer as soon as `future` has it (from whatever thread completes
        it), so that answers finished but not yet read by the solve survive a kill."""

        def done(f) -> None:
            if f.cancelled() or f.exception() is not None or f.result() is None:
                return  # (None: the work was no longer wanted, see ``root._Dispatch``)
            try:
                self.record(sub, f.result())
            except Exception as err:  # raised in the solve's own thread at its next look
                self.fail(err)

        future.add_done_callback(done)

    def _journal_context(self, search) -> bytes:
        """Where `search`'s journal is kept: its game, objective and breadth (values found
        with a breadth are a strategy's, not the optimum's)."""
        digest = hashlib.sha256(self.context)
        digest.update(f"|journal|{search.objective.name}|{search.top or 0}".encode())
        return digest.digest()

    def seed(self, searches: list) -> int:
        """Load the journal kept for the game, objective and breadth of `searches` (this
        store's game, one objective and breadth: the lanes' searches of one position)
        into each one's memos (``Search.seed``); returns the rows read."""
        if not searches:
            return 0
        batches = self.store.journal(self._journal_context(searches[0]))
        if not batches:
            return 0
        rows = np.concatenate(
            [np.frombuffer(zlib.decompress(b), dtype=np.int64).reshape(-1, 5) for b in batches]
        )
        for search in searches:
            search.seed(rows)
        with self._lock:
            self.tally.journal_read += len(rows)
        return len(rows)

    def keep_journal(self, search) -> int:
        """Keep the journal rows `search` wrote since the last call; returns how many."""
        rows = search.take_journal()
        if len(rows):
            self.store.add_journal(
                self._journal_context(search),
                len(rows),
                zlib.compress(np.ascontiguousarray(rows).tobytes()),
            )
            with self._lock:
                self.tally.journal_written += len(rows)
        return len(rows)

    def fail(self, err: Exception) -> None:
        """Note a failure met in another thread: the solve's own thread raises it when it
        next reads the store."""
        self._failure = err

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure


def _objective_name(sub) -> str:
    """The name of a subproblem's objective (given by name or as a ``SearchObjective``,
    whose name says all its data: ``losses-cost-M``)."""
    return sub.objective if isinstance(sub.objective, str) else sub.objective.name
