"""The interactive advisor for deduction games (seed 002's helper, for every game).

Each turn it suggests a guess for the game's own objective (fewest expected guesses, or
the best chance to win within the turns left for games such as Item Matching), from the
optimal search when that finishes within a time budget and from a heuristic otherwise
(it says which), and shows how many secrets are still possible (listing them when few).
Where the price of every guess comes within the budget too, the best few are shown and
a tie among optimal guesses goes to the lowest code (the search's own pick among them
depends on its order of trial), as the prices' line says.
The person types the guess they played (Enter accepts the suggestion) and the feedback
in the game's notation; or the tool holds the secret and answers itself. Feedback that
no secret fits is refused without losing the game, and ``undo`` takes back a turn.
Consistency is tracked with the game's feedback kernel on the secrets still possible, so
no full feedback table is needed.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from ..deduction.contract import codes, feedback, same_answer, sizes
from ..deduction.model import BadCode, DeductionGame, History
from ..engine import engine_of
from ..errors import PerfectplayError
from ..objectives import WITHIN, Objective, objective_for
from ..threading_layer import fork_is_safe
from ..book import opening_at
from .console import COMMANDS_HELP, Console, Undo

#: What the advice aims at, in plain words, by objective.
GOALS = {
    "expected": "the fewest guesses on average",
    "worst": "the fewest guesses in the worst case",
    "probability": "the best chance to win within the guesses allowed",
    "probability-then-cost": "the best chance to win within the guesses allowed, then "
    "the least expected cost of the items guessed",
}
#: Consistent sets up to this size are listed in full.
LIST_LIMIT = 12
#: How many of the best guesses the advisor prices (``rank``), within the time budget.
TOP_PRICED = 3


@dataclass
class Turn:
    """The position before a turn: what is still possible, the turns played, and the
    suggestion once computed (kept, so that undo or a refused feedback costs nothing)."""

    consistent: np.ndarray
    history: History = ()
    played: list[str] = field(default_factory=list)
    suggestion: tuple[int, str] | None = None
    prices: object = None  # the Ranking of every guess here, when it came within the budget


@dataclass(frozen=True)
class Suggestion:
    """A suggested guess (its index), where it comes from, for a person ("optimal", a
    heuristic's name, the opening book's label), and whether it is final: the best this
    position gets (nothing better is worth waiting for)."""

    guess: int
    source: str
    final: bool


def _suggest_fewest(game: DeductionGame, turn: Turn, heuristic: str | None, objective: str) -> int:
    """The heuristic's guess, or (`heuristic` None) the optimal one for `objective`: the
    fewest guesses on average (``expected``) or in the worst case (``worst``)."""
    engine = engine_of(game)
    if heuristic is None:
        return engine.suggest(game, turn.consistent, turn.history, objective=objective)
    return engine.suggest(game, turn.consistent, turn.history, strategy=heuristic)


def _suggest_probability(game: DeductionGame, turn: Turn, left: int, lookahead: int | None) -> int:
    """The guess maximising the secrets revealed within `left` guesses (or, as a heuristic,
    within min(left, lookahead))."""
    engine = engine_of(game)
    t = left if lookahead is None else min(left, lookahead)
    guess = engine.suggest(
        game, turn.consistent, turn.history, objective="probability", max_guesses=max(t, 1)
    )
    if guess is None:  # nothing can be won any more: still make the most informative guess
        guess = engine.suggest(game, turn.consistent, turn.history, strategy="most-parts")
    return guess


def _suggest_cheapest(game: DeductionGame, turn: Turn, objective: Objective) -> int:
    """The guess of the optimal strategy for ``probability-then-cost`` from the turn's
    position: the best chance to win within the horizon, then the least expected cost of
    the items guessed (the search solves the position; its first guess is the answer)."""
    solution = engine_of(game).solve(game, objective, position=turn.history)
    return int(solution.strategy.root.guess)


def _ranking(game: DeductionGame, turn: Turn, objective: Objective):
    """The exact price of every guess at the turn's position under `objective` (the
    engine's ranking; probability-then-cost's by its chance alone)."""
    return engine_of(game).ranking(game, objective.ranked, turn.history)


def _in_time(budget: float, fn, *args, convert=int):
    """fn(*args) in a separate process, or None if it takes longer than `budget` seconds
    or the process fails (then the heuristic answers at once, not after the budget).

    The worker is forked (it starts with this process's compiled kernels loaded) when
    numba's threading layer allows it (``threading_layer.fork_is_safe``); after GNU
    OpenMP ran here it comes from a fork server instead, a fresh interpreter that forks.
    """
    if budget <= 0:
        return None
    ctx = _worker_context()
    receive, send = ctx.Pipe(duplex=False)
    worker = ctx.Process(target=_answer, args=(send, fn, args), daemon=True)
    worker.start()
    send.close()
    try:
        if receive.poll(budget):
            answer = receive.recv()
            return None if answer is None else convert(answer)
        return None
    except EOFError:  # the worker died without answering
        return None
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()
        receive.close()


def _worker_context():
    """Fork where safe; else the fork server, with the search modules imported once in the
    server so that each worker starts with them (or spawn where there is no fork server)."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and fork_is_safe():
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(engine_of(DeductionGame).worker_modules))
    return ctx


def _answer(send, fn, args) -> None:
    """The worker's side of `_in_time`: send fn(*args), or None if it fails or is stopped."""
    # The worker starts no process of its own; saying so keeps numba from creating an
    # inter-process lock that the worker's exit would leave behind (a resource-tracker
    # warning about leaked semaphores at the end of the game).
    multiprocessing.set_start_method("spawn", force=True)
    try:
        answer = fn(*args)
    except BaseException:  # noqa: BLE001 - the heuristic answers instead
        answer = None
    send.send(answer)


def _load_search(game: DeductionGame, objective: str) -> None:
    """Load the compiled search core into this process (from numba's disk cache)."""
    engine_of(game).load_kernels(game, objective)


def suggest(
    game: DeductionGame, turn: Turn, budget: float, heuristic: str, objective: Objective
) -> tuple[int, str]:
    """The suggested guess for `objective` (its horizon counted from the start of the
    game) and where it comes from ("optimal" or the heuristic's name).

    The optimal search runs in a separate process so that it can be stopped when the
    budget runs out; the heuristic then answers. The compiled search is loaded here first
    (and, for a game's first suggestion, the heuristic runs here first), so that the
    forked workers of this and later turns start with the compiled code instead of
    spending their budget loading it.
    """
    booked = _from_book(game, turn, objective)
    if booked is not None:
        return booked.guess, booked.source
    _load_search(game, objective.name)
    (label, (quick, *arguments)), (_, optimal) = _advisors(game, turn, objective, heuristic)
    early = None
    if game not in _WARM and budget > 0:
        early = quick(*arguments)
        _WARM.add(game)
    found = _in_time(budget, *optimal)
    if found is not None:
        return found, "optimal"
    return (quick(*arguments) if early is None else early), label


def _advisors(game: DeductionGame, turn: Turn, objective: Objective, heuristic: str):
    """The two ways to a suggestion at `turn` for `objective`, quick first, as (label,
    (function, *arguments)): the heuristic (for the objectives with a horizon, the best
    two-guess lookahead) and the optimal search."""
    if objective.name in WITHIN:
        left = objective.horizon - len(turn.history)
        optimal = (
            (_suggest_cheapest, game, turn, objective)
            if objective.name == "probability-then-cost"
            else (_suggest_probability, game, turn, left, None)
        )
        return (
            ("best two-guess lookahead", (_suggest_probability, game, turn, left, 2)),
            ("optimal", optimal),
        )
    return (
        (heuristic, (_suggest_fewest, game, turn, heuristic, objective.name)),
        ("optimal", (_suggest_fewest, game, turn, None, objective.name)),
    )


def _from_book(game: DeductionGame, turn: Turn, objective: Objective) -> Suggestion | None:
    """The first guess of the game's opening book (``book.py``), at the start of a game
    played for the fewest expected guesses; None elsewhere or without a book."""
    opening = opening_at(game, turn.history, objective)
    return None if opening is None else Suggestion(opening.guess, opening.label, final=True)


def consistent_secrets(game: DeductionGame, history: History) -> np.ndarray:
    """The indices of the secrets the guesses and feedbacks of `history` leave possible."""
    guesses, secrets = game.guesses(), game.secrets()
    left = np.arange(len(secrets))
    for g, f in history:
        left = left[engine_of(game).feedback(game, guesses[[g]], secrets[left])[0] == f]
    return left


def advice_at(
    game: DeductionGame,
    history: History,
    objective: Objective,
    heuristic: str = "most-parts",
    book: bool = True,
) -> Iterator[Suggestion]:
    """The suggestions at the position `history` for `objective` (its horizon counted
    from the start of the game): the opening book's alone where it has
    one (``_from_book``; unless `book` is False), else the heuristic's first (quick), then
    the optimal search's (which may take long: a caller with a time budget ends it),
    labelled as `suggest` labels them (``_advisors``)."""
    turn = Turn(consistent_secrets(game, history), history)
    booked = _from_book(game, turn, objective) if book else None
    if booked is not None:
        yield booked
        return
    for label, (function, *arguments) in _advisors(game, turn, objective, heuristic):
        yield Suggestion(function(*arguments), label, final=label == "optimal")


#: Games whose compiled kernels this process has loaded (see `suggest`).
_WARM: set[DeductionGame] = set()


def play_deduction(
    game: DeductionGame,
    console: Console,
    *,
    secret: str | None = None,
    seed: int | None = None,
    budget: float = 2.0,
    heuristic: str = "most-parts",
    objective: Objective | None = None,
) -> int:
    """Run one advised game, the advice for `objective` (the game's own by default);
    returns the number of guesses played (0 if lost). The rules are read checked
    (``contract``), as the engine reads them."""
    size = sizes(game)
    guesses, secrets = codes(game, size)[:2]
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    hidden = _pick_secret(game, secrets, secret, seed)
    aim = objective or objective_for(game)
    horizon = aim.horizon
    goal = GOALS[aim.name].replace("the guesses allowed", f"{horizon} guesses")
    console.say(
        f"[bold]{game}[/bold]: {len(secrets):,} possible secrets; advice aims at {goal}. "
        + (
            "I hold the secret. "
            if hidden is not None
            else f"Feedback like {game.format_feedback(0)!r}. "
        )
        + COMMANDS_HELP
    )
    turns = [Turn(np.arange(len(secrets)))]
    terminal = console.interactive and console.stdout.isatty()
    solved = size.solved
    while True:
        turn = turns[-1]
        if horizon is not None and len(turn.played) >= horizon:
            console.say(
                "[bold]no guesses left[/bold]: "
                + (
                    f"the secret was {game.format_code(secrets[hidden])}"
                    if hidden is not None
                    else f"the secret was one of the {len(turn.consistent):,} still possible"
                )
            )
            return 0
        _show_possible(game, secrets, turn, console)
        if turn.suggestion is None:
            started = time.monotonic()
            turn.suggestion = suggest(game, turn, budget, heuristic, aim)
            left = budget - (time.monotonic() - started)  # (one budget for both)
            if turn.suggestion[1] == "optimal" and left > 0:
                turn.prices = (
                    _in_time(left, _ranking, game, turn, aim, convert=lambda r: r) or False
                )
            if turn.prices and aim.ranked == aim:  # of the optimal, the lowest code
                turn.suggestion = (turn.prices.guesses[0].guess, "optimal")
        guess, source = turn.suggestion
        console.say(
            f"suggested guess: [green]{game.format_code(guesses[guess])}[/green] ({source})"
        )
        if turn.prices:
            _show_prices(game, turn.prices, console, by_cost=aim.ranked != aim)
        try:
            played = _ask_guess(game, guesses, index, turn, console, guess)
        except Undo:
            if len(turns) > 1:
                turns.pop()
                console.say("took back the last turn")
            else:
                console.say("nothing to undo")
            continue
        try:
            fb, rest = _consistent_feedback(game, console, guesses, secrets, turn, played, hidden)
        except Undo:
            console.say("took back that guess")
            continue
        if turn.prices and played != guess:
            console.say(_compare(game, turn.prices, played, aim))
        said = f"{game.format_code(guesses[played])} -> {game.display_feedback(fb, terminal)}"
        if fb == solved:
            n = len(turn.played) + 1
            console.say(f"[bold]solved in {n} guess{'es' if n != 1 else ''}[/bold]")
            return len(turn.played) + 1
        turns.append(Turn(rest, turn.history + ((played, fb),), turn.played + [said]))


def _show_prices(game: DeductionGame, ranking, console: Console, by_cost: bool = False) -> None:
    """The best few guesses with their exact values, how many are optimal (and how many
    up to symmetry, where it merged some), and how a tie is broken: the suggestion is the
    lowest code of the optimal guesses (the ranking's first), or `by_cost` the one whose
    items cost least on average (probability-then-cost, whose ranking is by chance)."""
    codes = game.guesses()
    best = ", ".join(
        f"{game.format_code(codes[p.guess])} {float(p.value):.4f} ({p.value})"
        for p in ranking.guesses[:TOP_PRICED]
    )
    optimal = len(ranking.optimal())
    merged = (
        f" ({ranking.optimal_classes} up to symmetry)" if ranking.optimal_classes != optimal else ""
    )
    tie = (
        ""
        if optimal == 1
        else ", the tie broken by the items' expected cost"
        if by_cost
        else ", the tie broken by the lowest code"
    )
    console.say(f"  best guesses here: {best}; {optimal} optimal{merged}{tie}")


def _compare(game: DeductionGame, ranking, played: int, objective: Objective) -> str:
    """What the guess typed costs against the best one ("CRANE costs 0.004 guesses more
    than SALET here, on average")."""
    codes = game.guesses()
    mine, top = ranking.price(played), ranking.guesses[0]
    name, best = game.format_code(codes[played]), game.format_code(codes[top.guess])
    if mine is None:
        return f"  {name} learns nothing here"
    gap = mine.value - top.value
    if gap == 0:
        return f"  {name} is optimal here too"
    if objective.name in WITHIN:
        return f"  {name} wins with probability {float(-gap):.6f} ({-gap}) less than {best} here"
    if objective.name == "worst":
        return f"  {name} needs {gap} guesses more than {best} here, in the worst case"
    return f"  {name} costs {float(gap):.4f} ({gap}) guesses more than {best} here, on average"


def _consistent_feedback(
    game: DeductionGame,
    console: Console,
    guesses: np.ndarray,
    secrets: np.ndarray,
    turn: Turn,
    played: int,
    hidden: int | None,
) -> tuple[int, np.ndarray]:
    """The feedback to the guess `played` (the rules' own when the tool holds the secret)
    and the secrets it leaves. Feedback that no secret still possible fits is refused and
    asked for again: the guess stands (``undo`` takes it back)."""
    row = engine_of(game).feedback(game, guesses[[played]], secrets[turn.consistent])[0]
    if hidden is not None:
        fb = feedback(game, guesses[played], secrets[hidden])
        for other in row[turn.consistent == hidden]:  # the same pair, answered by the kernel
            same_answer(game, guesses[played], secrets[hidden], fb, other)
        console.say(
            f"feedback: {game.display_feedback(fb, console.interactive and console.stdout.isatty())}"
        )
        return fb, turn.consistent[row == fb]
    while True:
        fb = _ask_feedback(game, console)
        rest = turn.consistent[row == fb]
        if len(rest):
            return fb, rest
        console.say(
            f"[red]no secret is consistent with {game.format_code(guesses[played])} -> "
            f"{game.format_feedback(fb)}[/red]; nothing changed. Type the feedback "
            "again, or undo to take back the guess"
        )


def _pick_secret(
    game: DeductionGame, secrets: np.ndarray, secret: str | None, seed: int | None
) -> int | None:
    if secret is None:
        return None
    if secret == "random":
        return random.Random(seed).randrange(len(secrets))
    code = np.array(game.parse_code(secret), dtype=secrets.dtype)
    where = np.flatnonzero((secrets == code).all(axis=1))
    if not len(where):
        raise PerfectplayError(f"{secret!r} is not a possible secret of {game}")
    return int(where[0])


def _show_possible(game: DeductionGame, secrets: np.ndarray, turn: Turn, console: Console) -> None:
    n = len(turn.consistent)
    console.say(
        f"\nturn {len(turn.played) + 1}: {n:,} secret{'s' if n != 1 else ''} still possible"
    )
    if n <= LIST_LIMIT:
        console.say("  " + " ".join(game.format_code(secrets[s]) for s in turn.consistent))


def _ask_guess(
    game: DeductionGame,
    guesses: np.ndarray,
    index: dict,
    turn: Turn,
    console: Console,
    suggestion: int,
) -> int:
    allowed = game.restrict_guesses(turn.history, guesses)
    shown = game.format_code(guesses[suggestion])
    hint = f"type the guess you played, like {shown}, or Enter for the suggestion; {COMMANDS_HELP}"
    while True:
        line = console.ask(f"your guess (Enter = {shown}):", hint)
        if line == "":
            return suggestion
        try:
            code = tuple(int(x) for x in game.parse_code(line))
        except BadCode as err:
            console.say(f"{err}")
            continue
        if code not in index:
            console.say(f"{line} is not one of the guesses of {game}")
            continue
        if allowed is not None and not allowed[index[code]]:
            console.say(
                f"{line} is not allowed here: {game.refusal(turn.history, guesses[index[code]])}"
            )
            continue
        return index[code]


def _ask_feedback(game: DeductionGame, console: Console) -> int:
    hint = f"{game.feedback_help()}; {COMMANDS_HELP}"
    while True:
        line = console.ask("feedback:", hint)
        try:
            return game.parse_feedback(line)
        except BadCode as err:  # the game's message says what it expected
            console.say(str(err))
