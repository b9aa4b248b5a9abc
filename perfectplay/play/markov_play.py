"""Play a Markov game against chance, with the optimal choice and every choice's
expected remaining cost (or, for a game that pays, expected score to come) shown at each
step; or, played for a target score, every choice's best chance of reaching it."""

from __future__ import annotations

import random

import numpy as np

from ..advice import markov_advice
from ..errors import BadParameter
from ..markov.model import BadOutcome, MarkovGame
from ..objectives import Objective
from ..strategy import Decision, Strategy
from ..markov import contract
from ..ranges import within
from .console import COMMANDS_HELP, Console, Quit, Undo
from ..scorecard import scorecard


def play_markov(
    game: MarkovGame,
    strategy: Strategy,
    console: Console,
    seed: int | None,
    enter_chance: bool = False,
    start: tuple[int, int] | None = None,
    position: str | None = None,
    objective: Objective | None = None,
) -> int:
    """Run one game with the advice of `strategy` (a solved policy, read through the
    Strategy interface) for `objective` (the expected one if None; the probability one:
    a target score, its horizon); chance is drawn from `seed`, or, with `enter_chance`,
    typed by the person at each roll (the dice of a game played at a table:
    ``parse_outcome``; Enter draws); from `start` (a state and what was paid or scored
    to reach it: ``read_position``) if given, its score card that of the `position`
    written (a dice game's). Returns the cost the person paid (the points scored, for a
    game that pays)."""
    rng = random.Random(seed)
    measure = game.measure
    aim = objective or Objective()
    goal = aim.horizon if aim.name == "probability" else None
    state, paid = start or (int(contract.start(game)), 0)
    spread = strategy.spread(state) if goal is None else None
    if goal is None:  # (from a position written: its final total, what was scored counted)
        expected = paid + strategy.value(state)
        promise = measure.optimal(expected)
    else:
        promise = measure.optimal_chance(goal, strategy.value(state, max(goal - paid, 0)))
    if start is not None:
        promise += " from this position"
    if spread is not None:
        promise += (
            f" (± {spread:.1f}: each choice's ± is the standard deviation of its final total)"
        )
    console.say(f"[bold]{game}[/bold]: {promise}. {COMMANDS_HELP}")
    card = scorecard(game, position if start else None)
    history: list[tuple[int, int, int]] = []  # (state, outcome, paid) before each decision
    pending: int | None = None  # an outcome kept when undo returns to a decision
    while not bool(contract.terminal(game, np.array([state], dtype=np.int64))[0]):
        exp = contract.expansion(game, np.array([state], dtype=np.int64))
        outcomes = np.flatnonzero(exp.weight[0] > 0)
        k = None  # (not known yet: undo at the outcome's prompt asks for it again)
        try:
            if pending is not None:
                k, pending = pending, None
            else:
                asked = enter_chance and len(outcomes) > 1
                k = _ask_outcome(console, game, state, outcomes.tolist()) if asked else None
                if k is None:
                    k = int(outcomes[_draw(rng, exp.weight[0, outcomes])])
            choices = np.flatnonzero(exp.next[0, k] >= 0).tolist()
            cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
            target = exp.next[0, k]
            if len(choices) == 1:  # nothing to decide: chance alone, or a forced step
                if len(outcomes) > 1:
                    console.say(f"  {game.describe_outcome(state, k)}")
                if card is not None:
                    card.note(state, choices[0], int(cost[choices[0]]))
                paid += int(cost[choices[0]])
                state = int(target[choices[0]])
                continue
            console.say(f"\n{game.describe_state(state)}  ({measure.so_far(paid)})")
            if card is not None:
                console.say(card.line())
            console.say(f"[cyan]{game.describe_outcome(state, k)}[/cyan]")
            needed = None if goal is None else max(goal - paid, 0)
            decision = Decision(state, k, needed)
            options = markov_advice(game, decision, aim, strategy=strategy).options
            if goal is None:
                _say_options(console, measure, options, paid)
            else:
                _say_chances(console, measure, options, goal)
            choice = _ask_choice(console, len(options), 1)
        except Undo:  # back to the last decision, its outcome kept
            if history:
                state, pending, paid, held = history.pop()
                if card is not None:
                    card.restore(held)
            else:
                console.say("nothing to undo")
                pending = k
            continue
        history.append((state, k, paid, card.kept() if card is not None else None))
        c = options[choice - 1].action
        if choice > 1 and goal is None:
            loss = measure.regret(options[choice - 1].value, options[0].value)
            console.say(f"[yellow]{measure.regret_text(loss)}[/yellow]")
        elif choice > 1:
            loss = options[0].value - options[choice - 1].value
            console.say(
                f"[yellow]that lowers the chance of at least {goal} {measure.unit} by "
                f"{loss:.4f}[/yellow]"
            )
        if card is not None:
            card.note(state, c, int(cost[c]))
        paid += int(cost[c])
        state = int(target[c])
    if card is not None:
        console.say(card.line())
    if goal is None:
        console.say(
            f"\n[bold]{measure.finished(paid)}[/bold] "
            f"(optimal play{' from that position' if start is not None else ''} averages "
            f"{expected:.4f})"
        )
    else:
        console.say(f"\n[bold]{measure.finished_within(paid, goal)}[/bold]")
    return paid


def _say_options(console: Console, measure, options, paid: int) -> None:
    """The choices at a decision (``advice.markov_advice``: best first), each with the
    final total it is expected to bring (what was paid or scored so far plus its value
    to come), its standard deviation where the strategy knows it (a staged game's) and
    its loss against the best."""
    labels = [o.label for o in options]
    width = max(len(label) for label in labels)
    for i, (o, label) in enumerate(zip(options, labels), 1):
        if o.value is None:  # (a Markov strategy values every choice; kept for the type)
            console.say(f"  {i:>2}. {label:{width}}  no value")
            continue
        loss = measure.regret(o.value, options[0].value) + 0.0
        mark = "  [green]<- optimal[/green]" if i == 1 else f"  loss {loss:.4f}"
        spread = "" if o.spread is None else f" ±{o.spread:.1f}"  # (within 80 columns)
        console.say(
            f"  {i:>2}. {label:{width}}  {measure.expected_final} {paid + o.value:.4f}"
            f"{spread}{mark}"
        )


def _say_chances(console: Console, measure, options, target: int) -> None:
    """The choices at a decision played for `target` (``advice.markov_advice``: best
    first), each with its best chance of finishing with at least the target, and what it
    gives up against the best."""
    width = max(len(o.label) for o in options)
    for i, o in enumerate(options, 1):
        loss = options[0].value - o.value
        mark = "  [green]<- optimal[/green]" if i == 1 else f"  loss {loss:.4f}"
        console.say(
            f"  {i:>2}. {o.label:{width}}  chance of at least {target} {measure.unit} "
            f"{o.value:.4f}{mark}"
        )


def read_position(game: MarkovGame, console: Console, text: str) -> tuple[tuple[int, int], str]:
    """The position of a game played elsewhere (``MarkovGame.parse_position``: its state
    and what was paid or scored) that `text` writes, or, for ``ask``, that the person
    types (asked again until it reads); with the text that wrote it."""
    if text.strip().lower() != "ask":
        return game.parse_position(text), text
    while True:
        line = console.ask(
            "the position (like 'aces 3, full house 25; roll 2: 1 3 3 5 6'):",
            f"the filled boxes and their scores, then the roll and its dice; {COMMANDS_HELP}",
        )
        try:
            return game.parse_position(line), line
        except BadParameter as err:
            console.say(str(err))


def _ask_outcome(console: Console, game: MarkovGame, state: int, outcomes: list[int]) -> int | None:
    """The outcome the person types for the chance step of `state` (None: Enter, drawn)."""
    while True:
        line = console.ask(
            f"{game.describe_state(state)}: what did chance give? (Enter: roll)",
            f"type what the dice (or cards) gave, Enter to roll here; {COMMANDS_HELP}",
        )
        if line == "":
            return None
        try:
            return game.parse_outcome(state, line, outcomes)
        except BadOutcome as err:
            console.say(str(err))


def _draw(rng: random.Random, weights: np.ndarray) -> int:
    return rng.choices(range(len(weights)), weights=[int(w) for w in weights])[0]


def _ask_choice(console: Console, n: int, best: int) -> int:
    """The 1-based choice the person makes (Undo raised for ``undo``); anything but a
    number from 1 to `n` (a word, 0, a number of 5,000 digits) is said and asked again."""
    hint = f"type the number of a choice, Enter for the optimal one; {COMMANDS_HELP}"
    while True:
        line = console.ask(f"choose 1-{n} (Enter = {best}):", hint)
        if line == "":
            return best
        try:
            return int(within(line, 1, n))
        except BadParameter:
            console.say(f"no such choice: please type a number from 1 to {n}")


__all__ = ["Quit", "play_markov"]
