"""A history-dependent guess restriction (hard mode) goes through the same engine unchanged."""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import solve
from perfectplay.deduction.check import check_game
from perfectplay.deduction.restriction import Restriction
from perfectplay.deduction.verify import replay
from perfectplay.games.mastermind import Mastermind


@dataclass(frozen=True)
class HardMastermind(Mastermind):
    """Mastermind where every guess must be consistent with the feedback so far."""

    name = "mastermind-hard"

    def restriction(self):
        return Restriction(possible_only=True)


def brute_hard(game):
    """Least total when only consistent codes may be guessed (no pruning, no symmetry)."""
    codes = [tuple(int(x) for x in c) for c in game.guesses()]

    @lru_cache(maxsize=None)
    def total(consistent: frozenset) -> int:
        if len(consistent) == 1:
            return 1
        best = None
        for g in consistent:
            cells = {}
            for s in consistent:
                if s != g:
                    cells.setdefault(game.feedback(g, s), []).append(s)
            cost = len(consistent) + sum(total(frozenset(c)) for c in cells.values())
            best = cost if best is None else min(best, cost)
        return best

    return total(frozenset(codes))


def test_hard_mode_matches_brute_force_and_verifies():
    game = HardMastermind(pegs=2, colors=4)
    check_game(game, samples=50)
    sol = solve(game, "expected")
    assert sol.extra["total"] == brute_hard(game)
    assert sol.extra["total"] >= solve(Mastermind(pegs=2, colors=4)).extra["total"]
    assert replay(game, sol.strategy.to_json()["root"]).stats.total == sol.extra["total"]
    heuristic = solve(game, strategy="minimax")
    assert heuristic.extra["total"] >= sol.extra["total"]


@given(st.lists(st.tuples(st.integers(0, 4**3 - 1), st.integers(0, 3**3 - 1)), max_size=3))
@settings(max_examples=60, deadline=None)
def test_allowed_guesses_enumerated_as_a_product_equal_the_scan(moves):
    # item matching's guesses are every code in order: the core enumerates the allowed
    # ones position by position; a plain scan of every code must agree, state by state
    from perfectplay import load_game
    from perfectplay.deduction import core
    from perfectplay.deduction.feedback import build_table
    from perfectplay.deduction.restriction_kernels import allowed_mask
    from perfectplay.deduction.search import Search

    game = load_game("item-matching(slots=3,items=4)")
    search = Search(build_table(game))
    assert search.fields.product
    depth = search._enter(tuple(moves))
    allowed, least = search.fields.allowed[depth], search.fields.least[depth]
    scanned = np.flatnonzero(allowed_mask(allowed, least, search.fields.codes))
    assert np.array_equal(core.allowed_guesses(search.core, depth), scanned)
