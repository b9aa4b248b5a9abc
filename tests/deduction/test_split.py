"""Work on several lanes: large sets split, their cells queued as tasks made when a lane
is free, tasks handed to whichever lane is idle. Values against one lane and the core
(with budgets), trees replayed by the scalar rules."""

import threading
import time
from concurrent.futures import Future

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.deduction import root
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.root import Subproblem, ThreadLane, _Dispatch
from perfectplay.deduction.search import SpeedUps
from perfectplay.deduction.tree import Answer, tree_stats
from perfectplay.objectives import Objective


@pytest.mark.parametrize("objective", ["expected", "worst", "probability"])
@pytest.mark.parametrize(
    "spec",
    ["mastermind(pegs=3,colors=6)", "permutation(n=5)", "item-matching(slots=4,items=4,turns=4)"],
)
def test_split_sets_give_the_one_lane_values(spec, objective, monkeypatch):
    # thresholds far below the usual: the root, its large cells and theirs are split
    monkeypatch.setattr(root, "PARALLEL_MIN_SECRETS", 50)
    monkeypatch.setattr(root, "SPLIT_MIN_SECRETS", 20)
    game = load_game(spec)
    goal = Objective(objective, 3 if objective == "probability" else None)
    one = solve(game, goal)
    two = solve(game, goal, workers=2)
    assert two.value == one.value
    if objective != "probability":
        assert (two.extra["total"], two.extra["worst"]) == (one.extra["total"], one.extra["worst"])
        replay = tree_stats(build_table(game), two.strategy.root)
        assert (replay.total, replay.worst) == (two.extra["total"], two.extra["worst"])


class _Slow(ThreadLane):
    """A lane whose tasks wait for `gate` first."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    def submit(self, fn, /, *args, **kwargs) -> Future:
        def held(*a, **k):
            self.gate.wait(10)
            return fn(*a, **k)

        return super().submit(held, *args, **kwargs)


def test_an_idle_lane_takes_the_next_task(monkeypatch):
    calls = []
    monkeypatch.setattr(
        root, "_hand", lambda lane, sub: lane.submit(lambda: calls.append((lane, sub)) or sub)
    )
    gate = threading.Event()
    slow, quick = _Slow(gate), ThreadLane()
    dispatch = _Dispatch([slow, quick])
    futures = [dispatch.submit(lambda k=k: k) for k in range(5)]
    for future in futures[1:]:  # the first waits on the slow lane; the quick one does the rest
        assert future.result(timeout=10) is not None
    assert not futures[0].done()
    gate.set()
    assert futures[0].result(timeout=10) == 0
    assert [sub for lane, sub in calls if lane is quick] == [1, 2, 3, 4]


def test_a_task_cancelled_before_it_starts_never_runs(monkeypatch):
    ran = []
    monkeypatch.setattr(
        root, "_hand", lambda lane, sub: lane.submit(lambda: ran.append(sub) or sub)
    )
    gate = threading.Event()
    dispatch = _Dispatch([_Slow(gate)])
    first, second = dispatch.submit(lambda: "first"), dispatch.submit(lambda: "second")
    assert second.cancel()
    gate.set()
    assert first.result(timeout=10) == "first"
    time.sleep(0.1)
    assert ran == ["first"]


@pytest.mark.parametrize("objective", ["expected", "worst"])
@pytest.mark.parametrize("spec", ["mastermind(pegs=3,colors=6)", "permutation(n=5)"])
def test_a_split_set_within_a_budget_is_valued_like_the_core(spec, objective, monkeypatch):
    # a budget one above the value must give the value and a tree; the value itself, a
    # bound and none (every cell's budget counts)
    monkeypatch.setattr(root, "SPLIT_MIN_SECRETS", 20)
    game = load_game(spec)
    table = build_table(game)
    everyone = np.arange(table.n_secrets)
    search = root.search_for(game, objective, SpeedUps(), {})
    cap = table.n_secrets
    if objective == "worst":  # the least number of guesses that solves every secret
        cap = next(c for c in range(1, cap + 1) if search.best(everyone, (), c).value == 0)
    core = search.best(everyone, (), cap)
    for budget, exact in ((core.value + 1, True), (core.value, False)):
        lanes = root.thread_lanes(2)
        try:
            split = root._Split(
                root.Crew(lanes),
                root.search_for(game, objective, SpeedUps(), {}),
                root.SPLIT_MIN_SECRETS,
            )
            sub = Subproblem(game, objective, SpeedUps(), (), everyone, cap, budget)
            answer = split.start(sub).result(timeout=60)
        finally:
            root.close_lanes(lanes)
        if exact:
            assert answer.value == core.value and answer.tree is not None
            stats = tree_stats(table, answer.tree)
            assert stats.total == core.value if objective == "expected" else stats.worst == cap
        else:
            assert answer.tree is None and answer.value >= core.value


def test_a_cells_nodes_are_counted_before_whoever_waits_for_it_wakes():
    # A done-callback of a future may run after the threads waiting for it have woken: a
    # solve's count once missed its last cell's nodes so, now and then (its root returned
    # first), and a resumed solve seemed to search fewer nodes than it had.
    game = load_game("mastermind(pegs=2,colors=3)")
    search = root.search_for(game, "expected", SpeedUps(), {})
    split = root._Split(root.Crew([ThreadLane()]), search, root.SPLIT_MIN_SECRETS)
    cell: Future = Future()
    counted = split._counted(cell)
    seen = []
    counted.add_done_callback(lambda _: seen.append(split.nodes))
    cell.set_result(Answer(3, None, 7))
    assert counted.result() == Answer(3, None, 7) and seen == [7]
