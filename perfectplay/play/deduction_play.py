"""The interactive advisor for deduction games (seed 002's helper, for every game).

Each turn it suggests a guess, from the optimal search when that finishes within a time
budget and from a heuristic otherwise (it says which), and shows how many secrets are
still possible (listing them when few). The person types the guess they played (Enter
accepts the suggestion) and the feedback in the game's notation; or the tool holds the
secret and answers itself. Feedback that no secret fits is refused without losing the
game, and ``undo`` takes back a turn.
"""

from __future__ import annotations

import multiprocessing
import random
from dataclasses import dataclass, field

import numpy as np

from ..deduction.feedback import Table, build_table
from ..deduction.model import BadCode, DeductionGame, History
from ..errors import PerfectplayError
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
    """The person asked to take back the last turn."""


def suggest(game: DeductionGame, turn: Turn, budget: float, heuristic: str) -> tuple[int, str]:
    """The suggested guess and where it comes from ("optimal" or the heuristic's name).

    The optimal search runs in a separate process so that it can be stopped when the
    budget runs out; the heuristic answers at once.
    """
    from ..deduction.solve import suggest_guess

    if budget > 0:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(1) as pool:
            job = pool.apply_async(suggest_guess, (game, turn.consistent, turn.history))
            try:
                return int(job.get(timeout=budget)), "optimal"
            except multiprocessing.TimeoutError:
                pool.terminate()
    return int(suggest_guess(game, turn.consistent, turn.history, strategy=heuristic)), heuristic


def play_deduction(game: DeductionGame, console: Console, *, secret: str | None = None,
                   seed: int | None = None, budget: float = 2.0, heuristic: str = "most-parts") -> int:
    """Run one advised game; returns the number of guesses played."""
    table = build_table(game)
    hidden = _pick_secret(game, table, secret, seed)
    console.say(f"[bold]{game}[/bold]: {table.n_secrets:,} possible secrets. "
                + ("I hold the secret; " if hidden is not None else "")
                + f"feedback like {_feedback_example(game)}. {COMMANDS_HELP}")
    turns = [Turn(np.arange(table.n_secrets))]
    while True:
        turn = turns[-1]
        _show_possible(game, table, turn, console)
        if turn.suggestion is None:
            turn.suggestion = suggest(game, turn, budget, heuristic)
        guess, source = turn.suggestion
        console.say(f"suggested guess: [green]{game.format_code(table.guesses[guess])}[/green] ({source})")
        try:
            played = _ask_guess(game, table, turn, console, guess)
        except Undo:
            if len(turns) > 1:
                turns.pop()
                console.say("took back the last turn")
            else:
                console.say("nothing to undo")
            continue
        try:
            fb = (int(game.feedback(table.guesses[played], table.secrets[hidden]))
                  if hidden is not None else _ask_feedback(game, console))
        except Undo:
            console.say("took back that guess")
            continue
        if hidden is not None:
            console.say(f"feedback: {game.format_feedback(fb)}")
        said = f"{game.format_code(table.guesses[played])} -> {game.format_feedback(fb)}"
        rest = turn.consistent[table.fb[played, turn.consistent] == fb]
        if not len(rest):
            console.say(f"[red]no secret is consistent with {said}[/red]; nothing changed "
                        "(type undo to take back an earlier turn)")
            continue
        if fb == table.solved:
            console.say(f"[bold]solved in {len(turn.played) + 1} guesses[/bold]")
            return len(turn.played) + 1
        turns.append(Turn(rest, turn.history + ((played, fb),), turn.played + [said]))


def _pick_secret(game: DeductionGame, table: Table, secret: str | None, seed: int | None) -> int | None:
    if secret is None:
        return None
    if secret == "random":
        return random.Random(seed).randrange(table.n_secrets)
    code = tuple(int(x) for x in game.parse_code(secret))
    where = np.flatnonzero((table.secrets == np.array(code, dtype=table.secrets.dtype)).all(axis=1))
    if not len(where):
        raise PerfectplayError(f"{secret!r} is not a possible secret of {game}")
    return int(where[0])


def _feedback_example(game: DeductionGame) -> str:
    return repr(game.format_feedback(0))


def _show_possible(game: DeductionGame, table: Table, turn: Turn, console: Console) -> None:
    n = len(turn.consistent)
    console.say(f"\nturn {len(turn.played) + 1}: {n:,} secret{'s' if n != 1 else ''} still possible")
    if n <= LIST_LIMIT:
        console.say("  " + " ".join(game.format_code(table.secrets[s]) for s in turn.consistent))


def _command(line: str, console: Console, text: str) -> bool:
    """Handle undo/help; True when `line` was one of them."""
    word = line.lower()
    if word == "undo":
        raise Undo
    if word in ("help", "?", "h"):
        console.say(text)
        return True
    return False


def _ask_guess(game: DeductionGame, table: Table, turn: Turn, console: Console, suggestion: int) -> int:
    index = {tuple(c): i for i, c in enumerate(table.guesses.tolist())}
    allowed = game.restrict_guesses(turn.history, table.guesses)
    hint = (f"type the guess you played, like {game.format_code(table.guesses[suggestion])}, "
            f"or Enter for the suggestion; {COMMANDS_HELP}")
    while True:
        line = console.ask(f"your guess (Enter = {game.format_code(table.guesses[suggestion])}):")
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
    example = _feedback_example(game)
    hint = f"type the feedback you got, in the form {example}; {COMMANDS_HELP}"
    while True:
        line = console.ask("feedback:")
        if _command(line, console, hint):
            continue
        try:
            return game.parse_feedback(line)
        except BadCode as err:
            console.say(str(err) if example in str(err) else f"{err} (expected the form {example})")
