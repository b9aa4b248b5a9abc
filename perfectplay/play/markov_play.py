"""Play a Markov game against chance, with the optimal choice and every choice's
expected remaining cost shown at each step."""

from __future__ import annotations

import random

import numpy as np

from ..markov.model import MarkovGame
from ..solution import Solution
from .console import COMMANDS_HELP, Console, Quit


def play_markov(game: MarkovGame, solution: Solution, console: Console, seed: int | None) -> int:
    """Run one game; chance is drawn from `seed`. Returns the cost the person paid."""
    policy = solution.strategy
    g = policy.graph
    V = [float(v) for v in policy.values]
    rng = random.Random(seed)
    unit = game.cost_unit
    console.say(f"[bold]{game}[/bold]: optimal play needs {V[g.start]:.6f} {unit} on average. "
                f"{COMMANDS_HELP}")
    state, paid = g.start, 0
    history: list[tuple[int, int, int]] = []  # (state, outcome, paid) before each decision
    pending: int | None = None  # an outcome kept when undo returns to a decision
    while not g.terminal[state]:
        lo, hi = int(g.out_ptr[state]), int(g.out_ptr[state + 1])
        if pending is None:
            o = lo + _draw(rng, g.weight[lo:hi])
        else:
            o, pending = pending, None
        edges = range(int(g.choice_ptr[o]), int(g.choice_ptr[o + 1]))
        if len(edges) == 1:  # nothing to decide: chance alone, or a forced step
            e = edges[0]
            if hi - lo > 1:
                console.say(f"  {game.describe_outcome(int(g.codes[state]), int(g.outcome_k[o]))}")
            paid += int(g.cost[e])
            state = int(g.target[e])
            continue
        code = int(g.codes[state])
        console.say(f"\n{game.describe_state(code)}  (paid {amount(paid, unit)})")
        console.say(f"[cyan]{game.describe_outcome(code, int(g.outcome_k[o]))}[/cyan]")
        best = int(policy.chosen[o])
        labels = [game.describe_choice(code, int(g.outcome_k[o]), int(g.choice_c[e])) for e in edges]
        width = max(len(label) for label in labels)
        for i, (e, label) in enumerate(zip(edges, labels), 1):
            mark = "  [green]<- optimal[/green]" if e == best else ""
            console.say(f"  {i}. {label:{width}}  {unit} left {g.cost[e] + V[g.target[e]]:.4f}{mark}")
        choice = _ask_choice(console, len(edges), best - edges[0] + 1)
        if choice == "undo":
            if history:
                state, pending, paid = history.pop()
            else:
                console.say("nothing to undo")
                pending = o
            continue
        history.append((state, o, paid))
        e = edges[choice - 1]
        if e != best:
            console.say(f"[yellow]that costs {g.cost[e] + V[g.target[e]] - (g.cost[best] + V[g.target[best]]):.4f} "
                        f"{unit} more than optimal on average[/yellow]")
        paid += int(g.cost[e])
        state = int(g.target[e])
    console.say(f"\n[bold]finished in {amount(paid, unit)}[/bold] "
                f"(optimal play averages {V[g.start]:.4f})")
    return paid


def amount(count: int, unit: str) -> str:
    """``1 move``, ``2 moves``: a count with its unit (given in the plural)."""
    return f"{count} {unit[:-1] if count == 1 and unit.endswith('s') else unit}"


def _draw(rng: random.Random, weights: np.ndarray) -> int:
    return rng.choices(range(len(weights)), weights=[int(w) for w in weights])[0]


def _ask_choice(console: Console, n: int, best: int) -> int | str:
    """The 1-based choice the person makes, or "undo"."""
    while True:
        line = console.ask(f"choose 1-{n} (Enter = {best}):")
        if line == "":
            return best
        if line.lower() == "undo":
            return "undo"
        if line.lower() in ("help", "?", "h"):
            console.say(f"type the number of a choice, Enter for the optimal one; {COMMANDS_HELP}")
            continue
        if line.isdigit() and 1 <= int(line) <= n:
            return int(line)
        console.say(f"please type a number from 1 to {n}")


__all__ = ["Quit", "play_markov"]
