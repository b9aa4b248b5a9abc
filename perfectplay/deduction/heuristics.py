"""Seed 004's one-step heuristics, as complete strategies with deterministic tie-breaks.

Each scores a guess by the partition of the consistent set it induces (cell sizes n_i,
the solved cell included): minimax (Knuth 1976: the largest cell), expected size
(Irving 1978: sum n_i^2 / n), entropy (Neuwirth 1982: -sum p_i log p_i) and most
parts (Kooi 2005: the number of cells). Ties go to a guess that is still possible,
then to the lowest code. With the "obviously optimal" shortcut (Koyama 1993), a
possible guess splitting the set into singletons is taken at once; every heuristic
would choose that same guess, so the shortcut changes the speed only.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import Unsupported
from .model import History
from .partition import in_subset, sizes
from .search import Search


def _minimax(c: np.ndarray) -> np.ndarray:
    return c.max(axis=1).astype(np.float64)


def _expected_size(c: np.ndarray) -> np.ndarray:
    c = c.astype(np.int64)
    return (c * c).sum(axis=1).astype(np.float64)


def _entropy(c: np.ndarray) -> np.ndarray:
    # minimising sum n_i log2 n_i maximises the entropy; rounded so that equal partitions
    # listed in another order tie exactly
    c = c.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(c > 0, c * np.log2(np.maximum(c, 1)), 0.0)
    return np.round(terms.sum(axis=1), 9)


def _most_parts(c: np.ndarray) -> np.ndarray:
    return -(c > 0).sum(axis=1).astype(np.float64)


#: Heuristic name -> score of each candidate's cell sizes (lower is better); every score
#: depends on the sizes alone, not on which feedback gives which (``partition.sizes``).
SCORES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "minimax": _minimax,
    "expected-size": _expected_size,
    "entropy": _entropy,
    "most-parts": _most_parts,
}


def obvious_guess(
    search: Search, subset: np.ndarray, cand: np.ndarray, use_table: bool = True
) -> int:
    """The lowest possible guess of `cand` splitting `subset` into singletons, or -1 if none."""
    table = search.table
    if len(subset) > table.branching + 1:
        return -1
    cand = cand[in_subset(table, cand, subset)]
    if len(cand) == 0:
        return -1
    hits = np.flatnonzero(sizes(table, cand, subset, use_table).max(axis=1) <= 1)
    return int(cand[hits[0]]) if len(hits) else -1


def heuristic_guess(
    search: Search,
    subset: np.ndarray,
    history: History,
    method: str,
    obvious: bool = True,
    use_table: bool = True,
) -> int:
    """The guess heuristic `method` plays on consistent set `subset` after `history`,
    among the guesses the search itself tries there (``Search.candidates``: allowed, one
    per symmetry class when its speed-ups keep symmetry)."""
    table = search.table
    try:
        score = SCORES[method]
    except KeyError:
        raise Unsupported(
            f"unknown strategy {method!r} (known: optimal, {', '.join(SCORES)})"
        ) from None
    if len(subset) <= 2:  # guess one of them, where the rules allow it here
        g = int(table.guess_of_secret[subset[0]])
        allowed = table.game.restrict_guesses(history, table.guesses[[g]])
        if allowed is None or allowed[0]:
            return g
    cand = search.candidates(subset, history)
    if not len(cand):
        raise Unsupported(f"no guess the rules allow is left after {len(history)} guesses")
    if obvious:
        g = obvious_guess(search, subset, cand, use_table)
        if g >= 0:
            return g
    return int(cand[ranking(search, cand, subset, score, use_table)[0]])


def ranking(
    search: Search,
    cand: np.ndarray,
    subset: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    use_table: bool = True,
) -> np.ndarray:
    """The order of the guesses `cand` on consistent set `subset` by `score` (one of
    ``SCORES``), best first, ties broken as the heuristics break them: a guess that is
    still possible, then the lowest code."""
    table = search.table
    s = score(sizes(table, cand, subset, use_table))
    return np.lexsort((cand, ~in_subset(table, cand, subset), s))
