"""The deduction engine's entry points: solve a game, or suggest a guess for a consistent set.

Every objective goes through the one search core (``core.py``) as data
(``objective.py``); this module chooses the passes (the worst case's cap, the
tie-breaks), hands positions to ``root.solve_position`` and turns the trees into a
``Solution``.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from ..solution import HEURISTIC, PROVEN, PROVEN_GIVEN_FIRST, Solution
from .feedback import Table, build_table
from .heuristics import SCORES, heuristic_guess
from .model import DeductionGame, History
from .objective import INF, capacity
from .partition import cells, consistent_after
from .position import format_position, position_secrets
from .probability import WinStrategy
from .root import (PARALLEL_MIN_SECRETS, Subproblem, ThreadLane, close_lanes, process_lanes,
                   search_for, solve_position)
from .search import SpeedUps
from .tree import DeductionStrategy, Node, build_tree, tree_stats

#: Strategy names: the exact search, then seed 004's heuristics.
STRATEGIES = ("optimal", *SCORES)


def _check(strategy: str, max_guesses: int | None) -> None:
    if strategy not in STRATEGIES:
        raise Unsupported(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    if max_guesses is not None and max_guesses < 1:
        raise Unsupported(f"--max-guesses must be at least 1, got {max_guesses}")


def switched_off(speedups: SpeedUps, names: Sequence[str]) -> SpeedUps:
    """`speedups` with the named switches off; an unknown name is a one-line error."""
    known = SpeedUps.names()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise Unsupported(f"unknown speed-up {unknown[0]!r} (known: {', '.join(known)})")
    return dataclasses.replace(speedups, **{n: False for n in names})


class _Passes:
    """The passes of one solve from one position, on the same lanes and memos."""

    def __init__(self, game: DeductionGame, speedups: SpeedUps, lanes: list,
                 progress: Callable[[str], None] | None, history: History,
                 subset: np.ndarray, first: int | None) -> None:
        self.game, self.speedups, self.lanes, self.progress = game, speedups, lanes, progress
        self.history, self.subset, self.first = history, subset, first
        self.known: dict[str, dict] = {}
        self.searches: dict = {}  # this solve's own searches (memos), dropped with it
        self.nodes = 0

    def within(self, objective: str, cap: int, budget: int = INF):
        """The position's value under `objective` within `cap` more guesses (below `budget`)."""
        sub = Subproblem(self.game, objective, self.speedups, self.history, self.subset, cap,
                         budget, self.first)
        position = solve_position(sub, self.lanes, self.progress,
                                  self.known.setdefault(objective, {}), self.searches)
        self.nodes += position.nodes
        return position


def optimal_tree(passes: _Passes, table: Table, objective: str, limit: int) -> Node:
    """The optimal tree for `objective` within `limit` more guesses, ties broken by the
    other objective.

    ``expected``: least total, then least worst case.
    ``worst``: least worst case (the least cap whose ``WORST`` value is 0), then least total.
    """
    n = len(passes.subset)
    if objective == "worst":
        cap = 1
        while passes.speedups.bounds and capacity(cap, table.branching) < n:
            cap += 1
        while passes.within("worst", cap, budget=1).value != 0:
            cap += 1
            if cap > limit:
                raise Unsupported(f"{table.game} cannot be solved within {limit} guesses")
        return passes.within("expected", cap).tree
    position = passes.within("expected", limit)
    if position.tree is None:
        raise Unsupported(f"{table.game} cannot be solved within {limit} guesses")
    root, value = position.tree, position.value
    worst = tree_stats(table, root, passes.subset).worst
    while worst > 1:
        tied = passes.within("expected", worst - 1, value + 1)
        if tied.tree is None or tied.value != value:
            break
        root, worst = tied.tree, tree_stats(table, tied.tree, passes.subset).worst
    return root


def wins_by_guess(table: Table, root: Node, subset: np.ndarray, played: int = 0) -> Counter[int]:
    """How many secrets of `subset` the tree reveals with its 1st, 2nd, ... guess (counting
    the `played` guesses before it)."""
    wins: Counter[int] = Counter()
    stack = [(root, subset, played + 1)]
    while stack:
        node, part_set, depth = stack.pop()
        for f, part in cells(table, node.guess, part_set):
            if f == table.solved:
                wins[depth] += len(part)
            elif f in node.children:
                stack.append((node.children[f], part, depth + 1))
    return wins


def solve_deduction(
    game: DeductionGame,
    objective: Objective = Objective(),
    *,
    strategy: str = "optimal",
    max_guesses: int | None = None,
    speedups: SpeedUps = SpeedUps(),
    without: Sequence[str] = (),
    workers: int = 1,
    position: History = (),
    first: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Solution:
    """Solve `game`: the optimal strategy for `objective`, or a heuristic's strategy evaluated.

    `without` names speed-ups to switch off (fields of ``SpeedUps``): the value stays,
    only the time changes. With `workers` > 1 the cells of the first guesses are
    searched on that many processes. `position` (guesses played with their feedbacks)
    solves from there; `first` imposes the next guess (an index into ``game.guesses()``).
    Guesses are counted from the start of the game (`max_guesses` and the horizon too).
    """
    _check(strategy, max_guesses)
    speedups = switched_off(speedups, without)
    if objective.name not in ("expected", "worst", "probability"):
        raise Unsupported(f"{game.name} does not support objective {objective.name!r}")
    probability = objective.name == "probability"
    if probability:
        if strategy != "optimal" or max_guesses is not None:
            raise Unsupported("the probability objective takes no --strategy or --max-guesses "
                              "(its horizon is the number of guesses)")
        if objective.horizon is None or objective.horizon <= len(position):
            raise Unsupported(f"{game.name}: the probability objective needs a horizon of at "
                              f"least one guess more than the {len(position)} played, "
                              f"got {objective.horizon}")
    if strategy != "optimal" and first is not None:
        raise Unsupported("--first goes with the optimal strategy")
    note = progress or (lambda msg: None)
    t0 = time.perf_counter()
    table = build_table(game)
    stats: dict = {"table_seconds": round(time.perf_counter() - t0, 4)}
    note(f"feedback {'table' if table.fb is not None else 'computed per node'}: "
         f"{len(table.guesses):,} guesses x {table.n_secrets:,} secrets")
    subset = position_secrets(table, position)
    if first is not None:
        allowed = game.restrict_guesses(position, table.guesses[first][None, :])
        if allowed is not None and not allowed[0]:
            raise Unsupported(f"{game.name}: {game.format_code(table.guesses[first])} is not "
                              f"allowed here (the game's hard mode)")
    played = len(position)
    if strategy != "optimal":
        def choose(part: np.ndarray, history: History) -> int:
            return heuristic_guess(table, part, history, strategy, speedups.obvious,
                                   speedups.symmetry, speedups.table)

        root = build_tree(table, subset, position, choose)
        return _tree_solution(game, objective, table, root, HEURISTIC, strategy, max_guesses,
                              stats, t0, position, subset)
    parallel = workers > 1 and len(subset) >= PARALLEL_MIN_SECRETS
    lanes = process_lanes(workers) if parallel else [ThreadLane()]
    try:
        passes = _Passes(game, speedups, lanes, progress, position, subset, first)
        if probability:
            result = passes.within("losses", objective.horizon - played)
        else:
            limit = len(subset) if game.consistent_secrets_allowed() else table.n_secrets
            if max_guesses is not None:
                if max_guesses <= played:
                    raise Unsupported(f"--max-guesses {max_guesses} leaves no guess after the "
                                      f"{played} played")
                limit = min(limit, max_guesses - played)
            root = optimal_tree(passes, table, objective.name, limit)
    except BaseException:  # Ctrl-C or an error: stop the workers now, not after their cells
        close_lanes(lanes, abort=True)
        raise
    close_lanes(lanes)
    stats["nodes"] = passes.nodes
    if probability:
        return _win_solution(game, objective, table, result, stats, t0, position, subset)
    label = PROVEN if first is None else PROVEN_GIVEN_FIRST
    return _tree_solution(game, objective, table, root, label, strategy, max_guesses, stats, t0,
                          position, subset)


def _tree_solution(game, objective, table, root, label, method, max_guesses, stats, t0,
                   position, subset) -> Solution:
    st = tree_stats(table, root, subset, len(position))
    if max_guesses is not None and st.worst > max_guesses:
        raise Unsupported(f"the {method} strategy needs up to {st.worst} guesses, "
                          f"more than --max-guesses {max_guesses}")
    value = Fraction(st.worst) if objective.name == "worst" else Fraction(st.total, st.secrets)
    stats["seconds"] = round(time.perf_counter() - t0, 4)
    return Solution(game=game.name, params=game.params, objective=objective, value=value,
                    exact=True, proven=label != HEURISTIC, status=label,
                    strategy=DeductionStrategy(game, root, st, label, method, position),
                    stats=stats, method=method, max_guesses=max_guesses,
                    after=_where(game, position), secrets=st.secrets, total=st.total,
                    worst=st.worst, histogram=dict(st.histogram))


def _where(game: DeductionGame, position: History) -> str | None:
    """The position solved from, as the solution records it (None at the start)."""
    return format_position(game, position) if position else None


def _win_solution(game, objective, table, result, stats, t0, position, subset) -> Solution:
    n = len(subset)
    wins = n - result.value
    root = result.tree
    by_depth = wins_by_guess(table, root, subset, len(position)) if root is not None else Counter()
    if root is None or sum(by_depth.values()) != wins:
        raise AssertionError(f"the strategy tree wins {sum(by_depth.values())}, the search {wins}")
    stats["states"] = stats.pop("nodes")
    stats["seconds"] = round(time.perf_counter() - t0, 4)
    return Solution(game=game.name, params=game.params, objective=objective,
                    value=Fraction(wins, n), exact=True, proven=True, status=PROVEN,
                    strategy=WinStrategy(game, root, objective.horizon, wins, n, dict(by_depth),
                                         position),
                    stats=stats, method="optimal", after=_where(game, position), secrets=n,
                    wins=wins, histogram=dict(by_depth))


def suggest_guess(game: DeductionGame, consistent: Sequence[int] | np.ndarray,
                  history: History = (), strategy: str = "optimal",
                  objective: str = "expected", max_guesses: int | None = None) -> int | None:
    """The guess (an index into ``game.guesses()``) to play on the consistent secrets given.

    `consistent` holds secret indices; `history` the (guess, feedback) pairs played, which
    decide the symmetries left, the memo keys and any restriction: `consistent` must be
    the set of secrets that `history` leaves (with an empty history, every secret), or
    the search does without symmetries (slower, still exact). `max_guesses` counts the
    guesses still allowed (the horizon left for ``objective="probability"``). None when
    no guess can win anything within the guesses left (probability objective).
    """
    _check(strategy, max_guesses)
    table = build_table(game)
    subset = np.unique(np.asarray(consistent, dtype=np.int64))
    if len(subset) == 0:
        raise Unsupported("no secret is consistent with the feedback given")
    symmetric = np.array_equal(consistent_after(table, history), subset)
    if strategy != "optimal":
        return heuristic_guess(table, subset, history, strategy, use_symmetry=symmetric)
    core_objective = {"expected": "expected", "worst": "worst", "probability": "losses"}[objective]
    if objective == "probability":
        if max_guesses is None:
            raise Unsupported("a probability suggestion needs the guesses left")
        return search_for(game, "losses", SpeedUps(symmetry=symmetric)).best(subset, history,
                                                                            max_guesses).guess
    search = search_for(game, core_objective, SpeedUps(symmetry=symmetric))
    limit = max_guesses or len(subset)
    if objective == "worst":
        cap = 1
        while search.best(subset, history, cap, 1).value != 0:
            cap += 1
            if cap > limit:
                raise Unsupported(f"the consistent set cannot be solved within {limit} guesses")
        search = search_for(game, "expected", SpeedUps(symmetry=symmetric))
        limit = cap
    valued = search.best(subset, history, limit)
    if valued.value >= INF:
        raise Unsupported(f"the consistent set cannot be solved within {limit} guesses")
    return valued.guess
