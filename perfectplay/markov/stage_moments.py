"""The spread of a staged game's final score under its solved strategy: the second moment
of the score still to come from every stage (and every node of a turn), a backward pass
over the stages with the strategy's choices fixed, exact to float rounding, no sampling.

The choices are those of play and of ``stage_distribution`` (the best by the stage values,
the first of equal ones). At an exit with points p to stage n, the score to come is p
plus n's: its second moment p^2 + 2 p V(n) + M2(n) (V the stage values: the expected
score to come under the same strategy); a template edge paying q shifts it likewise; a
chance node averages its edges', a decision node takes its chosen edge's. A stage whose
exit returns to itself (a bust) has its second moment on both sides, linearly: each
node's is a + c M2(stage), and M2(stage) = a / (1 - c) at node 0 (c, the chance of
returning, is below 1 for a stage the solve accepted). The standard deviation of the
score to come from a state is then sqrt(M2 - V^2) (``StagedStrategy.spread``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..progress import Silent
from .stage_choices import best_edges, best_exits
from .stage_model import CHANCE, Stages

#: Stages worked out at once (their nodes' moments: 2 x width floats each).
BATCH = 256


def turn_moments(
    st: Stages, sign: float, values: np.ndarray, moments: np.ndarray, codes: np.ndarray,
    work: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:  # fmt: skip
    """The second moment of the score to come at every node and exit slot (B x width) of
    the stages `codes`, from the stage `values` (the game's terms) and the second
    `moments` of the stages they lead to; `work`, two arrays of at least B x width to
    work in (a pass over every stage: not touched afresh for each batch)."""
    t = st.template
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    points, nxt = st.exits(codes)
    points = np.ascontiguousarray(points, dtype=np.float64)
    nxt = np.ascontiguousarray(nxt, dtype=np.int64)
    if work is None:
        work = np.empty((len(codes), st.width)), np.empty((len(codes), st.width))
    a, c = work
    a, c = a[: len(codes)], c[: len(codes)]
    _moments(
        codes, points, nxt, values, moments, sign, t.kind, np.asarray(t.start, dtype=np.int64),
        np.asarray(t.target, dtype=np.int64), t.chances(), sign * t.points,
        np.asarray(t.points, dtype=np.float64), a, c, numba.get_num_threads(),
    )  # fmt: skip
    own = a[:, 0] / (1.0 - c[:, 0])
    a += c * own[:, None]
    return a


def second_moments(
    game, values: np.ndarray, solved: np.ndarray, progress: Silent | None = None
) -> np.ndarray:
    """Every solved stage's second moment of the score to come (0 elsewhere), layer by
    layer as the solve goes (see the module docstring)."""
    progress = progress or Silent()
    st = game.stages()
    sign = 1.0 if game.pays else -1.0
    values = np.where(solved, values, 0.0)
    moments = np.zeros(st.count)
    work = (np.empty((BATCH, st.width)), np.empty((BATCH, st.width)))
    progress.stage("score spread", total=sum(len(x) for x in st.layers), unit="stages")
    done = 0
    for layer in st.layers:
        for lo in range(0, len(layer), BATCH):
            codes = np.asarray(layer[lo : lo + BATCH], dtype=np.int64)
            moments[codes] = turn_moments(st, sign, values, moments, codes, work)[:, 0]
            done += len(codes)
            progress.update(done)
    return moments


@njit(cache=True, parallel=True)
def _moments(
    codes, points, nxt, values, moments, sign, kind, start, target, chance, paid, tpoints, a, c,
    threads,
):  # fmt: skip
    """a[b, x] + c[b, x] M2(codes[b]): the second moment of the score to come at node or
    slot x of stage codes[b]'s turn, its choices the first best by the values (`paid`
    and the node values times `sign`, maximized, summed in the order the solve and the
    distribution sum them)."""
    n, slots = len(kind), points.shape[1]
    for th in prange(threads):
        value = np.empty(n + slots)
        mean = np.empty(n + slots)
        choice = np.empty(slots, dtype=np.int64)
        pick = np.zeros(n, dtype=np.int64)
        for b in range(th, len(codes), threads):
            best_exits(points, nxt, values, sign, b, n, value, choice)
            best_edges(kind, start, target, chance, paid, value, pick)
            for s in range(slots):
                x, o = n + s, choice[s]
                if o < 0:
                    mean[x], a[b, x], c[b, x] = np.nan, np.nan, 0.0
                    continue
                p, to = points[b, s, o], nxt[b, s, o]
                after = values[to] if to >= 0 else 0.0
                mean[x] = p + after
                a[b, x] = p * p + 2.0 * p * after
                c[b, x] = 0.0
                if to == codes[b]:
                    c[b, x] = 1.0
                elif to >= 0:
                    a[b, x] += moments[to]
            for i in range(n - 1, -1, -1):
                e0, e1 = start[i], start[i + 1]
                if kind[i] == CHANCE:
                    m, sa, sc = 0.0, 0.0, 0.0
                    for e in range(e0, e1):
                        y, q, w = target[e], tpoints[e], chance[e]
                        m += w * (q + mean[y])
                        sa += w * (q * q + 2.0 * q * mean[y] + a[b, y])
                        sc += w * c[b, y]
                    mean[i], a[b, i], c[b, i] = m, sa, sc
                else:
                    y, q = target[pick[i]], tpoints[pick[i]]
                    mean[i] = q + mean[y]
                    a[b, i] = q * q + 2.0 * q * mean[y] + a[b, y]
                    c[b, i] = c[b, y]
