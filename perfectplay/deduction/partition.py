"""Splitting a consistent set by a guess: feedback counts (for scores and bounds) and cells."""

from __future__ import annotations

import numpy as np

from .feedback import Table, compute_feedback


def sizes(table: Table, cand: np.ndarray, subset: np.ndarray, use_table: bool = True) -> np.ndarray:
    """sizes[i]: the sizes of the cells of `subset` under guess cand[i], zeros padding the
    row, the columns in no order a caller may rely on (``kernels.cell_sizes``: a small set
    takes one column per secret, not one per feedback); what the heuristics score. A set
    of fewer secrets than feedbacks is read from the table kept by secret
    (``Table.by_secret``): every guess's feedbacks to a few secrets lie along those
    secrets' rows, where the guesses' own rows scatter them (docs/measurements.md).

    With ``use_table=False`` the feedbacks are recomputed by the game's kernel instead of
    read from the table built once (the switch that shows what the table buys).
    """
    from .kernels import cell_sizes, counts_of_feedback

    if use_table and table.fb is not None:
        rows = table.fb
        if len(subset) < table.n_feedbacks and table.by_secret is not None:
            rows = table.by_secret.T  # the same entries, read along each secret's row
        return cell_sizes(rows, cand, subset, table.n_feedbacks)
    values = compute_feedback(table.game, table.guesses[cand], table.secrets[subset])
    return counts_of_feedback(values, table.n_feedbacks)


def cells(
    table: Table, guess: int, subset: np.ndarray, use_table: bool = True
) -> list[tuple[int, np.ndarray]]:
    """The non-empty cells of `subset` under `guess`: (feedback, sorted secret indices), by feedback."""
    from .kernels import split

    if use_table and table.fb is not None:
        row = table.fb[guess]
    else:
        row = np.zeros(table.n_secrets, dtype=np.uint16)
        row[subset] = compute_feedback(table.game, table.guesses[[guess]], table.secrets[subset])[0]
    members, feedbacks, starts = split(row, subset, table.n_feedbacks)
    return [
        (f, members[a:b])
        for f, a, b in zip(feedbacks.tolist(), starts[:-1].tolist(), starts[1:].tolist())
    ]


def in_subset(table: Table, cand: np.ndarray, subset: np.ndarray) -> np.ndarray:
    """Which guesses cand[i] are secrets of `subset` (still possible)."""
    member = np.zeros(table.n_secrets + 1, dtype=bool)
    member[subset] = True
    return member[table.secret_of_guess[cand]]  # index -1 hits the always-False sentinel


def consistent_after(table: Table, history) -> np.ndarray:
    """The secrets (sorted indices) that answer every (guess, feedback) of `history` alike."""
    left = np.arange(table.n_secrets)
    for g, f in history:
        left = next((part for fb, part in cells(table, g, left) if fb == f), left[:0])
    return left
