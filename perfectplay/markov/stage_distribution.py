"""The whole distribution of a staged game's final score under its solved strategy: a
forward pass over the stages (``markov/stages.py``), exact to float rounding, no sampling.

From the start stage, with probability one and nothing scored yet, each layer's stages
are taken in the order the game plays them (the last layer solved first). For each stage
reached, the turn is worked out again from the stored values of the stages it leads to
(the same choice at every node and exit slot as play makes: the best, the first of equal
ones), then the chance of ending the turn at each exit slot follows forward from node 0
(a decision sends all it receives to its best edge); the stage's distribution of the
score so far then moves, shifted by the points of the option taken (and of the template
edges on the way), to the stage that option leads to, or to the final distribution
(``END``). A stage is worked out twice: once to find the range of scores each stage it
leads to receives, then to fill them in, so that only the stages reached are held, each
over its own range of scores, and only the stages still to be played: for Yahtzee, two
layers at a time.

Points must be whole numbers (a distribution over integer scores); a game whose points
are not is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from ..errors import Unsupported
from ..progress import Silent
from .stage_choices import best_edges, best_exits
from .stage_model import CHANCE, END, NONE, Stages

#: Stages of a layer worked out at once (the exit rule's arrays: Yahtzee's 60 KB a stage).
BATCH = 512
#: The moves of a layer's stages kept from the first pass for the second, at most (else
#: its stages are worked out again).
KEEP_BYTES = 256 << 20
#: The quantiles ``ScoreDistribution.summary`` gives.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass(frozen=True)
class ScoreDistribution:
    """The final score's distribution: ``probability[i]`` is the chance of scoring
    ``low + i``."""

    low: int
    probability: np.ndarray

    @property
    def scores(self) -> np.ndarray:
        return self.low + np.arange(len(self.probability))

    @property
    def mean(self) -> float:
        return float(self.scores @ self.probability)

    @property
    def std(self) -> float:
        deviation = self.scores - self.mean
        return float(np.sqrt(max(0.0, (deviation * deviation) @ self.probability)))

    def quantile(self, q: float) -> int:
        """The smallest score s with a chance of at least `q` of scoring at most s."""
        below = np.cumsum(self.probability)
        return int(self.low + min(np.searchsorted(below, q * below[-1]), len(below) - 1))

    def at_least(self) -> np.ndarray:
        """The chance of scoring at least ``low + i``, for every i."""
        return np.cumsum(self.probability[::-1])[::-1]

    def summary(self, unit: str = "points") -> list[str]:
        """What a person reads of it: the mean and spread, the quantiles, and the chance
        of at least a few scores (the quartiles' and a few round ones)."""
        chance = self.at_least()
        marks = sorted({self.quantile(q) for q in (0.25, 0.5, 0.75)} | set(_round_marks(self)))
        return [
            f"mean {self.mean:.6f} {unit}, standard deviation {self.std:.6f}",
            "quantiles: " + ", ".join(f"{q:.0%} {self.quantile(q)}" for q in QUANTILES),
            f"scores {self.low} to {self.low + len(self.probability) - 1}",
            *(f"at least {s}: {chance[s - self.low]:.6f}" for s in marks),
        ]

    def to_json(self) -> dict[str, Any]:
        """The ``distribution`` field of a solution: every score's chance (those with a
        positive one), the mean, the standard deviation, quantiles and the chance of at
        least each score."""
        scores, p = self.scores, self.probability
        kept = np.flatnonzero(p > 0)
        return {
            "probability": {str(int(scores[i])): float(p[i]) for i in kept},
            "mean": self.mean,
            "std": self.std,
            "quantiles": {f"{q:g}": self.quantile(q) for q in QUANTILES},
            "at_least": {str(int(s)): float(c) for s, c in zip(scores, self.at_least())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScoreDistribution:
        """The distribution of a ``distribution`` field (``to_json``); ValueError when
        it holds no scores with probabilities."""
        given = {int(s): float(p) for s, p in data["probability"].items()}
        if not given:
            raise ValueError("no scores")
        low, high = min(given), max(given)
        probability = np.zeros(high - low + 1)
        for s, p in given.items():
            probability[s - low] = p
        return cls(low, probability)


def _round_marks(d: ScoreDistribution) -> list[int]:
    """Round scores (a multiple of 50 or 100) inside the middle 99 % of `d`."""
    lo, hi = d.quantile(0.005), d.quantile(0.995)
    step = 100 if hi - lo > 300 else 50 if hi - lo > 100 else 10
    return list(range(-(-lo // step) * step, hi + 1, step))


def stage_distribution(
    game, values: np.ndarray, solved: np.ndarray, progress: Silent | None = None
) -> ScoreDistribution:
    """The distribution of `game`'s final score (its points, in the game's terms) when
    it plays by the stage `values` (the game's terms; those of the stages marked
    `solved`): see the module docstring."""
    progress = progress or Silent()
    st = game.stages()
    turn = _Turn(st, 1.0 if game.pays else -1.0, values, solved)
    # the stages still to play (and the game's end, once reached: code count), each over
    # its own scores: code, lowest score, where its chances start in `data` (and one
    # offset past the last)
    codes = np.array([st.start], dtype=np.int64)
    low = np.array([0], dtype=np.int64)
    offset = np.array([0, 1], dtype=np.int64)
    data = np.ones(1)
    progress.stage("score distribution", total=len(st.layers), unit="layers")
    for done, layer in enumerate(reversed(st.layers)):
        mine = np.flatnonzero(np.isin(codes, layer))
        if len(mine):
            codes, low, offset, data = _play_layer(turn, mine, codes, low, offset, data)
        progress.update(done + 1)
    left = codes[codes != st.count]
    if len(left):
        raise Unsupported(
            f"{game.name}: stage {int(left[0])} is reached but in no layer played after "
            "the stages leading to it"
        )
    return ScoreDistribution(int(low[0]), data.copy())


class _Turn:
    """What working out a turn needs: the template's arrays, the range of points its
    edges pay on the way to each node and slot, the exit rule and the stage values."""

    def __init__(self, st: Stages, sign: float, values: np.ndarray, solved: np.ndarray):
        t = st.template
        t.check()
        whole = np.rint(t.points)
        if not np.array_equal(whole, t.points):
            raise Unsupported(
                "the score distribution needs whole points: a turn edge pays a fraction"
            )
        self.st, self.sign = st, sign
        self.kind = np.ascontiguousarray(t.kind)
        self.start = np.ascontiguousarray(t.start, dtype=np.int64)
        self.target = np.ascontiguousarray(t.target, dtype=np.int64)
        self.chance = t.chances()
        self.paid = sign * t.points
        self.points = whole.astype(np.int64)
        self.lowest, self.width = _paid_ranges(
            t.nodes, t.slots, self.start, self.target, self.points
        )
        self.values, self.solved = values, solved

    def exits(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each stage of `codes` and each (exit slot, points paid on the way) pair:
        the stage it leads to (``END``; ``NONE`` where it is never reached), the points
        scored and its chance."""
        st = self.st
        points, nxt = st.exits(codes)
        points = np.ascontiguousarray(points, dtype=np.float64)
        nxt = np.ascontiguousarray(nxt, dtype=np.int64)
        shape = (len(codes), st.template.slots * self.width)
        to, scored, chance = np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape)
        bad = np.zeros(len(codes), dtype=np.int64)
        _exit_chances(
            points, nxt, self.values, self.solved, self.sign, self.kind, self.start,
            self.target, self.chance, self.paid, self.points, self.lowest, self.width,
            to, scored, chance, bad, numba.get_num_threads(),
        )  # fmt: skip
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            what = {
                1: "an option it takes scores a fraction: the score distribution needs whole points",
                2: "an option it takes leads to a stage with no value",
                3: "an exit slot it reaches has no option",
            }[int(bad[b])]
            raise Unsupported(f"stage {int(codes[b])}: {what}")
        return to, scored, chance


def _paid_ranges(nodes, slots, start, target, points) -> tuple[np.ndarray, int]:
    """The fewest points the template's edges can pay on the way from node 0 to each
    node and exit slot, and how many different totals (at most) reach one of them."""
    low = np.full(nodes + slots, np.iinfo(np.int64).max // 4)
    high = np.full(nodes + slots, np.iinfo(np.int64).min // 4)
    low[0] = high[0] = 0
    for i in range(nodes):
        edges = slice(start[i], start[i + 1])
        np.minimum.at(low, target[edges], low[i] + points[edges])
        np.maximum.at(high, target[edges], high[i] + points[edges])
    return low, int(np.max(high - low, initial=0)) + 1


def _play_layer(turn: _Turn, mine, codes, low, offset, data):
    """The stages `mine` (indices of the stages still to play) played: their chances
    moved to the stages they lead to; the stages still to play after them, as given."""
    width = offset[1:] - offset[:-1]
    high = low + width - 1
    rest = np.setdiff1d(np.arange(len(codes)), mine)
    # first pass: each stage reached, and the range of its scores; the moves kept for
    # the second while they take at most KEEP_BYTES (else worked out again)
    found = [(codes[rest], low[rest], high[rest])]
    kept: list | None = []
    size = 0
    for moves in _moves(turn, codes, mine):
        src, to, scored, _ = moves
        found.append(_ranges(to, low[src] + scored, high[src] + scored))
        size += sum(a.nbytes for a in moves)
        kept = kept + [moves] if kept is not None and size <= KEEP_BYTES else None
    new_codes, new_low, new_high = _ranges(*map(np.concatenate, zip(*found)))
    new_offset = np.concatenate([[0], np.cumsum(new_high - new_low + 1)])
    new_data = np.zeros(int(new_offset[-1]))
    at = np.searchsorted(new_codes, codes[rest])
    for i, j in zip(rest.tolist(), at.tolist()):  # (stages reached before, not yet played)
        lo = new_offset[j] + low[i] - new_low[j]
        new_data[lo : lo + width[i]] = data[offset[i] : offset[i + 1]]
    # second pass: the chances moved, the stages reached in parallel
    for src, to, scored, chance in kept if kept is not None else _moves(turn, codes, mine):
        target = np.searchsorted(new_codes, to)
        groups = np.flatnonzero(np.concatenate([[True], np.diff(target) != 0, [True]]))
        _move(groups, target, scored, src, chance, low, offset, data, new_low, new_offset, new_data)
    return new_codes, new_low, new_offset, new_data


def _moves(turn: _Turn, codes, mine):
    """The moves of each batch of the stages `mine` (indices into `codes`): (source
    index, the code of the stage it leads to (``END``: the count of stage codes), the
    points scored, the chance), each (stage, points, source) once, in that order."""
    for lo in range(0, len(mine), BATCH):
        batch = mine[lo : lo + BATCH]
        to, scored, chance = turn.exits(codes[batch])
        src = np.repeat(batch, to.shape[1]).reshape(to.shape)
        on = chance > 0
        to, scored, chance, src = to[on], scored[on], chance[on], src[on]
        to[to == END] = turn.st.count
        order = np.lexsort((src, scored, to))
        to, scored, chance, src = to[order], scored[order], chance[order], src[order]
        first = np.flatnonzero(
            np.concatenate(
                [[True], (np.diff(to) != 0) | (np.diff(scored) != 0) | (np.diff(src) != 0)]
            )
        )
        yield src[first], to[first], scored[first], np.add.reduceat(chance, first)


def _ranges(codes, low, high):
    """Each code of `codes` once, in order, with the lowest of its `low` and the highest
    of its `high`."""
    if not len(codes):
        return codes, low, high
    order = np.argsort(codes, kind="stable")
    codes, low, high = codes[order], low[order], high[order]
    first = np.flatnonzero(np.concatenate([[True], np.diff(codes) != 0]))
    return codes[first], np.minimum.reduceat(low, first), np.maximum.reduceat(high, first)


@njit(cache=True, parallel=True)
def _move(groups, target, scored, src, chance, low, offset, data, new_low, new_offset, new_data):
    """new_data of each target (entries ``groups[g]`` to ``groups[g + 1]``, one target
    each, the targets in parallel) += the chance times its source's scores, shifted."""
    for g in prange(len(groups) - 1):
        for k in range(groups[g], groups[g + 1]):
            s, t, p = src[k], target[k], chance[k]
            o0, o1 = offset[s], offset[s + 1]
            base = new_offset[t] + low[s] + scored[k] - new_low[t] - o0
            for x in range(o0, o1):
                new_data[base + x] += p * data[x]


@njit(cache=True, parallel=True)
def _exit_chances(
    points, nxt, values, solved, sign, kind, start, target, chance, paid, tpoints, lowest,
    width, to, scored, reached, bad, threads,
):  # fmt: skip
    """For stage b of a batch (its exit rule's `points` and `nxt`: slots x options), and
    each exit slot s and total i of the template's points on the way (``lowest[slot] +
    i``): to[b, s * width + i], the stage the best option leads to (``NONE`` where the
    pair is not reached), scored[b, ...] its points with those on the way, reached[b,
    ...] the chance of ending the turn there. The turn's values worked out backwards
    from `values` (the game's terms: times `sign`, maximized), its choices the first of
    the best as play makes them; the chances forwards from node 0. bad[b]: 1 an option
    taken scores a fraction, 2 it leads to a stage not solved."""
    n, slots = len(kind), points.shape[1]
    batch = points.shape[0]
    for th in prange(threads):
        value = np.empty(n + slots)
        pick = np.zeros(n, dtype=np.int64)
        choice = np.empty(slots, dtype=np.int64)
        chances = np.empty((n + slots) * width)
        for b in range(th, batch, threads):
            best_exits(points, nxt, values, sign, b, n, value, choice)
            best_edges(kind, start, target, chance, paid, value, pick)
            chances[:] = 0.0
            chances[0] = 1.0  # (node 0, nothing paid on the way)
            for i in range(n):
                for j in range(width):
                    r = chances[i * width + j]
                    if r == 0.0:
                        continue
                    on_way = lowest[i] + j
                    if kind[i] == CHANCE:
                        for e in range(start[i], start[i + 1]):
                            x = target[e]
                            chances[x * width + on_way + tpoints[e] - lowest[x]] += r * chance[e]
                    else:
                        e = pick[i]
                        x = target[e]
                        chances[x * width + on_way + tpoints[e] - lowest[x]] += r
            for s in range(slots):
                c = choice[s]
                for j in range(width):
                    k = s * width + j
                    r = chances[(n + s) * width + j]
                    reached[b, k] = r
                    to[b, k] = NONE
                    scored[b, k] = 0
                    if r == 0.0:
                        continue
                    if c < 0:
                        bad[b] = 3
                        continue
                    q, nx = points[b, s, c], nxt[b, s, c]
                    if q != np.rint(q):
                        bad[b] = 1
                    elif nx >= 0 and (nx >= len(solved) or not solved[nx]):
                        bad[b] = 2
                    to[b, k] = nx
                    scored[b, k] = np.int64(np.rint(q)) + lowest[n + s] + j
