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

A worker makes the game again from its class and parameters (a class is sent by its
module's name): a plug-in game must be installed on every worker.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Executor
from typing import Protocol

import numpy as np

from ..objectives import Objective
from .stage_model import Stages

#: On a worker: what each solve under way has learnt (``Part``), by the solve's key.
_PARTS: dict[str, Part] = {}


class Part(Protocol):
    """What one process knows of a staged solve (``stages.StagePart``,
    ``stage_target.TargetPart``): made from the game and the objective, it solves a part of a layer from what it knows (``solve``) and learns
    each layer's values (``learn``)."""

    st: Stages

    def solve(self, codes: np.ndarray) -> tuple: ...

    def learn(self, codes: np.ndarray, solved: tuple) -> None: ...


def _on_worker(key: str, kind: type, spec: tuple, objective: Objective, learnt, codes) -> tuple:
    """A worker's task: learn the layer before (`learnt`: codes and values, or None),
    then solve `codes` (a `kind` of Part's)."""
    part = _PARTS.get(key)
    if part is None:
        cls, params = spec  # (a class goes by its module's name; its game is made here)
        part = _PARTS[key] = kind(cls(**params), objective)
    if learnt is not None:
        part.learn(*learnt)
    return part.solve(codes)


def _forget(key: str) -> None:
    """A worker's last task of a solve: drop what it learnt."""
    _PARTS.pop(key, None)


def solve_layers(game, objective: Objective, lanes: list[Executor], progress, kind: type) -> Part:
    """Every layer of staged `game` split over `lanes` (one a worker), the parts' values
    gathered here; returns this machine's `kind` of Part, holding them all."""
    key = uuid.uuid4().hex
    spec = (type(game), dict(game.params))
    mine = kind(game, objective)
    learnt, done = None, 0
    try:
        for layer in mine.st.layers:
            layer = np.ascontiguousarray(layer, dtype=np.int64)
            parts = np.array_split(layer, len(lanes))  # (every worker learns the layer)
            futures = [
                lane.submit(_on_worker, key, kind, spec, objective, learnt, part)
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


def solve_on_cluster(
    game, objective: Objective, spec: str, progress, kind: type
) -> tuple[Part, dict]:
    """`solve_layers` on the workers of the Dask cluster `spec` (``local:N`` or a
    scheduler's address), and what the solution says of it."""
    from ..cluster import cluster_lanes

    lanes = cluster_lanes(spec)
    try:
        part = solve_layers(game, objective, lanes, progress, kind)
    finally:
        for lane in lanes:
            lane.shutdown(cancel_futures=True)
    return part, {"cluster": f"{spec}: each layer split over its {len(lanes)} workers"}
