"""Splitting a consistent set by a guess: feedback counts (for scores and bounds) and cells."""

from __future__ import annotations

import numpy as np

from .feedback import Table, compute_feedback


def counts(table: Table, cand: np.ndarray, subset: np.ndarray, use_table: bool = True) -> np.ndarray:
    """counts[i, f]: secrets of `subset` answering guess cand[i] with feedback f.

    With ``use_table=False`` the feedbacks are recomputed by the game's kernel instead of
    read from the table built once (the switch that shows what the table buys).
    """
    from .kernels import counts_of_feedback, partition_counts

    if use_table:
        return partition_counts(table.fb, cand, subset, table.n_feedbacks)
    values = compute_feedback(table.game, table.guesses[cand], table.secrets[subset])
    return counts_of_feedback(values, table.n_feedbacks)


def cells(table: Table, guess: int, subset: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The non-empty cells of `subset` under `guess`: (feedback, sorted secret indices), by feedback."""
    values = table.fb[guess, subset]
    order = np.argsort(values, kind="stable")
    values, members = values[order], subset[order]
    cuts = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate(([0], cuts))
    return [(int(values[a]), part) for a, part in zip(starts, np.split(members, cuts))]
