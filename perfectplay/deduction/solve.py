"""The deduction engine's entry points: solve a game, or suggest a guess for a consistent set.

Every objective goes through the one search core (``core.py``) as data
(``objective.py``); this module chooses the passes (the worst case's cap, the
tie-breaks), hands positions to ``root.solve_position`` and turns the trees into a
``Solution``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from ..errors import Unsupported
from ..objectives import Objective
from ..solution import HEURISTIC, PROVEN, PROVEN_GIVEN_FIRST, SEARCHED_TOP, UPPER_BOUNDS, Solution
from ..speedups import switched_off
from ..store import Store
from .feedback import Table, build_table, compute_feedback
from .heuristics import SCORES, heuristic_guess
from .model import DeductionGame, History
from .objective import INF, OBJECTIVES, SearchObjective, capacity, probability_then_cost
from .partition import cells, consistent_after
from .position import format_position, position_secrets
from .root import (
    Crew,
    Subproblem,
    close_lanes,
    cluster_use,
    on_a_thread,
    open_lanes,
    relay_for,
    search_for,
    solve_position,
)
from .search import SpeedUps
from .stored import AnswerStore, keep_solution, solution_key, stored_solution
from .tree import (
    Answer,
    DeductionStrategy,
    Node,
    Stats,
    Wins,
    build_tree,
    prune_determined,
    tree_stats,
    wins_by_guess,
)

#: Strategy names: the exact search, then seed 004's heuristics.
STRATEGIES = ("optimal", *SCORES)


def _check(strategy: str, max_guesses: int | None) -> None:
    if strategy not in STRATEGIES:
        raise Unsupported(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    if max_guesses is not None and max_guesses < 1:
        raise Unsupported(f"--max-guesses must be at least 1, got {max_guesses}")


class _Passes:
    """The passes of one solve from one position, on the same lanes and memos."""

    def __init__(
        self,
        game: DeductionGame,
        speedups: SpeedUps,
        lanes: list,
        progress: Callable[[str], None] | None,
        history: History,
        subset: np.ndarray,
        first: int | None,
        store: AnswerStore | None = None,
        top: int | None = None,
    ) -> None:
        self.game, self.speedups, self.lanes, self.progress = game, speedups, lanes, progress
        self.history, self.subset, self.first, self.store = history, subset, first, store
        self.top = top
        self.known: dict[str, dict] = {}
        self.searches: dict = {}  # this solve's own searches (memos), dropped with it
        self.relay = relay_for(lanes, speedups)  # what one lane finds, for the others
        self.nodes = 0

    def within(self, objective: str | SearchObjective, cap: int, budget: int = INF):
        """The position's value under `objective` within `cap` more guesses (below `budget`)."""
        sub = Subproblem(
            self.game,
            objective,
            self.speedups,
            self.history,
            self.subset,
            cap,
            budget,
            self.first,
            self.top,
        )
        crew = Crew(
            self.lanes,
            self.progress,
            self.known.setdefault(objective, {}),
            self.searches,
            self.store,
            self.relay,
        )
        position = solve_position(sub, crew)
        self.nodes += position.nodes
        return position


#: The search core's objective serving each objective: the chance to win within a
#: horizon is searched as the fewest losses.
CORES = {
    "expected": "expected",
    "worst": "worst",
    "probability": "losses",
    "probability-then-cost": "losses",
}


def core_objective(name: str, determine: bool) -> str:
    """The search core's objective (``objective.OBJECTIVES``) for `name` (expected, worst or
    losses), in its determine form if asked."""
    return f"{name}-determine" if determine else name


def guesses_left(
    game: DeductionGame,
    consistent: int,
    n_secrets: int,
    played: int,
    max_guesses: int | None,
    limit_text: str | None = None,
) -> int:
    """The guesses a search may use after `played`: the game's own limit or `max_guesses`
    (counted from the start; `limit_text` names it in the error), else as many as any
    strategy needs (one per consistent secret when secrets are allowed guesses)."""
    limit = consistent if game.consistent_secrets_allowed() else n_secrets
    for rule in (game.guess_limit(), max_guesses):
        if rule is not None:
            if rule <= played:
                raise Unsupported(
                    f"no guess is left after the {played} played ({limit_text or f'limit {rule}'})"
                )
            limit = min(limit, rule - played)
    return limit


def optimal_tree(
    passes: _Passes, table: Table, objective: str, limit: int, determine: bool = False
) -> Node:
    """The optimal tree for `objective` within `limit` more guesses, ties broken by the
    other objective (secrets found once revealed, or once determined).

    ``expected``: least total, then least worst case.
    ``worst``: least worst case (the least cap whose ``WORST`` value is 0), then least total.
    """
    n = len(passes.subset)
    expected, worst_case = core_objective("expected", determine), core_objective("worst", determine)
    if objective == "worst":
        cap = 1
        while passes.speedups.bounds and capacity(cap, table.branching, determine) < n:
            cap += 1
        while True:
            if passes.within(worst_case, cap, budget=1).value == 0:
                tree = passes.within(expected, cap).tree
                if tree is not None:  # (none only with --top: its guesses differ by objective)
                    return tree
            cap += 1
            if cap > limit:
                raise Unsupported(f"{table.game} cannot be solved within {limit} guesses")
    position = passes.within(expected, limit)
    if position.tree is None:
        raise Unsupported(f"{table.game} cannot be solved within {limit} guesses")
    root, value = position.tree, position.value
    worst = tree_stats(table, root, passes.subset, determine=determine).worst
    while worst > 1:
        tied = passes.within(expected, worst - 1, value + 1)
        if tied.tree is None or tied.value != value:
            break
        root, worst = (
            tied.tree,
            tree_stats(table, tied.tree, passes.subset, determine=determine).worst,
        )
    return root


@dataclass(frozen=True)
class SolveOptions:
    """How to solve a deduction game (`solve_deduction`): the options that travel together
    from the command line (``DeductionEngine.solve_options``) or a caller to the search."""

    strategy: str = "optimal"
    max_guesses: int | None = None
    speedups: SpeedUps = SpeedUps()
    without: Sequence[str] = ()
    workers: int | None = 1
    position: History = ()
    first: int | None = None
    progress: Callable[[str], None] | None = None
    store: Store | None = None
    cluster: str | None = None
    top: int | None = None
    note: Callable[[str], None] | None = None  # a remark for the person (the command line's)


@dataclass
class _Solving:
    """What a solve works on once its table is built, for the writers of its solution."""

    game: DeductionGame
    objective: Objective
    table: Table
    position: History
    subset: np.ndarray
    stats: dict
    t0: float

    def solution(
        self,
        value: Fraction,
        root: Node,
        facts: Stats | Wins,
        label: str,
        method: str,
        fields: dict,
    ) -> Solution:
        """The solution of the tree `root`: what every deduction solution says, then the
        objective's own `fields` (totals, or wins and costs)."""
        game, objective, position = self.game, self.objective, self.position
        self.stats["seconds"] = round(time.perf_counter() - self.t0, 4)
        return Solution(
            game=game.name,
            params=game.params,
            objective=objective,
            value=value,
            exact=True,
            proven=label not in UPPER_BOUNDS,
            status=label,
            strategy=DeductionStrategy(
                game, root, facts, label, method, position, objective.determine
            ),
            stats=self.stats,
            method=method,
            after=_where(game, position),
            secrets=facts.secrets,
            histogram=dict(facts.histogram),
            **fields,
        )


def solve_deduction(
    game: DeductionGame, objective: Objective = Objective(), options: SolveOptions = SolveOptions()
) -> Solution:
    """Solve `game`: the optimal strategy for `objective`, or a heuristic's strategy evaluated.

    The `options` (`SolveOptions`): `without` names speed-ups to switch off (fields of
    ``SpeedUps``): the value stays, only the time changes. With `workers` > 1 a position of at least
    ``root.PARALLEL_MIN_SECRETS`` secrets is split over that many lanes (threads of this
    process, ``root._Split``); None takes the core objective's ``lanes`` (one for the
    probability objectives' losses), else every core. `position` (guesses played with their feedbacks)
    solves from there; `first` imposes the next guess (an index into ``game.guesses()``).
    Guesses are counted from the start of the game (`max_guesses` and the horizon too).
    `store` (a ``Store``) answers what earlier solves proved and keeps what this one
    proves (``stored.py``), unless speed-ups are switched off (such runs measure the
    search); `cluster` ("local:N" or a Dask scheduler's address) hands
    the cells to a Dask cluster instead of `workers` threads (``cluster.py``).
    `top` searches every node over its `top` best guesses by bound only (the order the
    search tries them in): the value is then an upper bound, labelled so, not an optimum,
    and the store is not used.
    """
    strategy, max_guesses, workers = options.strategy, options.max_guesses, options.workers
    position, first, progress = options.position, options.first, options.progress
    store, cluster, top = options.store, options.cluster, options.top
    _check(strategy, max_guesses)
    speedups = switched_off(options.speedups, options.without)
    if objective.name not in ("expected", "worst", "probability", "probability-then-cost"):
        raise Unsupported(f"{game.name} does not support objective {objective.name!r}")
    probability = objective.name in ("probability", "probability-then-cost")
    costed = objective.name == "probability-then-cost"
    if costed and objective.determine:
        raise Unsupported(
            "probability-then-cost counts the guesses played: --determine does "
            "not go with it (the frontier takes both)"
        )
    if costed and not game.consistent_secrets_allowed():
        raise Unsupported(
            f"{game.name}: probability-then-cost needs every secret still "
            "possible to be an allowed guess (here the restriction can bar it)"
        )
    if probability:
        if strategy != "optimal" or max_guesses is not None:
            raise Unsupported(
                "the probability objective takes no --strategy or --max-guesses "
                "(its horizon is the number of guesses)"
            )
        if objective.horizon is None or objective.horizon <= len(position):
            raise Unsupported(
                f"{game.name}: the probability objective needs a horizon of at "
                f"least one guess more than the {len(position)} played, "
                f"got {objective.horizon}"
            )
    if strategy != "optimal" and first is not None:
        raise Unsupported("--first goes with the optimal strategy")
    if strategy != "optimal" and cluster is not None:
        raise Unsupported(
            "--cluster goes with the optimal strategy (a heuristic's strategy "
            "is built on this machine)"
        )
    if cluster is not None:  # reached (or refused) before any work, whatever the size
        from ..cluster import check_cluster

        check_cluster(cluster)
    if top is not None and (top < 1 or strategy != "optimal"):
        raise Unsupported(
            f"--top needs a number of guesses of at least 1 and the optimal "
            f"strategy's search, got {top} with {strategy}"
        )
    rules_limit = game.guess_limit()
    if probability and rules_limit is not None and objective.horizon > rules_limit:
        raise Unsupported(
            f"{game.name} allows {rules_limit} guesses: a horizon of "
            f"{objective.horizon} needs turns={objective.horizon}"
        )
    limit_text = f"--max-guesses {max_guesses}"
    if not probability and rules_limit is not None:
        if max_guesses is None or max_guesses > rules_limit:
            max_guesses = rules_limit  # the game's own limit: a solve never plays past it
            limit_text = f"the {rules_limit} guesses {game.name} allows"
    note = progress or (lambda msg: None)
    t0 = time.perf_counter()
    if speedups != SpeedUps() or top is not None:  # a run measuring the search, or one whose
        store = None  # values are upper bounds: nothing answered, nothing kept
    whole = None
    if store is not None and store.usable and strategy == "optimal":
        whole = solution_key(game, objective, max_guesses, position, first)
        found = stored_solution(store, whole, game, objective, max_guesses, position, first)
        if found is not None:
            note("answered whole from the store")
            if cluster is not None:
                found.stats["cluster"] = "not used: answered whole from the store"
            found.stats["seconds"] = round(time.perf_counter() - t0, 4)
            return found
    table = build_table(game)
    stats: dict = {"table_seconds": round(time.perf_counter() - t0, 4)}
    if options.note is not None:
        from .undeclared import note as note_symmetry

        note_symmetry(game, table.symmetry, options.note, compute_feedback)
    note(
        f"feedback {'table' if table.fb is not None else 'computed per node'}: "
        f"{len(table.guesses):,} guesses x {table.n_secrets:,} secrets"
    )
    subset = position_secrets(table, position)
    if objective.determine and len(subset) == 1:
        raise Unsupported(f"{game.name}: the position leaves one secret, determined already")
    if first is not None:
        allowed = game.restrict_guesses(position, table.guesses[first][None, :])
        if allowed is not None and not allowed[0]:
            raise Unsupported(
                f"{game.name}: {game.format_code(table.guesses[first])} is not "
                f"allowed here (the game's hard mode)"
            )
    played = len(position)
    if strategy != "optimal":
        playing = search_for(game, "expected", speedups)

        def choose(part: np.ndarray, history: History) -> int:
            return heuristic_guess(
                playing, part, history, strategy, speedups.obvious, speedups.table
            )

        root = build_tree(table, subset, position, choose)
        if objective.determine:
            root = prune_determined(table, root, subset)
        run = _Solving(game, objective, table, position, subset, stats, t0)
        return _tree_solution(run, root, HEURISTIC, strategy, max_guesses, limit_text)
    answers = AnswerStore(store, game, table) if store is not None and store.usable else None
    within = None  # the core's objective of a probability solve
    if probability:
        within = OBJECTIVES[core_objective("losses", objective.determine)]
        if costed:
            costliest = int(game.symbol_costs().max()) * game.length()
            within = probability_then_cost(
                len(subset), objective.horizon - played, costliest, objective.determine
            )
    lanes = open_lanes(workers, cluster, len(subset), within.lanes if within is not None else None)
    if cluster is not None:
        stats["cluster"] = cluster_use(cluster, len(subset))
    try:
        passes = _Passes(game, speedups, lanes, progress, position, subset, first, answers, top)
        note(
            "loading the search's compiled kernels (the first run after installing compiles "
            "them: about half a minute, then cached)"
        )
        on_a_thread(search_for(game, "expected", speedups, passes.searches, top).load_kernels)
        if within is not None:
            result = passes.within(within, objective.horizon - played)
        else:
            limit = guesses_left(
                game, len(subset), table.n_secrets, played, max_guesses, limit_text
            )
            root = optimal_tree(passes, table, objective.name, limit, objective.determine)
    except BaseException:  # Ctrl-C or an error: stop the workers now, not after their cells
        close_lanes(lanes, abort=True)
        raise
    close_lanes(lanes)
    stats["nodes"] = passes.nodes
    if answers is not None:
        tally = answers.tally
        stats["from_store"] = tally.read > 0 and tally.written == 0 and passes.nodes == 0
        stats["store"] = {
            "path": str(store.path),
            "read": tally.read,
            "written": tally.written,
            "journal_read": tally.journal_read,
            "journal_written": tally.journal_written,
        }
    label = PROVEN if first is None else PROVEN_GIVEN_FIRST
    if top is not None:
        label, strategy = SEARCHED_TOP, f"top {top}"
    run = _Solving(game, objective, table, position, subset, stats, t0)
    if within is not None:
        solution = _win_solution(run, result, within.loss_value, label, strategy)
    else:
        solution = _tree_solution(run, root, label, strategy, max_guesses, limit_text)
    if whole is not None:
        keep_solution(store, whole, solution, game)
    return solution


def _tree_solution(
    run: _Solving, root: Node, label: str, method: str, max_guesses: int | None, limit_text: str
) -> Solution:
    """The solution of a tree for the expected or worst objective."""
    st = tree_stats(run.table, root, run.subset, len(run.position), run.objective.determine)
    if max_guesses is not None and st.worst > max_guesses:
        raise Unsupported(
            f"the {method} strategy needs up to {st.worst} guesses, more than {limit_text}"
        )
    worst = run.objective.name == "worst"
    value = Fraction(st.worst) if worst else Fraction(st.total, st.secrets)
    fields = {"max_guesses": max_guesses, "total": st.total, "worst": st.worst}
    return run.solution(value, root, st, label, method, fields)


def _where(game: DeductionGame, position: History) -> str | None:
    """The position solved from, as the solution records it (None at the start)."""
    return format_position(game, position) if position else None


def _win_solution(
    run: _Solving, result: Answer, loss_value: int, label: str, method: str
) -> Solution:
    """The solution of a tree for a probability objective (the search's `result`)."""
    objective, n = run.objective, len(run.subset)
    losses, cost = divmod(result.value, loss_value)
    wins = n - losses
    root = result.tree
    by_depth = (
        wins_by_guess(run.table, root, run.subset, len(run.position), objective.determine)
        if root is not None
        else Counter()
    )
    if root is None or sum(by_depth.values()) != wins:
        raise AssertionError(f"the strategy tree wins {sum(by_depth.values())}, the search {wins}")
    run.stats["states"] = run.stats.pop("nodes")
    costed = objective.name == "probability-then-cost"
    fields = {
        "wins": wins,
        "total_cost": (
            _costs(run.game, run.table, root, run.subset, run.position, cost) if costed else None
        ),
    }
    facts = Wins(objective.name, objective.horizon, wins, n, dict(by_depth))
    return run.solution(Fraction(wins, n), root, facts, label, method, fields)


def _costs(game, table, root, subset, position, cost: int) -> int:
    """The total cost of the tree's guesses, checked against the search's own figure."""
    replayed = tree_cost(game, table, root, subset, position)
    if replayed != cost:
        raise AssertionError(f"the strategy tree costs {replayed}, the search says {cost}")
    return cost


def tree_cost(
    game: DeductionGame, table: Table, root: Node | None, subset: np.ndarray, position: History = ()
) -> int:
    """The total cost of the tree's guesses over `subset`: each guess's cost (the game's
    ``guess_cost`` after its history) times the secrets still possible when it is played."""
    total = 0
    stack = [(root, subset, position)] if root is not None else []
    while stack:
        node, part_set, history = stack.pop()
        total += game.guess_cost(table.guesses[node.guess], history) * len(part_set)
        for f, part in cells(table, node.guess, part_set):
            if f in node.children:
                stack.append((node.children[f], part, history + ((node.guess, f),)))
    return total


def suggest_guess(
    game: DeductionGame,
    consistent: Sequence[int] | np.ndarray,
    history: History = (),
    strategy: str = "optimal",
    objective: str = "expected",
    max_guesses: int | None = None,
) -> int | None:
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
        playing = search_for(game, "expected", SpeedUps(symmetry=symmetric))
        return heuristic_guess(playing, subset, history, strategy)
    core_objective = CORES[objective]
    if objective == "probability":
        if max_guesses is None:
            raise Unsupported("a probability suggestion needs the guesses left")
        return (
            search_for(game, "losses", SpeedUps(symmetry=symmetric))
            .best(subset, history, max_guesses)
            .guess
        )
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
