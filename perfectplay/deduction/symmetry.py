"""Canonical guesses: one guess per orbit of the symmetries that the history leaves.

A symmetry (pi, tau) of the rules that fixes every guess played so far maps the
consistent set onto itself and preserves every feedback, so two guesses in one orbit
have the same value: only the least guess of each orbit needs to be searched. The
stabiliser of a history is the position permutations that, with a symbol map, fix each
history guess, times every relabelling of the symbols no guess has used yet.
"""

from __future__ import annotations

import numpy as np

from .feedback import Table
from .model import History


def canonical_guesses(
    table: Table, history: History, cand: np.ndarray, subset: np.ndarray | None = None
) -> np.ndarray:
    """The members of `cand` (guess indices) that are least in their orbit under the stabiliser.

    With the consistent set `subset`, and rules that never restrict guesses, symbols no
    secret of it uses are interchangeable as well (the set's own stabiliser is larger
    than the history's; a restriction could tell such symbols apart).
    """
    from .kernels import canonical, stabiliser, symbol_classes

    sym = table.symmetry
    hist = table.guesses[[g for g, _ in history]]
    n_symbols = table.game.n_symbols()
    perms = fixing_feedbacks(table.game, sym.positions, history)
    fixing, taus = stabiliser(perms, hist, n_symbols, sym.symbols)
    classes = symbol_classes(hist, n_symbols, absent_symbols(table, subset))
    keep = canonical(table.guesses, cand, perms[fixing], taus[fixing], classes, sym.symbols)
    return cand[keep]


def absent_symbols(table: Table, subset: np.ndarray | None) -> np.ndarray:
    """Symbols that no secret of `subset` uses (none when the game restricts guesses)."""
    absent = np.zeros(table.game.n_symbols(), dtype=bool)
    if subset is not None and table.symmetry.symbols and not table.game.restricts_guesses():
        absent[:] = True
        absent[np.unique(table.secrets[subset])] = False
    return absent


def fixing_feedbacks(game, perms: np.ndarray, history: History) -> np.ndarray:
    """The position permutations that leave every feedback of `history` unchanged.

    All of them when feedbacks are invariant; for per-position feedbacks (``CWIIC``) only
    a permutation fixing each feedback can stabilise the history.
    """
    act = game.feedback_action(perms)
    if act is None or not history:
        return perms
    fbs = np.array([f for _, f in history], dtype=np.int64)
    return perms[(act[:, fbs] == fbs[None, :]).all(axis=1)]


def candidates(
    table: Table, history: History, use_symmetry: bool = True, subset: np.ndarray | None = None
) -> np.ndarray:
    """The guesses worth trying after `history` (on `subset`): those the rules allow, one per orbit."""
    mask = table.game.restrict_guesses(history, table.guesses)
    cand = np.arange(len(table.guesses), dtype=np.int64) if mask is None else np.flatnonzero(mask)
    return canonical_guesses(table, history, cand, subset) if use_symmetry else cand
