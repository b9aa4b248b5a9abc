"""Graph structure the solvers rely on: strongly connected components and good orders."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra

from ..errors import PerfectplayError
from .compile import Graph


def components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Strong-component label of every state, successors' components numbered first.

    scipy numbers components in the order its (Pearce) search completes them, which is a
    reverse topological order; the property is checked rather than assumed.
    """
    adj = sp.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, labels = connected_components(adj, directed=True, connection="strong")
    if (labels[src] < labels[dst]).any():
        raise RuntimeError("strong components are not in reverse topological order")
    return labels


def edge_sources(g: Graph) -> np.ndarray:
    """The state each choice edge leaves from."""
    return g.outcome_state()[g.edge_outcome()]


def check_positive_cycles(g: Graph, src: np.ndarray) -> None:
    """Refuse games where a cycle of zero-cost choices exists: expected costs would be ill-posed."""
    free = g.cost == 0
    if not free.any():
        return
    labels = components(g.n_states, src[free], g.target[free])
    sizes = np.bincount(labels)
    loops = src[free] == g.target[free]
    if (sizes > 1).any() or loops.any():
        raise PerfectplayError("the game has a cycle of zero-cost choices")


def solve_order(g: Graph, src: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """A visiting order for Gauss-Seidel: successor components first, and inside a
    component, states nearer the goal (`dist`, fewest choices to a terminal state) first."""
    labels = components(g.n_states, src, g.target)
    return np.lexsort((dist, labels))


def distance_to_goal(g: Graph, src: np.ndarray) -> np.ndarray:
    """Fewest choices from each state to a terminal state (large where none is reachable)."""
    n = g.n_states
    goal = n  # a virtual node every terminal state points to, searched on reversed edges
    terms = np.nonzero(g.terminal)[0]
    rows = np.concatenate([g.target, np.full(len(terms), goal)])
    cols = np.concatenate([src, terms])
    rev = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n + 1, n + 1))
    dist = dijkstra(rev, directed=True, indices=goal, unweighted=True)
    dist[~np.isfinite(dist)] = n + 1
    return dist[:n].astype(np.int64)


def zero_cost_order(g: Graph, src: np.ndarray) -> np.ndarray:
    """States ordered so that every zero-cost choice leads to an earlier state."""
    free = g.cost == 0
    labels = components(g.n_states, src[free], g.target[free])
    return np.argsort(labels, kind="stable")
