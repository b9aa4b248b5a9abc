"""Graph structure the solvers rely on: strongly connected components and good orders.

The passes themselves are compiled (``structure_kernels``) and read the graph's own
arrays: a state's choices are contiguous, so its row of successors is
``target[choice_ptr[out_ptr[s]]:choice_ptr[out_ptr[s+1]]]``; a policy's graph has one
successor per outcome, rows ``out_ptr``.
"""

from __future__ import annotations

import numpy as np

from ..errors import PerfectplayError
from .compile import Graph, Pairs

FREE_CYCLE_MESSAGE = (
    "the game has a cycle of zero-cost choices (that pay nothing, in a game that pays a "
    "score), which this engine does not solve"
)
NEVER_ENDS_MESSAGE = (
    "from some reachable state the game can never end; this engine needs every "
    "state to be able to finish"
)


def components(row_ptr: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Strong-component label of every state, successors' components numbered first
    (checked, not assumed)."""
    from .structure_kernels import strong_components

    rows = np.ascontiguousarray(row_ptr, dtype=np.int64)
    labels, _, ok = strong_components(np.arange(len(rows), dtype=np.int64), rows, col)
    if not ok:
        raise RuntimeError("strong components are not in reverse topological order")
    return labels


def check_no_free_cycles(g: Graph, pairs: Pairs | None = None) -> None:
    """Refuse games with a cycle of zero-cost choices: the engine needs every cycle to
    cost something, so that a policy that never finishes costs infinity (this is what
    makes the exact optimality check a proof). With the graph's `pairs`, their rows are
    walked (the same edges, without repeats)."""
    from .structure_kernels import free_edges

    if pairs is None:
        rows, cols, self_loop = free_edges(g.out_ptr, g.choice_ptr, g.target, g.cost)
    else:
        rows, cols, self_loop = free_edges(
            np.arange(g.n_states + 1, dtype=np.int64), pairs.ptr, pairs.target, pairs.cost
        )
    if not len(cols):
        return
    if self_loop or np.bincount(components(rows, cols)).max() > 1:
        raise PerfectplayError(FREE_CYCLE_MESSAGE)


def check_no_paying_cycles(game, g: Graph) -> np.ndarray:
    """Refuse, in one line naming a state on it, a game that pays a score
    (``MarkovGame.pays``: its points held negated, as costs) whose choice graph has a cycle
    through a choice that pays: a strong component with a choice of negative cost inside
    it. The score could grow without end there, and the engine's proofs need every
    policy that never finishes to be worse than one that does. (Cycles that pay nothing
    are refused as everywhere: ``check_no_free_cycles``.) Returns the choice graph's
    component labels (``components``), which order its horizon solve (``horizon_order``)."""
    rows = np.ascontiguousarray(g.choice_ptr[g.out_ptr], dtype=np.int64)
    labels = components(rows, g.target)
    source = np.repeat(np.arange(g.n_states), np.diff(rows))
    inside = np.flatnonzero((g.cost < 0) & (labels[source] == labels[g.target]))
    if inside.size:
        state = int(g.codes[source[inside[0]]])
        raise PerfectplayError(
            f"game {game}: state {state} lies on a cycle that pays (a score could grow without end)"
        )
    return labels


def solve_order(g: Graph, pairs: Pairs, by_codes: bool = False) -> np.ndarray:
    """A visiting order for Gauss-Seidel: successor components first, and inside a
    component, states nearer the goal (fewest choices to a terminal state) first; with
    `by_codes`, the states in decreasing code order instead (a game's own word for it:
    ``MarkovGame.ends_at_high_codes``). Unsupported-style PerfectplayError when some
    state can never reach the goal. Both passes walk the graph's ``Pairs`` rows: its
    edges without repeats (dice-cards n=10: 20 distinct next states per state instead of
    155 choices)."""
    from .structure_kernels import distance_to_goal, order_by, strong_components

    dist = distance_to_goal(pairs.ptr, pairs.target, g.terminal)
    if (dist > g.n_states).any():
        raise PerfectplayError(NEVER_ENDS_MESSAGE)
    if by_codes:
        return np.argsort(g.codes, kind="stable")[::-1].copy()
    labels, n_labels, ok = strong_components(
        np.arange(g.n_states + 1, dtype=np.int64), pairs.ptr, pairs.target
    )
    if not ok:
        raise RuntimeError("strong components are not in reverse topological order")
    return order_by(labels, n_labels, dist, int(dist.max()) + 1)


def horizon_order(g: Graph, paying: np.ndarray | None) -> np.ndarray:
    """States ordered so that every choice that leaves the budget as it is leads to an
    earlier state (``horizon``): every zero-cost choice; for a game that pays, every
    choice (points pay off nothing once nothing is still needed; its graph has no
    cycle, ``check_no_paying_cycles`` and ``check_no_free_cycles``), ordered by the
    components of its choice graph that ``check_no_paying_cycles`` gave (`paying`; None
    for a game of costs)."""
    from .structure_kernels import free_edges

    if paying is not None:
        return np.argsort(paying, kind="stable")
    rows, cols, _ = free_edges(g.out_ptr, g.choice_ptr, g.target, g.cost)
    return np.argsort(components(rows, cols), kind="stable")
