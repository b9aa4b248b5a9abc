"""A history-dependent guess restriction (hard mode) goes through the same engine unchanged."""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from perfectplay import solve
from perfectplay.deduction.model import check_game
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
    assert replay(game, sol.strategy.to_json()["root"]).total == sol.extra["total"]
    heuristic = solve(game, strategy="minimax")
    assert heuristic.extra["total"] >= sol.extra["total"]
