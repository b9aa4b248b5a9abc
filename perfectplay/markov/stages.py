"""Games solved by stages: many turns of one shape, each solved from the values of the
stages it leads to, and only those values kept (``MarkovGame.stages``; what a game
declares is in ``markov/stage_model.py``).

A staged game (Solitaire Yahtzee: a turn start is a stage, 1M of them, each with 1,597
states of its own inside the turn: 857M states in all, far too many for a graph) gives a
turn template shared by every stage, an exit rule and the layers of its stages. A game
lists only the stages it can reach; the engine checks every exit it reads and refuses in
one line naming the stage whose exit leads to a stage not solved before it.

The engine (`solve_stages`) solves the layers in batches: the exit values of every slot
(the best option: its points plus the value of its stage), then the template backwards,
in blocks of BLOCK stages side by side (a group's lanes, when the game declares groups
and their compiled exit-value rule, else any stages of the layer), blocks in parallel,
in one compiled kernel. It keeps one float per stage (8 bytes; 8 MiB for Yahtzee's 1M)
and nothing else. Values are floats, "optimal to tolerance" (their rounding only); a game
of few stages is then proven exactly (``markov.stage_proof``). The final score's whole
distribution under the strategy then follows from the values (``markov.stage_distribution``).
"""

from __future__ import annotations

import base64
import dataclasses
import io
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numba
import numpy as np
from numba import njit, prange

from ..aligned import aligned_empty, aligned_zeros
from ..errors import IncompleteRules, Unsupported
from ..objectives import Objective
from ..progress import Silent
from ..solution import CONVERGED, Solution
from .stage_distribution import stage_distribution
from .stage_model import CHANCE, NONE, Stages

#: Stages of a game without groups whose exit arrays are asked for at once (B x slots x
#: options stay small).
BATCH = 256
#: Lanes solved side by side: a block is 64 stages (a group's, or any of a game without
#: groups).
BLOCK = 64
#: The exit values of a batch of blocks (blocks x slots x BLOCK floats) at most.
BATCH_BYTES = 4 << 20
#: The strategy of a staged solution document (read by ``markov.staged_document``).
KIND = "markov-stages"
FORMAT = "stages-npz-base64"


@dataclass
class StageValues:
    """What a staged solve keeps: every solved stage's value (in the game's own terms),
    and which stages were solved; written as the strategy of a solution document
    (``markov.staged_document``)."""

    values: np.ndarray
    solved: np.ndarray
    #: State codes per stage (``Stages.width``): a stage's first state is stage * width.
    width: int

    def live_values(self) -> tuple[np.ndarray, np.ndarray]:
        """The first state of every solved stage and its value (``plot``)."""
        stages = np.flatnonzero(self.solved)
        return stages * self.width, self.values[stages]

    def to_json(self) -> dict:
        codes = np.flatnonzero(self.solved)
        return encode_stages(codes, self.values[codes])


def encode_stages(codes: np.ndarray, values: np.ndarray) -> dict[str, Any]:
    """The ``strategy`` object of a staged solution: its stages' codes and values."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, code=codes.astype(np.int64), value=values.astype(np.float64))
    return {
        "kind": KIND,
        "stages": len(codes),
        "encoding": FORMAT,
        "columns": base64.b64encode(buffer.getvalue()).decode("ascii"),
    }


def solve_stages(
    game,
    objective: Objective = Objective(),
    progress: Silent | None = None,
    distribution: bool = False,
    cluster: str | None = None,
) -> Solution:
    """Solve a staged `game` (``game.stages()`` is not None) for the expected objective
    (a target score: ``stage_target``); with `distribution`, also the final score's
    distribution under the strategy (``stage_distribution``: a forward pass over the
    stages, several times the solve's time, made where it is written: ``solve --json``,
    ``--out``, ``--plot``); with `cluster` (a Dask cluster: ``cluster.cluster_lanes``),
    each layer split over its workers (``stage_cluster``)."""
    if objective.name != "expected":
        raise Unsupported(
            f"{game.name} is solved by stages, for the expected score or a target score "
            f"(not {objective.name!r})"
        )
    progress = progress or Silent()
    t0 = time.perf_counter()
    st = game.stages()
    sign = 1.0 if game.pays else -1.0
    values = aligned_zeros(st.count)  # (a group's rows start on a cache line)
    solved = np.zeros(st.count, dtype=np.bool_)
    progress.stage("solving stages", total=sum(len(x) for x in st.layers), unit="stages")
    done, returning, spread = 0, [], {}
    if cluster is None:
        for batch, best in stage_batches(st, sign, values, solved, returning):
            values[batch] = best
            done += len(batch)
            progress.update(done)
    else:
        from .stage_cluster import solve_on_cluster

        part, spread = solve_on_cluster(game, objective, cluster, progress, StagePart)
        values, solved, done = part.values, part.solved, int(part.solved.sum())
    if not solved[st.start]:
        raise IncompleteRules(f"{game.name}: the start stage {st.start} is in no layer")
    seconds = time.perf_counter() - t0
    if sign < 0:  # (the game's own terms, in place: Yatzy's 33 MB neither copied nor touched)
        np.negative(values, out=values)
    strategy = StageValues(values, solved, st.width)
    refused = {}
    if distribution and returning:
        refused["distribution_refused"] = (
            f"stage {returning[0]} may return to itself: the forward pass plays each stage "
            "once (the distribution of a game whose turns can bust is not made)"
        )
        distribution = False
    if distribution and cluster is not None:
        refused["distribution_refused"] = (
            "made by a solve on one machine (the workers send back values, not which "
            "stages return to themselves)"
        )
        distribution = False
    chances = stage_distribution(game, values, solved, progress) if distribution else None
    return Solution(
        game=game.name,
        params=game.params,
        objective=objective,
        value=float(values[st.start]),
        exact=False,
        proven=False,
        status=CONVERGED,
        strategy=strategy,
        stats={
            "stages": done,
            "template_nodes": st.template.nodes,
            "seconds": round(seconds, 4),
            **(
                {"distribution_seconds": round(time.perf_counter() - t0 - seconds, 4)}
                if distribution
                else {}
            ),
            **refused,
            **spread,
        },
        distribution=chances,
    )


class StagePart:
    """What one process of a solve over a cluster knows (``stage_cluster.Part``): every
    stage's value solved so far; it solves a part of a layer from them."""

    def __init__(self, game, objective: Objective):
        self.st = game.stages()
        self.sign = 1.0 if game.pays else -1.0
        self.values = aligned_zeros(self.st.count)
        self.solved = np.zeros(self.st.count, dtype=np.bool_)

    def solve(self, codes: np.ndarray) -> tuple[np.ndarray]:
        """The values of stages `codes` (a part of a layer), in their order."""
        part = dataclasses.replace(self.st, layers=(codes,))
        out = np.empty(len(codes))
        solved = self.solved.copy()  # (the part's own marks: the layer is learnt whole)
        order = np.argsort(codes, kind="stable")
        for batch, best in stage_batches(part, self.sign, self.values, solved):
            out[order[np.searchsorted(codes[order], batch)]] = best
        return (out,)

    def learn(self, codes: np.ndarray, solved: tuple[np.ndarray]) -> None:
        """Take the values `solved` (``solve``'s) of stages `codes` as known."""
        self.values[codes] = solved[0]
        self.solved[codes] = True


def stage_batches(
    st: Stages,
    sign: float,
    values: np.ndarray,
    solved: np.ndarray,
    returning: list[int] | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every layer's stages in batches, each batch with its stages' values (maximized:
    the game's points times `sign`) computed from `values` of the stages marked `solved`
    (an exit to a stage not marked is refused in one line naming the stage); the batch
    is marked solved once the caller has it (the solve stores the values, ``verify``
    compares them with the file's). `returning` collects the batches' first stage that
    returns to itself, if any."""
    st.template.check()
    t = st.template
    chances, paid = t.chances(), sign * t.points
    kept, rows = t.rows
    source = kept[t.target]
    work = aligned_empty((numba.get_num_threads(), rows * BLOCK))
    room = aligned_empty(BATCH_BYTES // 8)
    for layer in st.layers:
        layer = np.ascontiguousarray(layer, dtype=np.int64)
        if len(layer) and (layer.min() < 0 or layer.max() >= st.count):
            raise IncompleteRules(f"a layer lists a stage outside 0 to {st.count - 1}")
        if solved[layer].any():
            raise IncompleteRules(f"stage {int(layer[np.argmax(solved[layer])])} is in two layers")
        blocks = _by_groups if st.exit_values is not None else _by_stages
        for codes, row, lane, exits, again in blocks(st, layer, sign, values, solved, room):

            def turns(exits: np.ndarray, codes=codes, row=row, lane=lane) -> np.ndarray:
                """The batch's stages' values from their exits' (``_turns``)."""
                best = np.empty((len(exits), BLOCK))
                odd = np.zeros(len(exits), dtype=np.bool_)
                _turns(exits, t.kind, t.start, source, kept, chances, paid, work, best, odd)
                if odd.any():  # a slot without an option, or not a number (a lane in use?)
                    mine = odd[row]
                    _refuse_empty(codes[mine], exits[row[mine], :, lane[mine]])
                return best[row, lane]

            got = turns(exits)
            if again is not None:  # stages whose exits may return to themselves
                got = _fixed_point(codes, got, lambda x, again=again: turns(again(x)))
                if returning is not None:
                    returning.append(int(codes[0]))
            yield codes, got
            solved[codes] = True


#: Secant steps at most towards the value of a stage that may return to itself.
SETTLE_STEPS = 200


def _ending(codes: np.ndarray, value: np.ndarray, turn) -> np.ndarray:
    """`value`, once a stage's best play is seen to leave it with some chance: one more
    unit for returning adds less than one to the turn (the chance of returning is below
    1); else refused in one line (its game need not end)."""
    rise = turn(value + 1.0) - value
    stuck = rise >= 1.0 - 1e-9
    if stuck.any():
        raise IncompleteRules(
            f"stage {codes[np.argmax(stuck)]}: its best play returns to its start for "
            "certain (the game need not end, or its score grows without end)"
        )
    return value


def _fixed_point(codes: np.ndarray, first: np.ndarray, turn) -> np.ndarray:
    """The values x of stages whose exits may return to themselves (a bust): x = turn(x),
    `turn` the stages' turn given the value of returning, `first` its value at 0. The
    turn's value is convex in x, with slope the chance of returning under the best play,
    below 1: secant steps on turn(x) - x reach its root, where a plain iteration would
    creep at the rate of that chance; to the floats' rounding (a residual of 16 units
    in the last place)."""
    x0, g0 = np.zeros_like(first), first
    x = first.copy()
    for _ in range(SETTLE_STEPS):
        y = turn(x)
        g = y - x
        if np.all(np.abs(g) <= 16 * np.finfo(float).eps * np.maximum(1.0, np.abs(y))):
            return _ending(codes, y, turn)
        dx, dg = x - x0, g - g0
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where((dx != 0) & (dg < 0) & (dg > -np.inf), -g * dx / dg, g)
        x0, g0 = x, g
        x = np.where(np.isfinite(step), x + step, y)
    _ending(codes, y, turn)  # (a best play that never leaves: said so)
    b = int(np.argmax(np.abs(g)))
    raise IncompleteRules(
        f"stage {codes[b]}: its value did not settle in {SETTLE_STEPS} steps (does its turn "
        "return to its start for ever, at no cost?)"
    )


#: A batch: its stages' codes, their block and lane, the blocks' exit values (blocks x
#: slots x BLOCK lanes), and where a stage returns to itself, its exit values again for
#: a value of that return (else None).
Batch = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Callable | None]


def _by_stages(
    st: Stages, layer: np.ndarray, sign: float, values: np.ndarray, solved: np.ndarray,
    room: np.ndarray,
) -> Iterator[Batch]:  # fmt: skip
    """A layer of a game without groups: BATCH stages at a time, BLOCK of them side by
    side in a block, their exit values computed from the exit rule's arrays."""
    t = st.template
    for lo in range(0, len(layer), BATCH):
        codes = layer[lo : lo + BATCH]
        points, nxt = _exit_arrays(st, codes)
        blocks = (len(codes) + BLOCK - 1) // BLOCK
        exits = room[: blocks * t.slots * BLOCK].reshape(blocks, t.slots, BLOCK)
        exits[-1] = 0.0  # (the lanes past the last stage)
        bad = np.zeros(len(codes), dtype=np.int64)
        loops = np.zeros(len(codes), dtype=np.bool_)
        guess = np.zeros(len(codes))
        _stage_exits(codes, points, nxt, values, solved, sign, guess, exits, bad, loops)
        _refuse_bad(codes, bad, st.options)
        at = np.arange(len(codes))

        def again(guess: np.ndarray, points=points, nxt=nxt, codes=codes, exits=exits):
            """The exits again, a return to its own stage worth `guess` (a stage's)."""
            bad, loops = np.zeros(len(codes), dtype=np.int64), np.zeros(len(codes), np.bool_)
            _stage_exits(codes, points, nxt, values, solved, sign, guess, exits, bad, loops)
            return exits

        yield codes, at // BLOCK, at % BLOCK, exits, again if loops.any() else None


def _by_groups(
    st: Stages, layer: np.ndarray, sign: float, values: np.ndarray, solved: np.ndarray,
    room: np.ndarray,
) -> Iterator[Batch]:  # fmt: skip
    """A layer of a game of groups: each group's lanes in blocks of BLOCK (those that
    hold a stage of the layer), as many blocks at a time as BATCH_BYTES of exit values
    hold, their exit values from the game's compiled rule; the first and the last group
    of the layer also through ``exits`` (``_held_to_exits``)."""
    t = st.template
    parts = -(-st.lanes // BLOCK)  # blocks a group
    if np.any(layer[1:] < layer[:-1]):  # (a batch's stages: a slice)
        layer = np.sort(layer)
    group, lane = np.divmod(layer, st.lanes)
    blocks, of_block = np.unique(group * parts + lane // BLOCK, return_inverse=True)
    groups, part = np.divmod(blocks, parts)
    firsts = part * BLOCK
    lanes = lane % BLOCK
    per_batch = max(1, len(room) // (t.slots * BLOCK))
    checked = {blocks[0], blocks[-1]} if len(blocks) else set()
    for lo in range(0, len(blocks), per_batch):
        hi = min(len(blocks), lo + per_batch)
        exits = room[: (hi - lo) * t.slots * BLOCK].reshape(hi - lo, t.slots, BLOCK)
        st.exit_values(groups[lo:hi], firsts[lo:hi], values, sign, exits)
        rows = slice(*np.searchsorted(of_block, [lo, hi]))
        codes, row, lane = layer[rows], of_block[rows] - lo, lanes[rows]
        for b in range(lo, hi):
            if blocks[b] in checked:
                mine = row == b - lo
                given = exits[b - lo][:, lane[mine]]
                _held_to_exits(st, codes[mine], given, sign, values, solved)
        yield codes, row, lane, exits, None


def _exit_arrays(st: Stages, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exit rule's arrays for `codes`, their shapes checked."""
    points, nxt = st.exits(codes)
    points = np.ascontiguousarray(points, dtype=np.float64)
    nxt = np.ascontiguousarray(nxt, dtype=np.int64)
    shape = (len(codes), st.template.slots, st.options)
    if points.shape != shape or nxt.shape != shape:
        raise IncompleteRules(
            f"the exit rule returned arrays of shape {points.shape} and {nxt.shape}, not {shape}"
        )
    return points, nxt


def _held_to_exits(
    st: Stages, codes: np.ndarray, given: np.ndarray, sign: float, values: np.ndarray,
    solved: np.ndarray,
) -> None:  # fmt: skip
    """Refuse, in one line, exit values of `codes` from the compiled rule (`given`: slots
    x stages) that the exit rule's arrays do not give (the rule is the game's word: play,
    verify and the screens read it)."""
    points, nxt = _exit_arrays(st, codes)
    blocks = (len(codes) + BLOCK - 1) // BLOCK
    exits = np.zeros((blocks, st.template.slots, BLOCK))
    bad = np.zeros(len(codes), dtype=np.int64)
    loops = np.zeros(len(codes), dtype=np.bool_)
    guess = np.full(len(codes), np.nan)  # (a group's stages may not return to themselves)
    _stage_exits(codes, points, nxt, values, solved, sign, guess, exits, bad, loops)
    _refuse_bad(codes, bad, st.options)
    if loops.any():
        raise IncompleteRules(
            f"stage {codes[np.argmax(loops)]} returns to itself: a game whose compiled exit "
            "values give a group's stages at once may not (its exit rule alone may)"
        )
    at = np.arange(len(codes))
    want = exits[at // BLOCK, :, at % BLOCK].T
    off = ~np.isclose(given, want, rtol=1e-12, atol=1e-9)
    if off.any():
        s, b = np.argwhere(off)[0]
        raise IncompleteRules(
            f"stage {codes[b]}: the compiled exit values give {float(sign * given[s, b])!r} at "
            f"exit slot {s}, the exit rule {float(sign * want[s, b])!r}"
        )


def _refuse_empty(codes: np.ndarray, exits: np.ndarray) -> None:
    """One line naming the first stage (rows of `exits`: stages x slots) with a slot
    without any option, or a value that is not a number."""
    bad = ~np.isfinite(exits)
    if bad.any():
        b, s = np.argwhere(bad)[0]
        what = "has no option" if exits[b, s] == -np.inf else f"is worth {float(exits[b, s])!r}"
        raise IncompleteRules(f"stage {codes[b]}: exit slot {s} {what}")


def _refuse_bad(batch: np.ndarray, bad: np.ndarray, options: int) -> None:
    """One line naming the first stage of `batch` whose exits the kernel refused."""
    if not bad.any():
        return
    b = int(np.flatnonzero(bad)[0])
    code = int(bad[b])
    if code < 0:
        raise IncompleteRules(f"stage {batch[b]}: exit slot {-code - 1} has no option")
    slot, option = divmod(code - 1, options)
    raise IncompleteRules(
        f"stage {batch[b]}: option {option} of exit slot {slot} leads to a stage not solved "
        "before it (every exit must lead to a stage of an earlier layer)"
    )


def turn_values(st: Stages, exits: np.ndarray, sign: float) -> np.ndarray:
    """Every node's and exit slot's value (the game's points times `sign`, maximized) of
    each block's BLOCK lanes, given their exit slots' values (blocks x slots x BLOCK):
    ``_turns`` with a row of its own for every node and slot (x at x * BLOCK), a block
    a worker, the blocks' work kept (blocks x width * BLOCK; the simulation walks a turn
    by them, a target's advice reads a stage's every node). A slot without an option is
    refused in one line."""
    t = st.template
    work = aligned_empty((len(exits), st.width * BLOCK))
    best = np.empty((len(exits), BLOCK))
    odd = np.zeros(len(exits), dtype=np.bool_)
    every = np.arange(st.width, dtype=np.int64)
    target = t.target.astype(np.int64)
    _turns(exits, t.kind, t.start, target, every, t.chances(), sign * t.points, work, best, odd)
    if odd.any():
        raise IncompleteRules(f"a turn's exit slot has no option (block {int(np.argmax(odd))})")
    return work


@njit(cache=True, parallel=True)
def _turns(exits, kind, start, source, row, chance, paid, work, best, odd):
    """best[b], the value of block b's BLOCK lanes: its exit slots' values given (exits[b]:
    slots x lanes; odd[b] set where one of them is not a finite number: a slot without an
    option) copied into the thread's rows, the template solved over them (``_turn``), its
    start's row read. Node or slot x is kept in row[x] of the thread's work (``Template
    .rows``; work 64-byte aligned, ``aligned_empty``: a row read across two cache lines
    costs half as much again), an edge reads row source[e]; each thread takes every
    threads-th block."""
    n_nodes = len(kind)
    blocks, slots = exits.shape[0], exits.shape[1]
    flat = exits.reshape(-1)
    threads = work.shape[0]
    for th in prange(threads):
        buf = work[th]
        for b in range(th, blocks, threads):
            finite = True
            for s in range(slots):
                r, x = row[n_nodes + s] * BLOCK, (b * slots + s) * BLOCK
                into, given = buf[r : r + BLOCK], flat[x : x + BLOCK]
                for lane in range(BLOCK):
                    into[lane] = given[lane]
                    finite &= abs(given[lane]) < np.inf
            odd[b] = not finite
            _turn(buf, kind, start, source, row, chance, paid)
            r = row[0] * BLOCK
            for lane in range(BLOCK):
                best[b, lane] = buf[r + lane]


@njit(cache=True)
def _turn(buf, kind, start, source, row, chance, paid):
    """The template from its last node back to node 0 over one block's rows in `buf` (its
    exit slots' rows filled), BLOCK lanes side by side, each edge read once for all of
    them, two edges a pass (a pass reads its row and writes it once for two edges: the
    rows live in the second-level cache, and a pass costs its reads and writes, not its
    arithmetic; one edge a pass took 1.8 times as long). A chance node's row is the mean
    of its edges' (points plus child), a decision node's the best. The lanes are a
    constant (a loop of a known length is vectorised whole, where one of a length known at
    run time left a scalar remainder as costly as the rest), and rows are addressed in a
    flat array (a 2-d array's rows cost three times as much to loop over)."""
    for i in range(len(kind) - 1, -1, -1):
        e0, e1, r = start[i], start[i + 1], row[i] * BLOCK
        out = buf[r : r + BLOCK]
        c, q = source[e0] * BLOCK, paid[e0]
        x = buf[c : c + BLOCK]
        if kind[i] == CHANCE:
            p = chance[e0]
            e = e0 + 1
            if (e1 - e0) % 2 == 0:  # (a first pass of two edges: then pairs to the end)
                d, qq, pp = source[e] * BLOCK, paid[e], chance[e]
                y = buf[d : d + BLOCK]
                for lane in range(BLOCK):
                    out[lane] = p * (q + x[lane]) + pp * (qq + y[lane])
                e += 1
            else:
                for lane in range(BLOCK):
                    out[lane] = p * (q + x[lane])
            while e < e1:
                c, q, p = source[e] * BLOCK, paid[e], chance[e]
                d, qq, pp = source[e + 1] * BLOCK, paid[e + 1], chance[e + 1]
                x, y = buf[c : c + BLOCK], buf[d : d + BLOCK]
                for lane in range(BLOCK):
                    out[lane] += p * (q + x[lane]) + pp * (qq + y[lane])
                e += 2
        else:
            e = e0 + 1
            if (e1 - e0) % 2 == 0:
                d, qq = source[e] * BLOCK, paid[e]
                y = buf[d : d + BLOCK]
                for lane in range(BLOCK):
                    u, v = q + x[lane], qq + y[lane]
                    out[lane] = u if u >= v else v
                e += 1
            else:
                for lane in range(BLOCK):
                    out[lane] = q + x[lane]
            while e < e1:
                c, q = source[e] * BLOCK, paid[e]
                d, qq = source[e + 1] * BLOCK, paid[e + 1]
                x, y = buf[c : c + BLOCK], buf[d : d + BLOCK]
                for lane in range(BLOCK):
                    u, v, a = q + x[lane], qq + y[lane], out[lane]
                    u = u if u >= v else v
                    out[lane] = a if a >= u else u
                e += 2


@njit(cache=True, parallel=True)
def _stage_exits(codes, points, nxt, values, solved, sign, guess, exits, bad, loops):
    """exits[b // BLOCK, s, b % BLOCK]: the best option of stage codes[b] at each exit
    slot s (its points times `sign` plus its stage's value; a return to codes[b] itself
    worth guess[b], and loops[b] set). bad[b] is set, at the first fault, to 1 + slot *
    options + option (an exit to a stage not yet solved) or -1 - slot (a slot with no
    option)."""
    slots, options = points.shape[1], points.shape[2]
    for b in prange(points.shape[0]):
        for s in range(slots):
            best = -np.inf
            for o in range(options):
                to = nxt[b, s, o]
                if to == NONE:
                    continue
                v = sign * points[b, s, o]
                if to == codes[b]:
                    loops[b] = True
                    v += guess[b]
                elif to >= 0:
                    if to >= len(values) or not solved[to]:
                        if bad[b] == 0:
                            bad[b] = 1 + s * options + o
                        continue
                    v += values[to]
                best = max(best, v)
            if best == -np.inf and bad[b] == 0:
                bad[b] = -1 - s
            exits[b // BLOCK, s, b % BLOCK] = best
