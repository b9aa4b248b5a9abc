"""Proven bounds on a guess's value where its exact price (``rank.rank_guesses``) is out
of reach: between what a strategy playing the guess achieves and what no strategy can beat.

The strategy's side: play the guess, then a heuristic (``heuristics.SCORES``, most parts
by default) to the end, as ``solve --strategy`` builds it (``tree.build_tree``), measured
over every secret still possible (``tree.tree_stats``, its histogram for a chance). A
strategy's value is what the optimum after that guess is at most (expected guesses,
worst case) or at least (the chance to win within the horizon). Its worst case bounds
the guess's worst case from above whatever the objective.

The search's side: the guess itself plus the search's own lower bound of each cell it
leaves, as the exact search prunes with it (``Search.lower``, the rows by the cells'
sizes alone, and ``Search.cell_bound``, one look at a cell's own guesses, the larger):
expected guesses at least, the losses within the horizon at least (so the chance at
most), the worst case at least (by the rows).

The strategies after each guess share their choices: in a game whose restriction does
not make the history matter, the heuristic's guess on a set of secrets serves that set
wherever it comes (every strategy is still replayed whole over its secrets, so what is
shown is that strategy's exact value).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Iterator, Sequence

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from .feedback import Table
from .heuristics import heuristic_guess
from .model import DeductionGame, History
from .objective import INF
from .rank import maximises, learns_nothing, pricer, value_of
from .root import search_for
from .search import Search, SpeedUps
from .tree import build_tree, prune_determined, tree_stats


@dataclass(frozen=True)
class Bounded:
    """One guess (an index into ``game.guesses()``) with proven bounds on its value,
    counted from the start of the game as ``rank.Priced`` counts it: `low` <= value <=
    `high`, None where that side is not worked out yet; `worst` (guesses from the start)
    is the worst case of the strategy behind the strategy's side, so at least the
    guess's own worst case (None: not worked out yet)."""

    guess: int
    low: Fraction | None
    high: Fraction | None
    worst: int | None = None
    #: The rule of thumb cannot play on after the guess (a set of secrets where the
    #: rules leave no guess that helps): no strategy's side will come.
    stuck: bool = False


def bound_guesses(
    game: DeductionGame,
    objective: Objective,
    position: History,
    guesses: np.ndarray,
    score: str = "most-parts",
    known: Sequence[Bounded] = (),
) -> Iterator[tuple[Bounded, ...]]:
    """The bounds of each of `guesses` after `position` as they are known: first every
    guess with the search's side alone (quick: its cells' sizes), then once more each
    time one more guess has its strategy's side too, in the order given (those `known`
    with it from an earlier call at the same position at once). A guess that learns
    nothing, or after which the search's bound shows no strategy fits the guesses the
    ranking allows, is left out, as ``rank`` leaves it out; one after which the rule of
    thumb finds no useful guess somewhere is marked `stuck` (no strategy's side)."""
    price = pricer(game, objective, position)  # (the ranking's search, set and cap)
    search, subset, cap = price.search, price.subset, price.cap
    table, played = search.table, len(position)
    high = not maximises(objective)  # a strategy bounds the least from above, a chance below
    done = {b.guess: b for b in known if b.stuck or (b.high if high else b.low) is not None}
    found = []
    for g in np.asarray(guesses, dtype=np.int64).tolist():
        if g in done:
            found.append(done[g])
            continue
        bound = _search_bound(search, objective, g, subset, position, cap)
        if bound is not None:
            found.append(Bounded(g, bound if high else None, None if high else bound))
    yield tuple(found)
    choose = _heuristic(game, score, played)
    for k, entry in enumerate(found):
        if entry.guess not in done:
            found[k] = _with_strategy(table, objective, entry, subset, position, choose)
            yield tuple(found)


def _search_bound(
    search: Search,
    objective: Objective,
    guess: int,
    subset: np.ndarray,
    position: History,
    cap: int,
) -> Fraction | None:
    """The search's side of `guess`'s value (from the start of the game); None when it
    learns nothing or no strategy after it fits the guesses allowed. Each cell's bound
    is the larger of its size's row and one look at its own guesses (``cell_bound``)."""
    n, played = len(subset), len(position)
    parts = search.cells(guess, subset)
    if learns_nothing(parts, n):
        return None
    if objective.name == "worst":
        deepest = max((_least_room(search, len(part), cap - 1) for _, part in parts), default=0)
        return None if deepest >= INF else Fraction(played + 1 + deepest)
    total = search.objective.node_cost * n + sum(
        max(
            search.lower(len(part), cap - 1),
            search.cell_bound(part, position + ((guess, f),), cap - 1),
        )
        for f, part in parts
    )
    if total >= INF:
        return None
    return value_of(objective, total, n, played)


def _least_room(search: Search, size: int, limit: int) -> int:
    """The fewest guesses the search's bound leaves room for to solve `size` secrets
    every time (the least cap whose worst-case bound is 0), INF beyond `limit`."""
    return next((c for c in range(limit + 1) if search.lower(size, c) == 0), INF)


#: A strategy's chooser (``build_tree``'s): the guess on a set of secrets after a history.
Chooser = Callable[[np.ndarray, History], int]


def _heuristic(game: DeductionGame, score: str, played: int) -> Callable[[int], Chooser]:
    """The chooser of the strategies after each guess: the guess given at their root
    (``build_tree`` asks at the root's history length first), the heuristic `score`
    below, its choice on a set remembered where the history does not restrict guesses."""
    playing = search_for(game, "expected", SpeedUps())
    shared = game.restriction() is None
    chosen: dict[bytes, int] = {}

    def choose(root: int):
        def at(part: np.ndarray, history: History) -> int:
            if len(history) == played:
                return root
            key = part.tobytes()
            if shared and key in chosen:
                return chosen[key]
            guess = heuristic_guess(playing, part, history, score)
            if shared:
                chosen[key] = guess
            return guess

        return at

    return choose


def _with_strategy(
    table: Table,
    objective: Objective,
    entry: Bounded,
    subset: np.ndarray,
    position: History,
    choose: Callable[[int], Chooser],
) -> Bounded:
    """`entry` with the strategy's side: the tree playing its guess, then the heuristic."""
    played, n = len(position), len(subset)
    try:
        root = build_tree(table, subset, position, choose(entry.guess))
    except Unsupported:  # the rules leave the rule of thumb no useful guess somewhere
        return replace(entry, stuck=True)
    if objective.determine:
        root = prune_determined(table, root, subset)
    stats = tree_stats(table, root, subset, played, objective.determine)
    if maximises(objective):  # (the secrets found by each guess: the stats' histogram)
        wins = sum(k for depth, k in stats.histogram.items() if depth <= objective.horizon)
        return replace(entry, low=Fraction(wins, n), worst=stats.worst)
    value = Fraction(stats.worst) if objective.name == "worst" else Fraction(stats.total, n)
    return replace(entry, high=value, worst=stats.worst)
