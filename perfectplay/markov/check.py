"""Conformance checker for Markov games: does a game keep the rules protocol?"""

from __future__ import annotations

import numpy as np

from ..errors import as_assertion
from ..ranges import integer
from . import contract
from .compile import EXPLORE_BATCH, compile_game
from .model import Expansion, MarkovGame


def _require(condition: bool, message: str) -> None:
    """An explicit check (unlike assert, it also runs under python -O)."""
    if not condition:
        raise AssertionError(message)


def _check_kinds(game: MarkovGame, states: np.ndarray, batch: Expansion) -> None:
    """For a game that labels its choices: ``choice_kinds`` of the expansion `batch` of
    `states` of shape (B, K, C), naming a kind of ``choice_kind_names`` wherever a choice
    exists."""
    if not game.choice_kind_names:
        return
    kinds = np.asarray(game.choice_kinds(states, batch))
    _require(kinds.shape == batch.next.shape, "choice_kinds must have next's shape (B,K,C)")
    legal = (batch.next >= 0) & (batch.weight > 0)[..., None]
    used = kinds[legal]
    _require(
        np.issubdtype(kinds.dtype, np.integer)
        and bool(((used >= 0) & (used < len(game.choice_kind_names))).all()),
        "choice_kinds must name a kind of choice_kind_names for every choice",
    )


def check_game(game: MarkovGame, max_states: int = 200_000) -> None:
    """Raise AssertionError naming the first breach (or PerfectplayError, from the
    exploration: a cycle that costs nothing, say).

    First, everything the engine checks as it reads the rules (``contract``, through the
    exploration ``compile_game``): the start an integer from 0 below ``code_bound``;
    ``is_terminal`` one truth value per state; expansions of the documented shapes and
    integer types, weights non-negative with a positive total of at most 2**62, every
    outcome offering a choice, next states -1 or codes within ``code_bound``, costs
    from 0 to 2**31 - 1. Then the rules called as the engine calls them, on every
    reachable state (the game should be small): ``is_terminal`` and ``expand`` on int64
    arrays of state codes, in the exploration's batches (``is_terminal`` on every
    state, ``expand`` on the states that are not terminal) and one state at a time
    (``show``, ``play``, ``verify``), alone and batched answering the same; the state
    count within ``state_bound``; ``choice_kinds`` where the game labels its choices;
    ``describe_state/outcome/choice`` strings and ``state_family`` an integer, called
    with Python ints.
    """
    with as_assertion():
        _check(game, max_states)


def _check(game: MarkovGame, max_states: int) -> None:
    g = compile_game(game)
    _require(g.n_states <= max_states, "check_game wants a small instance")
    bound = game.state_bound()
    _require(
        bound is None or g.n_states <= bound, f"{g.n_states} states exceed state_bound {bound}"
    )
    codes = np.sort(g.codes).astype(np.int64)
    terminal = np.concatenate(
        [
            contract.terminal(game, codes[lo : lo + EXPLORE_BATCH])
            for lo in range(0, len(codes), EXPLORE_BATCH)
        ]
    )
    live = codes[~terminal]
    batches = [live[lo : lo + EXPLORE_BATCH] for lo in range(0, len(live), EXPLORE_BATCH)]
    expanded = [contract.expansion(game, chunk) for chunk in batches]
    for chunk, batch in zip(batches, expanded):
        _check_kinds(game, chunk, batch)
    rng = np.random.default_rng(0)
    for i in rng.choice(len(live), size=min(len(live), 50), replace=False):
        code = int(live[i])
        state = np.array([code], dtype=np.int64)
        _require(not contract.terminal(game, state)[0], "is_terminal alone and batched")
        one = contract.expansion(game, state)
        _check_kinds(game, state, one)
        b, r = divmod(int(i), EXPLORE_BATCH)
        contract.same_state(game, code, one, 0, expanded[b], r)
        _require(isinstance(game.describe_state(code), str), "describe_state must give a string")
        for kk in np.flatnonzero(one.weight[0] > 0):
            _require(
                isinstance(game.describe_outcome(code, int(kk)), str), "describe_outcome: a string"
            )
            for c in np.flatnonzero(one.next[0, kk] >= 0):
                _require(
                    isinstance(game.describe_choice(code, int(kk), int(c)), str),
                    "describe_choice must give a string",
                )
        _require(integer(game.state_family(code)), "state_family must give an integer")
