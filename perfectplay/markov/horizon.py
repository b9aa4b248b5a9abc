"""Maximum probability of reaching a terminal state within a budget of H cost units, or,
for a game that pays a score (``MarkovGame.pays``: its points held negated, as costs), of
scoring at least H points by the end.

Both are one backward induction over the budget: layer h holds each state's best chance
with h units left. A cost spends the budget (a choice that overspends it loses); points
pay off what is still needed (never below 0), and only a game that ends with nothing
still needed wins.
"""

from __future__ import annotations

import numpy as np
from flint import fmpq
from numba import njit

from .compile import Graph


def budget_after(h, cost, pays: bool):
    """The budget left after a choice of (engine) `cost` with budget `h` (negative: the
    choice overspends it and loses); for a game that pays, the points still needed after
    it pays ``-cost``. Works on ints and on arrays alike."""
    if pays:
        return np.maximum(h + cost, 0)
    return h - cost


def horizon_exact(g: Graph, H: int, order: np.ndarray, pays: bool) -> tuple[list, np.ndarray]:
    """Exact P_H for every state and the policy: chosen edge per (budget h, outcome).

    `order` puts the target of every choice whose budget stays the same before its
    source (``structure.horizon_order``).
    """
    n = g.n_states
    zero, one = fmpq(0), fmpq(1)
    layers: list[list] = []
    policy = np.zeros((H + 1, len(g.weight)), dtype=np.int64)
    targets, costs = g.target.tolist(), g.cost.astype(np.int64)
    for h in range(H + 1):
        P = [zero] * n
        lefts = budget_after(h, costs, pays).tolist()  # each choice's budget after it
        for s in order.tolist():
            if g.terminal[s]:
                P[s] = one if h == 0 or not pays else zero
                continue
            total = zero
            for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
                lo, hi = int(g.choice_ptr[o]), int(g.choice_ptr[o + 1])
                best, arg = zero, lo
                for e in range(lo, hi):
                    left = lefts[e]
                    if left < 0:
                        continue
                    q = (P if left == h else layers[left])[targets[e]]
                    if q > best:
                        best, arg = q, e
                policy[h, o] = arg
                total += int(g.weight[o]) * best
            P[s] = total / int(g.denom[s])
        layers.append(P)
    return layers[H], policy


@njit(cache=True)
def horizon_layers(H, order, terminal, out_ptr, weight, denom, choice_ptr, target, cost, pays):
    """P[h, s]: the largest probability of reaching a terminal state from s within cost h;
    with `pays` (a game that pays a score, its points held as negative costs), of scoring
    at least h more points by the end (``horizon``).

    `order` lists states so that a choice that leaves the budget as it is always leads
    to a state earlier in it (``structure.horizon_order``).
    """
    n = terminal.shape[0]
    P = np.zeros((H + 1, n))
    for h in range(H + 1):
        for i in range(order.shape[0]):
            s = order[i]
            if terminal[s]:
                P[h, s] = 1.0 if h == 0 or not pays else 0.0
                continue
            total = 0.0
            for o in range(out_ptr[s], out_ptr[s + 1]):
                best = 0.0
                for e in range(choice_ptr[o], choice_ptr[o + 1]):
                    left = max(h + cost[e], 0) if pays else h - cost[e]
                    if left >= 0:
                        q = P[left, target[e]]
                        if q > best:
                            best = q
                total += weight[o] * best
            P[h, s] = total / denom[s]
    return P
