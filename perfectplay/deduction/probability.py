"""Maximum probability of winning within a horizon of T guesses, for any deduction game.

Seed 000's main lemma turns the probability into a count. For a consistent set S with
t guesses left, let W(S, t) be the most secrets of S that a strategy reveals within t
guesses (its "branching count"). Then

    W(S, 0) = 0,    W(S, 1) = 1 if some allowed guess lies in S,
    W(S, t) = max over allowed guesses g of [g in S] + sum over the non-solved cells
              S_f of S under g of W(S_f, t - 1),

and the best probability is W(all secrets, T) / (number of secrets), an exact fraction.
The search never builds the full feedback table (10^10 entries for item matching with
ten items): it keeps each state's consistent set and computes feedbacks only for the
candidate guesses against that set.

Speed-ups (each can be switched off in ``WinSpeedUps``; the value never changes):

* states: states are memoised under the canonical form of their history (the least
  image under the slot permutations and symbol relabellings of the rules), so
  isomorphic states are evaluated once;
* queries: only one guess per orbit of the symmetries that fix the history is tried;
  with two guesses left, in a game whose feedback is blind to which absent symbol fills
  a position, guesses equal up to their absent symbols are tried once;
* consistency: a child's consistent set is its cell of the parent's set (one kernel
  pass over the parent's secrets), rather than a rescan of every secret against the
  whole history;
* memo: evaluated states are remembered at all (off: every state is searched afresh);
* bounds: W(S, t) <= |S| and <= the leaves of a tree of depth t (1 + b + ... + b^(t-1),
  b the non-solved feedbacks); each guess is bounded by summing min(|S_f|, leaves(t-1))
  over its cells, guesses are tried best bound first, the search stops at a guess
  reaching the state's bound and skips the rest of a guess once it cannot win.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from ..solution import PROVEN, Solution
from .model import DeductionGame, History
from .symmetry import fixing_feedbacks
from .tree import Node, tree_to_json

#: Feedback entries computed in one kernel call (bounds the memory of a node).
CHUNK = 1 << 22


@dataclass(frozen=True)
class WinSpeedUps:
    """Which speed-ups the win-probability search uses (all on by default)."""

    states: bool = True
    queries: bool = True
    consistency: bool = True
    memo: bool = True
    bounds: bool = True


class WinSearch:
    """W(S, t) of the states of one game, with a memo shared by every call."""

    def __init__(self, game: DeductionGame, speedups: WinSpeedUps = WinSpeedUps(),
                 progress: Callable[[str], None] | None = None) -> None:
        self.game = game
        self.speed = speedups
        self.progress = progress
        self.codes = game.guesses()
        self.secrets = np.ascontiguousarray(game.secrets())
        index = {tuple(c): i for i, c in enumerate(self.codes.tolist())}
        self.guess_of_secret = np.array([index[tuple(s)] for s in self.secrets.tolist()],
                                        dtype=np.int64)
        self.secret_of_guess = np.full(len(self.codes), -1, dtype=np.int64)
        self.secret_of_guess[self.guess_of_secret] = np.arange(len(self.secrets))
        self.solved = game.solved_feedback()
        self.n_feedbacks = game.n_feedbacks()
        self.kernel = game.feedback_kernel()
        sym = game.symmetry()
        self.perms = np.asarray(sym.positions, dtype=np.int8)
        self.relabel = bool(sym.symbols)
        act = game.feedback_action(self.perms)
        self.act = (np.tile(np.arange(self.n_feedbacks), (len(self.perms), 1)) if act is None
                    else np.asarray(act, dtype=np.int64))
        self.allowed_always = game.consistent_secrets_allowed()
        self.blind = game.blind_to_absent_symbols()
        self.weights = (game.n_symbols() + 1) ** np.arange(game.length(), dtype=np.int64)
        self.full_product = len(self.codes) == game.n_symbols() ** game.length()
        self.symmetric = len(self.perms) > 1 or self.relabel
        self.nodes = 0
        self.memo: dict[bytes, int] = {}
        self.choice: dict[tuple[History, int], int] = {}  # the best guess of each state searched

    # --- pieces -------------------------------------------------------------------------
    def leaves(self, t: int) -> int:
        """Most secrets a strategy can reveal with t guesses: 1 + b + ... + b^(t-1), and
        never more than there are secrets (which keeps the bound a machine integer for the
        compiled loops: 242^10 is not one)."""
        b = self.n_feedbacks - 1
        return min(sum(b ** d for d in range(max(t, 0))), len(self.secrets))

    def feedbacks(self, guesses: np.ndarray, subset: np.ndarray) -> np.ndarray:
        """fb[i, j] = feedback of guess guesses[i] against secret subset[j]."""
        out = np.empty((len(guesses), len(subset)), dtype=np.uint8)
        self.kernel(self.codes[guesses], self.secrets[subset], out)
        return out

    def allowed(self, history: History) -> np.ndarray | None:
        """The rules' mask of allowed guesses after `history` (None: all)."""
        return self.game.restrict_guesses(history, self.codes)

    def candidates(self, history: History, subset: np.ndarray | None = None,
                   absent_once: bool = False) -> np.ndarray:
        """Allowed guesses, one per orbit of the history's stabiliser when `queries` is on.

        With `absent_once` (two guesses left, a game blind to absent symbols) guesses
        that differ only in which symbol absent from `subset` fills a position count once.
        """
        n = self.game.n_symbols()
        sets = self.game.allowed_symbols(history) if self.full_product else None
        if sets is None:
            mask = self.allowed(history)
            cand = np.arange(len(self.codes), dtype=np.int64) if mask is None else np.flatnonzero(mask)
            if self.speed.queries and self.symmetric:
                cand = cand[self._canonical(self.codes[cand], history)]
            if absent_once:
                cand = cand[self._one_absent(cand, subset)]
            return cand
        rows = [np.flatnonzero(row) for row in sets]
        present = np.ones(n, dtype=bool)
        if absent_once:
            present[:] = False
            present[np.unique(self.secrets[subset])] = True
            rows = [np.sort(np.concatenate((r[present[r]], r[~present[r]][:1]))) for r in rows]
        cand = np.zeros(1, dtype=np.int64)
        for r in rows:  # codes are all n^L codes in lexicographic order
            cand = (cand[:, None] * n + r[None, :]).ravel()
        if self.speed.queries and self.symmetric:
            codes = self.codes[cand]
            if absent_once:  # every absent symbol written as one mark, n
                codes = np.where(present[codes], codes, n).astype(np.int8)
            cand = cand[self._canonical(codes, history)]
        return cand

    def _canonical(self, codes: np.ndarray, history: History) -> np.ndarray:
        """Which `codes` are least in their orbit under the symmetries fixing `history`.

        A symbol n (one more than the game's) marks "some absent symbol" and is fixed.
        """
        from .kernels import canonical_mask, stabiliser

        n = self.game.n_symbols()
        perms = fixing_feedbacks(self.game, self.perms, history)
        hist = self.codes[np.array([g for g, _ in history], dtype=np.int64)]
        ok, taus = stabiliser(perms, hist, n, self.relabel)
        taus = np.concatenate((taus, np.full((len(taus), 1), n, dtype=taus.dtype)), axis=1)
        free = np.ones(n + 1, dtype=bool)
        free[hist.ravel()] = False
        free[n] = False
        if ok.sum() == 1 and (not self.relabel or free.sum() <= 1):
            return np.ones(len(codes), dtype=bool)
        return canonical_mask(np.ascontiguousarray(codes), np.arange(len(codes)), perms[ok],
                              taus[ok], np.where(free, 0, -1), self.relabel)

    def _one_absent(self, cand: np.ndarray, subset: np.ndarray) -> np.ndarray:
        """Which of `cand` to keep when symbols absent from `subset` are interchangeable per position.

        Guesses that agree once every absent symbol is written as one mark split the
        set alike (``blind_to_absent_symbols``); the first of each class is kept.
        """
        present = np.zeros(self.game.n_symbols() + 1, dtype=bool)
        present[np.unique(self.secrets[subset])] = True
        codes = self.codes[cand].astype(np.int64)
        marked = np.where(present[codes], codes, self.game.n_symbols())
        _, first = np.unique(marked @ self.weights, return_index=True)
        keep = np.zeros(len(cand), dtype=bool)
        keep[first] = True
        return keep

    def key(self, history: History, t: int) -> bytes:
        """Memo key of a state: its canonical history (or the history itself) and t."""
        guesses = np.array([g for g, _ in history], dtype=np.int64)
        fbs = np.array([f for _, f in history], dtype=np.int64)
        if self.speed.states and history:
            from .probability_kernels import history_key

            image = history_key(self.codes[guesses], fbs, self.perms, self.act, self.relabel,
                                self.game.n_symbols())
            return bytes([t]) + image.tobytes()
        return bytes([t]) + guesses.tobytes() + fbs.tobytes()

    def cells(self, guess: int, subset: np.ndarray, history: History) -> list[tuple[int, np.ndarray]]:
        """The non-solved cells (feedback, consistent secrets) of `subset` under `guess`, largest first."""
        from .kernels import split

        if self.speed.consistency:
            row = self.feedbacks(np.array([guess]), subset)[0]
            members, fbs, starts = split(row, np.arange(len(subset)), self.n_feedbacks)
            parts = [(int(f), subset[members[a:b]]) for f, a, b in
                     zip(fbs.tolist(), starts[:-1].tolist(), starts[1:].tolist()) if f != self.solved]
        else:
            everyone = np.arange(len(self.secrets))
            consistent = np.ones(len(everyone), dtype=bool)
            for g, f in history + ((guess, -1),):
                row = self.feedbacks(np.array([g]), everyone)[0]
                if f >= 0:
                    consistent &= row == f
            parts = [(int(f), np.flatnonzero(consistent & (row == f)))
                     for f in np.unique(row[consistent]).tolist() if f != self.solved]
        parts.sort(key=lambda fp: -len(fp[1]))
        return parts

    def last_guess(self, subset: np.ndarray, history: History) -> int:
        """An allowed guess in `subset` (the best last guess), or -1 if there is none."""
        inside = self.guess_of_secret[subset]
        if self.allowed_always:
            return int(inside[0])
        mask = self.allowed(history)
        ok = inside if mask is None else inside[mask[inside]]
        return int(ok[0]) if len(ok) else -1

    # --- the search ---------------------------------------------------------------------
    def value(self, subset: np.ndarray, history: History, t: int) -> int:
        """W(subset, t): most secrets of `subset` revealed within t guesses after `history`."""
        if len(subset) == 0 or t <= 0:
            return 0
        if len(subset) <= 2 and t >= 2 and self.allowed_always:
            return len(subset)  # guess one, then the other
        if t == 1:
            return int(self.last_guess(subset, history) >= 0)
        key = self.key(history, t) if self.speed.memo else b""
        if self.speed.memo:
            hit = self.memo.get(key)
            if hit is not None:
                return hit
        self.nodes += 1
        if self.progress and self.nodes % 20000 == 0:
            self.progress(f"{self.nodes:,} states evaluated")
        v, g = self.best(subset, history, t)
        if self.speed.memo:
            self.memo[key] = v
            self.choice[history, t] = g
        return v

    def best(self, subset: np.ndarray, history: History, t: int) -> tuple[int, int]:
        """(W(subset, t), the first guess achieving it), t >= 2, searched at this state."""
        n = len(subset)
        absent_once = t == 2 and self.allowed_always and self.blind and self.speed.queries
        cand = self.candidates(history, subset, absent_once)
        member = np.zeros(len(self.secrets) + 1, dtype=bool)
        member[subset] = True
        inside = member[self.secret_of_guess[cand]].astype(np.int64)
        upper = min(n, self.leaves(t)) if self.speed.bounds else n + 1
        if t == 2 and self.allowed_always:
            return self._best_two(subset, cand, inside, upper)
        cap = self.leaves(t - 1) if self.speed.bounds else n
        if n - 1 <= cap:  # no cell can exceed the cap: every guess is bounded by |S| alone
            bound = np.full(len(cand), n, dtype=np.int64)
        else:
            from .probability_kernels import capped_cells

            bound = np.empty(len(cand), dtype=np.int64)
            step = max(1, CHUNK // n)
            for a in range(0, len(cand), step):
                fb = self.feedbacks(cand[a:a + step], subset)
                bound[a:a + step] = capped_cells(fb, self.solved, self.n_feedbacks, cap)
            bound += inside
        best, best_guess = -1, -1
        for i in np.lexsort((cand, -inside, -bound)).tolist():
            if self.speed.bounds and bound[i] <= best:
                break
            g = int(cand[i])
            total, rest = int(inside[i]), int(bound[i] - inside[i])
            for f, part in self.cells(g, subset, history):
                total += self.value(part, history + ((g, f),), t - 1)
                rest -= min(len(part), cap)
                if self.speed.bounds and total + rest <= best:
                    break
            if total > best:
                best, best_guess = total, g
                if best >= upper:
                    break
        return best, best_guess

    def _best_two(self, subset: np.ndarray, cand: np.ndarray, inside: np.ndarray,
                  upper: int) -> tuple[int, int]:
        """Two guesses left: a guess is worth [g in S] + its distinct non-solved feedbacks."""
        from .probability_kernels import distinct_open

        order = np.argsort(-inside, kind="stable")  # possible guesses first
        best, best_guess = -1, -1
        n_inside = int(inside.sum())
        limit = max(1, CHUNK // len(subset))
        # the possible guesses first (one of them most often splits S into singletons), then
        # the others in chunks
        cuts = [0, n_inside] + list(range(n_inside + limit, len(order), limit)) + [len(order)]
        for a, b in zip(cuts[:-1], cuts[1:]):
            if a >= b:
                continue
            idx = order[a:b]
            vals = distinct_open(self.feedbacks(cand[idx], subset), self.solved,
                                 self.n_feedbacks) + inside[idx]
            j = int(np.argmax(vals))
            if vals[j] > best:
                best, best_guess = int(vals[j]), int(cand[idx[j]])
                if best >= upper:
                    break
        return best, best_guess

    # --- the strategy -------------------------------------------------------------------
    def guess_value(self, guess: int, subset: np.ndarray, history: History, t: int,
                    floor: int = -1) -> int:
        """Secrets of `subset` revealed within t guesses when `guess` is played first, then best play.

        With bounds on, stops early (returning a value <= `floor`) once the guess cannot
        exceed `floor`.
        """
        total = int(guess in set(self.guess_of_secret[subset].tolist()))
        cap = self.leaves(t - 1)
        parts = self.cells(guess, subset, history)
        rest = sum(min(len(part), cap) for _, part in parts)
        for f, part in parts:
            total += self.value(part, history + ((guess, f),), t - 1)
            rest -= min(len(part), cap)
            if self.speed.bounds and total + rest <= floor:
                break
        return total

    def root_order(self, t: int) -> np.ndarray:
        """The candidate first guesses in the order `best` tries them."""
        everyone = np.arange(len(self.secrets))
        cand = self.candidates(())
        inside = (self.secret_of_guess[cand] >= 0).astype(np.int64)
        if t == 2 and self.allowed_always:
            return cand[np.argsort(-inside, kind="stable")]
        from .probability_kernels import capped_cells

        cap = self.leaves(t - 1) if self.speed.bounds else len(everyone)
        bound = np.concatenate([capped_cells(self.feedbacks(cand[a:a + 64], everyone), self.solved,
                                             self.n_feedbacks, cap) for a in range(0, len(cand), 64)])
        return cand[np.lexsort((cand, -inside, -(bound + inside)))]

    def tree(self, subset: np.ndarray, history: History, t: int,
             wins: Counter[int], depth: int = 1, guess: int = -1) -> Node:
        """The optimal strategy from a state (every guess taken from `best`, the first one
        `guess` if given), counting wins by depth."""
        g = guess if guess >= 0 else self.choice.get((history, t), -1)
        if g < 0:
            g = self.last_guess(subset, history) if t == 1 else self.best(subset, history, t)[1]
        if g < 0:  # no allowed guess can win: any allowed guess ends the game
            g = int(self.candidates(history)[0])
        node = Node(g)
        if self.secret_of_guess[g] >= 0 and self.secret_of_guess[g] in set(subset.tolist()):
            wins[depth] += 1
        if t > 1:
            for f, part in self.cells(g, subset, history):
                child = history + ((g, f),)
                if self.value(part, child, t - 1) > 0:
                    node.children[f] = self.tree(part, child, t - 1, wins, depth + 1)
        return node


@dataclass
class WinStrategy:
    """An optimal strategy for the probability objective: a tree of at most `horizon` levels."""

    game: Any
    root: Node
    horizon: int
    wins: int
    secrets: int
    histogram: dict[int, int]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "deduction-tree", "label": PROVEN, "method": "optimal",
                "objective": "probability", "horizon": self.horizon, "wins": self.wins,
                "secrets": self.secrets,
                "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
                "root": tree_to_json(self.game, self.root)}


#: The search of a worker process (see `_first_guess_values`).
_WORKER: WinSearch | None = None


def _start_worker(game: DeductionGame, speedups: WinSpeedUps) -> None:
    global _WORKER
    _WORKER = WinSearch(game, speedups)


def _evaluate_first(guess: int, horizon: int, floor: int) -> tuple[int, int, int]:
    """In a worker: (guess, its value as the first guess or a bound <= floor, states evaluated)."""
    before = _WORKER.nodes
    value = _WORKER.guess_value(guess, np.arange(len(_WORKER.secrets)), (), horizon, floor)
    return guess, value, _WORKER.nodes - before


def _first_guess_values(game: DeductionGame, speedups: WinSpeedUps, order: np.ndarray,
                        horizon: int, workers: int,
                        progress: Callable[[str], None] | None) -> tuple[dict[int, int], int]:
    """Every candidate first guess valued on `workers` processes (each with its own memo).

    Guesses are handed out in `order`, each with the best value known so far as its
    floor, so a worker abandons a guess that cannot beat it (its value is then a bound).
    """
    import multiprocessing
    import queue

    values: dict[int, int] = {}
    nodes, best = 0, -1
    done: queue.SimpleQueue = queue.SimpleQueue()
    ctx = multiprocessing.get_context("spawn")  # numba's thread pool does not survive fork
    with ctx.Pool(workers, initializer=_start_worker, initargs=(game, speedups)) as pool:
        pending = [int(g) for g in order][::-1]
        running = 0
        while pending or running:
            while pending and running < workers:
                pool.apply_async(_evaluate_first, (pending.pop(), horizon, best),
                                 callback=done.put, error_callback=done.put)
                running += 1
            result = done.get()
            running -= 1
            if isinstance(result, BaseException):
                raise result
            guess, value, n = result
            values[guess] = value
            nodes += n
            best = max(best, value)
            if progress:
                progress(f"first guesses valued: {len(values)}/{len(order)}")
    return values, nodes


def solve_probability(game: DeductionGame, objective: Objective, *,
                      speedups: WinSpeedUps = WinSpeedUps(), workers: int = 1,
                      progress: Callable[[str], None] | None = None) -> Solution:
    """The most secrets revealed within the horizon, its probability and an optimal tree.

    With `workers` > 1 the first guesses (one per orbit) are valued on that many
    processes, then the best is expanded into the tree (default: one process, the search
    as written; on a busy machine the second process did not pay for itself).
    """
    horizon = objective.horizon
    if horizon is None or horizon < 1:
        raise Unsupported(f"{game.name}: the probability objective needs a horizon of at least "
                          f"one guess, got {horizon}")
    t0 = time.perf_counter()
    search = WinSearch(game, speedups, progress)
    everyone = np.arange(len(search.secrets))
    by_depth: Counter[int] = Counter()
    first = -1
    if workers > 1 and horizon >= 3:
        order = search.root_order(horizon)
        values, search.nodes = _first_guess_values(game, speedups, order, horizon, workers, progress)
        wins = max(values.values())
        first = next(int(g) for g in order if values[int(g)] == wins)
    else:
        wins = search.value(everyone, (), horizon)
    root = search.tree(everyone, (), horizon, by_depth, guess=first)
    n = len(everyone)
    if sum(by_depth.values()) != wins:
        raise AssertionError(f"the strategy tree wins {sum(by_depth.values())}, the search {wins}")
    stats = {"states": search.nodes, "seconds": round(time.perf_counter() - t0, 4)}
    extra = {"method": "optimal", "wins": wins, "secrets": n, "unreduced": f"{wins}/{n}",
             "histogram": {str(k): v for k, v in sorted(by_depth.items())}}
    return Solution(game=game.name, params=game.params, objective=objective,
                    value=Fraction(wins, n), exact=True, proven=True, status=PROVEN,
                    strategy=WinStrategy(game, root, horizon, wins, n, dict(by_depth)),
                    stats=stats, extra=extra)
