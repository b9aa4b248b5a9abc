"""The advisor: one function of the Api that every screen takes its advice from.

For a game (its rules: turns, mode, restrictions), an objective and a position,
`advise` returns an `Advice`: every option with its value (or proven bounds on it), its
worst case and whether it may be the secret, best first, and one label saying what
backs the numbers. The suggestion is the first option, so the advice line and the table
of options never disagree; the terminal's ``play``, the web board and its table, the
reviews and the Gymnasium optimal agent read it alike.

The whole objective (`whole_objective`): a game's limit on guesses (Wordle's turns, or
one asked for) is part of it. The fewest expected guesses under a limit is the seed's
lexicographic objective: the best chance to win within the limit, then the fewest
expected guesses (``probability-then-cost`` with every symbol costing 1). Ties are
broken in the order of strength: the smaller worst case, then a guess that may be the
secret, then the lowest code; each option's worst case is that of the best strategies
after it, so that following the suggestions never needs more guesses than the first
suggestion's worst case (``deduction/rank.py``, ``weigh_guesses``).

A deduction position is advised in stages (`stages`), each better than the last: the
opening book's first guess (Wordle's), the rule of thumb (the most parts, at once), the
same guesses with proven bounds on their value, and the exact ranking. `advise` with a
budget runs them in a worker for that long and returns the last that came (the web's
workers run `stages` alike). A Markov position is advised from its solved strategy.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Iterator

import numpy as np

from .engine import engine_of
from .errors import PerfectplayError, Unsupported
from .game import Game
from .objectives import WITHIN, Objective, objective_for
from .threading_layer import fork_is_safe

#: Options a deduction stage lists before the exact ranking (the rule of thumb's best).
TOP = 10
#: What backs the numbers, by stage (the book's labels are sentences of their own).
PROVEN = "proven optimal"
RULE_OF_THUMB = "rule of thumb: most parts, not proven best"
BEST_FOUND = "best found, not proven"
STRATEGY = "optimal: the solved strategy"
#: What the advice aims at, by objective, in plain words (every screen says it so).
GOALS = {
    "expected": "the fewest guesses on average",
    "worst": "the fewest guesses in the worst case",
    "probability": "the best chance to win within the guesses allowed",
    "probability-then-cost": "the best chance to win within the guesses allowed, then "
    "the least expected cost of the items guessed",
}


@dataclass(frozen=True)
class Bound:
    """Proven bounds on an option's value: `low` <= value <= `high` (None: that side not
    worked out)."""

    low: Fraction | None
    high: Fraction | None


@dataclass(frozen=True)
class Option:
    """One move at a position with its numbers.

    `action` is the move (a guess index, a Markov choice number) and `label` the move as
    the game writes it. `value` is counted from the position to the end, this move
    included (expected guesses, the worst case, the chance to win within the limit,
    exact; a Markov game's expected cost or points to come, exact where its strategy is,
    else its float, "optimal to tolerance"; None: not known exactly, then `bound` may
    hold bounds). `then` is the second part of a lexicographic value (the
    expected guesses from the position, where the value is a chance). `worst` is the most
    guesses to the end, this one included, of the best strategies after it (within the
    limit). `may_be_secret`: the guess may be the secret. `optimal`: proven optimal under
    the objective. `parts`, `largest`: how the guess splits the secrets still possible.
    """

    action: int
    label: str
    value: Fraction | float | None = None
    bound: Bound | None = None
    worst: int | None = None
    may_be_secret: bool = False
    optimal: bool = False
    then: Fraction | None = None
    parts: int | None = None
    largest: int | None = None
    #: One of each kind of guess alike under the game's symmetry (the others have its
    #: numbers): the ones a table lists.
    kind: bool = True
    #: The standard deviation of the final score (or cost) when the strategy is played
    #: after this move, where the strategy knows it (a staged game's: ``Strategy.spread``).
    spread: float | None = None


@dataclass(frozen=True)
class Advice:
    """The advice at a position: its `options`, best first (the suggestion is the first),
    one `label` for all its numbers, whether the first is `proven` optimal under the
    `objective` (the whole one: its horizon the limit on guesses), and whether it is
    `final` (no better advice will come). `chance`: the values are chances to win
    within the limit. `left`: the guesses left within the limit (None: no limit);
    `over`: none is left, the game is lost."""

    objective: Objective
    options: tuple[Option, ...]
    label: str
    proven: bool = False
    final: bool = False
    chance: bool = False
    left: int | None = None
    over: bool = False

    @property
    def suggestion(self) -> Option | None:
        """The suggested move: the first option (None once the game is over)."""
        return self.options[0] if self.options else None

    @property
    def worst(self) -> int | None:
        """The worst case of following the suggestions from here (the suggestion's)."""
        return None if not self.options else self.options[0].worst

    def listed(self, top: int = TOP) -> tuple[Option, ...]:
        """The first `top` options a table lists: the suggestion, then one of each kind
        of guess alike under the game's symmetry."""
        rest = [o for o in self.options[1:] if o.kind]
        return self.options[:1] + tuple(rest[: top - 1])

    @property
    def exact(self) -> bool:
        """Whether the options carry exact values (else bounds, or nothing)."""
        return bool(self.options) and self.options[0].value is not None


# --- the whole objective ---------------------------------------------------------------
def whole_objective(
    game: Game, objective: Objective | None = None, limit: int | None = None
) -> Objective:
    """The objective the advice serves: `objective` (the game's own by default) with the
    limit on guesses folded in (the game's own, such as Wordle's turns, `limit` if given,
    the objective's horizon: the least). Under a limit, the fewest expected guesses
    becomes the lexicographic objective (the best chance within the limit, then the
    fewest expected guesses: ``probability-then-cost``), where the game counts every
    symbol at 1 (else, and for ``determine``, the limit is left to the screens)."""
    base = objective or objective_for(game)
    own = game.guess_limit() if hasattr(game, "guess_limit") else None
    limits = [n for n in (own, limit, base.horizon) if n is not None]
    cap = min(limits) if limits else None
    if base.name in WITHIN:
        return Objective(base.name, cap, base.determine)
    if base.name == "expected" and cap is not None and not base.determine:
        if "probability-then-cost" in game.objectives and _counts_guesses(game):
            return Objective("probability-then-cost", cap)
    return base


def _counts_guesses(game) -> bool:
    """Whether every symbol of `game` costs 1 and none is free (its cost counts guesses)."""
    costs = np.asarray(game.symbol_costs())
    return bool((costs == 1).all()) and not game.forced_free()


def column(objective: Objective, chance: bool) -> str:
    """What an option's value is under `objective`, in a table's heading."""
    if chance:
        return f"chance to win in {objective.horizon}"
    if objective.name == "worst":
        return "worst case"
    if objective.name == "probability-then-cost":
        return f"expected guesses (all found within {objective.horizon})"
    return "expected guesses"


def note(advice: Advice) -> str:
    """What backs the suggestion and its numbers ("proven optimal; 3.2188 (103/32)
    guesses, worst case 4"), as every screen says it after the suggestion."""
    first = advice.suggestion
    worst = "" if first.worst is None else f", worst case {first.worst}"
    return f"{advice.label}{value_text(advice, first)}{worst}"


def advice_line(game: Game, advice: Advice) -> str:
    """The suggestion with what backs it and its numbers, as every screen says it."""
    return f"{advice.suggestion.label} ({note(advice)})"


def value_text(advice: Advice, option: Option) -> str:
    """An option's number as the advice line shows it ("" when it has none)."""
    if option.value is not None:
        if advice.chance:
            return f"; chance {float(option.value):.4f} ({option.value})"
        return f"; {float(option.value):.4f} ({option.value}) guesses"
    if option.bound is not None and option.bound.high is not None and not advice.chance:
        return f"; at most {float(option.bound.high):.4f} guesses"
    return ""


# --- the advisor -----------------------------------------------------------------------
def advise(
    game: Game,
    position: Any = (),
    objective: Objective | None = None,
    *,
    budget: float | None = None,
    strategy: Any = None,
) -> Advice:
    """The advice at `position` of `game` for `objective` (the game's own by default,
    its limit on guesses included: `whole_objective`).

    A deduction position is a history of (guess index, feedback) pairs; with `budget`
    seconds the stages run in a worker for that long and the last that came is returned
    (the rule of thumb at least); without, every stage runs (the exact ranking: minutes
    or more for Wordle's first turns). A Markov position is a ``strategy.Decision``,
    advised from `strategy` (solved here when not given)."""
    if game.kind == "markov":
        return markov_advice(game, position, objective, strategy)
    aim = whole_objective(game, objective)
    if budget is None:
        *_, last = stages(game, position, aim)
        return last
    quick = next(stages(game, position, aim, exact=False))  # (the tables built here)
    if quick.final or budget <= 0:
        return quick
    _load_kernels(game, aim)  # here, so that the worker starts with them loaded
    found = _within(budget, game, position, aim)
    return found if found is not None else quick


def _load_kernels(game, objective: Objective) -> None:
    """Load the search's compiled cores the exact stage uses for `objective`."""
    engine = engine_of(game)
    cores = {"expected": ("expected",), "worst": ("worst",), "probability": ("losses",)}
    for core in cores.get(objective.name, ("expected", "losses")):
        engine.load_kernels(game, f"{core}-determine" if objective.determine else core)


def stages(game: Game, history, objective: Objective, exact: bool = True) -> Iterator[Advice]:
    """The advice at the deduction position `history` under the whole `objective`, stage
    by stage, each better than the last (see the module's docstring); the last is final.
    `exact` False: the quick stages only."""
    played = len(history)
    left = None if objective.horizon is None else objective.horizon - played
    if left is not None and left <= 0:
        yield Advice(objective, (), "no guesses left", final=True, left=0, over=True)
        return
    engine = engine_of(game)
    consistent = consistent_secrets(game, history)
    chance_aim = objective.name == "probability" or (
        objective.name == "probability-then-cost" and left is not None and left <= 1
    )
    opening = _book(game, history, objective)
    ranked = _ranked(objective)
    kinds = engine.rule_of_thumb(game, ranked, history, "most-parts")  # one of each kind
    picks = list(kinds[:TOP])
    if left == 1:  # the last guess: one that may be the secret, first
        picks = _secrets_first(game, consistent, picks)
    rows = _split(game, consistent, picks)
    if opening is not None:
        book = _book_option(game, consistent, opening, played)
        rows = (book, *(r for r in rows if r.action != book.action))
        yield Advice(
            objective,
            rows,
            opening.label,
            proven=opening.proven,
            final=False,
            left=left,
        )
    else:
        yield Advice(objective, rows, RULE_OF_THUMB, final=False, chance=chance_aim, left=left)
    if not exact:
        return
    last = None
    if ranked.name in ("expected", "worst", "probability") and (left is None or left > 2):
        for known in engine.bounds(game, ranked, history, np.asarray(picks, dtype=np.int64)):
            last = _bounded(objective, ranked, played, rows, known, opening)
            yield last
    if opening is not None:  # the exact ranking of a book's positions takes minutes or hours
        if last is not None:
            yield replace(last, final=True)
        return
    yield _exact(game, history, consistent, objective, left, set(kinds.tolist()))


def _ranked(objective: Objective) -> Objective:
    """The objective the quick stages rank under (no lexicographic one there): the
    fewest expected guesses for the lexicographic objective."""
    if objective.name == "probability-then-cost":
        return Objective("expected", determine=objective.determine)
    return objective


def _book(game, history, objective: Objective):
    """The book's guess where it answers for `objective` (``book.book_at``): at a
    position of its strategy (its start included) in a game played for the fewest
    expected guesses (or the lexicographic objective under a limit its strategy keeps
    within)."""
    from .book import book_at

    if objective.determine:
        return None
    if objective.name == "expected" or (
        objective.name == "probability-then-cost" and _counts_guesses(game)
    ):
        opening = book_at(game, history)
        if opening is None:
            return None
        if objective.horizon is not None and (opening.worst or 1 << 30) > objective.horizon:
            return None
        return opening
    return None


def _book_option(game, consistent: np.ndarray, opening, played: int) -> Option:
    """The book's guess as an option: its strategy's value exact (of that strategy;
    optimal where it is proven so: ``book.book_at``)."""
    row = _split(game, consistent, [opening.guess])[0]
    value = opening.value(game) - played
    return replace(
        row,
        value=value if opening.proven else None,
        bound=None if opening.proven else Bound(None, value),
        worst=None if opening.worst is None else opening.worst - played,
        optimal=opening.proven,
    )


def _secrets_first(game, consistent: np.ndarray, picks: list[int]) -> list[int]:
    """`picks` with the guesses that may be the secret first (one added if none is)."""
    secret = _secret_guesses(game, consistent)
    first = [g for g in picks if g in secret]
    if not first:
        first = [min(secret)]
    return first + [g for g in picks if g not in first]


def _secret_guesses(game, consistent: np.ndarray) -> set[int]:
    """The guess indices of the secrets `consistent` (indices of ``game.secrets()``)."""
    guesses = game.guesses()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    codes = game.secrets()[consistent].tolist()
    return {index[tuple(c)] for c in codes if tuple(c) in index}


def _split(game, consistent: np.ndarray, picks) -> tuple[Option, ...]:
    """Each guess of `picks` as an option with how it splits the secrets `consistent`."""
    picks = np.asarray(list(picks), dtype=np.int64)
    if not len(picks):
        return ()
    codes = game.guesses()
    table = engine_of(game).feedback(game, codes[picks], game.secrets()[consistent])
    secret = _secret_guesses(game, consistent)
    rows = []
    for i, g in enumerate(picks.tolist()):
        sizes = np.unique(table[i], return_counts=True)[1]
        rows.append(
            Option(
                g,
                game.format_code(codes[g]),
                may_be_secret=g in secret,
                parts=len(sizes),
                largest=int(sizes.max()),
            )
        )
    return tuple(rows)


def _bounded(objective, ranked, played, rows, known, opening) -> Advice:
    """The rule of thumb's `rows` with the engine's bounds `known` on each, the best
    found first; under a limit, a strategy needing more guesses bounds nothing."""
    by_guess = {b.guess: b for b in known}
    chance = ranked.name == "probability"
    proven = next((r.value for r in rows if r.optimal), None)  # the book's, if proven
    listed = []
    for row in rows:
        if row.optimal:  # the book's, proven
            listed.append(row)
            continue
        b = by_guess.get(row.action)
        if b is None:
            continue
        low, high = (None if v is None else (v if chance else v - played) for v in (b.low, b.high))
        worst = None if b.worst is None else b.worst - played
        limit = objective.horizon
        if limit is not None and not chance and (worst is None or worst + played > limit):
            high = None  # its strategy leaves the limit: no bound within it
        if proven is not None:  # no opening does better than the book's proven one
            low = proven if low is None else max(low, proven)
        listed.append(replace(row, bound=Bound(low, high), worst=worst))

    def found(o: Option):
        if o.optimal:
            return (0, Fraction(0))
        side = o.bound.low if chance else o.bound.high
        return (1 if side is None else 0, -(side or 0) if chance else (side or 0))

    listed.sort(key=found)
    if opening is None:
        label = BEST_FOUND
    elif proven is not None:  # the suggestion is the book's, proven: its label says so
        label = opening.label
    else:
        label = f"{BEST_FOUND}; {rows[0].label}: {opening.label}"
    return Advice(
        objective, tuple(listed), label, proven=proven is not None, final=False, chance=chance
    )


def _exact(
    game, history, consistent, objective: Objective, left: int | None, kinds: set[int]
) -> Advice:
    """Every useful guess weighed exactly (``engine.weigh``), best first in the order of
    strength; the best proven optimal; those of `kinds` (one of each kind of guess alike
    under the game's symmetry) marked ``Option.kind``."""
    weighed, chance = engine_of(game).weigh(game, objective, history)
    played = len(history)
    split = {o.action: o for o in _split(game, consistent, [w.guess for w in weighed])}
    best = weighed[0]
    rows = []
    for w in weighed:
        value = w.value if w.value is None or chance else w.value - played
        then = None if w.then is None else w.then - played
        rows.append(
            replace(
                split[w.guess],
                value=value,
                then=then,
                worst=None if w.worst is None else w.worst - played,
                optimal=w.value is not None and (w.value, w.then) == (best.value, best.then),
                kind=w.guess in kinds,
            )
        )
    return Advice(objective, tuple(rows), PROVEN, proven=True, final=True, chance=chance, left=left)


def consistent_secrets(game, history) -> np.ndarray:
    """The indices of the secrets the guesses and feedbacks of `history` leave possible."""
    guesses, secrets = game.guesses(), game.secrets()
    left = np.arange(len(secrets))
    for g, f in history:
        left = left[engine_of(game).feedback(game, guesses[[g]], secrets[left])[0] == f]
    return left


# --- a budget ----------------------------------------------------------------------------
def _within(budget: float, game, history, objective: Objective) -> Advice | None:
    """The last stage a worker sends within `budget` seconds (None: none came)."""
    if budget <= 0:
        return None
    ctx = _worker_context(game)
    receive, send = ctx.Pipe(duplex=False)
    worker = ctx.Process(target=_send_stages, args=(send, game, history, objective), daemon=True)
    worker.start()
    send.close()
    found = None
    deadline = _now() + budget
    try:
        while True:
            wait = deadline - _now()
            if wait <= 0 or not receive.poll(wait):
                break
            found = receive.recv()
            if found is None or found.final:
                break
    except EOFError:  # the worker ended: all it had is said
        pass
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()
        receive.close()
    return found


def _now() -> float:
    import time

    return time.monotonic()


def _worker_context(game):
    """Fork where numba's threading layer allows it; else the fork server (the search
    modules imported once in it), or spawn where there is none."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and fork_is_safe():
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(getattr(engine_of(game), "worker_modules", ())))
    return ctx


def _send_stages(send, game, history, objective: Objective) -> None:
    """The worker's side of `_within`: each stage sent as it comes."""
    multiprocessing.set_start_method("spawn", force=True)  # (no inter-process lock left)
    try:
        for advice in stages(game, history, objective):
            send.send(advice)
    except (PerfectplayError, MemoryError):
        pass
    finally:
        send.close()


# --- Markov games ------------------------------------------------------------------------
def check_markov_objective(game, objective: Objective) -> None:
    """Refuse, in one line, an objective the Markov advice does not value: it values the
    expected objective, and a target score of a scored game solved by stages (a graph's
    policy by budget records its values for the whole horizon only)."""
    staged_target = game.pays and game.stages() is not None
    if objective.name != "expected" and not (objective.name == "probability" and staged_target):
        raise Unsupported(
            f"{game.name}: advice with values is for the expected objective, or a target "
            "score of a scored game solved by stages"
        )


def markov_advice(game, decision, objective: Objective | None = None, strategy=None) -> Advice:
    """The advice at the Markov position `decision` (a ``strategy.Decision``) from the
    solved `strategy` (solved here when not given): every legal choice with its expected
    cost (or points) to come (and its standard deviation, where the strategy knows it),
    or, playing for a target (the probability objective of a scored game solved by
    stages; ``decision.budget`` the points still needed, the whole target if None), its
    best chance of reaching it; the strategy's choice first among the best, the others
    best first."""
    from .catalogue import strategy_of
    from .engine import solve
    from .markov import contract
    from .strategy import Decision

    aim = objective or objective_for(game)
    check_markov_objective(game, aim)
    target = aim.name == "probability"
    if strategy is None:
        strategy = strategy_of(game, solve(game, aim, exact=False))
    state, k = int(decision.state), int(decision.outcome)
    needed = (aim.horizon if decision.budget is None else decision.budget) if target else None
    exp = contract.expansion(game, np.array([state], dtype=np.int64))
    cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
    legal = np.flatnonzero(exp.next[0, k] >= 0).tolist()
    sign = -1 if target else game.measure.sign  # (chances: the highest first)
    options = []
    for c in legal:
        target_code = int(exp.next[0, k, c])
        if target:
            value = strategy.value(target_code, needed - int(cost[c]))
            spread = None
        else:
            done = bool(contract.terminal(game, np.array([target_code], dtype=np.int64))[0])
            after = 0.0 if done else strategy.value(target_code)
            value = None if after is None else float(cost[c]) + after
            spread = 0.0 if done else strategy.spread(target_code)
        options.append(Option(c, game.describe_choice(state, k, c), value, spread=spread))
    chosen = strategy.action(Decision(state, k, needed))

    def key(o: Option):
        return (o.value is None, sign * (o.value or 0.0), o.action != chosen, o.action)

    options.sort(key=key)
    best = options[0].value
    options = [replace(o, optimal=o.value is not None and o.value == best) for o in options]
    return Advice(aim, tuple(options), STRATEGY, proven=True, final=True)
