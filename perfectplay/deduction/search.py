"""Exact search for optimal deduction strategies: branch-and-bound over consistent sets.

The value of a consistent set S with at most ``cap`` guesses left is the least total
number of guesses, summed over the secrets of S, that reveals each of them (the guess
that hits a secret counts). A guess g splits S into cells by feedback; its cost is
|S| + sum over the non-solved cells of their values with cap-1.

Speed-ups (each can be switched off in ``SpeedUps``; the value never changes; the
reasons are in docs/deduction.md):

* symmetry: one guess per orbit of the symmetries that map the consistent set onto
  itself (those fixing the history, and relabellings of symbols no secret uses);
* bounds: a lower bound per cell (each guess reveals at most one secret and has at most
  b non-solved answers, so at most b^(d-1) secrets are revealed at depth d), candidates
  tried in order of bound, and branch-and-bound with a budget passed to each cell;
* lookahead: each cell's bound raised to the least bound of its own candidates before
  a guess is searched, which refuses most guesses without a search below them;
* memo: values and failed-budget lower bounds cached per consistent set (plus cap and
  the history's restriction) and per canonical form of the history;
* obvious: a possible guess splitting S into singletons costs 2|S|-1, which nothing
  beats; without one nothing beats 2|S|, which an impossible guess splitting S into
  singletons reaches, and so does a possible one leaving one pair (with 3 guesses left);
* table: feedbacks read from the table built once rather than recomputed per node;
* compiled: below the first levels the same search runs compiled whole
  (search_kernel.py), for games whose guesses the history never restricts and with the
  table on; the first levels stay in Python for progress, Ctrl-C and the process pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .feedback import Table, compute_feedback
from .model import History
from .partition import cells, in_subset
from .symmetry import candidates, restriction_key

#: "Impossible within the cap" (and the budget of an unbounded search).
INF = 1 << 40

#: The compiled kernel (when it applies) searches sets of at most KERNEL_SIZE secrets
#: after the first guess, and every set after KERNEL_DEPTH guesses. Larger sets stay in
#: Python, where progress is reported and Ctrl-C is honoured between kernel calls (a
#: kernel call cannot be interrupted; with these limits one lasts at most about a
#: minute on Bulls and Cows).
KERNEL_DEPTH = 3
KERNEL_SIZE = 300

#: Largest symbols**length for which packed codes are tabulated (memo keys from histories).
MAX_CODE_INDEX = 10_000_000

#: Report progress every this many nodes.
PROGRESS_EVERY = 100_000


@dataclass(frozen=True)
class SpeedUps:
    """Which speed-ups the search uses (all on by default)."""

    symmetry: bool = True
    bounds: bool = True
    memo: bool = True
    obvious: bool = True
    table: bool = True
    compiled: bool = True
    lookahead: bool = True


class Search:
    """Optimal values and guesses of consistent sets of one game, with shared caches."""

    def __init__(self, table: Table, speedups: SpeedUps = SpeedUps(),
                 progress: Callable[[str], None] | None = None) -> None:
        self.table = table
        self.speed = speedups
        self.progress = progress
        self.nodes = 0
        self._exact: dict[tuple, tuple[int, int]] = {}
        self._lower: dict[tuple, int] = {}
        self._fits: dict[tuple, int] = {}
        self._rows: dict[int, np.ndarray] = {}
        # exact values of cells of 0, 1 and 2 secrets (0 beyond): spots the "one pair" guess
        self._small = np.zeros(table.n_secrets + 1, dtype=np.int64)
        self._small[1:3] = (1, 3)[: min(2, table.n_secrets)]
        self._compiled = (speedups.compiled and speedups.table
                          and not table.game.restricts_guesses())
        self._ctx: tuple | None = None
        self._group_arrays: tuple | None = None

    # --- the compiled kernel ------------------------------------------------------------
    def _context(self) -> tuple:
        """The kernel's state (tables, switches, memo dictionaries), built on first use."""
        if self._ctx is None:
            from numba import typed, types

            t, sp = self.table, self.speed
            N = t.n_secrets
            last = 1  # rows stop changing once every secret fits (at cap 1 without bounds)
            if sp.bounds:
                last = 0
                while last < N and self.capacity(last) < N:
                    last += 1
            rows = [self.lower_row(c) for c in range(min(last, N) + 1)]
            perms, act, index_of_code = self._group()
            key = types.UniTuple(types.int64, 3)
            self._ctx = (
                t.fb, t.guesses, perms, act,
                bool(t.symmetry.symbols), t.game.n_symbols(), t.solved,
                t.secret_of_guess, t.guess_of_secret, np.vstack(rows), self._small,
                np.array([sp.symmetry, sp.bounds, sp.memo, sp.obvious, sp.lookahead]),
                typed.Dict.empty(key, types.UniTuple(types.int64, 2)),
                typed.Dict.empty(key, types.int64), typed.Dict.empty(key, types.int64),
                np.zeros(N + 2, dtype=np.int64), np.zeros(N + 2, dtype=np.int64),
                np.zeros(1, dtype=np.int64), np.zeros(N, dtype=bool),
                t.n_feedbacks, t.branching, index_of_code)
        return self._ctx

    def _group(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The symmetry group as arrays: position permutations, their action on feedbacks,
        and the guess index of each packed code (empty when too large to tabulate)."""
        if self._group_arrays is None:
            t = self.table
            perms = np.ascontiguousarray(t.symmetry.positions)
            act = t.game.feedback_action(perms)
            if act is None:
                act = np.tile(np.arange(t.n_feedbacks), (len(perms), 1))
            symbols, length = t.game.n_symbols(), t.guesses.shape[1]
            index = np.empty(0, dtype=np.int64)
            if symbols ** length <= MAX_CODE_INDEX:
                index = np.full(symbols ** length, -1, dtype=np.int64)
                packed = t.guesses.astype(np.int64) @ (symbols ** np.arange(length - 1, -1, -1))
                index[packed] = np.arange(len(t.guesses))
            self._group_arrays = (perms, np.ascontiguousarray(act, dtype=np.int64), index)
        return self._group_arrays

    def _history_slot(self, history: History, cap: int):
        """(memo key or None, e, rename): the history's canonical form (``kernels.history_key``).

        Histories that a symmetry maps onto each other share the key; entries under it
        hold guesses in canonical coordinates (``_canonical_guess``, ``_actual_guess``).
        """
        from .kernels import history_key

        perms, act, index = self._group()
        if not (self.speed.memo and self.speed.symmetry) or len(index) == 0 or not history:
            return None, 0, None
        t = self.table
        h1, h2, e, rename = history_key(t.guesses, np.array([g for g, _ in history], dtype=np.int64),
                                        np.array([f for _, f in history], dtype=np.int64),
                                        len(history), perms, act, bool(t.symmetry.symbols),
                                        t.game.n_symbols())
        if h1 == 0 and h2 == 0:
            return None, 0, None  # no key for this history (too long, or too costly)
        return ("history", int(h1), int(h2), cap), int(e), rename

    def _canonical_guess(self, guess: int, e: int, rename: np.ndarray) -> int:
        from .kernels import to_canonical

        perms = self._group()[0]
        return -1 if guess < 0 else int(to_canonical(self.table.guesses[guess], perms[e], rename,
                                                     self.table.game.n_symbols()))

    def _actual_guess(self, packed: int, e: int, rename: np.ndarray) -> int:
        from .kernels import from_canonical

        perms, _, index = self._group()
        return -1 if packed < 0 else int(from_canonical(packed, perms[e], rename,
                                                        self.table.game.n_symbols(),
                                                        self.table.guesses.shape[1], index))

    def _in_kernel(self, subset: np.ndarray, history: History) -> bool:
        return self._compiled and len(history) >= 1 and (len(subset) <= KERNEL_SIZE
                                                         or len(history) >= KERNEL_DEPTH)

    def _run_kernel(self, function, subset: np.ndarray, history: History, *args):
        """Call a kernel function on `subset` after `history`, counting its nodes."""
        from .search_kernel import COUNTERS, HIST_F, HIST_G

        ctx = self._context()
        depth = len(history)
        for i, (g, f) in enumerate(history):
            ctx[HIST_G][i], ctx[HIST_F][i] = g, f
        before = int(ctx[COUNTERS][0])
        result = function(ctx, np.ascontiguousarray(subset, dtype=np.int64), depth, *args)
        done = int(ctx[COUNTERS][0]) - before
        if self.progress and (self.nodes + done) // PROGRESS_EVERY > self.nodes // PROGRESS_EVERY:
            self.progress(f"{self.nodes + done:,} nodes searched")
        self.nodes += done
        return result

    def _set_key(self, subset: np.ndarray) -> bytes:
        """A consistent set as a compact memo key (16-bit indices where they fit)."""
        return (subset.astype(np.uint16) if self.table.n_secrets <= 65536 else subset).tobytes()

    # --- lower bounds ---------------------------------------------------------------
    def capacity(self, cap: int) -> int:
        """Most secrets any strategy can reveal within `cap` guesses."""
        b = self.table.branching
        return sum(b ** d for d in range(max(cap, 0))) if b > 1 else max(cap, 0)

    def lower_row(self, cap: int) -> np.ndarray:
        """LB[n]: least conceivable total for n secrets within `cap` guesses (INF if none fits)."""
        N = self.table.n_secrets
        cap = min(max(cap, 0), N)
        row = self._rows.get(cap)
        if row is None:
            row = np.full(N + 1, INF, dtype=np.int64)
            row[0] = 0
            if self.speed.bounds:
                n, total, level, width = 0, 0, 1, 1
                while n < N and level <= cap:
                    take = min(width, N - n)
                    depths = np.arange(1, take + 1)
                    row[n + 1:n + take + 1] = total + level * depths
                    n += take
                    total += level * take
                    level += 1
                    width *= self.table.branching
            else:
                row[1:] = 0
                if cap == 0:
                    row[1:] = INF
            self._rows[cap] = row
        return row

    # --- minimum total ---------------------------------------------------------------
    def best(self, subset: np.ndarray, history: History, cap: int, budget: int = INF) -> tuple[int, int]:
        """(value, guess) of `subset` within `cap` guesses, if the value is below `budget`.

        Otherwise returns (a lower bound >= budget, -1). A value of INF means no strategy
        fits within the cap.
        """
        if self._in_kernel(subset, history):
            from . import search_kernel

            value, guess = self._run_kernel(search_kernel.best, subset, history, cap, budget)
            return int(value), int(guess)
        t, sp = self.table, self.speed
        n = len(subset)
        if n == 0:
            return 0, -1
        if cap <= 0 or (cap == 1 and n > 1):
            return INF, -1
        first = int(t.guess_of_secret[subset[0]])
        if n <= 2:
            return 2 * n - 1, first
        cap = min(cap, n)
        lower = self.lower_row(cap)[n]
        if sp.bounds and lower >= budget:
            return int(lower), -1
        key = (self._set_key(subset), cap, restriction_key(t, history))
        hkey, e, rename = self._history_slot(history, cap)
        if sp.memo:
            found, value, guess, by_history = self._recall(key, hkey, n)
            if found and value < budget:
                return value, self._actual_guess(guess, e, rename) if by_history else guess
            if value >= budget:
                return value, -1
        self.nodes += 1
        if self.progress and self.nodes % PROGRESS_EVERY == 0:
            self.progress(f"{self.nodes:,} nodes searched")
        result = self._search(subset, history, cap, budget)
        if sp.memo:
            self._remember(key, hkey, e, rename, *result)
        return result

    def _recall(self, key: tuple, hkey: tuple | None, n: int) -> tuple[bool, int, int, bool]:
        """What the memo knows of a set of n secrets: (exact?, value, guess, by history?).

        An exact value comes with its guess (in canonical coordinates when found under the
        history's key: ``_actual_guess`` maps it back); otherwise the best lower bound
        known (under either key, or with one guess more) and guess -1.
        """
        for k, by_history in ((key, False), (hkey, True)):
            hit = self._exact.get(k)
            if hit is not None:
                return True, hit[0], hit[1], by_history
        return False, max(self._lower.get(key, 0), self._lower.get(hkey, 0),
                          self._wider_value(key, n)), -1, False

    def _remember(self, key: tuple, hkey: tuple | None, e: int, rename, value: int, guess: int) -> None:
        """Store an exact value with its guess (guess >= 0) or a lower bound, under both keys."""
        if guess >= 0:
            self._exact[key] = (value, guess)
            if hkey is not None:
                self._exact[hkey] = (value, self._canonical_guess(guess, e, rename))
        else:
            for k in (key, hkey) if hkey is not None else (key,):
                self._lower[k] = max(self._lower.get(k, 0), value)

    def _wider_value(self, key: tuple, n: int) -> int:
        """What the memo knows of the same set with one more guess allowed: a lower bound
        (more guesses never cost more), which the pass for the worst-case tie-break reuses."""
        subset_key, cap, restriction = key
        if cap >= n:
            return 0
        wider = (subset_key, cap + 1, restriction)
        hit = self._exact.get(wider)
        return hit[0] if hit is not None else self._lower.get(wider, 0)

    def _score(self, cand: np.ndarray, subset: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Bound and largest non-solved cell of each candidate guess on `subset`."""
        from .kernels import score_guesses

        t = self.table
        if self.speed.table:
            return score_guesses(t.fb, cand, subset, lower, t.solved, t.n_feedbacks)
        local = compute_feedback(t.game, t.guesses[cand], t.secrets[subset])
        return score_guesses(local, np.arange(len(cand)), np.arange(len(subset)), lower,
                             t.solved, t.n_feedbacks)

    def cells(self, guess: int, subset: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The non-solved cells of `subset` under `guess`, largest first."""
        parts = [(f, p) for f, p in cells(self.table, guess, subset, self.speed.table)
                 if f != self.table.solved]
        parts.sort(key=lambda fp: -len(fp[1]))
        return parts

    def obvious_possible(self, subset: np.ndarray, history: History, cap: int) -> tuple[int, int]:
        """(guess, value) of a possible guess that is obviously optimal on `subset`, or (-1, 0).

        A possible guess splitting the set into singletons costs 2n-1, which nothing
        beats; without one nothing beats 2n, which a possible guess leaving one pair
        and singletons reaches within 3 guesses. Only sets of at most ``branching + 1``
        secrets can have one. The lowest such guess is the one the candidates would
        give too (its orbit's least member is possible and splits alike).
        """
        t = self.table
        n = len(subset)
        if not self.speed.obvious or n > t.branching + 1:
            return -1, 0
        inside = t.guess_of_secret[subset]
        allowed = t.game.restrict_guesses(history, t.guesses[inside])
        if allowed is not None:
            inside = inside[allowed]
        exact, largest = self._score(inside, subset, self._small)
        hits = np.flatnonzero(largest <= 1)
        if len(hits):
            return int(inside[hits[0]]), 2 * n - 1
        hits = np.flatnonzero((largest <= 2) & (exact == 2 * n))
        if cap >= 3 and len(hits):
            return int(inside[hits[0]]), 2 * n
        return -1, 0

    def prepare(self, subset: np.ndarray, history: History, cap: int, lower: np.ndarray):
        """Candidates of a node with bound, possibility and largest cell; or an obvious guess.

        `cap` (>= 2) is the number of guesses left; `lower` the lower bounds of the cells.
        Returns (obvious guess or -1, its value, cand, bound, possible, largest).
        """
        t, sp = self.table, self.speed
        n = len(subset)
        guess, value = self.obvious_possible(subset, history, cap)
        if guess >= 0:
            return guess, value, None, None, None, None
        cand = candidates(t, history, sp.symmetry, subset)
        possible = in_subset(t, cand, subset)
        bound, largest = self._score(cand, subset, lower)
        useful = possible | (largest < n)
        if sp.obvious:
            hits = np.flatnonzero(useful & (largest <= 1))
            if len(hits):  # no possible guess is obvious (checked above): 2n is optimal
                return int(cand[hits[0]]), 2 * n, None, None, None, None
        return -1, 0, cand[useful], bound[useful], possible[useful], largest[useful]

    def cell_bound(self, part: np.ndarray, history: History, cap: int) -> int:
        """A lower bound of ``best(part, history, cap)`` from one look at the cell's candidates.

        The least candidate bound (the exact value when an obvious guess exists, or what
        the memo knows): far tighter than the bound by size alone, for the cost of
        scoring the candidates once. Remembered as a lower bound.
        """
        if self._in_kernel(part, history):
            from . import search_kernel

            return int(self._run_kernel(search_kernel.cell_bound, part, history, cap))
        m = len(part)
        if m == 0:
            return 0
        if cap <= 0 or (cap == 1 and m > 1):
            return INF
        if m <= 2:
            return 2 * m - 1
        cap = min(cap, m)
        low = int(self.lower_row(cap)[m])
        key = (self._set_key(part), cap, restriction_key(self.table, history))
        hkey, e, rename = self._history_slot(history, cap)
        if self.speed.memo:
            found, value, _, _ = self._recall(key, hkey, m)
            if found or value > low:
                return value  # exact, or looked at before
        if self.speed.obvious and m <= self.table.branching + 1:
            # small cells: the obvious guesses only (scoring every candidate costs more
            # than it prunes); without an obvious possible guess no strategy beats 2m
            obvious, value = self.obvious_possible(part, history, cap)
            if obvious < 0:
                return max(low, 2 * m)
        else:
            obvious, value, _, bound, _, _ = self.prepare(part, history, cap, self.lower_row(cap - 1))
            if obvious < 0 and len(bound):
                low = max(low, int(bound.min()))
        if obvious >= 0:
            low = value
        if self.speed.memo:
            self._remember(key, hkey, e, rename, low, obvious)
        return low

    def _where(self, history: History) -> str:
        """A history as people read it, for progress messages."""
        game = self.table.game
        return " ".join(f"{game.format_code(self.table.guesses[g])}={game.format_feedback(f)}"
                        for g, f in history) or "first guess"

    def _search(self, subset: np.ndarray, history: History, cap: int, budget: int) -> tuple[int, int]:
        t, sp = self.table, self.speed
        n = len(subset)
        child = self.lower_row(cap - 1)
        obvious, value, cand, bound, possible, _ = self.prepare(subset, history, cap, child)
        if obvious >= 0:
            return (value, obvious) if value < budget else (value, -1)
        G = len(t.guesses)
        best, best_guess = (budget, -1) if sp.bounds else (INF, -1)
        if sp.bounds and len(bound) and bound.min() >= budget:
            best = int(bound.min())  # a tighter lower bound for the memo
        hopeful = np.flatnonzero(bound < min(best, INF))  # the others can never win
        keys = bound[hopeful] * (2 * G) + (~possible[hopeful]) * G + cand[hopeful]
        lookahead = sp.bounds and sp.lookahead
        for i in hopeful[np.argsort(keys)].tolist():
            if bound[i] >= min(best, INF):
                break
            g = int(cand[i])
            parts = self.cells(g, subset)
            lower, total = [], n
            for f, part in parts:  # every cell's lower bound first: a cheap refusal
                lower.append(self.cell_bound(part, history + ((g, f),), cap - 1) if lookahead
                             else int(child[len(part)]) if sp.bounds else 0)
                total += lower[-1]
                if sp.bounds and total >= best:
                    break
            if sp.bounds and total >= best:
                continue
            if self.progress and len(history) < KERNEL_DEPTH:
                self.progress(f"{self._where(history)}: trying {t.game.format_code(t.guesses[g])} "
                              f"(bound {total}, best so far {best if best < budget else '-'})")
            for (f, part), lb in zip(parts, lower):
                v, _ = self.best(part, history + ((g, f),), cap - 1,
                                 best - (total - lb) if sp.bounds else INF)
                total += v - lb
                if total >= best and (sp.bounds or v >= INF):
                    break
            else:
                if total < best:
                    best, best_guess = total, g
        return best, best_guess

    # --- minimum worst case ------------------------------------------------------------
    def fits(self, subset: np.ndarray, history: History, cap: int) -> int:
        """A guess that reveals every secret of `subset` within `cap` guesses, or -1."""
        if self._in_kernel(subset, history):
            from . import search_kernel

            return int(self._run_kernel(search_kernel.fits, subset, history, cap))
        t, sp = self.table, self.speed
        n = len(subset)
        if n == 0:
            return 0
        if cap <= 0 or (cap == 1 and n > 1) or (sp.bounds and n > self.capacity(cap)):
            return -1
        if n <= 2:
            return int(t.guess_of_secret[subset[0]])
        key = (self._set_key(subset), min(cap, n), restriction_key(t, history))
        hkey, e, rename = self._history_slot(history, min(cap, n))
        if sp.memo:
            if key in self._fits:
                return self._fits[key]
            if hkey in self._fits:
                return self._actual_guess(self._fits[hkey], e, rename)
        self.nodes += 1
        g = self._fit_search(subset, history, cap)
        if sp.memo:
            self._fits[key] = g
            if hkey is not None:
                self._fits[hkey] = self._canonical_guess(g, e, rename)
        return g

    def _fit_search(self, subset: np.ndarray, history: History, cap: int) -> int:
        t, sp = self.table, self.speed
        obvious, _, cand, _, possible, largest = self.prepare(subset, history, cap, self.lower_row(0))
        if obvious >= 0:
            return obvious
        G = len(t.guesses)
        if sp.bounds:
            fits = largest <= self.capacity(cap - 1)
            cand, possible, largest = cand[fits], possible[fits], largest[fits]
        for i in np.argsort(largest * (2 * G) + (~possible) * G + cand, kind="stable").tolist():
            g = int(cand[i])
            if all(self.fits(p, history + ((g, f),), cap - 1) >= 0 for f, p in self.cells(g, subset)):
                return g
        return -1
