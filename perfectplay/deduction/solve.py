"""The deduction engine's entry points: solve a game, or suggest a guess for a consistent set."""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from ..solution import HEURISTIC, PROVEN, Solution
from .feedback import Table, build_table
from .heuristics import SCORES, heuristic_guess
from .model import DeductionGame, History
from .parallel import PARALLEL_MIN_SECRETS, RootPool
from .search import INF, Search, SpeedUps
from .tree import DeductionStrategy, Node, build_tree, tree_stats

#: Strategy names: the exact search, then seed 004's heuristics.
STRATEGIES = ("optimal", *SCORES)


def _check(strategy: str, max_guesses: int | None) -> None:
    if strategy not in STRATEGIES:
        raise Unsupported(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    if max_guesses is not None and max_guesses < 1:
        raise Unsupported(f"--max-guesses must be at least 1, got {max_guesses}")


def switched_off(speedups, names: Sequence[str]):
    """`speedups` with the named switches off; an unknown name is a one-line error."""
    known = [f.name for f in dataclasses.fields(speedups)]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise Unsupported(f"unknown speed-up {unknown[0]!r} (known: {', '.join(known)})")
    return dataclasses.replace(speedups, **{n: False for n in names})


def optimal_tree(search: Search, objective: str, max_guesses: int | None, workers: int = 1) -> Node:
    """The optimal tree for `objective`, ties broken by the other objective.

    ``expected``: least total within `max_guesses` (if any), then least worst case.
    ``worst``: least worst case, then least total. With several `workers` the cells of
    the first guesses are searched in parallel.
    """
    t = search.table
    everyone = np.arange(t.n_secrets)
    limit = min(max_guesses or t.n_secrets, t.n_secrets)
    pool = RootPool(search, workers) if workers > 1 and t.n_secrets >= PARALLEL_MIN_SECRETS else None

    def solve_within(cap: int, budget: int = INF) -> tuple[int, Node | None]:
        if pool is not None:
            return pool.best_tree(everyone, cap, budget)
        value, guess = search.best(everyone, (), cap, budget)
        if guess < 0:
            return value, None
        return value, build_tree(t, everyone, (), lambda s, h: search.best(s, h, cap - len(h))[1])

    try:
        if objective == "worst":
            cap = 1
            while search.capacity(cap) < t.n_secrets and search.speed.bounds:
                cap += 1
            while search.fits(everyone, (), cap) < 0:
                cap += 1
                if cap > limit:
                    raise Unsupported(f"{t.game} cannot be solved within {limit} guesses")
            return solve_within(cap)[1]
        value, root = solve_within(limit)
        if root is None:
            raise Unsupported(f"{t.game} cannot be solved within {limit} guesses")
        worst = tree_stats(t, root).worst
        while worst > 1:
            tied, other = solve_within(worst - 1, value + 1)
            if other is None or tied != value:
                break
            root, worst = other, tree_stats(t, other).worst
        return root
    except BaseException:  # Ctrl-C or an error: stop the workers now, not after their cells
        if pool is not None:
            pool.close(abort=True)
            pool = None
        raise
    finally:
        if pool is not None:
            search.nodes += pool.nodes
            pool.close()


def solve_deduction(
    game: DeductionGame,
    objective: Objective = Objective(),
    *,
    strategy: str = "optimal",
    max_guesses: int | None = None,
    speedups: SpeedUps = SpeedUps(),
    without: Sequence[str] = (),
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> Solution:
    """Solve `game`: the optimal strategy for `objective`, or a heuristic's strategy evaluated.

    `without` names speed-ups to switch off (fields of ``SpeedUps``, or of ``WinSpeedUps``
    for the probability objective): the value stays, only the time changes.
    """
    _check(strategy, max_guesses)
    if objective.name == "probability":
        if strategy != "optimal" or max_guesses is not None:
            raise Unsupported("the probability objective takes no --strategy or --max-guesses "
                              "(its horizon is the number of guesses)")
        from .probability import WinSpeedUps, solve_probability

        return solve_probability(game, objective, speedups=switched_off(WinSpeedUps(), without),
                                 workers=workers, progress=progress)
    speedups = switched_off(speedups, without)
    if objective.name not in ("expected", "worst"):
        raise Unsupported(f"{game.name} does not support objective {objective.name!r}")
    note = progress or (lambda msg: None)
    t0 = time.perf_counter()
    table = build_table(game)
    stats: dict = {"table_seconds": round(time.perf_counter() - t0, 4)}
    note(f"feedback table: {len(table.guesses):,} guesses x {table.n_secrets:,} secrets")
    if strategy == "optimal":
        search = Search(table, speedups, progress)
        root = optimal_tree(search, objective.name, max_guesses, workers)
        stats["nodes"] = search.nodes
        label, proven = PROVEN, True
    else:
        def choose(subset: np.ndarray, history: History) -> int:
            return heuristic_guess(table, subset, history, strategy, speedups.obvious,
                                   speedups.symmetry, speedups.table)

        root = build_tree(table, np.arange(table.n_secrets), (), choose)
        label, proven = HEURISTIC, False
    st = tree_stats(table, root)
    if max_guesses is not None and st.worst > max_guesses:
        raise Unsupported(f"the {strategy} strategy needs up to {st.worst} guesses, "
                          f"more than --max-guesses {max_guesses}")
    value = Fraction(st.worst) if objective.name == "worst" else Fraction(st.total, st.secrets)
    extra = {"method": strategy, **({"max_guesses": max_guesses} if max_guesses else {}),
             **st.to_dict()}
    stats["seconds"] = round(time.perf_counter() - t0, 4)
    return Solution(game=game.name, params=game.params, objective=objective, value=value,
                    exact=True, proven=proven, status=label,
                    strategy=DeductionStrategy(game, root, st, label, strategy),
                    stats=stats, extra=extra)


def suggest_guess(game: DeductionGame, consistent: Sequence[int] | np.ndarray,
                  history: History = (), strategy: str = "optimal",
                  objective: str = "expected", max_guesses: int | None = None) -> int:
    """The guess (an index into ``game.guesses()``) to play on the consistent secrets given.

    `consistent` holds secret indices; `history` the (guess, feedback) pairs played, which
    decide the symmetries left, the memo keys and any restriction: `consistent` must be
    the set of secrets that `history` leaves (with an empty history, every secret), or
    the search does without symmetries (slower, still exact). `max_guesses` counts the guesses
    still allowed. This is what an interactive advisor calls at each turn.
    """
    _check(strategy, max_guesses)
    table: Table = build_table(game)
    subset = np.unique(np.asarray(consistent, dtype=np.int64))
    if len(subset) == 0:
        raise Unsupported("no secret is consistent with the feedback given")
    left = np.arange(table.n_secrets)
    for g, f in history:
        left = left[table.fb[g, left] == f]
    symmetric = np.array_equal(left, subset)
    if strategy != "optimal":
        return heuristic_guess(table, subset, history, strategy, use_symmetry=symmetric)
    search = Search(table, SpeedUps(symmetry=symmetric))
    limit = max_guesses or len(subset)
    if objective == "worst":
        cap = 1
        while search.fits(subset, history, cap) < 0:
            cap += 1
            if cap > limit:
                raise Unsupported(f"the consistent set cannot be solved within {limit} guesses")
        return search.best(subset, history, cap)[1]
    value, guess = search.best(subset, history, limit)
    if value >= INF:
        raise Unsupported(f"the consistent set cannot be solved within {limit} guesses")
    return guess
