"""Play for a target: the best chance to finish a staged game that pays points with at
least H of them (``--objective probability --horizon H``), and the strategy reaching it.

A stage's value becomes a row over the points still needed: ``V[s, h]``, the best
chance to score at least h more points from stage s, for h = 0 to H (``V[s, 0] = 1``:
nothing more is needed; the game ends). An exit option paying p points to stage n is
worth ``V[n, max(h - p, 0)]``; the turn template is then solved by the expected score's
own kernel (``stages._turns``), its 64 lanes 64 numbers of points still needed of one
stage instead of 64 stages' values. One solve serves every target up to H: the start's
row holds them all. A turn whose edges pay points on the way is refused in one line
(a row read some places on would cross the kernel's blocks of 64).

A row ends after the most points its stage can still bring (``V[s, h] = 0`` past it):
a late stage's row is short (one box left: at most 50 points). Rows are kept one after
the other in one array (``TargetRows``), written as they are solved into room reserved
for the longest they could be (pages never written are never taken): Yahtzee's to a
target of 300 take about 1 GB where full rows would take 1.3.

Values are floats, optimal to their rounding, as the expected score's; a stage that
may return to itself (a bust) is refused: its row would be a fixed point for each
number of points still needed.
"""

from __future__ import annotations

import base64
import dataclasses
import time
import zlib
from dataclasses import dataclass
from typing import Any, Iterator

import numba
import numpy as np
from numba import njit, prange

from ..aligned import aligned_empty
from ..errors import IncompleteRules, Unsupported
from ..memory import refuse_beyond
from ..objectives import Objective
from ..progress import Silent
from ..solution import CONVERGED, Solution
from .stage_model import END, NONE, Stages
from .stages import BLOCK, _exit_arrays, _refuse_bad, _turns

#: The exit rows of a batch of stages (blocks x slots x BLOCK floats) at most.
BATCH_BYTES = 32 << 20
#: The strategy of a solution document for a target (read by ``markov.target_document``).
KIND = "markov-stages-target"
FORMAT = "stage-rows-zlib-base64"
#: Bytes of the columns compressed, or of their base64 text read, at a time.
CHUNK = 3 << 20


@dataclass
class TargetRows:
    """What a solve for a target keeps: each solved stage's row of chances (``V[s, h]``
    for h = 0 to ``width[s] - 1``; 0 beyond) at ``data[offset[s]:]``; ``offset[s]`` is -1
    for a stage not solved."""

    horizon: int
    offset: np.ndarray
    width: np.ndarray
    data: np.ndarray
    #: The turn's pass for this horizon (the template's arrays, the threads' rows).
    turns: TurnPass
    #: How many floats of data the solved rows take (the next row goes there).
    used: int = 0

    @classmethod
    def reserved(cls, st: Stages, horizon: int) -> TargetRows:
        """Rows not yet solved, with room for every stage of the layers at full width
        (reserved, not touched: only the pages the solve writes are taken); refused in
        one line, before anything is reserved, where that room exceeds the memory
        available (a target far beyond what the game can score)."""
        stages = sum(len(layer) for layer in st.layers)
        refuse_beyond(
            8 * stages * (horizon + 1) + 16 * st.count,
            f"a target of {horizon:,} points: rows of {horizon + 1:,} chances for "
            f"{stages:,} stages",
            "a smaller target",
        )
        return cls(
            horizon,
            np.full(st.count, -1, dtype=np.int64),
            np.zeros(st.count, dtype=np.int64),
            np.empty(stages * (horizon + 1)),
            TurnPass(st, horizon),
        )

    @property
    def solved(self) -> np.ndarray:
        return self.offset >= 0

    def place(self, codes: np.ndarray, widths: np.ndarray) -> np.ndarray:
        """Room for the rows of stages `codes` (`widths` long), one after the other after
        the rows placed before: where each one starts in data."""
        offsets = self.used + np.concatenate(([0], np.cumsum(widths)[:-1]))
        self.offset[codes], self.width[codes] = offsets, widths
        self.used += int(widths.sum())
        return offsets

    def row(self, stage: int) -> np.ndarray:
        """Stage `stage`'s chances for 0 to H points still needed (a copy)."""
        out = np.zeros(self.horizon + 1)
        o, w = int(self.offset[stage]), int(self.width[stage])
        out[:w] = self.data[o : o + w]
        return out

    def live_values(self) -> tuple[np.ndarray, np.ndarray]:
        """The first state of every solved stage and its chance of the whole target's
        points more (``plot``)."""
        stages = np.flatnonzero(self.solved)
        h = self.horizon
        inside = self.width[stages] > h
        at = np.where(inside, self.offset[stages] + h, 0)
        chances = np.where(inside, self.data[at], 0.0) if h > 0 else np.ones(len(stages))
        return stages * self.turns.stage_width, chances

    def to_json(self, columns: str | None = None) -> dict[str, Any]:
        """The ``strategy`` object of a solution for a target: its stages' codes (in
        increasing order), where each one's row starts in the rows and how long it is,
        then the rows as solved (layer by layer): 64-bit little-endian columns, one zlib
        stream, in base64 (``json_chunks``), or `columns` in their place (``Solution
        .write`` streams them: Yahtzee's to 300 are half a GB of text)."""
        return {
            **self.head(),
            "columns": "".join(self.json_chunks()) if columns is None else columns,
        }

    def head(self) -> dict[str, Any]:
        """The ``strategy`` object without its columns (``to_json``)."""
        return {
            "kind": KIND,
            "horizon": self.horizon,
            "stages": int(self.solved.sum()),
            "row_floats": self.used,
            "encoding": FORMAT,
        }

    def json_chunks(self) -> Iterator[str]:
        """The columns' text (``to_json``), CHUNK bytes compressed at a time (zlib's
        fastest level: a GB of rows in seconds, not a minute)."""
        codes = np.flatnonzero(self.solved)
        columns = (codes, self.offset[codes], self.width[codes], self.data[: self.used])
        pack, pending = zlib.compressobj(1), b""
        for column in columns:
            raw = memoryview(column.astype(column.dtype.newbyteorder("<"), copy=False)).cast("B")
            for lo in range(0, len(raw), CHUNK):
                pending += pack.compress(raw[lo : lo + CHUNK])
                whole = len(pending) - len(pending) % 3  # (base64 of whole 3-byte groups)
                if whole:
                    yield base64.b64encode(pending[:whole]).decode("ascii")
                    pending = pending[whole:]
        yield base64.b64encode(pending + pack.flush()).decode("ascii")

    def chance(self, stage: int, needed: int) -> float:
        """The best chance to score at least `needed` more points from `stage`'s start."""
        if needed <= 0:
            return 1.0
        if needed >= self.width[stage]:
            return 0.0
        return float(self.data[self.offset[stage] + needed])


def solve_target(
    game, objective: Objective, progress: Silent | None = None, cluster: str | None = None
) -> Solution:
    """Solve a staged `game` that pays points for the best chance to score at least
    ``objective.horizon`` (module docstring); with `cluster`, each layer split over the
    Dask cluster's workers (``stage_cluster``)."""
    horizon = int(objective.horizon)
    if not game.pays:
        raise Unsupported(
            f"{game.name}: by stages, --objective probability is a target score (a game "
            "that pays points)"
        )
    progress = progress or Silent()
    t0 = time.perf_counter()
    st = game.stages()
    progress.stage("solving stages", total=sum(len(x) for x in st.layers), unit="stages")
    if cluster is not None:
        from .stage_cluster import solve_on_cluster

        part, spread = solve_on_cluster(game, objective, cluster, progress, TargetPart)
        return _solution(game, objective, part.rows, t0, spread)
    rows = TargetRows.reserved(st, horizon)
    done = 0
    for batch in target_batches(st, rows):
        offsets = rows.place(batch.codes, batch.widths)
        rows.turns.run(batch.exits, batch.firsts, batch.widths, rows.data, offsets)
        done += len(batch.codes)
        progress.update(done)
    return _solution(game, objective, rows, t0, {})


def _solution(game, objective: Objective, rows: TargetRows, t0: float, stats) -> Solution:
    """The solution of `rows` (the first ``rows.used`` floats of their data solved)."""
    st = game.stages()
    if not rows.solved[st.start]:
        raise IncompleteRules(f"{game.name}: the start stage {st.start} is in no layer")
    rows.data = rows.data[: rows.used]
    horizon = rows.horizon
    return Solution(
        game=game.name,
        params=game.params,
        objective=objective,
        value=rows.chance(st.start, horizon),
        exact=False,
        proven=False,
        status=CONVERGED,
        strategy=rows,
        stats={
            "stages": int(rows.solved.sum()),
            "template_nodes": st.template.nodes,
            "row_floats": rows.used,
            "seconds": round(time.perf_counter() - t0, 4),
            **stats,
        },
    )


class TargetPart:
    """What one process of a solve over a cluster knows (``stage_cluster.Part``): every
    stage's row solved so far; it solves a part of a layer from them."""

    def __init__(self, game, objective: Objective):
        self.st = game.stages()
        self.rows = TargetRows.reserved(self.st, int(objective.horizon))

    def solve(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of stages `codes` (a part of a layer): each one's width, and the rows
        one after the other, in their order."""
        part = dataclasses.replace(self.st, layers=(codes,))
        widths, rows = [], []
        for batch in target_batches(part, self.rows):
            data = np.empty(int(batch.widths.sum()))
            starts = np.concatenate(([0], np.cumsum(batch.widths)[:-1]))
            self.rows.turns.run(batch.exits, batch.firsts, batch.widths, data, starts)
            widths.append(batch.widths)
            rows.append(data)
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.concatenate(widths), np.concatenate(rows)

    def learn(self, codes: np.ndarray, solved: tuple[np.ndarray, np.ndarray]) -> None:
        """Take the rows `solved` (``solve``'s) of stages `codes` as known."""
        widths, data = solved
        start = self.rows.used
        self.rows.place(codes, widths)
        self.rows.data[start : start + len(data)] = data


class TurnPass:
    """A batch of stages' turns solved backwards for every number of points still needed:
    the expected score's kernel (``stages._turns``), its 64 lanes 64 numbers of points
    still needed of one stage (a row of w chances takes ceil(w / 64) blocks), with the
    template's arrays and the threads' rows made once."""

    def __init__(self, st: Stages, horizon: int):
        t = st.template
        t.check()
        if np.any(t.points != 0):
            e = int(np.flatnonzero(t.points)[0])
            raise Unsupported(
                f"edge {e} of the turn pays {float(t.points[e])!r}: playing for a target needs "
                "a turn whose points are paid at its exits"
            )
        self.template, self.stage_width = t, st.width
        self.chances = t.chances()
        self.row, rows = t.rows
        self.source = self.row[t.target]
        self.work = aligned_empty((numba.get_num_threads(), rows * BLOCK))

    def run(
        self, exits: np.ndarray, firsts: np.ndarray, widths: np.ndarray, data: np.ndarray,
        offsets: np.ndarray,
    ) -> None:  # fmt: skip
        """Stage b's row into ``data[offsets[b]:][:widths[b]]`` from its exits' blocks
        (``exits[firsts[b]:]``: blocks x slots x BLOCK)."""
        t = self.template
        best = np.empty((len(exits), BLOCK))
        odd = np.zeros(len(exits), dtype=np.bool_)
        _turns(
            exits, t.kind, t.start, self.source, self.row, self.chances, t.points, self.work,
            best, odd,
        )  # fmt: skip
        _rows_from_blocks(best.reshape(-1), firsts, widths, data, offsets)


def target_batches(st: Stages, rows: TargetRows) -> Iterator[ExitRows]:
    """Every layer's stages in batches, each with its exit slots' rows (``exit_rows``),
    from the rows of the stages `rows` holds (an exit to a stage it does not hold is
    refused in one line); the caller solves the turns (``rows.turns.run``) and stores the
    rows before the next batch."""
    blocks = -(-(rows.horizon + 1) // BLOCK)
    per_batch = max(1, BATCH_BYTES // (st.template.slots * blocks * BLOCK * 8))
    for layer in st.layers:
        layer = _checked_layer(st, layer, rows.solved)
        for lo in range(0, len(layer), per_batch):
            yield exit_rows(st, layer[lo : lo + per_batch], rows)


@dataclass
class ExitRows:
    """A batch of stages (`codes`), each one's row's width, its first block, and the
    blocks of its exit slots' rows (blocks x slots x BLOCK; a stage's ceil(width /
    BLOCK) blocks from its first, lane i of its block j the chance for j * BLOCK + i
    points still needed)."""

    codes: np.ndarray
    widths: np.ndarray
    firsts: np.ndarray
    exits: np.ndarray


def exit_rows(st: Stages, codes: np.ndarray, rows: TargetRows, spare: int = 0) -> ExitRows:
    """The exit slots' rows of stages `codes`, from the rows of the stages they lead to;
    `spare` blocks of chances 0 after them (the simulation's turn for a game past all
    hope)."""
    points, nxt = _option_arrays(st, codes)
    widths = np.empty(len(codes), dtype=np.int64)
    bad = np.zeros(len(codes), dtype=np.int64)
    _target_widths(codes, points, nxt, rows.offset, rows.width, rows.horizon, widths, bad)
    _refuse(codes, bad, st.options)
    blocks = -(-widths // BLOCK)
    firsts = np.concatenate(([0], np.cumsum(blocks)[:-1]))
    used = int(blocks.sum())
    exits = aligned_empty((used + spare, st.template.slots, BLOCK))
    exits[used:] = 0.0
    _target_exits(points, nxt, rows.offset, rows.width, rows.data, widths, firsts, exits)
    return ExitRows(codes, widths, firsts, exits)


def _checked_layer(st: Stages, layer: np.ndarray, solved: np.ndarray) -> np.ndarray:
    """`layer` as int64 codes, refused in one line where it lists a stage outside the
    codes or one solved before."""
    layer = np.ascontiguousarray(layer, dtype=np.int64)
    if len(layer) and (layer.min() < 0 or layer.max() >= st.count):
        raise IncompleteRules(f"a layer lists a stage outside 0 to {st.count - 1}")
    if solved[layer].any():
        raise IncompleteRules(f"stage {int(layer[np.argmax(solved[layer])])} is in two layers")
    return layer


def _whole_points(points: np.ndarray, where: str) -> np.ndarray:
    """`points` as whole numbers, refused in one line unless each is a whole number of at
    least 0 (a row is shifted by points; a penalty would need more than H)."""
    whole = np.rint(points)
    bad = (whole != points) | (whole < 0)
    if bad.any():
        raise Unsupported(
            f"{where} pays {float(points[bad][0])!r}: playing for a target needs whole "
            "points of at least 0"
        )
    return whole.astype(np.int64)


def _option_arrays(st: Stages, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exit rule's arrays for `codes`: points as whole numbers, checked."""
    points, nxt = _exit_arrays(st, codes)
    live = nxt != NONE
    whole = np.zeros(points.shape, dtype=np.int64)
    whole[live] = _whole_points(points[live], "an exit option")
    return whole, nxt


def _refuse(codes: np.ndarray, bad: np.ndarray, options: int) -> None:
    """One line naming the first stage of `codes` whose exits the kernel refused."""
    if not bad.any():
        return
    b = int(np.flatnonzero(bad)[0])
    code = int(bad[b])
    if code == LOOPS:
        raise Unsupported(
            f"stage {codes[b]} may return to itself: playing for a target is for games whose "
            "turns always move on (a bust's row would be a fixed point for each target)"
        )

    _refuse_bad(codes, bad, options)


#: ``bad`` of a stage with an option returning to itself.
LOOPS = -(1 << 62)


@njit(cache=True, parallel=True)
def _target_widths(codes, points, nxt, offset, width, H, widths, bad):
    """widths[b]: how long stage codes[b]'s row is (one more than the most points its
    best exit can still bring, at most H + 1). bad[b] set as ``stages._stage_exits``
    does (an exit to a stage not solved, a slot without an option), or to LOOPS (an
    exit back to the stage itself)."""
    slots, options = points.shape[1], points.shape[2]
    for b in prange(points.shape[0]):
        most = 0
        for s in range(slots):
            found = False
            for o in range(options):
                to = nxt[b, s, o]
                if to == NONE:
                    continue
                found = True
                if to == codes[b]:
                    bad[b] = LOOPS
                elif to >= 0 and (to >= len(offset) or offset[to] < 0):
                    if bad[b] == 0:
                        bad[b] = 1 + s * options + o
                elif to >= 0:
                    most = max(most, points[b, s, o] + width[to] - 1)
                else:
                    most = max(most, points[b, s, o])
            if not found and bad[b] == 0:
                bad[b] = -1 - s
        widths[b] = min(H, most) + 1


@njit(cache=True, parallel=True)
def _target_exits(points, nxt, offset, width, data, widths, firsts, exits):
    """exits[firsts[b] + j, s, i]: the best option of stage b at exit slot s with j *
    BLOCK + i points still needed (1 where its points are enough; 0 past the row)."""
    slots, options = points.shape[1], points.shape[2]
    for b in prange(points.shape[0]):
        w = widths[b]
        for s in range(slots):
            for j in range((w + BLOCK - 1) // BLOCK):
                exits[firsts[b] + j, s, :] = 0.0
            for o in range(options):
                to = nxt[b, s, o]
                if to == NONE:
                    continue
                p = points[b, s, o]
                for h in range(min(w, p + 1)):  # nothing more needed after it
                    exits[firsts[b] + h // BLOCK, s, h % BLOCK] = 1.0
                if to == END or p + 1 >= w:
                    continue
                top, src = min(w, p + width[to]), offset[to] - p
                h = p + 1
                while h < top:  # a block at a time: a loop of a known stride
                    j, i = divmod(h, BLOCK)
                    out = exits[firsts[b] + j, s]
                    n = min(BLOCK - i, top - h)
                    for k in range(n):
                        out[i + k] = max(out[i + k], data[src + h + k])
                    h += n


@njit(cache=True)
def _rows_from_blocks(best, firsts, widths, data, offsets):
    """Stage b's row (``widths[b]`` chances from lane 0 of block ``firsts[b]``) into
    data at offsets[b]."""
    for b in range(len(firsts)):
        start = firsts[b] * BLOCK
        data[offsets[b] : offsets[b] + widths[b]] = best[start : start + widths[b]]
