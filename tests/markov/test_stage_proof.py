"""The exact proof of a game of few stages (``markov.stage_proof``): Pig and Farkle's
race by stages, whose turns can bust (a stage returning to itself), proven to the same
fractions as their graphs' exact proofs; the fixed point reached whatever the float it
starts from; a game too large for the proof says why, and ``--exact`` is refused."""

from __future__ import annotations

from dataclasses import dataclass
from unittest import mock

import numpy as np
import pytest
from flint import fmpq

from perfectplay import solve
from perfectplay.errors import Unsupported
from perfectplay.markov import stage_proof
from perfectplay.markov.model import MarkovGame
from perfectplay.markov.speedups import SpeedUps
from perfectplay.markov.stage_model import CHANCE, DECISION, END, Stages, Template
from perfectplay.params import param

from ..test_custom_games import _blocks

AS_GRAPH = SpeedUps(stages=False)


def pig_turn(goal: int, sides: int) -> Template:
    """Roll a die of `sides` faces until holding (exit slot t - 2 for t in hand) or a 1
    (the bust: the last slot); `goal` in hand holds at once."""
    nodes = 1 + 2 * (goal - 2)

    def rolled(t: int) -> list[int]:
        return [nodes + goal - 1] + [
            1 + 2 * (t + f - 2) if t + f < goal else nodes + goal - 2 for f in range(2, sides + 1)
        ]

    kinds, targets = [CHANCE], [rolled(0)]
    for t in range(2, goal):
        kinds += [DECISION, CHANCE]
        targets += [[nodes + t - 2, 2 + 2 * (t - 2)], rolled(t)]
    target = np.concatenate(targets)
    return Template(
        kind=np.array(kinds),
        start=np.cumsum([0] + [len(t) for t in targets]),
        target=target,
        weight=np.ones(len(target), dtype=np.int64),
        points=np.zeros(len(target)),
        slots=goal,
    )


@dataclass(frozen=True)
class Pig(MarkovGame):
    """Pig alone to `goal` with a die of `sides` faces: the fewest turns expected."""

    name = "pig-test"
    summary = "a staged test game whose turns bust"
    cost_unit = "turns"

    goal: int = param(20, low=3, high=100, help="points to reach")
    sides: int = param(6, low=2, high=12, help="faces of the die")

    def stages(self) -> Stages:
        goal = self.goal

        def exits(stages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            held = stages[:, None] + np.arange(2, goal + 1)[None, :]
            nxt = np.concatenate([np.where(held < goal, held, END), stages[:, None]], axis=1)
            return np.ones((len(stages), goal, 1)), nxt[:, :, None]

        return Stages(
            count=goal,
            layers=tuple(np.array([s]) for s in range(goal - 1, -1, -1)),
            start=0,
            template=pig_turn(goal, self.sides),
            options=1,
            exits=exits,
        )


@pytest.mark.parametrize("goal,sides", [(3, 2), (12, 6), (25, 6), (30, 8)])
def test_pig_by_stages_is_proven_to_its_graphs_fraction(goal, sides):
    game = Pig(goal=goal, sides=sides)
    staged, graph = solve(game), solve(game, speedups=AS_GRAPH)
    assert graph.status == staged.status == "proven optimal"
    assert staged.value == graph.value and staged.exact
    floats = solve(game, exact=False)
    assert floats.status == "optimal to tolerance" and not floats.exact
    assert abs(floats.value - float(graph.value)) < 1e-12


def farkle_race() -> type:
    """docs/custom-games.md's Farkle race (the class, without the page's checks)."""
    block = next(b for b in _blocks() if "class FarkleRace" in b).split("\n\nrace = solve(")[0]
    namespace = {"__name__": "farkle_race_doc"}
    exec(compile(block, "custom-games.md", "exec", dont_inherit=True), namespace)
    return namespace["FarkleRace"]


@pytest.mark.parametrize("goal", [150, 400])
def test_farkles_race_by_stages_is_proven_to_its_graphs_fraction(goal):
    game = farkle_race()(goal=goal)
    staged, graph = solve(game), solve(game, speedups=AS_GRAPH)
    assert graph.status == staged.status == "proven optimal"
    assert staged.value == graph.value
    # the stages' values kept are the floats nearest their fractions
    assert staged.strategy.values[0] == float(staged.value)


def test_the_fixed_point_does_not_lean_on_the_float_it_starts_from():
    """Newton's steps in rationals from a float far off, below or above: the same
    fraction, the turn's value there equal to it exactly."""
    game = Pig(goal=12)
    st = game.stages()
    t = st.template
    totals = np.add.reduceat(t.weight, t.start[:-1])
    edges = [
        [(int(t.target[e]), int(t.weight[e]), fmpq(0)) for e in range(t.start[i], t.start[i + 1])]
        for i in range(t.nodes)
    ]
    chance = [k == CHANCE for k in t.kind]
    slots, loops = stage_proof._slots(11, *[a[0] for a in st.exits(np.array([11]))], -1, {})
    assert loops
    proven = {}
    for guess in (0.0, -1.0, -1000.0):
        x = stage_proof._fixed_point(11, edges, chance, totals, slots, guess)
        assert stage_proof._turn(edges, chance, totals, slots, x)[0] == x
        proven[guess] = x
    assert len(set(proven.values())) == 1
    assert float(-proven[0.0]) == solve(game).strategy.values[11]  # the stage's, kept


def test_a_game_too_large_for_the_proof_says_why_and_exact_is_refused():
    game = Pig(goal=12)
    with mock.patch.object(stage_proof, "PROOF_EDGES", 100):
        sol = solve(game)
        assert sol.status == "optimal to tolerance" and not sol.exact
        assert sol.stats["exact_refused"] == (
            "its exact proof would take 12 stages times 86 template edges in rationals, "
            "more than 100"
        )
        with pytest.raises(Unsupported, match="^pig-test is solved by stages, in floats: --exact"):
            solve(game, exact=True)
