"""``check_game``: a deduction game's rules checked against the protocol
(``deduction/model.py``), called the ways the engine calls them (its own
``compute_feedback`` on blocks of codes): what a person writing a game runs on it, and
what the tests run on every game in the catalogue."""

from __future__ import annotations

import numpy as np

from ..errors import as_assertion
from .contract import feedback, same_answer
from .feedback import Table, build_table, compute_feedback
from .model import DeductionGame, History, keys_of, too_many_symbols


def check_game(game: DeductionGame, samples: int = 300, seed: int = 0) -> None:
    """Check that `game` keeps the protocol; raise AssertionError naming the first breach.

    First, everything the engine checks as it reads the rules (``feedback.build_table``
    through ``contract`` and ``declared``): the sizes; the code arrays (shape, dtype,
    symbols, lexicographic order, no duplicates, every secret a guess, counted by
    ``n_guesses`` and ``n_secrets``); every feedback of the table in range, solved
    exactly when guess == secret; the declared symmetry kept by the whole table (a
    sample of it for games too large to tabulate); and before all, that int8 codes hold
    its symbols. Then, on `samples` random pairs: the scalar ``feedback`` (called with
    rows of ``guesses()`` and ``secrets()``, one-dimensional int8 arrays, as everywhere)
    checked and equal to the kernel (through the engine's own ``compute_feedback``),
    one pair at a time and on a block; feedbacks and codes survive format/parse; the
    claims ``blind_to_absent_symbols`` and ``allowed_symbols`` hold.
    """
    refusal = too_many_symbols(game)
    assert refusal is None, refusal
    with as_assertion():
        table = build_table(game)
        _sampled_checks(game, table, samples, seed)


def _sampled_checks(game: DeductionGame, table: Table, samples: int, seed: int) -> None:
    """``check_game``'s checks on a sample of pairs, beyond the engine's own."""
    rng = np.random.default_rng(seed)
    G, S, L = table.guesses, table.secrets, game.length()
    guess_set = set(keys_of(G))
    gi = rng.integers(0, len(G), samples)
    si = rng.integers(0, len(S), samples)
    equal = min(samples, 20)  # some pairs with guess == secret, to check "solved"
    gi[:equal] = table.guess_of_secret[si[:equal]]
    for a, b in zip(gi.tolist(), si.tolist()):
        g, s = G[a], S[b]
        f = feedback(game, g, s)
        same_answer(game, g, s, f, compute_feedback(game, G[a : a + 1], S[b : b + 1])[0, 0])
        assert game.parse_feedback(game.format_feedback(f)) == f, "feedback format/parse"
        assert np.array_equal(game.parse_code(game.format_code(g)), g), "code format/parse"
    rows, cols = gi[:16], si[:16]  # a block, as the engine fills its table
    block = compute_feedback(game, G[rows], S[cols])
    for i, a in enumerate(rows.tolist()):
        for j, b in enumerate(cols.tolist()):
            same_answer(game, G[a], S[b], feedback(game, G[a], S[b]), block[i, j])

    if game.blind_to_absent_symbols():
        for a, b in zip(gi[:100].tolist(), si[:100].tolist()):
            g, s = G[a].copy(), S[b]
            absent = np.setdiff1d(np.arange(game.n_symbols()), s)
            spots = np.flatnonzero(~np.isin(g, s))
            if len(absent) < 2 or len(spots) == 0:
                continue
            g2 = g.copy()
            g2[spots[0]] = absent[absent != g[spots[0]]][0]
            if tuple(g2) in guess_set:
                assert feedback(game, g2, s) == feedback(game, g, s), (
                    "feedback must be blind to absent symbols"
                )

    history: History = ((int(gi[0]), feedback(game, G[gi[0]], S[si[0]])),)
    sets = game.allowed_symbols(history)
    if sets is not None:
        mask = game.restrict_guesses(history, G)
        by_sets = sets[np.arange(L)[None, :], G.astype(np.int64)].all(axis=1)
        assert np.array_equal(by_sets, np.ones(len(G), bool) if mask is None else mask), (
            "allowed_symbols must agree with restrict_guesses"
        )
