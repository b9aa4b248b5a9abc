"""A staged solve over a Dask cluster (``solve --cluster``): the stages of one layer are
independent (each exits only to stages of earlier layers, or ends the game), so each
layer is split over the workers, one part a worker, and the parts' values gathered
before the next layer starts.

Each worker keeps what it has learnt of the solve (``Part``: every stage's value, or, for
a target score, every stage's row), brought up to date at each layer with the layer
before (Yahtzee: 8 MiB of values in all; to a target of 300, its 1 GB of rows, once),
and solves its part with the engine's own batches and kernels (``stages.stage_batches``,
``stage_target.target_batches``): a stage's value does not depend on which stages are
solved beside it, so the values are those of a solve on one machine. This machine keeps
the whole result; a worker's is dropped when the solve ends (``forget``).

A worker loads the game from its name and parameters (``catalogue.load_game``): a
plug-in game must be installed on every worker.
"""

from __future__ import annotations

import dataclasses
import uuid
from concurrent.futures import Executor

import numpy as np

from ..objectives import Objective

#: On a worker: what each solve under way has learnt (``Part``), by the solve's key.
_PARTS: dict[str, Part] = {}


class Part:
    """What one process knows of a staged solve: the values (or rows, for a target) of
    the stages solved so far; it solves a part of a layer from them and learns each
    layer's values."""

    def __init__(self, spec: str, objective: Objective):
        from ..catalogue import load_game
        from .stage_target import TargetRows

        self.game = load_game(spec)
        self.st = self.game.stages()
        self.sign = 1.0 if self.game.pays else -1.0
        self.target = objective.name == "probability"
        if self.target:
            self.rows = TargetRows.reserved(self.st, int(objective.horizon))
            self.used = 0
        else:
            self.values = np.zeros(self.st.count)
            self.solved = np.zeros(self.st.count, dtype=np.bool_)

    def solve(self, codes: np.ndarray) -> tuple:
        """The values of stages `codes` (one layer's, or a part of it), in their order: an
        array of values; for a target, each one's row width and the rows one after the
        other."""
        sub = dataclasses.replace(self.st, layers=(codes,))
        if self.target:
            from .stage_target import target_batches

            widths = np.empty(len(codes), dtype=np.int64)
            rows = []
            at = 0
            for batch in target_batches(sub, self.rows):  # (in the part's order)
                data = np.empty(int(batch.widths.sum()))
                starts = np.concatenate(([0], np.cumsum(batch.widths)[:-1]))
                self.rows.turns.run(batch.exits, batch.firsts, batch.widths, data, starts)
                widths[at : at + len(batch.codes)] = batch.widths
                at += len(batch.codes)
                rows.append(data)
            return widths, np.concatenate(rows) if rows else np.zeros(0)
        from .stages import stage_batches

        out = np.empty(len(codes))
        solved = self.solved.copy()  # (the part's own marks: the layer is learnt whole)
        order = np.argsort(codes, kind="stable")
        for batch, best in stage_batches(sub, self.sign, self.values, solved):
            out[order[np.searchsorted(codes[order], batch)]] = best
        return (out,)

    def learn(self, codes: np.ndarray, solved: tuple) -> None:
        """Take the values `solved` (``solve``'s) of stages `codes` as known."""
        if self.target:
            widths, data = solved
            offsets = self.used + np.concatenate(([0], np.cumsum(widths)[:-1]))
            self.rows.data[self.used : self.used + len(data)] = data
            self.rows.offset[codes], self.rows.width[codes] = offsets, widths
            self.used += len(data)
        else:
            self.values[codes] = solved[0]
            self.solved[codes] = True


def _on_worker(key: str, spec: str, objective: Objective, learnt, codes: np.ndarray) -> tuple:
    """A worker's task: learn the layer before (`learnt`: codes and values, or None),
    then solve `codes`."""
    part = _PARTS.get(key)
    if part is None:
        part = _PARTS[key] = Part(spec, objective)
    if learnt is not None:
        part.learn(*learnt)
    return part.solve(codes)


def _forget(key: str) -> None:
    """A worker's last task of a solve: drop what it learnt."""
    _PARTS.pop(key, None)


def solve_layers(game, objective: Objective, lanes: list[Executor], progress) -> Part:
    """Every layer of staged `game` split over `lanes` (one a worker), the parts' values
    gathered here; returns this machine's `Part`, holding them all."""
    key = uuid.uuid4().hex
    spec = str(game)
    mine = Part(spec, objective)
    learnt, done = None, 0
    try:
        for layer in mine.st.layers:
            layer = np.ascontiguousarray(layer, dtype=np.int64)
            parts = np.array_split(layer, len(lanes))  # (every worker learns the layer)
            futures = [
                lane.submit(_on_worker, key, spec, objective, learnt, part)
                for lane, part in zip(lanes, parts)
            ]
            solved = [f.result() for f in futures]
            merged = tuple(np.concatenate(column) for column in zip(*solved))
            mine.learn(layer, merged)
            learnt = (layer, merged)
            done += len(layer)
            progress.update(done)
    finally:
        for lane in lanes:
            try:
                lane.submit(_forget, key).result()
            except Exception:  # noqa: BLE001 - a worker gone: nothing of ours is left there
                pass
    return mine


def solve_on_cluster(game, objective: Objective, spec: str, progress) -> tuple[Part, dict]:
    """`solve_layers` on the workers of the Dask cluster `spec` (``local:N`` or a
    scheduler's address), and what the solution says of it."""
    from ..cluster import cluster_lanes

    lanes = cluster_lanes(spec)
    try:
        part = solve_layers(game, objective, lanes, progress)
    finally:
        for lane in lanes:
            lane.shutdown(cancel_futures=True)
    return part, {"cluster": f"{spec}: each layer split over its {len(lanes)} workers"}
