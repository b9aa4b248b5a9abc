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

What is checked before it is believed: every row read names the game, objective and
number of secrets its key stands for, and matches its checksum (``store.Store.get``);
an exact answer is used only when its subtree, played by the rules on the set within
its guesses, gives the value the row states (`tree_value`); a whole solution only when
its tree, replayed as ``perfectplay verify`` replays a file, gives every number it
states, and its labels and position are those this solve would give. A row that fails
is refused in one line naming the store (``Store.damaged``), never used. A bound, and a
value found inside a task (the journal), is a claim about sets the search did not
finish, which nothing short of that search can check: its range is checked, its truth
rests on the store being the engine's own writing (the checksum guards against damage,
not against someone rewriting the file with checksums recomputed).
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import PerfectplayError
from ..objectives import Objective
from ..solution import PROVEN, PROVEN_GIVEN_FIRST, Solution, format_value, parse_value
from ..store import Store, Stored, StoreError
from .contract import codes
from .feedback import Table, source_file
from .model import DeductionGame, History
from .objective import INF, SearchObjective, search_objective
from .partition import cells
from .position import format_position
from .tree import Answer, Node

#: Cells with fewer secrets are not kept (searched again in well under a second).
MIN_SECRETS = 64

#: Bytes a kept subtree may expand to, per secret of its set (and a few more): about 14
#: bytes per node are written and a tree has fewer than two nodes per secret, so only a
#: row that is not the engine's writing comes near (it is refused before it is read).
TREE_BYTES_PER_SECRET = 128

#: Bytes a kept whole solution may expand to, per secret of the game (its tree with
#: codes and feedbacks as people read them), and for the rest of the document.
SOLUTION_BYTES_PER_SECRET, SOLUTION_BYTES = 1024, 1 << 20


def fingerprint(game: DeductionGame, table: Table | None = None) -> bytes:
    """What identifies a game's values: name, parameters, its codes (word lists
    included), the source of its rules (the module defining the game's class: plug-ins
    too), its hard mode and, given the `table`, its feedbacks."""
    digest = hashlib.sha256()
    digest.update(json.dumps([game.name, game.params], sort_keys=True, default=str).encode())
    for array in codes(game)[:2]:  # (checked: the rules read as the engine reads them)
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


def decode_tree(payload: bytes, limit: int) -> Node:
    """The subtree ``encode_tree`` wrote (expanding to at most `limit` bytes); ValueError
    saying what is wrong when `payload` is not one. Read without recursion, as a
    payload may be as deep as it likes."""
    try:
        flat = json.loads(inflate(payload, limit))
    except (ValueError, RecursionError) as err:  # (bad JSON is a ValueError)
        raise ValueError(f"a subtree cannot be read: {err}") from None

    def node(item: object) -> Node:
        if (
            not isinstance(item, list)
            or len(item) % 2 == 0
            or not all(type(x) is int for x in item[0::2][:1] + item[1::2])
        ):
            raise ValueError("a subtree is not [guess, feedback, child, ...]")
        return Node(item[0])

    root = node(flat)
    stack = [(flat, root)]
    while stack:
        item, parent = stack.pop()
        for i in range(1, len(item), 2):
            if item[i] in parent.children:
                raise ValueError(f"a subtree follows feedback {item[i]} twice")
            parent.children[item[i]] = child = node(item[i + 1])
            stack.append((item[i + 1], child))
    return root


def inflate(payload: bytes, limit: int) -> bytes:
    """`payload` decompressed; ValueError when it is not whole zlib data or would expand
    past `limit` bytes (rows are bounded by their sets' sizes, ``TREE_BYTES_PER_SECRET``:
    a row expanding past that is not the engine's writing, and is not expanded)."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(payload, limit + 1)
    except zlib.error as err:
        raise ValueError(f"not compressed data ({err})") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise ValueError(f"it expands past {limit:,} bytes")
    if not inflater.eof or inflater.unused_data:
        raise ValueError("its compressed data is cut short or followed by more")
    return data


def tree_value(
    table: Table,
    objective: SearchObjective,
    tree: Node,
    subset: np.ndarray,
    history: History,
    cap: int,
) -> int:
    """The value the search core gives playing `tree` on `subset` after `history` within
    `cap` guesses (V of ``objective.py``: the node cost and the guess's price per secret
    at each node, ``exhausted`` for a cell the tree leaves without a subtree); INF or
    more when the tree leaves a secret unfound where the objective allows none.
    ValueError naming what makes `tree` no tree for this set: a guess that is not one of
    the game's, or one the rules forbid after its history, a guess past the cap, a
    branch that no secret takes (walked without recursion)."""
    game, n_guesses = table.game, len(table.guesses)
    total = 0
    stack = [(tree, subset, history, cap)]
    while stack and total < INF:
        node, part_set, past, left = stack.pop()
        g = node.guess
        if not 0 <= g < n_guesses:
            raise ValueError(f"a subtree plays guess {g}, not one of the game's {n_guesses:,}")
        if left <= 0:
            raise ValueError(f"a subtree guesses beyond its {cap} guesses")
        code = table.guesses[g]
        allowed = game.restrict_guesses(past, code[None, :])
        if allowed is not None and not allowed[0]:
            raise ValueError(f"a subtree plays {game.format_code(code)} where the rules forbid it")
        price = game.guess_cost(code, past) if objective.costed else 0
        total += (objective.node_cost + price) * len(part_set)
        valued = {
            f: part
            for f, part in cells(table, g, part_set)
            if f != table.solved and not (objective.determine and len(part) == 1)
        }  # (a secret guessed, or determined, costs nothing more)
        untaken = set(node.children) - set(valued)
        if untaken:
            raise ValueError(f"a subtree follows feedback {min(untaken)}, which no secret gives")
        for f, part in valued.items():
            child = node.children.get(f)
            if child is None:
                total += objective.exhausted(len(part))
            else:
                stack.append((child, part, past + ((g, f),), left - 1))
    return total


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
    store.put(key, Stored(0, True, payload), game.spec, solution.objective.name, 0)


def stored_solution(
    store: Store,
    key: bytes,
    game: DeductionGame,
    objective: Objective,
    max_guesses: int | None,
    position: History,
    first: int | None,
) -> Solution | None:
    """The solution kept under `key` for this solve (`objective`, `max_guesses`, from
    `position`, with the `first` guess imposed or not), labelled as read from the store;
    None if none. It is checked first: its tree replayed by the rules as ``perfectplay
    verify`` replays a file, every number it states held against the replay, its labels
    and position those this solve gives; one that fails is refused as damage (StoreError
    naming the store and what does not hold)."""
    found = store.get(key, game.spec, objective.name, 0)
    if found is None:
        return None
    try:
        if not found.exact or found.value != 0 or found.payload is None:
            raise ValueError("its row is not one a solve writes")
        limit = SOLUTION_BYTES + SOLUTION_BYTES_PER_SECRET * len(game.secrets())
        document = json.loads(inflate(found.payload, limit))
        solution = _kept_solution(store, document, game, objective)
        _check_solution(solution, game, max_guesses, position, first)
    except StoreError:
        raise
    except (ValueError, RecursionError, PerfectplayError) as err:
        raise store.damaged(f"its solution of {game} does not hold: {err}") from None
    return solution


def _kept_solution(
    store: Store, document: object, game: DeductionGame, objective: Objective
) -> Solution:
    """The Solution a kept `document` describes (``keep_solution``); ValueError when it is
    not shaped as one."""
    if not isinstance(document, dict) or not all(
        isinstance(document.get(k), t)
        for k, t in (("value", str), ("status", str), ("proven", bool)) + _PARTS
    ):
        raise ValueError("its document is not one a solve writes")
    stats = document["stats"]
    if not all(isinstance(stats[k], _STATS.get(k, ())) for k in stats):
        raise ValueError(f"its statistics are not a solve's ({', '.join(map(str, stats))})")
    stats = {
        **stats,
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


def _check_solution(
    solution: Solution,
    game: DeductionGame,
    max_guesses: int | None,
    position: History,
    first: int | None,
) -> None:
    """Refuse (ValueError, or the replay's PerfectplayError) a kept solution that is not
    the one this solve would give: not the optimal search's, or another guess limit,
    position or first guess, or numbers its tree does not bear out."""
    from .document import TreeStrategy

    label = PROVEN if first is None else PROVEN_GIVEN_FIRST
    strategy = solution.strategy.document
    said = (solution.method, solution.status, solution.proven, strategy.get("label"))
    if said != ("optimal", label, True, label) or strategy.get("method") != "optimal":
        raise ValueError(f"it is labelled {solution.status!r}, not {label!r}")
    if solution.max_guesses != max_guesses:
        raise ValueError(f"it was solved within {solution.max_guesses} guesses, not {max_guesses}")
    after = format_position(game, position) if position else None
    if solution.after != after or strategy.get("after") != after:
        raise ValueError(f"it was solved after {solution.after!r}, not {after!r}")
    if bool(strategy.get("determine")) != solution.objective.determine:
        raise ValueError("its tree counts secrets determined otherwise than this solve")
    if strategy.get("horizon") != solution.objective.horizon:
        raise ValueError(f"its tree was solved within {strategy.get('horizon')!r} guesses")
    facts = (solution.wins,) if solution.objective.horizon is not None else (solution.total,)
    if None in (solution.secrets, solution.histogram, *facts):
        raise ValueError("its document leaves out the numbers a solve states")
    root = strategy.get("root")
    if first is not None and (
        not isinstance(root, dict) or root.get("guess") != game.format_code(game.guesses()[first])
    ):
        raise ValueError("its tree does not open with the first guess imposed")
    TreeStrategy(game, solution.export()).verify(resolve=False)


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


#: The parts of a kept solution's document besides its value and labels, with their types.
_PARTS = (("facts", dict), ("stats", dict), ("strategy", dict))

#: The statistics a solve keeps with its solution (``deduction.solve``), with their types:
#: what the printed summary shows beside the checked numbers, and nothing that restates
#: them (a kept "value" among them would be printed instead of the solution's).
_STATS = {
    "table_seconds": (int, float),
    "nodes": int,
    "states": int,
    "seconds": (int, float),
    "cluster": str,
}


def _read_facts(facts: dict) -> dict:
    """The Solution fields `facts` holds (``_facts``); ValueError when one is not of its
    type (numbers, texts, a histogram of guesses to secrets)."""
    facts = {name: facts.get(name) for name in _FACTS}
    for name, value in facts.items():
        kind = str if name in ("method", "after") else (dict if name == "histogram" else int)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise ValueError(f"its {name} is {value!r}")
    if facts["histogram"] is not None:
        histogram = facts["histogram"].items()
        if not all(k.isdigit() and type(v) is int for k, v in histogram):
            raise ValueError("its histogram is not guesses -> secrets")
        facts["histogram"] = {int(k): v for k, v in histogram}
    return facts


class AnswerStore:
    """The answers of one game's subproblems in a ``Store`` (thread-safe), each checked
    before it is used (see the module's docstring)."""

    def __init__(self, store: Store, game: DeductionGame, table: Table) -> None:
        self.store, self.game, self.table = store, game, table
        self.context = fingerprint(game, table)
        self.tally = Tally()
        self._lock = threading.Lock()
        self._failure: Exception | None = None  # a write that failed in another thread
        self._checked: dict[bytes, Stored] = {}  # rows read and found to hold, by key

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

    def _get(self, sub, cap: int) -> Stored | None:
        """The answer kept for `sub` within `cap` guesses, checked (`_read`)."""
        return self._read(sub, cap)[0]

    def _read(self, sub, cap: int) -> tuple[Stored | None, Node | None]:
        """The answer kept for `sub` within `cap` guesses, once it is shown to agree with
        itself and with the game (each row once: ``_checked``): a value the search can
        give (an exact one below INF), a subtree exactly when it is exact, and that
        subtree a tree for `sub`'s set giving that value (`_tree`), whether the answer
        is used for its tree or as a bound. With it, the subtree as this call's check
        decoded it (None: not exact, or checked before; rows are kept, not their trees,
        which take more room)."""
        key = self._key(sub, cap)
        stored = self.store.get(key, self.game.spec, _objective_name(sub), len(sub.subset))
        if stored is None or self._checked.get(key) == stored:
            return stored, None
        if not 0 <= stored.value <= INF or (stored.exact and stored.value == INF):
            raise self._damaged(sub, f"an answer of {stored.value:,}")
        if stored.exact != (stored.payload is not None):
            raise self._damaged(sub, "an exact answer without its subtree, or a bound with one")
        tree = self._tree(sub, stored, cap) if stored.exact else None
        with self._lock:
            self._checked[key] = stored
        return stored, tree

    def _tree(self, sub, stored: Stored, cap: int) -> Node:
        """The subtree of `stored`, an exact answer of `sub` within `cap` guesses, once it
        is shown to be a tree for `sub`'s set that gives the value the row states
        (`tree_value`) and opens with the guess imposed, if any; StoreError naming the
        store otherwise."""
        try:
            tree = decode_tree(stored.payload, _tree_bytes(sub))
            objective = search_objective(sub.objective)
            value = tree_value(self.table, objective, tree, sub.subset, sub.history, cap)
        except ValueError as err:
            raise self._damaged(sub, str(err)) from None
        if sub.first is not None and tree.guess != sub.first:
            raise self._damaged(sub, "a subtree opens with another guess than the one imposed")
        if value != stored.value:
            gives = f"{value:,}" if value < INF else "no value (a secret is never found)"
            raise self._damaged(sub, f"an answer of {stored.value:,} whose subtree gives {gives}")
        return tree

    def _damaged(self, sub, why: str) -> StoreError:
        """The one-line refusal of an answer kept for `sub` that does not hold (`why`)."""
        return self.store.damaged(
            f"{why}, for a set of {len(sub.subset):,} secrets of {self.game} "
            f"({_objective_name(sub)})"
        )

    def _wider(self, sub) -> int:
        """The best lower bound of `sub`'s value that its answers with more guesses give
        (one more, or as many as it has secrets; 0: none kept): more guesses never cost
        more, so a value or bound found with more is a bound with fewer (see the module's
        docstring)."""
        cap = self._capped(sub, sub.cap)
        wider = {self._capped(sub, c) for c in (cap + 1, len(sub.subset))}
        found = (self._get(sub, c) for c in sorted(wider) if c > cap)
        return max((stored.value for stored in found if stored is not None), default=0)

    def bound(self, sub) -> int:
        """A proven lower bound of `sub`'s value (its value when known, or what its
        answers with more guesses show; 0: nothing known)."""
        self._raise_failure()
        stored = self._get(sub, sub.cap)
        return max(0 if stored is None else stored.value, self._wider(sub))

    def recall(self, sub) -> Recalled:
        """What is known of `sub` (a ``root.Subproblem``) at its budget: its own answer,
        or an answer with more guesses bounding it at the budget or over."""
        self._raise_failure()
        stored, checked = self._read(sub, sub.cap)
        own = 0 if stored is None else stored.value
        if stored is not None and stored.exact and stored.value < sub.budget:
            # (`_read` checked this very row: its tree as the check decoded it, the first
            # time; read again, not walked again, after)
            tree = checked if checked is not None else decode_tree(stored.payload, _tree_bytes(sub))
            answer = Answer(stored.value, tree, 0)
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
        value = answer.value if exact else min(answer.value, INF)  # (as ``journal_since``)
        stored = Stored(value, exact, encode_tree(answer.tree))
        self.store.put(self.key(sub), stored, self.game.spec, _objective_name(sub), len(sub.subset))
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
        rows = np.concatenate([self._journal_rows(entries, b) for entries, b in batches])
        for search in searches:
            search.seed(rows)
        with self._lock:
            self.tally.journal_read += len(rows)
        return len(rows)

    def _journal_rows(self, entries: int, batch: bytes) -> np.ndarray:
        """The `entries` rows (h1, h2, cap, value, guess or -1) of a kept journal batch,
        once they are shown to be rows a search writes: as many as the batch says, caps
        and values in the search's range, guesses of the game's (the compiled memo
        trusts them); StoreError naming the store otherwise."""
        from .core import JOURNAL_ROWS

        size = 5 * np.dtype(np.int64).itemsize
        try:
            if not 0 < entries <= JOURNAL_ROWS:
                raise ValueError(f"a batch of {entries:,} entries")
            raw = inflate(batch, entries * size)
            if len(raw) != entries * size:
                raise ValueError(f"a batch of {entries:,} entries holds {len(raw) / size:g}")
        except ValueError as err:
            raise self.store.damaged(f"its journal of {self.game} does not hold: {err}") from None
        rows = np.frombuffer(raw, dtype=np.int64).reshape(-1, 5)
        caps, values, guesses = rows[:, 2], rows[:, 3], rows[:, 4]
        if (
            (caps < 0).any()
            or ((values < 0) | (values > INF)).any()
            or ((guesses < -1) | (guesses >= len(self.table.guesses))).any()
        ):
            raise self.store.damaged(
                f"its journal of {self.game} holds a cap, value or guess no search writes"
            )
        return rows

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


def _tree_bytes(sub) -> int:
    """The most bytes a kept subtree of `sub`'s set may expand to (``TREE_BYTES_PER_SECRET``)."""
    return TREE_BYTES_PER_SECRET * (len(sub.subset) + 8)


def _objective_name(sub) -> str:
    """The name of a subproblem's objective (given by name or as a ``SearchObjective``,
    whose name says all its data: ``losses-cost-M``)."""
    return sub.objective if isinstance(sub.objective, str) else sub.objective.name
