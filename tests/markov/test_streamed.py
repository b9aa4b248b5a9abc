"""Solved as explored (``markov.streamed``), no graph kept: the same values and choices,
bit for bit, as the kept graph solved by blocks, the values of the per-state Python path,
the same one-line errors, and a graph explored again on demand that the policy indexes."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from perfectplay import load_game, solve
from perfectplay.errors import PerfectplayError, Unsupported
from perfectplay.markov import solve as markov_solve
from perfectplay.markov.compile import Graph, compile_game
from perfectplay.markov.speedups import SpeedUps
from perfectplay.markov.streamed import ReachedCodes

from .compiled_table import CompiledTable
from .test_blocks import WrongSpan

KEPT = SpeedUps(streamed=False)


@pytest.fixture
def streams(monkeypatch):
    """Every solve large enough to stream (no exact stage below EXACT_STATES)."""
    monkeypatch.setattr(markov_solve, "EXACT_STATES", 0)


@pytest.mark.parametrize("n", [3, 12, 25])
def test_streamed_and_kept_give_the_same_bits(n, streams):
    game = load_game("tricky-trios", [f"n={n}"])
    streamed, kept = solve(game), solve(game, speedups=KEPT)
    assert isinstance(streamed.strategy.explored, ReachedCodes)
    assert isinstance(kept.strategy.explored, Graph)
    assert np.array_equal(streamed.strategy.values, kept.strategy.values)
    assert np.array_equal(streamed.strategy.chosen, kept.strategy.chosen)
    assert streamed.value_float == kept.value_float
    assert streamed.stats["components"] == kept.stats["components"]
    # the graph explored again is the one kept, and the policy exports the same
    graph = streamed.strategy.graph
    for name in ("codes", "out_ptr", "choice_ptr", "target", "cost", "choice_c"):
        assert np.array_equal(getattr(graph, name), getattr(kept.strategy.graph, name)), name
    assert graph.start == kept.strategy.graph.start
    assert streamed.export()["strategy"] == kept.export()["strategy"]


def test_reached_codes_index_as_the_graph_does(streams):
    game = load_game("tricky-trios", ["n=6"])
    codes = solve(game).strategy.explored
    graph = compile_game(game)
    order = np.random.default_rng(2).permutation(graph.n_states)
    assert np.array_equal(codes.index_of(graph.codes[order]), order)
    assert codes.start == graph.start
    missing = np.setdiff1d(np.arange(int(graph.codes.max()) + 2), graph.codes)[:3]
    for code in list(missing) + [-1, 64 * len(codes.bits)]:
        with pytest.raises(KeyError):
            codes.index_of(np.array([code]))


def test_a_wrong_span_is_an_error_when_streamed_too(streams):
    with pytest.raises(PerfectplayError, match="cycle_span 4"):
        solve(WrongSpan(n=3), exact=False)


@st.composite
def block_games(draw):
    """Random compiled games on codes 0..n-1 whose choices stay in their block of `span`
    codes or go lower; zero costs and dead ends as drawn."""
    n = draw(st.integers(2, 12))
    span = draw(st.integers(1, 4))
    terminal = frozenset(s for s in range(n) if s == 0 or draw(st.integers(0, 5)) == 0)
    table = {}
    for s in range(n):
        if s in terminal:
            continue
        top = min(n, (s // span + 1) * span)
        table[s] = [
            (
                draw(st.integers(1, 4)),
                draw(
                    st.lists(
                        st.tuples(st.integers(0, top - 1), st.integers(0, 2)),
                        min_size=1,
                        max_size=3,
                    )
                ),
            )
            for _ in range(draw(st.integers(1, 3)))
        ]
    start = draw(st.integers(0, n - 1))
    return CompiledTable(table=table, terminal=terminal, n=n, start=start, cycle_span=span)


def outcome(game, **options):
    """(value, None) of a solve, or (None, the error's class) when it refuses."""
    try:
        return solve(game, exact=False, **options).value_float, None
    except PerfectplayError as err:
        return None, type(err)


def faults(game) -> set:
    """The errors `game` deserves, by plain search over its table: PerfectplayError for a
    cycle of zero-cost choices among the reachable states, Unsupported for a reachable
    state that can never finish (a game may have both)."""
    edges = {
        s: [(t, c) for _, choices in rows for t, c in choices] for s, rows in game.table.items()
    }
    reachable, todo = {game.start}, [game.start]
    while todo:
        for t, _ in edges.get(todo.pop(), []):
            if t not in reachable:
                reachable.add(t)
                todo.append(t)
    finishing, grew = set(game.terminal) | (reachable - set(edges)), True
    while grew:
        grew = False
        for s in reachable - finishing:
            if any(t in finishing for t, _ in edges[s]):
                finishing.add(s)
                grew = True
    found = set()
    if reachable - finishing:
        found.add(Unsupported)
    free = {s: {t for t, c in edges.get(s, []) if c == 0} for s in reachable}
    while True:  # peel states with no zero-cost choice left: a cycle is what remains
        sinks = {s for s, ts in free.items() if not ts & free.keys()}
        if not sinks:
            break
        for s in sinks:
            del free[s]
    if free:
        found.add(PerfectplayError)
    return found


@settings(max_examples=120, deadline=None)
@given(block_games())
def test_streamed_agrees_with_the_python_path(game):
    # A game with both faults may be refused for either: each path meets its states'
    # blocks or components in its own order, and reports the first fault it meets.
    with mock.patch.object(markov_solve, "EXACT_STATES", 0):
        streamed = outcome(game)
        kept = outcome(game, speedups=KEPT)
        tarjan = outcome(game, speedups=SpeedUps(blocks=False))
    python = outcome(game.as_table_game())
    deserved = faults(game)
    for result in (streamed, kept, tarjan, python):
        assert result[1] in deserved if deserved else result[1] is None
    if not deserved:
        assert streamed[0] == kept[0]
        assert abs(streamed[0] - python[0]) <= 1e-9 * max(1.0, abs(python[0]))


def test_a_game_with_two_faults_is_refused_for_one_of_them(streams):
    # state 1 has a zero-cost choice back to itself (and a way out); state 2 only that
    game = CompiledTable(
        table={1: [(1, [(0, 0), (1, 0)])], 2: [(1, [(2, 0)])], 4: [(1, [(2, 0), (1, 0)])]},
        terminal=frozenset({0, 3}),
        n=5,
        start=4,
        cycle_span=1,
    )
    assert faults(game) == {PerfectplayError, Unsupported}
    assert outcome(game)[1] in faults(game)
    assert outcome(game.as_table_game())[1] in faults(game)
