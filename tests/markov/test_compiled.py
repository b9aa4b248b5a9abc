"""Rules that compile: the compiled exploration and the generic (vectorised) one build the
very same graph, and the compiled rules are the rules the rest of the package reads."""

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.markov.compile import Graph, compile_game

FIELDS = (
    "codes",
    "terminal",
    "denom",
    "out_ptr",
    "weight",
    "outcome_k",
    "choice_ptr",
    "target",
    "cost",
    "choice_c",
)
CASES = [("dice-cards", n) for n in (1, 2, 3, 4)] + [("tricky-trios", n) for n in (1, 2, 3, 6, 9)]


def in_code_order(g: Graph) -> Graph:
    g.renumber(np.argsort(g.codes, kind="stable"))
    return g


@pytest.mark.parametrize("name,n", CASES)
def test_both_paths_give_identical_graphs(name, n):
    game = load_game(name, [f"n={n}"])
    fast, generic = (in_code_order(compile_game(game, compiled=c)) for c in (True, False))
    assert fast.start == generic.start and fast.codes[fast.start] == game.initial_state()
    for field in FIELDS:
        assert np.array_equal(getattr(fast, field), getattr(generic, field)), field


@pytest.mark.parametrize("name,n", CASES)
def test_both_paths_give_the_same_value(name, n):
    game = load_game(name, [f"n={n}"])
    assert solve(game).value == solve(game, compiled=False).value


@pytest.mark.parametrize("compiled", [True, False])  # codes in increasing order, or not
def test_codes_are_looked_up_in_either_order(compiled):
    g = compile_game(load_game("tricky-trios", ["n=4"]), compiled=compiled)
    assert bool((np.diff(g.codes) > 0).all()) == compiled
    shuffled = np.random.default_rng(1).permutation(g.n_states)
    assert np.array_equal(g.index_of(g.codes[shuffled]), shuffled)
    with pytest.raises(KeyError):
        g.index_of(np.array([int(g.codes.max()) + 1]))
