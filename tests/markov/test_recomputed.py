"""A game solved with its rules recomputed at every sweep (``markov.recomputed``): the
same values, bit for bit, as its stored graph solved by blocks, the same choices, the
same refusals; chosen by the memory available and said; and solitaire Can't Stop,
written as docs/custom-games.md teaches (examples/cant_stop.py), against a plain solver
written apart."""

import dataclasses
import itertools
import math
import re
import sys
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from numba import njit

from perfectplay import solve
from perfectplay.errors import Unsupported
from perfectplay.markov import recomputed as recomputed_module
from perfectplay.markov import solve as markov_solve
from perfectplay.markov.recomputed import solve_recomputed
from perfectplay.markov.speedups import SpeedUps

from ..cli_runner import perfectplay
from .compiled_table import CompiledTable
from .compiled_table import _rules as table_rules
from .test_streamed import block_games, faults

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from cant_stop import CantStop, heights  # noqa: E402

KEPT = SpeedUps(streamed=False)


def test_cant_stop_agrees_with_a_plain_solver():
    game = CantStop(length=1)
    solution = solve(game)
    assert solution.status == "proven optimal"
    assert abs(float(solution.value) - plain_cant_stop(heights(1))) < 1e-12


@pytest.mark.parametrize("length", [1])
def test_recomputed_and_stored_give_the_same_bits(length):
    game = CantStop(length=length)
    stored, recomputed = solve(game, exact=False), solve(game, graph="recomputed")
    assert (stored.stats["graph"], recomputed.stats["graph"]) == ("stored", "recomputed")
    assert np.array_equal(stored.strategy.values, recomputed.strategy.values)
    assert stored.stats["sweeps"] == recomputed.stats["sweeps"]
    assert recomputed.strategy.chosen is None  # no choice kept: read from the values
    g = stored.strategy.graph
    for s in range(0, g.n_states, 7):
        code = int(g.codes[s])
        for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
            k = int(g.outcome_k[o])
            assert recomputed.strategy.choice(code, k) == stored.strategy.choice(code, k)
    # the graph explored again where it fits, every choice read from the values
    assert recomputed.export()["strategy"] == stored.export()["strategy"]


def test_the_graph_is_recomputed_when_it_would_not_fit():
    game, notes = CantStop(length=1), []
    with mock.patch.object(markov_solve, "available", return_value=500_000):
        solution = solve(game, note=notes.append)
    assert solution.stats["graph"] == "recomputed" and solution.status == "optimal to tolerance"
    assert "would not fit in the 488 kiB available" in notes[0]
    assert notes[0].startswith("cant-stop(length=1): the rules are recomputed at every sweep")
    with mock.patch.object(markov_solve, "available", return_value=20_000):
        with pytest.raises(Unsupported, match="even with the rules recomputed"):
            solve(game)
    with pytest.raises(Unsupported, match="exact solve refused"):
        solve(game, graph="recomputed", exact=True)


@settings(max_examples=80, deadline=None)
@given(block_games())
def test_recomputed_agrees_with_the_stored_graph(game):
    deserved = faults(game)
    with mock.patch.object(markov_solve, "EXACT_STATES", 0):
        if not deserved:
            kept = solve(game, exact=False, speedups=KEPT)
            again = solve(game, graph="recomputed")
            assert np.array_equal(kept.strategy.values, again.strategy.values)
        elif deserved == {Unsupported}:  # a state that cannot finish
            with pytest.raises(Unsupported):
                solve(game, graph="recomputed")


def test_a_wrong_span_is_an_error_when_recomputed():
    game = CompiledTable(
        table={1: [(1, [(2, 1)])], 2: [(1, [(0, 1)])]},
        terminal=frozenset({0}),
        n=3,
        start=1,
        cycle_span=2,
    )
    with pytest.raises(Exception, match="cycle_span 2"):
        solve(game, graph="recomputed")


def plain_cant_stop(h: list[int]) -> float:
    """Solitaire Can't Stop on columns of heights `h` (sums 2 to 12), written apart from
    the engine: the fewest turns on average to climb three columns. A board's value x
    solves x = 1 + W(x), W the best value of the rest of a turn when a bust costs x,
    found by iterating x; a turn is searched through its markers, memoised."""
    rolls = Counter()
    for dice in itertools.product(range(1, 7), repeat=4):
        a, b, c, d = dice
        rolls[((a + b, c + d), (a + c, b + d), (a + d, b + c))] += 1
    total = sum(rolls.values())
    n = len(h)

    def moves(pos, marked, pair):
        s, t = pair[0] - 2, pair[1] - 2
        free = lambda c: pos[c] < h[c] and (c in marked or len(marked) < 3)  # noqa: E731
        if s == t:
            return [{s: min(2, h[s] - pos[s])}] if free(s) else []
        if free(s) and free(t):
            if s not in marked and t not in marked and len(marked) == 2:
                return [{s: 1}, {t: 1}]
            return [{s: 1, t: 1}]
        return [{c: 1} for c in (s, t) if free(c)]

    values: dict = {}

    def rest(pos, marked, x, memo):  # the turn before its next roll, a bust costing x
        if (pos, marked) not in memo:
            value = 0.0
            for pairs, ways in rolls.items():
                best = math.inf
                for pair in pairs:
                    for move in moves(pos, marked, pair):
                        after = tuple(pos[c] + move.get(c, 0) for c in range(n))
                        if sum(after[c] == h[c] for c in range(n)) >= 3:
                            best = 0.0
                            continue
                        more = marked | frozenset(move)
                        best = min(best, board_value(after), rest(after, more, x, memo))
                value += ways * (x if best == math.inf else best)
            memo[pos, marked] = value / total
        return memo[pos, marked]

    def board_value(board):
        if board not in values:
            x = 0.0
            for _ in range(10_000):
                new = 1 + rest(board, frozenset(), x, {})
                if abs(new - x) < 1e-15:
                    break
                x = new
            values[board] = x
        return values[board]

    return board_value(tuple([0] * n))


def test_the_recomputed_memory_estimate_holds_what_is_allocated():
    import tracemalloc

    from perfectplay.markov.compile import reach_compiled
    from perfectplay.markov.recomputed import recomputed_bytes, solve_by_levels
    from perfectplay.progress import Silent

    game = CantStop(length=1)
    rules = game.compiled_rules()
    reached = reach_compiled(game, rules, graph_must_fit=False)
    bound = 64 * len(reached.bits)
    estimate = recomputed_bytes(
        reached.states, bound, game.cycle_span, rules.outcomes, rules.choices
    )
    limits = markov_solve._limits(1e-12, 10**6, game.cycle_span)
    solve_by_levels(game, rules, reached, limits, Silent())  # (the kernels loaded first)
    tracemalloc.start()
    solve_by_levels(game, rules, reached, limits, Silent())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    held = peak + reached.bits.nbytes  # (the bitmap was made before)
    assert held / 3 <= estimate <= 3 * held


def test_the_summary_says_which_graph_the_solve_used():
    with mock.patch.object(markov_solve, "available", return_value=500_000):
        recomputed = perfectplay("solve", "cant-stop", "length=1")
    stored = perfectplay("solve", "cant-stop", "length=1", "--float")
    assert recomputed.returncode == stored.returncode == 0, recomputed.stderr + stored.stderr
    assert re.search(r"graph\s+│ rules recomputed each sweep \(no edge kept\)", recomputed.stdout)
    assert re.search(r"graph\s+│ stored \(every edge kept\)", stored.stdout)
    assert "optimal to tolerance" in recomputed.stdout


@njit(nogil=True, parallel=True)
def _parallel_wrapper(params, bits, K, C, span, limits, V, rank, blocks, step):
    """The wrapper as docs/custom-games.md once taught it (``parallel=True``)."""
    return solve_recomputed(table_rules, params, bits, K, C, span, limits, V, rank, blocks, step)


class ParallelTable(CompiledTable):
    def compiled_rules(self):
        return dataclasses.replace(super().compiled_rules(), solve_recomputed=_parallel_wrapper)


def test_a_wrapper_compiled_parallel_is_called_on_one_thread():
    """numba's fork-safe layer aborts the process when a parallel function is entered
    from two threads: such a wrapper solves a level's blocks on one thread, the same bits."""
    table = {1: [(1, [(0, 1)]), (1, [(1, 1)])], 2: [(1, [(1, 1), (0, 5)])]}
    kw = dict(table=table, terminal=frozenset({0}), n=3, start=2, cycle_span=2)
    old, new = ParallelTable(**kw), CompiledTable(**kw)
    assert recomputed_module._parallel(old.compiled_rules().solve_recomputed)
    assert not recomputed_module._parallel(new.compiled_rules().solve_recomputed)
    a, b = solve(old, graph="recomputed"), solve(new, graph="recomputed")
    assert a.value == b.value and abs(a.value - 3) < 1e-9  # (heads at 2 flips on average)
