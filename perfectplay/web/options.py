"""The options at a deduction board's turn, with their numbers: the best guesses, each with
how it splits the secrets still possible (parts, the largest part, whether it may be the
secret itself) and, where the exact ranking (``engine.rank``, the command line's ``rank``)
is worked out within the board's budget, its exact value to the end of the game and then
its worst case (the fewest guesses to the end that find every secret after it: the
ranking under the ``worst`` objective).

A worker (``jobs.Jobs.options``) sends the rule of thumb's list at once (the guesses with
the most parts, Kooi 2005, as the advisor's heuristic ranks them), the exact list when
the ranking ends and the same list with each guess's worst case when that ranking ends
too; the page shows the last that arrived in time, labelled which.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..engine import engine_of
from ..errors import PerfectplayError
from ..objectives import Objective
from ..play.deduction_play import consistent_secrets
from ..solution import format_value

#: Options listed at a turn.
TOP = 10


@dataclass(frozen=True)
class Option:
    """A guess with its numbers: `value` (exact, to the end of the game: expected guesses
    or the chance to win within the horizon; "" for the rule of thumb's list), `parts`
    and `largest` (how it splits the secrets still possible), `possible` (it may be the
    secret), `best` (optimal there, in an exact list), `worst` (the fewest guesses to the
    end, this one included, that find every secret after it; None: not worked out)."""

    guess: str
    value: str
    parts: int
    largest: int
    possible: bool
    best: bool = False
    worst: int | None = None


@dataclass(frozen=True)
class Options:
    """The options listed at a turn: `label` says in plain words what backs them,
    `column` what their value is; `final` when no better list will come."""

    label: str
    column: str
    rows: tuple[Option, ...]
    final: bool
    #: Whether the rows carry their worst case (``Option.worst``).
    worst: bool = False


def _rows(engine, game, left, picks, values=None, best=0) -> tuple[Option, ...]:
    """Each guess of `picks` (indices) with how it splits the secrets `left`."""
    picks = np.asarray(picks, dtype=np.int64)
    codes, secrets = game.guesses(), game.secrets()
    table = engine.feedback(game, codes[picks], secrets[left]) if len(picks) else None
    possible = {tuple(c) for c in secrets[left].tolist()}
    rows = []
    for i, g in enumerate(picks.tolist()):
        sizes = np.unique(table[i], return_counts=True)[1]
        rows.append(
            Option(
                guess=game.format_code(codes[g]),
                value="" if values is None else values[i],
                parts=len(sizes),
                largest=int(sizes.max()),
                possible=tuple(codes[g].tolist()) in possible,
                best=i < best,
            )
        )
    return tuple(rows)


def rule_of_thumb(game, history, objective: Objective, top: int = TOP) -> Options:
    """The `top` guesses by the most parts (ties: a possible secret, then the lowest code)."""
    engine = engine_of(game)
    picks = engine.rule_of_thumb(game, objective, history, "most-parts")[:top]
    return Options(
        "rule of thumb: most parts, not proven best; no expected guesses are shown, the "
        "exact ranking not having ended in the time the page gives it (the rule of thumb "
        "proves no number)",
        "",
        _rows(engine, game, consistent_secrets(game, history), picks),
        final=False,
    )


def exact(game, history, objective: Objective, top: int = TOP) -> Options:
    """The `top` guesses of the exact ranking, each with its value to the end of the game."""
    engine = engine_of(game)
    ranking = engine.ranking(game, objective, history)
    shown = [p for p in ranking.guesses if p.canonical][:top]
    played = len(history)
    if objective.name == "probability":
        values = [f"{float(p.value):.4f} ({format_value(p.value)})" for p in shown]
        column = f"chance to win in {objective.horizon}"
    else:
        values = [
            f"{float(p.value - played):.4f} ({format_value(p.value - played)})" for p in shown
        ]
        column = "expected guesses"
    best = sum(p.canonical for p in ranking.optimal())
    what = (
        f"the chance to win within {objective.horizon} guesses"
        if objective.name == "probability"
        else "the expected guesses to the end, this one included"
    )
    left = consistent_secrets(game, history)
    return Options(
        f"exact: every guess valued to the end ({what}), one of each kind of guess alike "
        f"under the game's symmetry; {_marked(best)} proven optimal",
        column,
        _rows(engine, game, left, [p.guess for p in shown], values, best),
        final=False,
    )


def with_worst(game, history, objective: Objective, found: Options) -> Options:
    """The exact list `found` with each guess's worst case: the fewest guesses to the end,
    this one included, that find every secret after it (the ranking under ``worst``); the
    list as it is, marked final, where the game ranks no worst case."""
    played = len(history)
    try:
        ranking = engine_of(game).ranking(
            game, Objective("worst", determine=objective.determine), history
        )
    except PerfectplayError:
        return replace(found, final=True)
    index = {game.format_code(game.guesses()[p.guess]): p for p in ranking.guesses}
    rows = tuple(
        replace(o, worst=None if o.guess not in index else int(index[o.guess].value) - played)
        for o in found.rows
    )
    return replace(found, rows=rows, final=True, worst=True)


def _marked(n: int) -> str:
    return "the one marked is" if n == 1 else f"the {n} marked are"


def options_at(game, history, objective: Objective, top: int = TOP):
    """The rule of thumb's list, then the exact one, then the exact one with each guess's
    worst case (a worker sends each as it comes)."""
    yield rule_of_thumb(game, history, objective, top)
    found = exact(game, history, objective, top)
    yield found
    yield with_worst(game, history, objective, found)
