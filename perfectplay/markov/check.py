"""Conformance checker for Markov games: does a game keep the rules protocol?"""

from __future__ import annotations

import numpy as np

from .compile import compile_game
from .model import MarkovGame


def check_game(game: MarkovGame, max_states: int = 200_000) -> None:
    """Raise AssertionError naming the first breach of the protocol.

    Checks, on every reachable state (the game should be small): expansions have the
    documented shapes and dtypes, weights are non-negative with a positive total, every
    outcome offers a choice, costs are non-negative integers, codes stay within
    ``code_bound`` and the state count within ``state_bound``, expanding a batch equals
    expanding its states one by one, and the descriptions work.
    """
    start = game.initial_state()
    assert isinstance(start, int) and start >= 0, "initial_state must be a non-negative int"
    g = compile_game(game)
    assert g.n_states <= max_states, "check_game wants a small instance"
    bound = game.state_bound()
    assert bound is None or g.n_states <= bound, f"{g.n_states} states exceed state_bound {bound}"
    code_bound = game.code_bound()
    assert code_bound is None or int(g.codes.max()) < code_bound, "a code is >= code_bound"
    live = g.codes[~g.terminal]
    batch = game.expand(live)
    assert batch.weight.ndim == 2 and batch.next.ndim == 3, "weight is (B,K), next is (B,K,C)"
    assert batch.weight.shape == batch.next.shape[:2], "weight and next disagree on (B,K)"
    assert np.issubdtype(np.asarray(batch.weight).dtype, np.integer), "weights must be integers"
    assert np.issubdtype(np.asarray(batch.cost).dtype, np.integer), "costs must be integers"
    rng = np.random.default_rng(0)
    for i in rng.choice(len(live), size=min(len(live), 50), replace=False):
        one = game.expand(live[i:i + 1])
        k = min(one.weight.shape[1], batch.weight.shape[1])
        assert np.array_equal(np.asarray(one.weight)[0, :k], np.asarray(batch.weight)[i, :k]), \
            "expanding a batch must equal expanding its states alone"
        code = int(live[i])
        assert isinstance(game.describe_state(code), str)
        for kk in np.flatnonzero(np.asarray(one.weight)[0] > 0):
            assert isinstance(game.describe_outcome(code, int(kk)), str)
            for c in np.flatnonzero(np.asarray(one.next)[0, kk] >= 0):
                assert isinstance(game.describe_choice(code, int(kk), int(c)), str)
        assert isinstance(game.state_family(code), int)
