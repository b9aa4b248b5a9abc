"""Compiled inner loops over a Graph's arrays (numba, cached on disk)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _state_value(s, V, out_ptr, weight, denom, choice_ptr, target, cost):
    total = 0.0
    for o in range(out_ptr[s], out_ptr[s + 1]):
        best = np.inf
        for e in range(choice_ptr[o], choice_ptr[o + 1]):
            q = cost[e] + V[target[e]]
            if q < best:
                best = q
        total += weight[o] * best
    return total / denom[s]


@njit(cache=True)
def gauss_seidel_sweeps(V, order, out_ptr, weight, denom, choice_ptr, target, cost, tol, max_sweeps):
    """Minimum-expected-cost value iteration in place, visiting states in `order`.

    Started from an upper bound (infinity off the goal) the values decrease monotonically
    to the optimum, so a costly loop back to a state is never mistaken for a cheap one and
    a nearly acyclic graph visited successors-first converges in a few sweeps. Stops when
    a sweep changes no value by more than `tol` (relative to max(1, |V|)).
    Returns (sweeps done, last largest change).
    """
    delta = np.inf
    sweeps = 0
    while sweeps < max_sweeps and delta > tol:
        delta = 0.0
        for i in range(order.shape[0]):
            s = order[i]
            if out_ptr[s] == out_ptr[s + 1]:
                continue  # terminal
            v = _state_value(s, V, out_ptr, weight, denom, choice_ptr, target, cost)
            if v == V[s]:
                continue
            d = np.inf if V[s] == np.inf else abs(v - V[s]) / max(1.0, abs(v))
            if d > delta:
                delta = d
            V[s] = v
        sweeps += 1
        if delta <= tol:
            # A set of states each with an outcome that only leads back into the set keeps
            # infinity for ever; any finite start converges, so give them a large one.
            top = 0.0
            stuck = False
            for s in range(V.shape[0]):
                if V[s] == np.inf:
                    stuck = True
                elif V[s] > top:
                    top = V[s]
            if stuck:
                for s in range(V.shape[0]):
                    if V[s] == np.inf:
                        V[s] = 2.0 * top + 1.0
                delta = np.inf
    return sweeps, delta


@njit(cache=True)
def greedy_choices(V, choice_ptr, target, cost, sense):
    """For each outcome, the edge index of its best choice (sense=+1 minimise, -1 maximise).

    Ties go to the lowest choice, so the policy is deterministic.
    """
    n_out = choice_ptr.shape[0] - 1
    best_edge = np.empty(n_out, dtype=np.int64)
    for o in range(n_out):
        arg = choice_ptr[o]
        best = sense * (cost[arg] + V[target[arg]])
        for e in range(choice_ptr[o] + 1, choice_ptr[o + 1]):
            q = sense * (cost[e] + V[target[e]])
            if q < best - 1e-12 * max(1.0, abs(best)):
                best = q
                arg = e
        best_edge[o] = arg
    return best_edge


@njit(cache=True)
def horizon_layers(H, order, terminal, out_ptr, weight, denom, choice_ptr, target, cost):
    """P[h, s]: the largest probability of reaching a terminal state from s within cost h.

    `order` lists states so that a zero-cost choice always leads to a state earlier in it.
    """
    n = terminal.shape[0]
    P = np.zeros((H + 1, n))
    for h in range(H + 1):
        for i in range(order.shape[0]):
            s = order[i]
            if terminal[s]:
                P[h, s] = 1.0
                continue
            total = 0.0
            for o in range(out_ptr[s], out_ptr[s + 1]):
                best = 0.0
                for e in range(choice_ptr[o], choice_ptr[o + 1]):
                    left = h - cost[e]
                    if left >= 0:
                        q = P[left, target[e]]
                        if q > best:
                            best = q
                total += weight[o] * best
            P[h, s] = total / denom[s]
    return P
