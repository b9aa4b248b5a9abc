"""The first guesses on several cores: the cells of a first guess are independent searches.

The first guesses are tried in order of bound, as in the sequential search; the cells
of each are solved by worker processes (each keeps its own search and memo across
tasks) with the budget that the cell alone may spend, the other cells counted at their
lower bounds. A worker returns the cell's value and, when within budget, its subtree,
so the main process never repeats a search.

Each cell goes to a fixed worker (the least loaded, largest cells first): a later pass
over the same cells (the worst-case tie-break, with one guess less) then finds the
worker's memo of the earlier pass, and the values found there bound the cells' budgets.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from .feedback import build_table
from .model import DeductionGame, History
from .search import INF, Search, SpeedUps
from .tree import Node, build_tree

#: Below this many secrets, starting processes costs more than it saves.
PARALLEL_MIN_SECRETS = 500

_worker: Search | None = None


def _start(game: DeductionGame, speedups: SpeedUps) -> None:
    global _worker
    _worker = Search(build_table(game), speedups)


def _solve_cell(subset: np.ndarray, history: History, cap: int, budget: int):
    assert _worker is not None
    before = _worker.nodes
    value, guess = _worker.best(subset, history, cap, budget)
    if guess < 0:
        return value, None, _worker.nodes - before
    tree = build_tree(_worker.table, subset, history,
                      lambda s, h: _worker.best(s, h, cap - (len(h) - len(history)))[1])
    return value, tree, _worker.nodes - before


class RootPool:
    """A pool of worker processes searching the cells of first guesses."""

    def __init__(self, search: Search, workers: int) -> None:
        self.search = search
        # fork: the workers inherit the feedback table and compiled kernels (they run no
        # parallel numba region, the one thing a fork would break)
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                          else "spawn")
        self.pools = [ProcessPoolExecutor(1, mp_context=ctx, initializer=_start,
                                          initargs=(search.table.game, search.speed))
                      for _ in range(workers)]
        self.nodes = 0  # searched by the workers
        self.known: dict[tuple[bytes, int], int] = {}  # (cell, cap) -> value or lower bound

    def close(self, abort: bool = False) -> None:
        """Shut the workers down; with `abort`, kill them mid-cell (a numba kernel cannot be
        interrupted, and a cell can run for minutes)."""
        for pool in self.pools:
            if abort:
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.terminate()
            pool.shutdown(wait=not abort, cancel_futures=True)

    def best_tree(self, subset: np.ndarray, cap: int, budget: int = INF) -> tuple[int, Node | None]:
        """(value, tree) of `subset` within `cap` guesses if below `budget`, else (bound, None)."""
        s, t = self.search, self.search.table
        n = len(subset)
        child = s.lower_row(cap - 1)
        obvious, _, cand, bound, possible, _ = s.prepare(subset, (), cap, child)
        if obvious >= 0 or n <= 2:
            v, g = s.best(subset, (), cap, budget)
            if g < 0:
                return v, None
            return v, build_tree(t, subset, (), lambda x, h: s.best(x, h, cap - len(h))[1])
        G = len(t.guesses)
        best, best_tree = budget, None
        order = np.argsort(bound * (2 * G) + (~possible) * G + cand)
        for i in order.tolist():
            if bound[i] >= min(best, INF):
                break
            g = int(cand[i])
            parts = s.cells(g, subset)
            cells = [part.tobytes() for _, part in parts]
            lower = [max(int(child[len(part)]), self.known.get((cell, cap - 1), 0),
                         self.known.get((cell, cap), 0)) for (_, part), cell in zip(parts, cells)]
            total = n + sum(lower)
            if total >= min(best, INF):
                continue
            futures, load = {}, [0] * len(self.pools)
            for (f, part), lb in zip(parts, lower):  # largest first, to the least loaded
                w = load.index(min(load))
                load[w] += len(part)
                futures[f] = self.pools[w].submit(_solve_cell, part, ((g, f),), cap - 1,
                                                  best - (total - lb))
            total, node = n, Node(g)
            for done, ((f, part), cell) in enumerate(zip(parts, cells), 1):
                v, tree, nodes = futures[f].result()
                self.nodes += nodes
                self.known[cell, cap - 1] = max(self.known.get((cell, cap - 1), 0), v)
                if s.progress:
                    s.progress(f"first guess {t.game.format_code(t.guesses[g])} (cap {cap}): "
                               f"cell {done}/{len(parts)} of {len(part)} secrets -> "
                               f"{v if tree is not None else 'over budget'}")
                total += v
                if tree is None:
                    for other in futures.values():
                        other.cancel()
                    break
                node.children[f] = tree
            else:
                if total < best:
                    best, best_tree = total, node
        return best, best_tree
