"""Conformance checker for Markov games: does a game keep the rules protocol?"""

from __future__ import annotations

import numbers

import numpy as np

from .compile import EXPLORE_BATCH, compile_game
from .model import Expansion, MarkovGame


def _require(condition: bool, message: str) -> None:
    """An explicit check (unlike assert, it also runs under python -O)."""
    if not condition:
        raise AssertionError(message)


def _integer(value: object) -> bool:
    """Whether `value` is an integer as the protocol means it: a Python int or a numpy
    integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


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


def _check_expansion(game: MarkovGame, states: np.ndarray, batch: Expansion) -> None:
    """The documented shapes and types of the expansion of `states` (B states):
    integer weight (B, K), integer next (B, K, C), integer costs that broadcast to next's
    shape; and, for a game that labels its choices, ``choice_kinds`` of shape (B, K, C)
    naming a kind wherever a choice exists."""
    weight, nxt, cost = (np.asarray(a) for a in (batch.weight, batch.next, batch.cost))
    B = len(states)
    _require(weight.ndim == 2 and nxt.ndim == 3, "weight is (B,K), next is (B,K,C)")
    _require(weight.shape[0] == B, f"expand of {B} states gave {weight.shape[0]} rows")
    _require(weight.shape == nxt.shape[:2], "weight and next disagree on (B,K)")
    for name, a in (("weights", weight), ("next states", nxt), ("costs", cost)):
        _require(np.issubdtype(a.dtype, np.integer), f"{name} must be integers")
    try:
        np.broadcast_shapes(cost.shape, nxt.shape)
    except ValueError:
        raise AssertionError(f"cost {cost.shape} does not broadcast to next {nxt.shape}") from None
    if game.choice_kind_names:
        kinds = np.asarray(game.choice_kinds(states, batch))
        _require(kinds.shape == nxt.shape, "choice_kinds must have next's shape (B,K,C)")
        legal = (nxt >= 0) & (weight > 0)[..., None]
        used = kinds[legal]
        _require(
            np.issubdtype(kinds.dtype, np.integer)
            and bool(((used >= 0) & (used < len(game.choice_kind_names))).all()),
            "choice_kinds must name a kind of choice_kind_names for every choice",
        )


def check_game(game: MarkovGame, max_states: int = 200_000) -> None:
    """Raise AssertionError (or PerfectplayError, from exploration) naming the first breach.

    Calls the rules as the engine does: ``is_terminal`` and ``expand`` on int64 arrays of
    state codes, in the exploration's batches (``is_terminal`` on every state,
    ``expand`` on the states that are not terminal) and one state at a time (``show``,
    ``play``, ``verify``); the descriptions with Python ints. Checks, on every reachable
    state (the game should be small): ``initial_state`` a non-negative integer;
    ``is_terminal`` one truth value per state, agreeing alone and in a batch;
    expansions of the documented shapes and types (``_check_expansion``); weights
    non-negative with a positive total, every outcome offering a choice, costs
    non-negative integers (the exploration's checks); codes within ``code_bound`` and
    the state count within ``state_bound``; expanding a batch equal to expanding its
    states one by one; ``describe_state/outcome/choice`` strings and ``state_family``
    an integer.
    """
    start = game.initial_state()
    _require(_integer(start) and start >= 0, "initial_state must be a non-negative integer")
    g = compile_game(game)
    _require(g.n_states <= max_states, "check_game wants a small instance")
    bound = game.state_bound()
    _require(
        bound is None or g.n_states <= bound, f"{g.n_states} states exceed state_bound {bound}"
    )
    code_bound = game.code_bound()
    _require(code_bound is None or int(g.codes.max()) < code_bound, "a code is >= code_bound")
    codes = np.sort(g.codes).astype(np.int64)
    terminal = np.empty(len(codes), dtype=bool)
    for lo in range(0, len(codes), EXPLORE_BATCH):
        chunk = codes[lo : lo + EXPLORE_BATCH]
        ends = np.asarray(game.is_terminal(chunk))
        _require(ends.shape == chunk.shape, "is_terminal must give one truth value per state")
        terminal[lo : lo + EXPLORE_BATCH] = ends.astype(bool)
    live = codes[~terminal]
    batches = [live[lo : lo + EXPLORE_BATCH] for lo in range(0, len(live), EXPLORE_BATCH)]
    expanded = [game.expand(chunk) for chunk in batches]
    for chunk, batch in zip(batches, expanded):
        _check_expansion(game, chunk, batch)
    rng = np.random.default_rng(0)
    for i in rng.choice(len(live), size=min(len(live), 50), replace=False):
        code = int(live[i])
        state = np.array([code], dtype=np.int64)
        _require(not bool(np.asarray(game.is_terminal(state))[0]), "is_terminal alone and batched")
        one = game.expand(state)
        _check_expansion(game, state, one)
        b, r = divmod(int(i), EXPLORE_BATCH)
        _require(
            _same_choices(one, 0, expanded[b], r),
            "expanding a batch must equal expanding its states alone",
        )
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
        _require(_integer(game.state_family(code)), "state_family must give an integer")
