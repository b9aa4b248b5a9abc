"""More guesses never cost more: the value of a set within `cap` guesses never rises
with `cap`, for every objective the core has (the costed one too), from the start and
from every cell after a first guess (where item matching's restrictions bind).

The result store relies on it: it bounds a set within fewer guesses by what it kept of
the same set with more (``stored.AnswerStore``), as the core's own memo does."""

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.objective import INF, probability_then_cost
from perfectplay.deduction.partition import cells
from perfectplay.deduction.root import search_for
from perfectplay.deduction.search import SpeedUps

GAMES = [
    "item-matching(slots=2,items=4,turns=4,costs=5,1,1,2)",
    "item-matching(slots=3,items=3,turns=4,costs=1,1,7)",
    "item-matching(slots=2,items=3,turns=3,restrict=none,costs=3,1,2)",
    "mastermind(pegs=2,colors=3)",
]


def _objectives(game, n: int):
    names = ["expected", "worst", "losses", "expected-determine", "losses-determine"]
    if hasattr(game, "symbol_costs"):
        costliest = int(game.symbol_costs().max()) * game.length()
        horizon = getattr(game, "turns", 4)
        names += [probability_then_cost(n, horizon, costliest, det) for det in (False, True)]
    return names


@pytest.mark.parametrize("spec", GAMES)
def test_a_set_never_costs_more_with_more_guesses(spec):
    game = load_game(spec)
    table = build_table(game)
    everything = np.arange(table.n_secrets)
    caps = range(1, 5)
    for objective in _objectives(game, table.n_secrets):
        search = search_for(game, objective, SpeedUps())
        positions = [((), everything)]
        positions += [
            (((g, f),), part)
            for g in (0, len(table.guesses) // 2)
            for f, part in cells(table, g, everything)
        ]
        for history, subset in positions:
            # (at or above INF a set cannot be done within the cap: how far above means nothing)
            values = [min(search.best(subset, history, cap).value, INF) for cap in caps]
            assert values == sorted(values, reverse=True), (objective, history, values)
