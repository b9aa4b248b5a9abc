"""The search core seen from Python: one game, one objective, one memo.

``Search`` builds the compiled core's state (``core.Core``) for a feedback table and
an objective (``objective.py``) and answers for any consistent set after any history:
its value within a number of guesses (``best``), a cheap lower bound (``cell_bound``),
and the candidates of a node (``prepare``) for the code that hands root cells to
workers (``root.py``). All the search itself is compiled; see ``core.py`` for the
algorithm and its speed-ups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .feedback import Table
from .model import History
from .objective import EXPECTED, INF, SearchObjective
from .partition import cells

#: Largest symbols**length for which packed codes are tabulated (memo keys from histories).
MAX_CODE_INDEX = 10_000_000


@dataclass(frozen=True)
class SpeedUps:
    """Which speed-ups the search uses (all on by default; off changes only the time).

    symmetry   one candidate per orbit of the symmetries that fix the history
    bounds     branch-and-bound with lower bounds by set size
    memo       values and bounds remembered per set and per canonical history
    obvious    guesses recognised as optimal without a search below them
    table      feedbacks read from the table built once (off: computed per node)
    lookahead  each cell bounded by one look at its own candidates before a search
    columns    the table also kept by secret (transposed: one-byte tables): with few
               feedbacks every candidate is scored in one pass over the set's secrets,
               otherwise candidates one after another in index order read each secret's
               row along (off: one candidate after another, each reading its own row)
    cutoff     a candidate's scoring stopped once its bound shows it cannot be used
               (needs bounds)
    relay      on several lanes, the values each lane's search finds inside its tasks
               passed on to the other lanes with their next tasks (``root.Relay``)
    floor      a node that finds no guess within its budget returns and remembers the
               least lower bound its guesses showed (each guess's total when it was
               dropped), not the budget: a later visit with a larger budget may stop at
               once (needs bounds)
    """

    symmetry: bool = True
    bounds: bool = True
    memo: bool = True
    obvious: bool = True
    table: bool = True
    lookahead: bool = True
    columns: bool = True
    cutoff: bool = True
    relay: bool = True
    floor: bool = True

    def switches(self) -> np.ndarray:
        """The core's switch array (``core.SYMMETRY`` ... ``core.CUTOFF``; ``table`` and
        ``columns`` choose the core's data instead)."""
        return np.array(
            [
                self.symmetry,
                self.bounds,
                self.memo,
                self.obvious,
                self.lookahead,
                self.cutoff,
                self.floor,
            ]
        )


class Valued(NamedTuple):
    """A set's value and the guess reaching it; ``guess`` is None when `value` is only a
    lower bound (the value reached the budget), or when no guess can help."""

    value: int
    guess: int | None


def _block_function(game):
    """The game's feedback kernel as the core's block function (compiled here: only games
    too large to tabulate, or with the table switched off, need it)."""
    from numba import cfunc

    from .core import BLOCK_SIGNATURE

    kernel = game.feedback_kernel()

    @cfunc(BLOCK_SIGNATURE)
    def block(guesses, secrets, out):
        kernel(guesses, secrets, out)

    return block


class Search:
    """Values and optimal guesses of the consistent sets of one game under one objective;
    with `top`, values and guesses of the strategies that play one of the `top` best
    guesses by bound at every node (upper bounds of the optimum)."""

    def __init__(
        self,
        table: Table,
        objective: SearchObjective = EXPECTED,
        speedups: SpeedUps = SpeedUps(),
        max_depth: int | None = None,
        top: int | None = None,
    ) -> None:
        from . import core

        self.table, self.objective, self.speed, self.top = table, objective, speedups, top
        self._entries: dict = {}  # kernel -> its compiled entry point (see ``_call``)
        game, N = table.game, table.n_secrets
        rule = game.restriction()
        perms = np.ascontiguousarray(table.symmetry.positions, dtype=np.int8)
        act = game.feedback_action(perms)
        if act is None:
            act = np.tile(np.arange(table.n_feedbacks), (len(perms), 1))
        symbols, length = game.n_symbols(), table.guesses.shape[1]
        index = np.empty(0, dtype=np.int64)
        if symbols**length <= MAX_CODE_INDEX:
            index = np.full(symbols**length, -1, dtype=np.int64)
            packed = table.guesses.astype(np.int64) @ (symbols ** np.arange(length - 1, -1, -1))
            index[packed] = np.arange(len(table.guesses))
        use_table = speedups.table and table.fb is not None
        fb = table.fb if use_table else None  # one field per width (one type of Core)
        depth = (max_depth or N) + 2
        by_secret = table.by_secret if use_table and speedups.columns else None
        exact, bound_memo = core.new_memos()
        self.fields = core.Core(
            fb=fb if fb is not None and fb.dtype == np.uint8 else np.zeros((0, 0), np.uint8),
            fb_wide=fb if fb is not None and fb.dtype == np.uint16 else np.zeros((0, 0), np.uint16),
            by_secret=by_secret if by_secret is not None else np.zeros((0, 0), dtype=np.uint8),
            block=core.no_block if use_table else _block_function(game),
            codes=np.array(table.guesses, dtype=np.int8),
            secret_codes=np.array(table.secrets, dtype=np.int8),
            sog=table.secret_of_guess,
            gos=table.guess_of_secret,
            solved=table.solved,
            n_feedbacks=table.n_feedbacks,
            branching=table.branching,
            n_symbols=symbols,
            perms=perms,
            act=np.array(act, dtype=np.int64, order="C"),  # writable: one type
            relabel=bool(table.symmetry.symbols),
            index_of_code=index,
            # every code, in order, when the packed-code index is the identity
            product=bool(
                len(index) == len(table.guesses) and np.array_equal(index, np.arange(len(index)))
            ),
            restricted=bool(rule is not None and rule.per_position),
            possible_only=bool(rule is not None and rule.possible_only),
            radix=max(rule.radix, 1) if rule is not None else 1,
            rules=rule.digit_rules() if rule is not None else np.zeros(1, dtype=np.int64),
            spares=bool(rule is not None and rule.bar_spares_locked),
            secrets_allowed=game.consistent_secrets_allowed(),
            allowed=np.ones((depth, length, symbols), dtype=np.bool_),
            least=np.zeros((depth, symbols), dtype=np.int64),
            node_cost=objective.node_cost,
            exhaust_inf=objective.exhaust_inf,
            determine=objective.determine,
            order_by_largest=objective.order_by_largest,
            smallest_first=objective.smallest_first,
            loss_value=objective.loss_value,
            costed=objective.costed,
            symbol_cost=game.symbol_costs() if objective.costed else np.zeros(symbols, np.int64),
            forced_free=bool(objective.costed and game.forced_free()),
            lower=objective.lower_rows(N, table.branching, speedups.bounds),
            top=top or 0,
            switches=self._switches(speedups, objective),
            canon=core.new_canon(),
            canon_limit=max(1, core.PATTERN_CACHE_BYTES // (8 * len(table.guesses))),
            exact=exact,
            bound_memo=bound_memo,
            hist_g=np.zeros(depth, dtype=np.int64),
            hist_f=np.zeros(depth, dtype=np.int64),
            counters=np.zeros(core.N_COUNTERS, dtype=np.int64),
            mark=np.zeros(N, dtype=np.bool_),
            journal=np.zeros((core.JOURNAL_ROWS, 6), dtype=np.int64),
            journal_min=core.JOURNAL_MIN_SECRETS,
        )
        self.core = core.to_ref(self.fields)
        self._journal_read = 0  # entries of the journal taken so far (``take_journal``)
        self.seeded = False  # whether a store's journal was loaded (``root._Journaling``)

    def _call(self, kernel, *args):
        """``kernel(*args)`` (a compiled function taking the core first), numba's typing of
        the arguments done once per kernel and search: typing the core costs more a call
        than the small searches that growing a tree asks for at every node."""
        entry = self._entries.get(kernel)
        if entry is None:
            result = kernel(*args)  # typed (and compiled or loaded) as usual, once
            signature = tuple(kernel.typeof_pyval(a) for a in args)
            overload = kernel.overloads.get(signature)
            if overload is not None:
                self._entries[kernel] = overload.entry_point
            return result
        return entry(*args)

    @staticmethod
    def _switches(speedups: SpeedUps, objective: SearchObjective) -> np.ndarray:
        """The core's switches: the obvious guesses are those of revealing at a cost of one
        per guess, so they are off when determining or counting costs."""
        from .core import OBVIOUS

        switches = speedups.switches()
        if objective.determine or objective.costed:
            switches[OBVIOUS] = False
        return switches

    def take_journal(self) -> np.ndarray:
        """The values and bounds of large sets found since the last call, as rows (h1, h2,
        cap, value, guess or -1), read while the search may be running on another thread
        (``core.journal``)."""
        rows, self._journal_read = self.journal_since(self._journal_read)
        return rows

    def journal_since(self, start: int) -> tuple[np.ndarray, int]:
        """The journal's rows from entry `start` on that read whole (see ``take_journal``)
        and the entry to read from next time; the reader keeps its own place, so that
        the store's keeping and the lanes' relay each read every row."""
        from .core import take_journal

        rows, start = take_journal(self.fields.journal, self.journaled, start)
        # a bound past INF (a sum of parts none of which fits the cap) says no more than
        # INF does: rows leave the search within the range its values have (0..INF), the
        # range a kept journal is checked against when it is read back
        np.minimum(rows[:, 3], INF, out=rows[:, 3])
        return rows, start

    @property
    def journaled(self) -> int:
        """Rows written into the journal so far (taken or not)."""
        from .core import JOURNALED

        return int(self.fields.counters[JOURNALED])

    def seed(self, rows: np.ndarray) -> None:
        """Load rows of ``take_journal`` (from this search or an earlier one of the same
        game, objective and breadth) into the memos, before the search runs."""
        from .core import seed_memos

        if len(rows):
            seed_memos(self.core, np.ascontiguousarray(rows, dtype=np.int64))

    @property
    def nodes(self) -> int:
        """Nodes searched so far (read while a search runs in another thread, for progress)."""
        return int(self.fields.counters[0])

    def _enter(self, history: History) -> int:
        """Write `history` and the restriction state it leaves into the core; its depth."""
        from .core import enter

        moves = np.array(history, dtype=np.int64).reshape(-1, 2)
        return int(
            self._call(
                enter,
                self.core,
                np.ascontiguousarray(moves[:, 0]),
                np.ascontiguousarray(moves[:, 1]),
            )
        )

    @staticmethod
    def _subset(subset: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(subset, dtype=np.int64)

    def best(self, subset: np.ndarray, history: History, cap: int, budget: int = INF) -> Valued:
        """The value of `subset` after `history` within `cap` guesses, with its guess, if
        below `budget`; otherwise a lower bound >= budget and no guess."""
        from .core import best

        depth = self._enter(history)
        value, guess = self._call(
            best, self.core, self._subset(subset), depth, int(cap), int(budget)
        )
        return Valued(int(value), int(guess) if guess >= 0 else None)

    def cell_bound(self, subset: np.ndarray, history: History, cap: int) -> int:
        """A lower bound of ``best(subset, history, cap)`` from one look at its candidates."""
        from .core import cell_bound

        depth = self._enter(history)
        return int(cell_bound(self.core, self._subset(subset), depth, cap))

    def tree(self, subset: np.ndarray, history: History, cap: int) -> np.ndarray:
        """The optimal tree of `subset` after `history` within `cap` guesses, as rows
        (guess, parent row or -1 at the root, feedback from the parent), parents first;
        no rows when no guess can help (see ``core.tree_rows``)."""
        from .core import tree_rows

        depth = self._enter(history)
        return tree_rows(self.core, self._subset(subset), depth, cap)

    def load_kernels(self) -> None:
        """Load this search's compiled kernels from numba's disk cache, or compile them
        (the first run after installing: about half a minute), on a set of one secret."""
        one = np.arange(1)
        self.best(one, (), 1)
        self.tree(one, (), 1)

    def lower(self, n: int, cap: int) -> int:
        """The objective's lower bound for n secrets within `cap` guesses."""
        rows = self.fields.lower
        return int(rows[min(max(cap, 0), len(rows) - 1)][n])

    def prepare(self, subset: np.ndarray, history: History, cap: int):
        """A node's candidates: (obvious guess or None, its value, cand, bound, possible,
        largest), the candidates in the order the core tries them."""
        from .core import prepare, try_order

        depth = self._enter(history)
        c, rows = self.core, self.fields.lower
        child = rows[min(max(cap - 1, 0), len(rows) - 1)]
        guess, value, cand, bound, possible, largest = prepare(
            c, self._subset(subset), depth, cap, child, np.int64(INF)
        )
        if guess >= 0:
            return int(guess), int(value), None, None, None, None
        order = try_order(c, cand, bound, possible, largest)
        return None, 0, cand[order], bound[order], possible[order], largest[order]

    def candidates(self, subset: np.ndarray, history: History) -> np.ndarray:
        """The guesses the core tries at this node: allowed, one per symmetry class."""
        from .core import candidates

        depth = self._enter(history)
        return candidates(self.core, depth, self._subset(subset))

    def cells(self, guess: int, subset: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The non-solved cells of `subset` under `guess`, in the order the core searches
        them (the objective's ``smallest_first``; see ``core.py``)."""
        parts = [(f, p) for f, p in cells(self.table, guess, subset) if f != self.table.solved]
        sign = 1 if self.objective.smallest_first else -1
        parts.sort(key=lambda fp: sign * len(fp[1]))
        return parts
