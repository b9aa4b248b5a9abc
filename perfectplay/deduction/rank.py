"""An exact price for every guess: the value of each allowed guess at a position.

A guess's value is what the one search core (``core.best``) gives its cells, plus the
guess itself: under ``expected`` the total number of guesses over the consistent set
(node cost times the set, plus each non-solved cell's optimum with one guess less),
under ``probability`` the secrets won within the horizon, under ``worst`` one more than
the largest cell's least worst case. Every allowed guess is valued, the search's own
candidates (one per symmetry class) first: a symmetric image of one of them finds its
cells in the memo (the same sets, or the same history up to symmetry), so "how many
guesses are optimal" counts guesses, and "up to symmetry" counts those classes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from .feedback import Table, build_table
from .model import DeductionGame, History
from .objective import INF, probability_then_cost
from .position import position_secrets
from .root import search_for
from .search import Search, SpeedUps
from .solve import CORES, core_objective


@dataclass(frozen=True)
class Priced:
    """One guess and its exact value (counted from the start of the game)."""

    guess: int  # index into game.guesses()
    value: Fraction  # expected guesses, worst-case guesses, or P(win within the horizon)
    canonical: bool  # one of the search's candidates (a symmetry class's representative)


@dataclass(frozen=True)
class Ranking:
    """Every useful allowed guess at a position, best first, with what is optimal there."""

    objective: Objective
    secrets: int  # still possible at the position
    guesses: tuple[Priced, ...]  # best first (ties by guess index)
    classes: int  # the search's candidates (classes under symmetry)

    @property
    def best(self) -> Fraction:
        return self.guesses[0].value

    def optimal(self) -> tuple[Priced, ...]:
        return tuple(p for p in self.guesses if p.value == self.best)

    @property
    def optimal_classes(self) -> int:
        """How many optimal guesses there are up to symmetry."""
        return sum(p.canonical for p in self.optimal())

    def price(self, guess: int) -> Priced | None:
        """The entry of `guess` (None: not allowed here, or it learns nothing)."""
        return next((p for p in self.guesses if p.guess == guess), None)


def maximises(objective: Objective) -> bool:
    """Whether the more of `objective`'s value, the better (the chance to win)."""
    return objective.name == "probability"


def rank_guesses(
    game: DeductionGame,
    objective: Objective = Objective(),
    position: History = (),
    progress: Callable[[str], None] | None = None,
    searches: dict | None = None,
) -> Ranking:
    """The exact value of every allowed guess after `position` under `objective` (guesses
    that learn nothing are left out: they are never better than waiting). `searches`
    holds the searches (memos) to use; None: this process's own (``root.search_for``)."""
    price = pricer(game, objective, position, searches)
    table, subset, search = price.search.table, price.subset, price.search
    canonical = search.candidates(subset, position)
    mask = game.restrict_guesses(position, table.guesses)
    allowed = np.arange(len(table.guesses)) if mask is None else np.flatnonzero(mask)
    order = list(canonical) + sorted(set(allowed.tolist()) - set(canonical.tolist()))
    first = set(canonical.tolist())
    priced = []
    for k, g in enumerate(order):
        value = price(int(g))
        if value is not None:
            priced.append(Priced(int(g), value, int(g) in first))
        if progress:
            progress(f"{k + 1}/{len(order)} guesses priced")
    sign = -1 if maximises(objective) else 1
    priced.sort(key=lambda p: (sign * p.value, p.guess))
    if not priced:
        raise Unsupported(f"{game.name}: no allowed guess helps at this position")
    return Ranking(objective, len(subset), tuple(priced), len(canonical))


@dataclass(frozen=True)
class PositionValue:
    """A position's exact value under an objective (counted from the start of the game,
    as `Priced` holds it), an optimal guess there, and the value of the guess played
    there (None: none asked, or it learns nothing)."""

    best: Fraction
    guess: int
    played: Fraction | None


def value_position(
    game: DeductionGame,
    objective: Objective = Objective(),
    position: History = (),
    played: int | None = None,
    searches: dict | None = None,
) -> PositionValue:
    """The optimum after `position` as the search finds it (one search, where
    `rank_guesses` prices every allowed guess: 0.09 s against 54 s for Wordle after
    ``salet:BBBBB``, 2026-11-27), with the price of the guess `played` there."""
    price = pricer(game, objective, position, searches)
    subset, n, done = price.subset, len(price.subset), len(position)
    if price.worst is not None:
        cap = _least_cap(price.worst, subset, position, n)
        found = price.worst.best(subset, position, cap, 1) if cap < INF else None
        best = Fraction(done + cap)
    else:
        found = price.search.best(subset, position, price.cap)
        best = value_of(objective, found.value, n, done)
    if found is None or found.guess is None:
        raise Unsupported(f"{game.name}: no allowed guess helps at this position")
    return PositionValue(best, found.guess, None if played is None else price(played))


def price_guess(
    game: DeductionGame,
    objective: Objective,
    position: History,
    guess: int,
    searches: dict | None = None,
) -> Fraction | None:
    """The exact value of `guess` after `position` (counted from the start of the game,
    as `Priced` holds it); None for a guess that learns nothing there, or after which no
    strategy fits."""
    return pricer(game, objective, position, searches)(guess)


def pricer(
    game: DeductionGame, objective: Objective, position: History, searches: dict | None = None
) -> Pricer:
    """The pricer of the guesses after `position` under `objective`, with the search,
    the secrets still possible and the guesses allowed it prices with (refused in one
    line where the objective prices no guess there)."""
    if objective.name not in ("expected", "worst", "probability"):
        raise Unsupported(
            f"rank prices guesses for expected, worst or probability, not {objective.name!r}"
        )
    table = build_table(game)
    subset = position_secrets(table, position)
    n, played = len(subset), len(position)
    if objective.determine and n == 1:
        raise Unsupported(f"{game.name}: the position leaves one secret, determined already")
    if objective.name == "probability" and (objective.horizon or 0) <= played:
        raise Unsupported(f"{game.name}: no guess left within the horizon {objective.horizon}")
    search = search_for(
        game, core_objective(CORES[objective.name], objective.determine), SpeedUps(), searches
    )
    cap = guesses_cap(game, objective, table, n, played)
    worst = (
        search_for(game, core_objective("worst", objective.determine), SpeedUps(), searches)
        if objective.name == "worst"
        else None
    )
    return Pricer(objective, search, worst, subset, position, cap)


@dataclass(frozen=True)
class Pricer:
    """The exact value of one guess at a position (counted from the start of the game,
    as `Priced` holds it): what `search` (the objective's core; for ``worst``, `worst`,
    the worst case's) gives the guess's cells within `cap` guesses, plus the guess
    itself. None for a guess that learns nothing, or after which no strategy fits."""

    objective: Objective
    search: Search
    worst: Search | None
    subset: np.ndarray
    position: History
    cap: int

    def __call__(self, g: int) -> Fraction | None:
        n, played, position = len(self.subset), len(self.position), self.position
        parts = self.search.cells(g, self.subset)
        if learns_nothing(parts, n):
            return None
        history = [position + ((g, f),) for f, _ in parts]
        if self.worst is not None:
            deepest = max(
                (_least_cap(self.worst, part, h, n) for (_, part), h in zip(parts, history)),
                default=0,
            )
            return None if deepest >= INF else Fraction(played + 1 + deepest)
        total = self.search.objective.node_cost * n + sum(
            self.search.best(part, h, self.cap - 1).value for (_, part), h in zip(parts, history)
        )
        if total >= INF:
            return None  # no strategy after it fits the guesses left
        return value_of(self.objective, total, n, played)


def learns_nothing(parts: list[tuple[int, np.ndarray]], n: int) -> bool:
    """Whether a guess whose non-solved cells are `parts` leaves all `n` secrets together
    (never better than waiting: rank and the bounds leave it out)."""
    return len(parts) == 1 and len(parts[0][1]) == n


def guesses_cap(
    game: DeductionGame, objective: Objective, table: Table, n: int, played: int
) -> int:
    """The guesses the ranking lets a strategy use after `played`, for `n` secrets still
    possible: the horizon left for ``probability``, else as many as any strategy needs
    (one per secret still possible, when those are allowed guesses)."""
    if objective.name == "probability":
        return objective.horizon - played
    return n if game.consistent_secrets_allowed() else table.n_secrets


def value_of(objective: Objective, total: int, n: int, played: int) -> Fraction:
    """A value counted from the start of the game (as `Priced` holds it) from the core's
    `total` over `n` secrets after `played` guesses: the guesses summed over the secrets,
    or for the chance within the horizon the secrets lost."""
    if maximises(objective):
        return Fraction(n - total, n)
    return Fraction(played * n + total, n)


def _least_cap(search: Search, part: np.ndarray, history: History, limit: int) -> int:
    """The least number of guesses that solves every secret of `part` (worst case)."""
    cap = 0
    while search.best(part, history, cap, 1).value != 0:
        cap += 1
        if cap > limit:
            return INF
    return cap


def rule_of_thumb(
    game: DeductionGame, objective: Objective, position: History, score: str = "most-parts"
) -> np.ndarray:
    """The guesses the search tries after `position` (one per class of guesses alike
    under the game's symmetry), best first by the heuristic `score` (a name of
    ``heuristics.SCORES``) on the secrets still possible: quick, not proven, where
    ``rank_guesses`` prices every guess exactly."""
    from .heuristics import SCORES, ranking
    from .partition import consistent_after

    search = search_for(game, core_objective(CORES[objective.name], False), SpeedUps())
    subset = consistent_after(search.table, position)
    cand = search.candidates(subset, position)
    return cand[ranking(search, cand, subset, SCORES[score])]


@dataclass(frozen=True)
class Weighed:
    """One guess as the advisor weighs it under a whole objective (``weigh_guesses``):
    its value counted from the start of the game (as `Priced` holds it; None where no
    strategy after it wins every secret within the limit, under a cost objective that
    then ranks by chance first), the expected guesses or cost that break a tie of chances
    (`then`, counted from the start; None where the objective has no second part), the
    worst case (the guesses, from the start, that the best strategies after it need for
    the deepest secret, within the limit), and whether it may be the secret."""

    guess: int
    value: Fraction | None
    then: Fraction | None
    worst: int | None
    possible: bool


def weigh_guesses(
    game: DeductionGame,
    objective: Objective,
    position: History = (),
    searches: dict | None = None,
) -> tuple[tuple[Weighed, ...], bool]:
    """Every useful allowed guess after `position` under the whole `objective` (its
    horizon the limit on guesses), best first in the order of strength: the better
    value, then (a chance to win) the fewer expected guesses or cost, then the smaller
    worst case, then a guess that may be the secret, then the lowest code; and whether
    the values are chances (a ``probability-then-cost`` objective whose every secret
    cannot be won within the limit is weighed by chance, then cost).

    The worst case is that of the best strategies after the guess (the least number of
    guesses within which they reach the same value), so that following the first guess
    at every position never needs more guesses than the first position's worst case."""
    table = build_table(game)
    subset = position_secrets(table, position)
    n, played = len(subset), len(position)
    name, horizon = objective.name, objective.horizon
    if horizon is not None and horizon <= played:
        raise Unsupported(f"{game.name}: no guess left within the limit {horizon}")
    mask = game.restrict_guesses(position, table.guesses)
    allowed = np.arange(len(table.guesses)) if mask is None else np.flatnonzero(mask)
    possible = _possible(table, subset)
    determine = objective.determine
    chance = name == "probability"
    if name in ("expected", "probability-then-cost") and _by_guesses(game, objective):
        cap = (
            horizon - played
            if horizon is not None
            else guesses_cap(game, objective, table, n, played)
        )
        search = search_for(game, core_objective("expected", determine), SpeedUps(), searches)
        weighed = _weigh(search, subset, position, allowed, possible, cap, _expected(n, played))
        if any(w.value is not None for w in weighed) or name == "expected":
            return _ordered(weighed, maximise=False), False
    if name == "worst":
        search = search_for(game, core_objective("worst", determine), SpeedUps(), searches)
        cap = guesses_cap(game, objective, table, n, played)
        weighed = _weigh(search, subset, position, allowed, possible, cap, _worst(played))
        weighed = [replace(w, value=Fraction(w.worst)) for w in weighed if w.worst is not None]
        return _ordered(weighed, maximise=False), False
    cap = horizon - played
    if chance:
        search = search_for(game, core_objective("losses", determine), SpeedUps(), searches)
        weighed = _weigh(search, subset, position, allowed, possible, cap, _chance(n))
    else:  # the best chance, then the least cost (the game's costs of its symbols)
        costliest = int(game.symbol_costs().max()) * game.length()
        core = probability_then_cost(n, cap, costliest, determine)
        search = search_for(game, core, SpeedUps(), searches)
        per_guess = game.length() if _by_guesses(game, objective) else None
        weighed = _weigh(
            search,
            subset,
            position,
            allowed,
            possible,
            cap,
            _lexicographic(core, n, played, per_guess),
        )
    return _ordered(weighed, maximise=True), True


def _by_guesses(game: DeductionGame, objective: Objective) -> bool:
    """Whether `objective`'s cost counts guesses (every symbol costs 1 and none is free):
    then the expected guesses within the limit, where every secret can be won within it,
    are the lexicographic objective's value (its chance being 1)."""
    costs = game.symbol_costs()
    return objective.name == "expected" or (
        bool((costs == 1).all()) and not game.forced_free() and not objective.determine
    )


def _possible(table: Table, subset: np.ndarray) -> set[int]:
    """The guess indices that are secrets of `subset` (guesses and secrets differ)."""
    index = {tuple(c): i for i, c in enumerate(table.guesses.tolist())}
    return {index[c] for c in map(tuple, table.secrets[subset].tolist()) if c in index}


def _weigh(search, subset, position, allowed, possible, cap, value) -> list[Weighed]:
    """Each allowed guess that learns something, weighed: `value` turns the core's total
    over its cells (within `cap` - 1 guesses after it) into (value, then); the worst case
    is the least number of guesses within which every cell reaches its value."""
    n, played = len(subset), len(position)
    found = []
    for g in allowed.tolist():
        parts = search.cells(g, subset)
        if learns_nothing(parts, n):
            continue
        history = [position + ((g, f),) for f, _ in parts]
        values = [search.best(part, h, cap - 1).value for (_, part), h in zip(parts, history)]
        guess_cost = _guess_cost(search, g, position) * n
        total = search.objective.node_cost * n + guess_cost + sum(values)
        primary, then = value(total)
        deepest = 0
        if primary is not None:
            for ((_, part), h), v in zip(zip(parts, history), values):
                c = deepest
                while c < cap - 1 and search.best(part, h, c).value != v:
                    c += 1
                deepest = max(deepest, c)
        worst = None if primary is None else played + 1 + deepest
        found.append(Weighed(g, primary, then, worst, g in possible))
    if not found:
        raise Unsupported(f"{search.table.game.name}: no allowed guess helps at this position")
    return found


def _guess_cost(search, g: int, position: History) -> int:
    """What guess `g` costs each secret under a costed objective (0 otherwise)."""
    if not search.objective.costed:
        return 0
    game = search.table.game
    return game.guess_cost(search.table.guesses[g].tolist(), position)


def _expected(n: int, played: int):
    def value(total: int):
        return (None, None) if total >= INF else (Fraction(played * n + total, n), None)

    return value


def _worst(played: int):
    def value(total: int):  # (the worst core's total: 0 within the cap, else INF)
        return (None, None) if total >= INF else (Fraction(played), None)

    return value


def _chance(n: int):
    def value(total: int):
        return Fraction(n - total, n), None

    return value


def _lexicographic(core, n: int, played: int, per_guess: int | None):
    """(chance, then): `then` the expected guesses from the start where every guess costs
    `per_guess` (a lost secret counted at the limit), else the expected cost from here."""
    m = core.loss_value

    def value(total: int):
        losses, cost = divmod(total, m)
        if per_guess is None:
            return Fraction(n - losses, n), Fraction(cost, n)
        return Fraction(n - losses, n), played + Fraction(cost, n * per_guess)

    return value


def _ordered(weighed: list[Weighed], maximise: bool) -> tuple[Weighed, ...]:
    """`weighed` in the order of strength (see `weigh_guesses`); unvalued guesses last."""
    sign = -1 if maximise else 1

    def key(w: Weighed):
        return (
            w.value is None,
            0 if w.value is None else sign * w.value,
            w.then if w.then is not None else 0,
            w.worst if w.worst is not None else INF,
            not w.possible,
            w.guess,
        )

    return tuple(sorted(weighed, key=key))
