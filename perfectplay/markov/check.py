"""Conformance checker for Markov games: does a game keep the rules protocol?"""

from __future__ import annotations

import numpy as np

from .compile import compile_game
from .model import Expansion, MarkovGame


def _require(condition: bool, message: str) -> None:
    """An explicit check (unlike assert, it also runs under python -O)."""
    if not condition:
        raise AssertionError(message)


def _same_choices(a: Expansion, i: int, b: Expansion, j: int) -> bool:
    """Do row i of `a` and row j of `b` offer the same outcomes, choices and costs?"""

    def table(e: Expansion, r: int) -> set:
        w, nxt = np.asarray(e.weight)[r], np.asarray(e.next)[r]
        cost = np.broadcast_to(np.asarray(e.cost), np.asarray(e.next).shape)[r]
        return {
            (k, int(w[k]), c, int(nxt[k, c]), int(cost[k, c]))
            for k in range(len(w))
            if w[k] > 0
            for c in range(nxt.shape[1])
            if nxt[k, c] >= 0
        }

    return table(a, i) == table(b, j)


def check_game(game: MarkovGame, max_states: int = 200_000) -> None:
    """Raise AssertionError (or PerfectplayError, from exploration) naming the first breach.

    Checks, on every reachable state (the game should be small): expansions have the
    documented shapes and dtypes, weights are non-negative with a positive total, every
    outcome offers a choice, costs are non-negative integers, codes stay within
    ``code_bound`` and the state count within ``state_bound``, expanding a batch equals
    expanding its states one by one, and the descriptions work.
    """
    start = game.initial_state()
    _require(isinstance(start, int) and start >= 0, "initial_state must be a non-negative int")
    g = compile_game(game)
    _require(g.n_states <= max_states, "check_game wants a small instance")
    bound = game.state_bound()
    _require(
        bound is None or g.n_states <= bound, f"{g.n_states} states exceed state_bound {bound}"
    )
    code_bound = game.code_bound()
    _require(code_bound is None or int(g.codes.max()) < code_bound, "a code is >= code_bound")
    live = g.codes[~g.terminal]
    batch = game.expand(live)
    _require(batch.weight.ndim == 2 and batch.next.ndim == 3, "weight is (B,K), next is (B,K,C)")
    _require(batch.weight.shape == batch.next.shape[:2], "weight and next disagree on (B,K)")
    _require(np.issubdtype(np.asarray(batch.weight).dtype, np.integer), "weights must be integers")
    _require(np.issubdtype(np.asarray(batch.cost).dtype, np.integer), "costs must be integers")
    rng = np.random.default_rng(0)
    for i in rng.choice(len(live), size=min(len(live), 50), replace=False):
        one = game.expand(live[i : i + 1])
        _require(
            _same_choices(one, 0, batch, i),
            "expanding a batch must equal expanding its states alone",
        )
        code = int(live[i])
        _require(isinstance(game.describe_state(code), str), "describe_state must give a string")
        for kk in np.flatnonzero(np.asarray(one.weight)[0] > 0):
            _require(
                isinstance(game.describe_outcome(code, int(kk)), str), "describe_outcome: a string"
            )
            for c in np.flatnonzero(np.asarray(one.next)[0, kk] >= 0):
                _require(
                    isinstance(game.describe_choice(code, int(kk), int(c)), str),
                    "describe_choice must give a string",
                )
        _require(isinstance(game.state_family(code), int), "state_family must give an int")
