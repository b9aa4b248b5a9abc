"""Games solved by stages: many turns of one shape, each solved from the values of the
stages it leads to, and only those values kept (``MarkovGame.stages``; what a game
declares is in ``markov/stage_model.py``).

A staged game (Solitaire Yahtzee: a turn start is a stage, 1M of them, each with ~1,400
states of its own inside the turn: 743M states in all, far too many for a graph) gives a
turn template shared by every stage, an exit rule and the layers of its stages. A game
lists only the stages it can reach; the engine checks every exit it reads and refuses in
one line naming the stage whose exit leads to a stage not solved before it.

The engine (`solve_stages`) solves the layers in batches: the exit values of every slot
(the best option: its points plus the value of its stage), then the template backwards,
for all the batch's stages at once in one compiled kernel (stages in parallel, LANES of
them side by side in each thread). It keeps one float per stage (8 bytes; 8 MiB for
Yahtzee's 1M) and nothing else. Values are floats, "optimal to tolerance" (their
rounding only): exact fractions of this size are out of reach.
"""

from __future__ import annotations

import base64
import io
import time
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
from numba import njit, prange

from ..errors import IncompleteRules, Unsupported
from ..objectives import Objective
from ..progress import Silent
from ..solution import CONVERGED, Solution
from .stage_model import CHANCE, NONE, Stages

#: Stages solved per kernel call (their exits' arrays, B x slots x options, stay small),
#: and side by side in one thread.
BATCH = 256
LANES = 8
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
    game, objective: Objective = Objective(), progress: Silent | None = None
) -> Solution:
    """Solve a staged `game` (``game.stages()`` is not None) for the expected objective."""
    if objective.name != "expected":
        raise Unsupported(
            f"{game.name} is solved by stages, for the expected objective only "
            f"(not {objective.name!r})"
        )
    progress = progress or Silent()
    t0 = time.perf_counter()
    st = game.stages()
    sign = 1.0 if game.pays else -1.0
    values = np.zeros(st.count)
    solved = np.zeros(st.count, dtype=np.bool_)
    progress.stage("solving stages", total=sum(len(x) for x in st.layers), unit="stages")
    done = 0
    for batch, best in stage_batches(st, sign, values, solved):
        values[batch] = best
        done += len(batch)
        progress.update(done)
    if not solved[st.start]:
        raise IncompleteRules(f"{game.name}: the start stage {st.start} is in no layer")
    return Solution(
        game=game.name,
        params=game.params,
        objective=objective,
        value=sign * float(values[st.start]),
        exact=False,
        proven=False,
        status=CONVERGED,
        strategy=StageValues(sign * values, solved, st.width),
        stats={
            "stages": done,
            "template_nodes": st.template.nodes,
            "seconds": round(time.perf_counter() - t0, 4),
        },
    )


def stage_batches(
    st: Stages, sign: float, values: np.ndarray, solved: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every layer's stages in batches, each batch with its stages' values (maximized:
    the game's points times `sign`) computed from `values` of the stages marked `solved`
    (an exit to a stage not marked is refused in one line naming the stage); the batch
    is marked solved once the caller has it (the solve stores the values, ``verify``
    compares them with the file's)."""
    st.template.check()
    t = st.template
    chances = t.chances()
    for layer in st.layers:
        layer = np.ascontiguousarray(layer, dtype=np.int64)
        if len(layer) and (layer.min() < 0 or layer.max() >= st.count):
            raise IncompleteRules(f"a layer lists a stage outside 0 to {st.count - 1}")
        if solved[layer].any():
            raise IncompleteRules(f"stage {int(layer[np.argmax(solved[layer])])} is in two layers")
        for lo in range(0, len(layer), BATCH):
            batch = layer[lo : lo + BATCH]
            points, nxt = st.exits(batch)
            points = np.ascontiguousarray(points, dtype=np.float64)
            nxt = np.ascontiguousarray(nxt, dtype=np.int64)
            if points.shape != (len(batch), t.slots, st.options) or nxt.shape != points.shape:
                raise IncompleteRules(
                    f"the exit rule returned arrays of shape {points.shape} and {nxt.shape}, "
                    f"not ({len(batch)}, {t.slots}, {st.options})"
                )
            best = np.empty(len(batch))
            bad = np.zeros(len(batch), dtype=np.int64)
            _solve_batch(
                batch, points, nxt, values, solved, sign,
                t.kind, t.start, t.target, chances, t.points, best, bad,
            )  # fmt: skip
            _refuse_bad(batch, bad, st.options)
            yield batch, best
            solved[batch] = True


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


@njit(cache=True, parallel=True)
def _solve_batch(
    stages, points, nxt, values, solved, sign, kind, start, target, chance, edge_points, best, bad
):
    """best[b], the value of stages[b] for each b: the exit slots' best options, then the template from
    its last node back to node 0, LANES stages at a time (each edge read once for all of
    them, their arithmetic side by side). bad[b] is set, at the first fault, to 1 + slot *
    options + option (an exit to a stage not yet solved) or -1 - slot (a slot with no
    option)."""
    n_nodes = len(kind)
    slots = points.shape[1]
    for group in prange((len(stages) + LANES - 1) // LANES):
        lo = group * LANES
        buf = np.zeros((n_nodes + slots, LANES))
        for lane in range(min(LANES, len(stages) - lo)):
            _exit_values(lo + lane, lane, points, nxt, values, solved, sign, n_nodes, buf, bad)
        for i in range(n_nodes - 1, -1, -1):
            row = buf[i]
            if kind[i] == CHANCE:
                for e in range(start[i], start[i + 1]):
                    p, paid, child = chance[e], sign * edge_points[e], buf[target[e]]
                    for lane in range(LANES):
                        row[lane] += p * (paid + child[lane])
            else:
                row[:] = -np.inf
                for e in range(start[i], start[i + 1]):
                    paid, child = sign * edge_points[e], buf[target[e]]
                    for lane in range(LANES):
                        row[lane] = max(row[lane], paid + child[lane])
        for lane in range(min(LANES, len(stages) - lo)):
            best[lo + lane] = buf[0, lane]


@njit(inline="always")
def _exit_values(b, lane, points, nxt, values, solved, sign, n_nodes, buf, bad):
    """buf[n_nodes + s, lane]: the best option of stage b at each exit slot s."""
    slots, options = points.shape[1], points.shape[2]
    for s in range(slots):
        best = -np.inf
        for o in range(options):
            to = nxt[b, s, o]
            if to == NONE:
                continue
            v = sign * points[b, s, o]
            if to >= 0:
                if to >= len(values) or not solved[to]:
                    if bad[b] == 0:
                        bad[b] = 1 + s * options + o
                    continue
                v += values[to]
            best = max(best, v)
        if best == -np.inf and bad[b] == 0:
            bad[b] = -1 - s
        buf[n_nodes + s, lane] = best
