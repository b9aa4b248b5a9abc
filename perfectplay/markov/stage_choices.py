"""The strategy's choices inside a staged game's turn, as play makes them: at each exit
slot the first best option, at each decision node the first best edge, by the stage
values. Compiled pieces that the kernels walking a turn under the strategy inline (the
score's distribution, ``stage_distribution``, its second moments, ``stage_moments``, and
the games drawn, ``simulate``), so that all follow the very choices play makes, spelled
once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .stage_model import CHANCE, NONE


@njit(inline="always")
def best_option(points, nxt, values, sign):
    """The first best of one exit slot's options (`points` and `nxt`: one row of the
    exit rule's): its points plus the value of the stage it leads to (0 after the game's
    end), times `sign`, and its number; -inf and -1 where the slot has no option."""
    best, c = -np.inf, -1
    for o in range(len(points)):
        to = nxt[o]
        if to == NONE:
            continue
        v = sign * (points[o] + (values[to] if to >= 0 else 0.0))
        if v > best:
            best, c = v, o
    return best, c


@njit(inline="always")
def best_exits(points, nxt, values, sign, b, n, value, choice):
    """For every exit slot s of stage b of a batch (the exit rule's `points` and `nxt`:
    batch x slots x options): value[n + s] and choice[s], its best option's value and
    number (``best_option``)."""
    for s in range(points.shape[1]):
        value[n + s], choice[s] = best_option(points[b, s], nxt[b, s], values, sign)


@njit(inline="always")
def best_edges(kind, start, target, chance, paid, value, pick):
    """Every node's value, from the last back to node 0 (the exit slots' in value[n:]: a
    chance node the mean of its edges' paid + value, a decision node the best), and
    pick[i], a decision node's first best edge."""
    for i in range(len(kind) - 1, -1, -1):
        e0, e1 = start[i], start[i + 1]
        if kind[i] == CHANCE:
            acc = 0.0
            for e in range(e0, e1):
                acc += chance[e] * (paid[e] + value[target[e]])
            value[i] = acc
        else:
            best, c = -np.inf, e0
            for e in range(e0, e1):
                v = paid[e] + value[target[e]]
                if v > best:
                    best, c = v, e
            value[i], pick[i] = best, c
