"""A large graph's sweeps and policy improvements on two threads, each over half the states.

Gauss-Seidel is sequential: a state's update reads the values updated before it in the
same sweep. Split in two halves of the visiting order, each half is swept by a thread of
its own (the compiled kernels run without the GIL) over a private copy of the values:
inside its half it reads its own fresh values, and the other half's as they were after
the previous sweep. After both finish, each copy takes the other's half. Within a sweep
the two threads therefore never read what the other writes, so the values do not depend
on timing: the same on one core as on two, the same from run to run (a sweep reading
the other thread's values as they were being written would not be).

Reading the other half one sweep late costs few sweeps when the halves are loosely
coupled, and that decides where the sweeps are split: only in a game's own code order
(``MarkovGame.ends_at_high_codes``). Dice-cards' halves are the states with its highest
card face down and those with it face up, which one roll in n² turns over: the same
sweeps, each thread reading the arrays of its own half front to back. Split along the
solver's own order (by distance to the goal) the halves wait on each other and the
sweeps double (docs/measurements.md).
Improving the policy and taking the greedy choices read the values only and write the
choices of each half's own outcomes, so the halves are independent there, in any order.

With one core the halves run one after the other, with the same values.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..progress import Silent
from .compile import Graph


def _cores() -> int:
    return os.cpu_count() or 1  # as the rest of the package counts them


def _both(first, second) -> tuple:
    """The results of two calls, the second on a thread of its own when there are two cores."""
    if _cores() < 2:
        return first(), second()
    with ThreadPoolExecutor(1) as pool:
        later = pool.submit(second)
        return first(), later.result()


def sweep(
    V: np.ndarray,
    order: np.ndarray,
    g: Graph,
    pairs: tuple,
    tol: float,
    budget: int,
    progress: Silent,
    done: int,
) -> tuple[int, float]:
    """Sweeps of `order` in two halves (see the module docstring) until no value changes by
    more than `tol` (relative) in a sweep, at most `budget` sweeps; states that stay at
    infinity once the rest has settled are restarted as the one-thread sweep does
    (``kernels.restart_stuck``). Returns (sweeps, last change); V holds the values."""
    from .kernels import gauss_seidel_sweeps, restart_stuck

    half = len(order) // 2
    parts = (order[:half], order[half:])
    spans = tuple(_span(part) for part in parts)
    copies = (V, V.copy())

    def one(k: int):
        # tol -1: exactly one sweep, and never the restart (done below for the whole graph)
        return lambda: gauss_seidel_sweeps(copies[k], parts[k], g.rows, pairs, -1.0, 1)[1]

    sweeps, delta = 0, np.inf
    while delta > tol and sweeps < budget:
        delta = max(_both(one(0), one(1)))
        copies[0][spans[1]] = copies[1][spans[1]]
        copies[1][spans[0]] = copies[0][spans[0]]
        sweeps += 1
        if delta <= tol and restart_stuck(V, order, g.out_ptr, g.choice_ptr, g.target, g.cost):
            delta = np.inf
            copies[1][:] = V
        progress.update(done + sweeps, f"change {delta:.1e}")
    return sweeps, float(delta)


def _span(part: np.ndarray) -> slice | np.ndarray:
    """The states of `part` as a slice when they are a range of indices (a renumbered
    graph's, or a graph's own code order), so that the copies exchange a block of
    memory; else the index array itself."""
    lo, hi = int(part.min()), int(part.max())
    return slice(lo, hi + 1) if hi - lo + 1 == len(part) else part


def improve(V: np.ndarray, current: np.ndarray, g: Graph, pairs: tuple) -> int:
    """``kernels.improve_choices`` of the two halves of the states at once. Returns the
    choices changed."""
    from .kernels import improve_choices

    def states(lo: int, hi: int):
        return lambda: improve_choices(
            V, current, g.out_ptr, g.choice_ptr, g.target, g.cost, pairs, lo, hi
        )

    half = g.n_states // 2
    return sum(_both(states(0, half), states(half, g.n_states)))


def greedy(V: np.ndarray, g: Graph, pairs: tuple) -> np.ndarray:
    """``kernels.greedy_choices`` in two halves: every outcome's cheapest choice, ties to
    the lowest."""
    best = g.choice_ptr[:-1].copy()
    improve(V, best, g, pairs)
    return best
