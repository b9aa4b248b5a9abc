"""Graph structure the solvers rely on: strongly connected components and good orders.

Every function works on the state-to-state adjacency matrix, which is a zero-copy view
of the compiled graph: a state's choices are contiguous, so its row pointer is
``choice_ptr[out_ptr]``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra

from ..errors import PerfectplayError
from .compile import Graph


def csr(indptr: np.ndarray, indices: np.ndarray, n: int) -> sp.csr_matrix:
    """A pattern matrix over given row pointers and column indices (shared, not copied)."""
    dtype = np.int32 if indptr[-1] < 2**31 and n < 2**31 else np.int64
    return sp.csr_matrix((np.ones(len(indices), dtype=np.int8), indices.astype(dtype, copy=False),
                          indptr.astype(dtype, copy=False)), shape=(n, n))


def adjacency(g: Graph) -> sp.csr_matrix:
    """State -> next state, one entry per choice."""
    return csr(g.choice_ptr[g.out_ptr], g.target, g.n_states)


def components(adj: sp.csr_matrix) -> np.ndarray:
    """Strong-component label of every state, successors' components numbered first.

    scipy numbers components in the order its (Pearce) search completes them, which is a
    reverse topological order; the property is checked rather than assumed.
    """
    _, labels = connected_components(adj, directed=True, connection="strong")
    rows = np.repeat(labels, np.diff(adj.indptr))
    if (rows < labels[adj.indices]).any():
        raise RuntimeError("strong components are not in reverse topological order")
    return labels


def _free_adjacency(g: Graph) -> sp.csr_matrix:
    """State -> next state over the zero-cost choices only."""
    free = g.cost == 0
    src = g.outcome_state()[g.edge_outcome()][free]
    return sp.csr_matrix((np.ones(len(src), dtype=np.int8), (src, g.target[free])),
                         shape=(g.n_states, g.n_states))


def check_no_free_cycles(g: Graph) -> None:
    """Refuse games with a cycle of zero-cost choices: the engine needs every cycle to
    cost something, so that a policy that never finishes costs infinity (this is what
    makes the exact optimality check a proof)."""
    if not (g.cost == 0).any():
        return
    adj = _free_adjacency(g)
    if adj.diagonal().any() or np.bincount(components(adj)).max() > 1:
        raise PerfectplayError("the game has a cycle of zero-cost choices, which this engine "
                               "does not solve")


def solve_order(adj: sp.csr_matrix, dist: np.ndarray) -> np.ndarray:
    """A visiting order for Gauss-Seidel: successor components first, and inside a
    component, states nearer the goal (`dist`, fewest choices to a terminal state) first."""
    return np.lexsort((dist, components(adj)))


def distance_to_goal(g: Graph, adj: sp.csr_matrix) -> np.ndarray:
    """Fewest choices from each state to a terminal state (n+1 where none is reachable)."""
    terms = np.flatnonzero(g.terminal)
    n = g.n_states
    if not len(terms):
        return np.full(n, n + 1, dtype=np.int64)
    dist = dijkstra(adj.T.tocsr(), directed=True, indices=terms, unweighted=True, min_only=True)
    dist[~np.isfinite(dist)] = n + 1
    return dist.astype(np.int64)


def zero_cost_order(g: Graph) -> np.ndarray:
    """States ordered so that every zero-cost choice leads to an earlier state."""
    return np.argsort(components(_free_adjacency(g)), kind="stable")
