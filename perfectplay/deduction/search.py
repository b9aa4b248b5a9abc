"""Exact search for optimal deduction strategies: branch-and-bound over consistent sets.

The value of a consistent set S with at most ``cap`` guesses left is the least total
number of guesses, summed over the secrets of S, that reveals each of them (the guess
that hits a secret counts). A guess g splits S into cells by feedback; its cost is
|S| + sum over the non-solved cells of their values with cap-1.

Speed-ups (each can be switched off in ``SpeedUps``; the value never changes):

* symmetry: only one guess per orbit of the symmetries the history leaves;
* bounds: a lower bound per cell (each guess reveals at most one secret and has at most
  b non-solved answers, so at most b^(d-1) secrets are revealed at depth d), candidates
  tried in order of bound, and branch-and-bound with a budget passed to each cell;
* memo: values and failed-budget lower bounds cached per consistent set (plus cap and
  the history's restriction);
* obvious: a possible guess splitting S into singletons costs 2|S|-1, which nothing
  beats; without one nothing beats 2|S|, which an impossible guess splitting S into
  singletons reaches, and so does a possible one leaving one pair (with 3 guesses left);
* table: feedbacks read from the table built once rather than recomputed per node.
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


@dataclass(frozen=True)
class SpeedUps:
    """Which speed-ups the search uses (all on by default)."""

    symmetry: bool = True
    bounds: bool = True
    memo: bool = True
    obvious: bool = True
    table: bool = True


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
        if sp.memo:
            hit = self._exact.get(key)
            if hit is not None:
                return hit if hit[0] < budget else (hit[0], -1)
            known = self._lower.get(key, 0)
            if known >= budget:
                return known, -1
        self.nodes += 1
        if self.progress and self.nodes % 20000 == 0:
            self.progress(f"{self.nodes:,} nodes searched")
        result = self._search(subset, history, cap, budget)
        if sp.memo:
            if result[1] >= 0:
                self._exact[key] = result
            else:
                self._lower[key] = max(self._lower.get(key, 0), result[0])
        return result

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

    def prepare(self, subset: np.ndarray, history: History, cap: int, lower: np.ndarray):
        """Candidates of a node with bound, possibility and largest cell; or an obvious guess.

        `cap` (>= 2) is the number of guesses left; `lower` the lower bounds of the cells.
        Returns (obvious guess or -1, its value, cand, bound, possible, largest).
        """
        t, sp = self.table, self.speed
        n = len(subset)
        cand = candidates(t, history, sp.symmetry)
        possible = in_subset(t, cand, subset)
        if sp.obvious and n <= t.branching + 1:
            inside = cand[possible]
            exact, largest = self._score(inside, subset, self._small)
            hits = np.flatnonzero(largest <= 1)
            if len(hits):
                return int(inside[hits[0]]), 2 * n - 1, None, None, None, None
            # Without an obvious possible guess no strategy beats 2n; a possible guess
            # leaving one pair and singletons reaches 2n within 3 guesses.
            hits = np.flatnonzero((largest <= 2) & (exact == 2 * n))
            if cap >= 3 and len(hits):
                return int(inside[hits[0]]), 2 * n, None, None, None, None
        bound, largest = self._score(cand, subset, lower)
        useful = possible | (largest < n)
        if sp.obvious:
            hits = np.flatnonzero(useful & (largest <= 1))
            if len(hits):  # no possible guess is obvious (checked above): 2n is optimal
                return int(cand[hits[0]]), 2 * n, None, None, None, None
        return -1, 0, cand[useful], bound[useful], possible[useful], largest[useful]

    def _search(self, subset: np.ndarray, history: History, cap: int, budget: int) -> tuple[int, int]:
        t, sp = self.table, self.speed
        n = len(subset)
        child = self.lower_row(cap - 1)
        obvious, value, cand, bound, possible, _ = self.prepare(subset, history, cap, child)
        if obvious >= 0:
            return (value, obvious) if value < budget else (value, -1)
        G = len(t.guesses)
        best, best_guess = (budget, -1) if sp.bounds else (INF, -1)
        hopeful = np.flatnonzero(bound < min(best, INF))  # the others can never win
        keys = bound[hopeful] * (2 * G) + (~possible[hopeful]) * G + cand[hopeful]
        for i in hopeful[np.argsort(keys)].tolist():
            if bound[i] >= min(best, INF):
                break
            g = int(cand[i])
            total = int(bound[i]) if sp.bounds else n
            for f, part in self.cells(g, subset):
                lb = int(child[len(part)]) if sp.bounds else 0
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
        t, sp = self.table, self.speed
        n = len(subset)
        if n == 0:
            return 0
        if cap <= 0 or (cap == 1 and n > 1) or (sp.bounds and n > self.capacity(cap)):
            return -1
        if n <= 2:
            return int(t.guess_of_secret[subset[0]])
        key = (self._set_key(subset), min(cap, n), restriction_key(t, history))
        if sp.memo and key in self._fits:
            return self._fits[key]
        self.nodes += 1
        g = self._fit_search(subset, history, cap)
        if sp.memo:
            self._fits[key] = g
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
