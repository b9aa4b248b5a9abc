"""The interactive advisor for deduction games (seed 002's helper, for every game).

Each turn it shows the advice of ``perfectplay.advise`` (the one advisor every screen
reads) within a time budget: the suggestion, what backs it (proven optimal, the best
found, the rule of thumb, the opening book) and, once exact, the best few guesses with
their values and worst cases; the advice serves the game's whole objective (its limit on
guesses included: Wordle's turns), so the game ends at the limit. It shows how many
secrets are still possible (listing them when few).
The person types the guess they played (Enter accepts the suggestion) and the feedback
in the game's notation; or the tool holds the secret and answers itself. Feedback that
no secret fits is refused without losing the game, and ``undo`` takes back a turn.
Consistency is tracked with the game's feedback kernel on the secrets still possible, so
no full feedback table is needed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from ..advice import GOALS, Advice, advice_line, advise, value_text, whole_objective
from ..deduction.contract import codes, feedback, same_answer, sizes
from ..deduction.model import BadCode, DeductionGame, History
from ..engine import engine_of
from ..errors import PerfectplayError
from ..objectives import Objective
from .console import COMMANDS_HELP, Console, Undo

#: Consistent sets up to this size are listed in full.
LIST_LIMIT = 12
#: How many of the best guesses the advisor prices (``rank``), within the time budget.
TOP_PRICED = 3


@dataclass
class Turn:
    """The position before a turn: what is still possible, the turns played, and the
    advice once worked out (kept, so that undo or a refused feedback costs nothing)."""

    consistent: np.ndarray
    history: History = ()
    played: list[str] = field(default_factory=list)
    advice: Advice | None = None


def goal(game: DeductionGame, objective: Objective) -> str:
    """What the advice under the whole `objective` aims at, in plain words."""
    text = GOALS[objective.name]
    if objective.name == "probability-then-cost" and np.all(game.symbol_costs() == 1):
        text = GOALS["probability"] + ", then the fewest guesses on average"
    return text.replace("the guesses allowed", f"{objective.horizon} guesses")


def play_deduction(
    game: DeductionGame,
    console: Console,
    *,
    secret: str | None = None,
    seed: int | None = None,
    budget: float = 2.0,
    objective: Objective | None = None,
) -> int:
    """Run one advised game, the advice (``perfectplay.advise``) for the whole
    `objective` (the game's own by default, its limit on guesses included); returns the
    number of guesses played (0 if lost). The rules are read checked (``contract``), as
    the engine reads them."""
    size = sizes(game)
    guesses, secrets = codes(game, size)[:2]
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    hidden = _pick_secret(game, secrets, secret, seed)
    aim = whole_objective(game, objective)
    horizon = aim.horizon
    console.say(
        f"[bold]{game}[/bold]: {len(secrets):,} possible secrets; advice aims at "
        f"{goal(game, aim)}. "
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
        if turn.advice is None:
            turn.advice = advise(game, turn.history, aim, budget=budget)
        advice = turn.advice
        guess = advice.suggestion.action
        console.say(f"suggested guess: [green]{advice_line(game, advice)}[/green]")
        if advice.exact:
            _show_options(advice, console)
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
        if advice.exact and played != guess:
            console.say(_compare(game, advice, played))
        said = f"{game.format_code(guesses[played])} -> {game.display_feedback(fb, terminal)}"
        if fb == solved:
            n = len(turn.played) + 1
            console.say(f"[bold]solved in {n} guess{'es' if n != 1 else ''}[/bold]")
            return len(turn.played) + 1
        turns.append(Turn(rest, turn.history + ((played, fb),), turn.played + [said]))


def _show_options(advice: Advice, console: Console) -> None:
    """The best few options with their exact values and worst cases, and how many are
    optimal (the first is the suggestion: ties go to the smaller worst case, then a
    guess that may be the secret, then the lowest code)."""
    best = ", ".join(
        f"{o.label}{value_text(advice, o).replace(';', '')}"
        + ("" if o.worst is None else f" (worst {o.worst})")
        for o in advice.listed(TOP_PRICED)
    )
    optimal = sum(o.optimal for o in advice.options)
    tie = (
        ""
        if optimal == 1
        else ", ties to the smaller worst case, a possible secret, the lowest code"
    )
    console.say(f"  best guesses here: {best}; {optimal} optimal{tie}")


def _compare(game: DeductionGame, advice: Advice, played: int) -> str:
    """What the guess typed costs against the suggestion ("CRANE costs 0.004 guesses more
    than SALET here, on average")."""
    top = advice.suggestion
    mine = next((o for o in advice.options if o.action == played), None)
    name = game.format_code(game.guesses()[played])
    if mine is None or mine.value is None:
        return f"  {name} learns nothing here, or cannot win every secret within the limit"
    gap = mine.value - top.value
    if gap == 0 and mine.then == top.then:
        return f"  {name} is optimal here too"
    if advice.chance:
        if gap == 0:
            return f"  {name} wins as often as {top.label} here, in more guesses on average"
        return (
            f"  {name} wins with probability {float(-gap):.6f} ({-gap}) less than {top.label} here"
        )
    if advice.objective.name == "worst":
        return f"  {name} needs {gap} guesses more than {top.label} here, in the worst case"
    return f"  {name} costs {float(gap):.4f} ({gap}) guesses more than {top.label} here, on average"


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
