"""Maximum probability of reaching a terminal state within a budget of H cost units."""

from __future__ import annotations

import numpy as np
from flint import fmpq

from .compile import Graph


def horizon_exact(g: Graph, H: int, order: np.ndarray) -> tuple[list, np.ndarray]:
    """Exact P_H for every state and the policy: chosen edge per (budget h, outcome).

    `order` puts the target of every zero-cost choice before its source.
    """
    n = g.n_states
    zero, one = fmpq(0), fmpq(1)
    layers: list[list] = []
    policy = np.zeros((H + 1, len(g.weight)), dtype=np.int64)
    targets, costs = g.target.tolist(), g.cost.tolist()
    for h in range(H + 1):
        P = [zero] * n
        for s in order.tolist():
            if g.terminal[s]:
                P[s] = one
                continue
            total = zero
            for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
                lo, hi = int(g.choice_ptr[o]), int(g.choice_ptr[o + 1])
                best, arg = zero, lo
                for e in range(lo, hi):
                    left = h - costs[e]
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
