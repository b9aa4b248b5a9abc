"""Test-session set-up: the compiled kernels are loaded (compiled on a fresh checkout) once,
in this process, before the tests that run the command in subprocesses with time limits."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Solve one tiny game of each kind: numba compiles (or loads) and caches the kernels."""
    from perfectplay import load_game, solve

    solve(load_game("mastermind(pegs=2,colors=3)"), "expected")
    solve(load_game("item-matching(slots=2,items=3,turns=2)"), "probability")
    solve(load_game("dice-cards(n=2)"))
