"""``check_game``: a deduction game's rules checked against the protocol
(``deduction/model.py``), called the ways the engine calls them (its own
``compute_feedback`` on blocks of codes): what a person writing a game runs on it, and
what the tests run on every game in the catalogue."""

from __future__ import annotations

import numbers

import numpy as np

from .feedback import compute_feedback
from .model import MAX_FEEDBACKS, DeductionGame, History, keys_of, too_many_symbols


def check_game(game: DeductionGame, samples: int = 300, seed: int = 0) -> None:
    """Check that `game` keeps the protocol; raise AssertionError naming the first breach.

    The rules are called as the engine calls them: ``feedback`` with rows of ``guesses()``
    and ``secrets()`` (one-dimensional int8 arrays), the kernel through the engine's own
    ``compute_feedback`` on blocks of codes. Checks: code arrays (shape, dtype,
    lexicographic order, no duplicates, every secret a guess, counted by ``n_guesses`` and
    ``n_secrets``); feedback values in range, solved exactly when guess == secret; the
    kernel equals the scalar reference, one pair at a time and on a block; feedback and
    codes invariant under random elements of the declared symmetry group; feedbacks and
    codes survive format/parse; first of all, that int8 codes hold its symbols.
    """
    refusal = too_many_symbols(game)
    assert refusal is None, refusal
    rng = np.random.default_rng(seed)
    G, S, L = game.guesses(), game.secrets(), game.length()
    for name, codes in (("guesses", G), ("secrets", S)):
        assert codes.ndim == 2 and codes.shape[1] == L, f"{name} must have shape (n, {L})"
        assert codes.dtype == np.int8, f"{name} must be int8"
        assert codes.min() >= 0 and codes.max() < game.n_symbols(), f"{name}: symbol out of range"
        keys = keys_of(codes)
        assert keys == sorted(set(keys)), f"{name} must be sorted and distinct"
    assert (game.n_guesses(), game.n_secrets()) == (len(G), len(S)), (
        "n_guesses and n_secrets must count guesses() and secrets()"
    )
    guess_set = set(keys_of(G))
    assert all(tuple(s) in guess_set for s in S.tolist()), "every secret must be a guess"
    assert 0 < game.n_feedbacks() <= MAX_FEEDBACKS, f"n_feedbacks must be 1..{MAX_FEEDBACKS}"
    assert 0 <= game.solved_feedback() < game.n_feedbacks(), "solved_feedback out of range"

    gi = rng.integers(0, len(G), samples)
    si = rng.integers(0, len(S), samples)
    guess_index = {c: i for i, c in enumerate(keys_of(G))}
    equal = min(samples, 20)  # some pairs with guess == secret, to check "solved"
    gi[:equal] = [guess_index[tuple(S[j])] for j in si[:equal].tolist()]
    for a, b in zip(gi.tolist(), si.tolist()):
        g, s = G[a], S[b]
        f = game.feedback(g, s)
        assert isinstance(f, numbers.Integral), f"feedback must give an integer, not {f!r}"
        assert 0 <= f < game.n_feedbacks(), f"feedback {f} out of range"
        assert (f == game.solved_feedback()) == bool(np.array_equal(g, s)), (
            "solved iff guess == secret"
        )
        kernel_f = int(compute_feedback(game, G[a : a + 1], S[b : b + 1])[0, 0])
        assert kernel_f == f, f"kernel disagrees with feedback() on {g}, {s}"
        assert game.parse_feedback(game.format_feedback(f)) == f, "feedback format/parse"
        assert np.array_equal(game.parse_code(game.format_code(g)), g), "code format/parse"
    rows, cols = gi[:16], si[:16]  # a block, as the engine fills its table
    block = compute_feedback(game, G[rows], S[cols])
    for i, a in enumerate(rows.tolist()):
        for j, b in enumerate(cols.tolist()):
            assert int(block[i, j]) == game.feedback(G[a], S[b]), (
                f"kernel disagrees with feedback() on {G[a]}, {S[b]} within a block of codes"
            )

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
                assert game.feedback(g2, s) == game.feedback(g, s), (
                    "feedback must be blind to absent symbols"
                )

    history: History = ((int(gi[0]), int(game.feedback(G[gi[0]], S[si[0]]))),)
    sets = game.allowed_symbols(history)
    if sets is not None:
        mask = game.restrict_guesses(history, G)
        by_sets = sets[np.arange(L)[None, :], G.astype(np.int64)].all(axis=1)
        assert np.array_equal(by_sets, np.ones(len(G), bool) if mask is None else mask), (
            "allowed_symbols must agree with restrict_guesses"
        )

    sym = game.symmetry()
    perms = np.asarray(sym.positions)
    assert perms.ndim == 2 and perms.shape[1] == L
    assert any(np.array_equal(p, np.arange(L)) for p in perms), "symmetry must contain the identity"
    act = game.feedback_action(perms)
    secret_set = {tuple(c) for c in S.tolist()}
    for a, b in zip(gi[:100].tolist(), si[:100].tolist()):
        e = rng.integers(len(perms))
        pi = perms[e]
        tau = rng.permutation(game.n_symbols()) if sym.symbols else np.arange(game.n_symbols())
        g, s = G[a], S[b]
        g2, s2 = tau[g[pi]].astype(np.int8), tau[s[pi]].astype(np.int8)
        assert tuple(g2) in guess_set and tuple(s2) in secret_set, (
            "symmetry must map codes to codes"
        )
        f = game.feedback(g, s)
        image = f if act is None else int(act[e, f])
        assert game.feedback(g2, s2) == image, "feedback must be invariant under the symmetry"
