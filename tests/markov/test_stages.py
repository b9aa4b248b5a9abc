"""Games solved by stages (``markov/stages.py``): a small staged game against a brute-force
expectimax written here, and the exit rule's promises checked as read."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from perfectplay import solve
from perfectplay.errors import IncompleteRules, Unsupported
from perfectplay.markov.model import MarkovGame
from perfectplay.markov.speedups import SpeedUps
from perfectplay.markov.stage_model import CHANCE, DECISION, END, NONE, Stages, Template
from perfectplay.objectives import Objective
from perfectplay.params import param


def reroll_turn(points_to_reroll: float = 0.0) -> Template:
    """Roll a die (node 0); keep the face (exit slot f) or roll again (node 7), that
    choice paying `points_to_reroll` (negative: a fee)."""
    targets = [list(range(1, 7))] + [[8 + f, 7] for f in range(6)] + [list(range(8, 14))]
    target = np.concatenate(targets)
    points = np.zeros(len(target))
    points[7:19:2] = points_to_reroll
    return Template(
        kind=np.array([CHANCE] + [DECISION] * 6 + [CHANCE]),
        start=np.cumsum([0] + [len(t) for t in targets]),
        target=target,
        weight=np.array([1, 1, 1, 1, 1, 3] + [1] * 12 + [1] * 6, dtype=np.int64),
        points=points,
        slots=6,
    )


@dataclass(frozen=True)
class Doubling(MarkovGame):
    """`turns` turns of a loaded die (a six three times as likely on the first roll) with
    one reroll costing `fee`: the face is paid, or once in the game twice the face."""

    name = "doubling"
    summary = "a staged test game"
    pays = True
    cost_unit = "points"

    turns: int = param(3, low=1, high=20, help="turns")
    fee: int = param(0, low=0, high=5, help="points a reroll costs")
    #: Deliberate mistakes for the tests: the double leads to the other stage of its
    #: layer (1: not solved before it), or to the stage itself (2: a score growing for ever).
    loop: int = param(0, low=0, high=2, help="break the order")

    def stages(self) -> Stages:
        def exits(stages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            left, double = stages // 2, stages % 2
            faces = np.arange(1, 7)[None, :]
            points = np.zeros((len(stages), 6, 2))
            nxt = np.full((len(stages), 6, 2), NONE)
            nxt[:, :, 0] = np.where(left > 1, stages - 2, END)[:, None]
            points[:, :, 0] = faces
            has = double == 1
            after = {1: stages ^ 1, 2: stages}.get(
                self.loop, np.where(left > 1, 2 * (left - 1), END)
            )
            nxt[has, :, 1] = after[has, None]
            points[has, :, 1] = 2 * faces
            return points, nxt

        return Stages(
            count=2 * self.turns + 2,
            layers=tuple(np.array([2 * t, 2 * t + 1]) for t in range(1, self.turns + 1)),
            start=2 * self.turns + 1,
            template=reroll_turn(-self.fee),
            options=2,
            exits=exits,
        )


def expectimax(turns: int, fee: int) -> Fraction:
    """The best expected score of `Doubling`, by brute force over the whole game."""
    first = [Fraction(1, 8)] * 5 + [Fraction(3, 8)]
    fair = [Fraction(1, 6)] * 6

    @cache
    def value(left: int, double: bool) -> Fraction:
        if left == 0:
            return Fraction(0)

        def end(face: int) -> Fraction:
            best = face + value(left - 1, double)
            return max(best, 2 * face + value(left - 1, False)) if double else best

        again = -fee + sum(p * end(f) for p, f in zip(fair, range(1, 7)))
        return sum(p * max(end(f), again) for p, f in zip(first, range(1, 7)))

    return value(turns, True)


@pytest.mark.parametrize("turns,fee", [(1, 0), (3, 0), (3, 1), (7, 2)])
def test_a_staged_game_equals_brute_force(turns, fee):
    sol = solve(Doubling(turns=turns, fee=fee))
    assert sol.value == expectimax(turns, fee)  # the stages proven exactly
    assert sol.status == "proven optimal" and sol.exact
    floats = solve(Doubling(turns=turns, fee=fee), exact=False)
    assert floats.value == pytest.approx(float(expectimax(turns, fee)), rel=1e-12)
    assert floats.status == "optimal to tolerance" and not floats.exact
    assert sol.stats["stages"] == 2 * turns


def test_an_exit_to_a_stage_not_solved_before_is_refused():
    with pytest.raises(IncompleteRules, match=r"^stage 3: option 1 of exit slot 0 leads"):
        solve(Doubling(turns=2, loop=1))


def test_a_stage_whose_best_play_returns_to_it_for_certain_is_refused():
    """The double returns to the stage itself, paying each time: the best play doubles
    for ever (a score without end): refused in one line, not a number."""
    with pytest.raises(IncompleteRules, match=r"^stage \d+: its best play returns to its start"):
        solve(Doubling(turns=2, loop=2))


def test_a_staged_game_solves_the_expected_score_or_a_target_only():
    with pytest.raises(Unsupported, match="does not support objective .worst."):
        solve(Doubling(), Objective("worst"))


def test_a_template_edge_back_is_refused():
    t = reroll_turn()
    back = Template(t.kind, t.start, np.where(t.target == 7, 0, t.target), t.weight, t.points, 6)
    with pytest.raises(IncompleteRules, match="node 1's edge to 0 leads neither"):
        back.check()


@pytest.mark.parametrize("turns,fee", [(1, 0), (3, 0)])
def test_a_staged_game_is_a_markov_game_too_solved_exactly(turns, fee):
    """Its states derived from the stages (``staged_expansion``) and solved as a graph:
    the exact value of the brute force, proven; the staged solve agrees."""
    game = Doubling(turns=turns, fee=fee)
    exact = solve(game, speedups=SpeedUps(stages=False))
    assert exact.value == expectimax(turns, fee) and exact.status == "proven optimal"
    assert solve(game).value == pytest.approx(float(exact.value), rel=1e-12)


def test_the_turn_as_a_person_sees_it_multiplies_chances_and_keeps_every_payment():
    """Chance then chance is one draw (weights multiplied out), unless the edge between
    pays; a decision then a decision no chance reaches is one decision; a slot reached
    paying 1 and paying 0 is two choices."""
    targets = [[1, 2], [3, 5], [5, 6], [5, 4], [5, 6]]  # nodes 0-4; slots 0, 1 are 5, 6
    t = Template(
        kind=np.array([CHANCE, CHANCE, CHANCE, DECISION, DECISION]),
        start=np.cumsum([0] + [len(x) for x in targets]),
        target=np.concatenate(targets),
        weight=np.array([1, 2, 1, 1, 1, 3, 1, 1, 1, 1]),
        points=np.array([0, 5, 0, 0, 0, 0, 1, 0, 0, 0.0]),
        slots=2,
    )
    t.check()
    assert t.flat[3] == {(5, 1): 1, (5, 0): 1, (6, 0): 1}  # node 4: reached by no chance
    assert t.flat[2] == {(5, 0): 1, (6, 0): 3}
    assert t.flat[1] == {(3, 0): 1, (5, 0): 1}  # a decision: a position of its own
    assert t.flat[0] == {(3, 0): 1, (5, 0): 1, (2, 5): 4}  # node 2 is paid for: not merged
