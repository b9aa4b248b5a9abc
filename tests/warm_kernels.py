"""Compile (or load) the numba kernels the suite uses, one engine per process.

``python -m tests.warm_kernels ENGINE`` solves tiny games of that engine, with every
objective and kind of game the tests use, so that numba compiles and caches each
specialisation of each kernel. The test session's controller runs it for both engines
at once before its workers start (``conftest.py``):

* the first compile is done once, on both cores (the engines' kernels are disjoint);
* the workers then load the kernels and rarely compile one. Numba's cache is safe for
  processes loading it at once, but two processes saving different specialisations of
  one kernel at the same moment could leave its index naming the other's code.
"""

from __future__ import annotations

import sys

from perfectplay.objectives import Objective

#: (game, objective) per engine: tiny instances of each kind of game.
GAMES = {
    "deduction": [
        ("mastermind(pegs=2,colors=3)", "expected"),
        ("mastermind(pegs=2,colors=3)", "worst"),
        ("mastermind(pegs=2,colors=3)", Objective("probability", horizon=3)),
        ("mastermind(pegs=2,colors=4,possible_only=1)", "expected"),
        ("permutation(n=4)", "expected"),
        ("bulls-and-cows(digits=2,symbols=4)", "expected"),
        ("item-matching(slots=2,items=3,turns=2)", "probability"),
        ("item-matching(slots=2,items=3,turns=2,costs=1,2,4)", Objective("probability-then-cost", horizon=2)),
        ("item-matching(slots=6,items=2,turns=2)", "probability"),
    ],
    "markov": [
        ("dice-cards(n=2)", "expected"),
        ("dice-cards(n=2)", Objective("probability", horizon=4)),
        ("tricky-trios(n=2)", "expected"),
    ],
}


def warm(engine: str) -> None:
    """Solve the tiny games of `engine` (see ``GAMES``)."""
    from unittest import mock

    from perfectplay import load_game, solve
    from perfectplay.markov import solve as markov_solve

    for spec, objective in GAMES[engine]:
        solve(load_game(spec), objective)
    if engine == "markov":  # the streamed solve, which only games past EXACT_STATES take
        with mock.patch.object(markov_solve, "EXACT_STATES", 0):
            solve(load_game("tricky-trios(n=2)"))


if __name__ == "__main__":
    warm(sys.argv[1])
