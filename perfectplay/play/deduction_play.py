"""The interactive advisor for deduction games (seed 002's helper, for every game).

Each turn it suggests a guess for the game's own objective (fewest expected guesses, or
the best chance to win within the turns left for games such as Item Matching), from the
optimal search when that finishes within a time budget and from a heuristic otherwise
(it says which), and shows how many secrets are still possible (listing them when few).
The person types the guess they played (Enter accepts the suggestion) and the feedback
in the game's notation; or the tool holds the secret and answers itself. Feedback that
no secret fits is refused without losing the game, and ``undo`` takes back a turn.
Consistency is tracked with the game's feedback kernel on the secrets still possible, so
no full feedback table is needed.
"""

from __future__ import annotations

import multiprocessing
import random
from dataclasses import dataclass, field

import numpy as np

from ..deduction.feedback import compute_feedback
from ..deduction.model import BadCode, DeductionGame, History
from ..errors import PerfectplayError
from ..threading_layer import fork_is_safe
from .console import COMMANDS_HELP, Console

#: Consistent sets up to this size are listed in full.
LIST_LIMIT = 12


@dataclass
class Turn:
    """The position before a turn: what is still possible, the turns played, and the
    suggestion once computed (kept, so that undo or a refused feedback costs nothing)."""

    consistent: np.ndarray
    history: History = ()
    played: list[str] = field(default_factory=list)
    suggestion: tuple[int, str] | None = None


class Undo(Exception):
    """The person asked to take back the last turn (or the guess just typed)."""


def _suggest_expected(game: DeductionGame, turn: Turn, heuristic: str | None) -> int:
    from ..deduction.solve import suggest_guess

    if heuristic is None:
        return suggest_guess(game, turn.consistent, turn.history)
    return suggest_guess(game, turn.consistent, turn.history, strategy=heuristic)


def _suggest_probability(game: DeductionGame, turn: Turn, left: int, lookahead: int | None) -> int:
    """The guess maximising the secrets revealed within `left` guesses (or, as a heuristic,
    within min(left, lookahead))."""
    from ..deduction.probability import WinSearch

    search = WinSearch(game)
    t = left if lookahead is None else min(left, lookahead)
    if t <= 1:
        guess = search.last_guess(turn.consistent, turn.history)
        if guess >= 0:
            return guess
        t = 2  # no allowed guess can be the secret: still make the most informative one
    return search.best(turn.consistent, turn.history, t)[1]


def _in_time(budget: float, fn, *args) -> int | None:
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
            return None if answer is None else int(answer)
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
    ctx.set_forkserver_preload(["perfectplay.deduction.solve", "perfectplay.deduction.probability"])
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


def suggest(game: DeductionGame, turn: Turn, budget: float, heuristic: str,
            turns_left: int | None) -> tuple[int, str]:
    """The suggested guess and where it comes from ("optimal" or the heuristic's name).

    The optimal search runs in a separate process so that it can be stopped when the
    budget runs out; the heuristic then answers.
    """
    if turns_left is not None:
        found = _in_time(budget, _suggest_probability, game, turn, turns_left, None)
        if found is not None:
            return found, "optimal"
        return _suggest_probability(game, turn, turns_left, 2), "best two-guess lookahead"
    from ..deduction.feedback import build_table

    build_table(game)  # here, once (the heuristic needs it too), so a forked worker has it
    found = _in_time(budget, _suggest_expected, game, turn, None)
    if found is not None:
        return found, "optimal"
    return _suggest_expected(game, turn, heuristic), heuristic


def play_deduction(game: DeductionGame, console: Console, *, secret: str | None = None,
                   seed: int | None = None, budget: float = 2.0, heuristic: str = "most-parts") -> int:
    """Run one advised game; returns the number of guesses played (0 if lost)."""
    guesses, secrets = game.guesses(), game.secrets()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    hidden = _pick_secret(game, secrets, secret, seed)
    horizon = game.default_horizon() if game.default_objective == "probability" else None
    goal = (f"the best chance to win within {horizon} guesses" if horizon
            else "the fewest guesses on average")
    console.say(f"[bold]{game}[/bold]: {len(secrets):,} possible secrets; advice aims at {goal}. "
                + ("I hold the secret; " if hidden is not None else "")
                + f"feedback like {game.format_feedback(0)!r}. {COMMANDS_HELP}")
    turns = [Turn(np.arange(len(secrets)))]
    solved = game.solved_feedback()
    while True:
        turn = turns[-1]
        if horizon is not None and len(turn.played) >= horizon:
            console.say(f"[bold]no guesses left[/bold]: the secret was one of the "
                        f"{len(turn.consistent):,} still possible")
            return 0
        _show_possible(game, secrets, turn, console)
        if turn.suggestion is None:
            left = None if horizon is None else horizon - len(turn.played)
            turn.suggestion = suggest(game, turn, budget, heuristic, left)
        guess, source = turn.suggestion
        console.say(f"suggested guess: [green]{game.format_code(guesses[guess])}[/green] ({source})")
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
            fb = (int(game.feedback(guesses[played], secrets[hidden]))
                  if hidden is not None else _ask_feedback(game, console))
        except Undo:
            console.say("took back that guess")
            continue
        if hidden is not None:
            console.say(f"feedback: {game.format_feedback(fb)}")
        said = f"{game.format_code(guesses[played])} -> {game.format_feedback(fb)}"
        row = compute_feedback(game, guesses[[played]], secrets[turn.consistent])[0]
        rest = turn.consistent[row == fb]
        if not len(rest):
            console.say(f"[red]no secret is consistent with {said}[/red]; nothing changed "
                        "(type undo to take back an earlier turn)")
            continue
        if fb == solved:
            console.say(f"[bold]solved in {len(turn.played) + 1} guesses[/bold]")
            return len(turn.played) + 1
        turns.append(Turn(rest, turn.history + ((played, fb),), turn.played + [said]))


def _pick_secret(game: DeductionGame, secrets: np.ndarray, secret: str | None,
                 seed: int | None) -> int | None:
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
    console.say(f"\nturn {len(turn.played) + 1}: {n:,} secret{'s' if n != 1 else ''} still possible")
    if n <= LIST_LIMIT:
        console.say("  " + " ".join(game.format_code(secrets[s]) for s in turn.consistent))


def _command(line: str, console: Console, text: str) -> bool:
    """Handle undo/help; True when `line` was one of them."""
    word = line.lower()
    if word == "undo":
        raise Undo
    if word in ("help", "?", "h"):
        console.say(text)
        return True
    return False


def _ask_guess(game: DeductionGame, guesses: np.ndarray, index: dict, turn: Turn,
               console: Console, suggestion: int) -> int:
    allowed = game.restrict_guesses(turn.history, guesses)
    shown = game.format_code(guesses[suggestion])
    hint = f"type the guess you played, like {shown}, or Enter for the suggestion; {COMMANDS_HELP}"
    while True:
        line = console.ask(f"your guess (Enter = {shown}):")
        if _command(line, console, hint):
            continue
        if line == "":
            return suggestion
        try:
            code = tuple(int(x) for x in game.parse_code(line))
        except BadCode as err:
            console.say(f"{err}")
            continue
        if code not in index or (allowed is not None and not allowed[index[code]]):
            console.say(f"{line} is not a guess the rules allow here")
            continue
        return index[code]


def _ask_feedback(game: DeductionGame, console: Console) -> int:
    example = repr(game.format_feedback(0))
    hint = f"type the feedback you got, in the form {example}; {COMMANDS_HELP}"
    while True:
        line = console.ask("feedback:")
        if _command(line, console, hint):
            continue
        try:
            return game.parse_feedback(line)
        except BadCode as err:
            console.say(str(err) if example in str(err) else f"{err} (expected the form {example})")
