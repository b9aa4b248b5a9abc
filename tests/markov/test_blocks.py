"""A game's blocks (``MarkovGame.cycle_span``) solved in code order give what Tarjan's
strong components give: the same values, the same verdict on games that never end or
hold a zero-cost cycle; a wrong span is an error naming the state, never a wrong value."""

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from perfectplay import load_game, solve
from perfectplay.errors import PerfectplayError
from perfectplay.games.tricky_trios import TrickyTrios
from perfectplay.markov.by_components import FORWARD, OK, Limits, solve_by_components
from perfectplay.markov.compile import Rows, compile_game
from perfectplay.markov.speedups import SpeedUps

from ..golden import TRICKY_TRIOS

ROOM = 1000


@st.composite
def block_graphs(draw):
    """(span, CSR arrays) of a random graph on states 0..n-1 (codes = indices) whose
    choices lead into their own block or to a lower state: free of costs (zero-cost
    cycles) and of exits (states that never end) alike, as drawn."""
    n = draw(st.integers(1, 12))
    span = draw(st.integers(1, 4))
    out_ptr, weight, denom, choice_ptr, target, cost = [0], [], [], [0], [], []
    for s in range(n):
        top = min(n, (s // span + 1) * span)  # the end of s's block
        total = 0
        if s > 0 and draw(st.integers(0, 4)) > 0:  # state 0 and a few more are terminal
            for _ in range(draw(st.integers(1, 3))):
                w = draw(st.integers(1, 4))
                weight.append(w)
                total += w
                for _ in range(draw(st.integers(1, 3))):
                    target.append(draw(st.integers(0, top - 1)))
                    cost.append(draw(st.integers(0, 2)))
                choice_ptr.append(len(target))
        denom.append(max(total, 1))
        out_ptr.append(len(weight))
    arrays = (
        np.array(out_ptr, np.int64),
        np.array(weight, np.int32),
        np.array(denom, np.int32),
        np.array(choice_ptr, np.int32),
        np.array(target, np.int32),
        np.array(cost, np.int8),
    )
    return span, arrays


def by_components(arrays, span):
    """(status, V) of ``solve_by_components`` over `arrays`, in blocks of `span` (0:
    Tarjan's strong components)."""
    n = len(arrays[0]) - 1
    room = ROOM if span else n
    V, flags = np.empty(n), np.zeros(n, np.uint8)
    status, *_ = solve_by_components(
        Rows(*arrays),
        Limits(1e-12, 100_000, ROOM, 1 << 22),
        V,
        np.empty(room, np.int32),
        np.empty(room + 1, np.int32),
        np.empty(room, np.int32),
        flags,
        np.arange(n, dtype=np.int64),
        span,
    )
    return status, V


@settings(max_examples=150, deadline=None)
@given(block_graphs())
def test_blocks_and_strong_components_agree(case):
    span, arrays = case
    blocks, by_blocks = by_components(arrays, span)
    tarjan, by_tarjan = by_components(arrays, 0)
    assert (blocks == OK) == (tarjan == OK), (blocks, tarjan)
    if blocks == OK:
        assert np.allclose(by_blocks, by_tarjan, rtol=1e-9, atol=1e-9)


def test_a_choice_to_a_later_block_is_found():
    # state 1 (block 0 of span 2) chooses state 2 (block 1)
    arrays = (
        np.array([0, 0, 1, 1], np.int64),
        np.array([1], np.int32),
        np.array([1, 1, 1], np.int32),
        np.array([0, 1], np.int32),
        np.array([2], np.int32),
        np.array([1], np.int8),
    )
    assert by_components(arrays, 2)[0] == FORWARD
    assert by_components(arrays, 0)[0] == OK


class WrongSpan(TrickyTrios):
    """Tricky Trios claiming blocks of 4 codes: a mismatch returns to the round's start,
    20 codes above the phase ONE's block."""

    cycle_span = 4


def test_a_wrong_span_is_an_error_naming_the_state():
    with pytest.raises(PerfectplayError, match="cycle_span 4"):
        solve(WrongSpan(n=3), exact=False)


@pytest.mark.parametrize("n", [5, 12])
def test_tricky_trios_by_blocks_and_by_components(n):
    game = load_game("tricky-trios", [f"n={n}"])
    blocks = solve(game, exact=False)
    tarjan = solve(game, exact=False, speedups=SpeedUps(blocks=False))
    assert blocks.stats["components"] < tarjan.stats["components"]  # blocks hold several
    assert np.array_equal(blocks.strategy.chosen, tarjan.strategy.chosen)
    assert abs(np.asarray(blocks.strategy.values) - np.asarray(tarjan.strategy.values)).max() < 1e-9
    if n in TRICKY_TRIOS:
        assert round(blocks.value_float, 6) == TRICKY_TRIOS[n]


class WideBlocks(TrickyTrios):
    """Tricky Trios vouching for blocks of 729 rounds (17,496 codes, a multiple of a
    round's 24: a promise as true as the round's own): at n = 8, 9 blocks of up to 1,505
    states, more than ``solve.LOCAL_BLOCK``."""

    cycle_span = 24 * 9**3


def test_blocks_of_any_size_are_solved_as_blocks():
    # a block of more than LOCAL_BLOCK (1,000) states used to turn the blocks off
    # silently (Tarjan's components instead): now every declared block is one
    game = WideBlocks(n=8)
    blocks = np.bincount(compile_game(game).codes // game.cycle_span)
    assert blocks.max() > 1000
    wide = solve(game, exact=False)
    rounds = solve(TrickyTrios(n=8), exact=False)
    assert wide.stats["components"] == np.count_nonzero(blocks)
    assert abs(np.asarray(wide.strategy.values) - np.asarray(rounds.strategy.values)).max() < 1e-9


def test_blocks_too_wide_to_stream_are_kept_and_said(monkeypatch):
    # solved as explored, blocks of 17,496 codes would need room for 1,505 states of 4 x 5
    # choices each, more than the graph they spare: the graph is kept, and the command
    # says so once, through its notes
    from perfectplay import catalogue
    from perfectplay.markov import solve as markov_solve

    from ..cli_runner import perfectplay

    monkeypatch.setattr(markov_solve, "EXACT_STATES", 0)  # every solve large enough
    monkeypatch.setattr(markov_solve, "STREAM_ROOM", 0)  # and room counted from the first byte
    monkeypatch.setitem(catalogue._REGISTERED, "wide-trios", type("W", (WideBlocks,), {}))
    monkeypatch.setattr(catalogue._REGISTERED["wide-trios"], "name", "wide-trios")
    wide = perfectplay("solve", "wide-trios", "n=8", "--json")
    assert wide.returncode == 0, wide.stderr
    assert wide.stderr.count("perfectplay: note:") == 1
    assert "(cycle_span 17,496: up to 4,253 states of 4 outcomes x 5 choices) need" in wide.stderr
    assert "the graph is kept and solved by blocks instead" in wide.stderr
    rounds = perfectplay("solve", "tricky-trios", "n=8", "--json")  # its rounds stream
    assert rounds.returncode == 0 and "note" not in rounds.stderr, rounds.stderr
    assert json.loads(wide.stdout)["value"] == json.loads(rounds.stdout)["value"]
