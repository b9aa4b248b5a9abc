"""The options at a deduction board's turn, with their numbers: the best guesses, each with
how it splits the secrets still possible (parts, the largest part, whether it may be the
secret itself), proven bounds on its value to the end of the game and, where the exact
ranking (``engine.ranking``, the command line's ``rank``) is worked out within the
board's budget, its exact value and then its worst case (the fewest guesses to the end
that find every secret after it: the ranking under the ``worst`` objective).

A worker (``jobs.Jobs.options``) sends the rule of thumb's list at once (the guesses with
the most parts, Kooi 2005, as the advisor's heuristic ranks them), then the same guesses
with bounds on their value (``engine.bounds``: the search's lower bound of the parts each
leaves, at once; a strategy playing it, then the rule of thumb, guess by guess, the list
sent again with each), the exact list when the ranking ends and the same list with each
guess's worst case when that ranking ends too; the page shows the last that arrived in
time, labelled which.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..engine import engine_of
from ..errors import PerfectplayError
from ..objectives import Objective
from ..book import proven_opening
from ..advice import consistent_secrets
from ..solution import format_value

#: Options listed at a turn.
TOP = 10


@dataclass(frozen=True)
class Bounds:
    """Proven bounds on a guess's value to the end of the game: `low` <= value <= `high`
    (None: that side not worked out in the time the page gives it)."""

    low: Fraction | None
    high: Fraction | None


@dataclass(frozen=True)
class Option:
    """A guess with its numbers: `value` (exact, to the end of the game: expected guesses,
    the worst case or the chance to win within the horizon; "" elsewhere), `bounds`
    (where the value is not exact: between what), `parts` and `largest` (how it splits
    the secrets still possible), `possible` (it may be the secret), `best` (optimal
    there, in an exact list), `worst` (the fewest guesses to the end, this one included,
    that find every secret after it; None: not worked out), `worst_at_most` (a
    strategy's worst case after it: the guess's own is no more)."""

    guess: str
    value: str
    parts: int
    largest: int
    possible: bool
    best: bool = False
    worst: int | None = None
    bounds: Bounds | None = None
    worst_at_most: int | None = None


@dataclass(frozen=True)
class Options:
    """The options listed at a turn: `label` says in plain words what backs them,
    `column` what their value is (between what, when `bounded`); `final` when no better
    list will come."""

    label: str
    column: str
    rows: tuple[Option, ...]
    final: bool
    #: Whether the rows carry their worst case (``Option.worst``, ``Option.worst_at_most``).
    worst: bool = False
    #: Whether the rows carry bounds (``Option.bounds``) rather than exact values.
    bounded: bool = False
    #: The engine's bounds the rows were made from (``engine.bounds``), for a later
    #: worker at the same position to go on from.
    known: tuple = ()
    #: What the worst case shown is, or why none is ("": a list that values no guess, or
    #: whose values are the worst case).
    worst_note: str = ""


#: What a list's worst-case column holds, in plain words.
WORST_EXACT = (
    "worst case: the fewest guesses to the end, this one included, that find every secret after it"
)
WORST_AT_MOST = (
    "worst case: at most that of the strategy behind the bounds (the fewest guesses to the "
    "end, this one included, that find every secret after the guess are no more)"
)
WORST_LATE = "worst case: not worked out in the time the page gives it"


def _rows(engine, game, left, picks) -> tuple[Option, ...]:
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
                value="",
                parts=len(sizes),
                largest=int(sizes.max()),
                possible=tuple(codes[g].tolist()) in possible,
            )
        )
    return tuple(rows)


def _picks(game, history, objective: Objective, top: int = TOP) -> np.ndarray:
    """The rule of thumb's `top` guesses: the most parts (ties: a possible secret, then the
    lowest code), one of each kind alike under the game's symmetry."""
    return engine_of(game).rule_of_thumb(game, objective, history, "most-parts")[:top]


def rule_of_thumb(game, left: np.ndarray, picks: np.ndarray) -> Options:
    """The rule of thumb's guesses `picks` (``_picks``), with no number, each with how it
    splits the secrets `left`."""
    return Options(
        "rule of thumb: most parts, not proven best; no expected guesses are shown, the "
        "exact ranking not having ended in the time the page gives it (the rule of thumb "
        "proves no number)",
        "",
        _rows(engine_of(game), game, left, picks),
        final=False,
    )


def _column(objective: Objective) -> str:
    """What the value column holds under `objective`."""
    if objective.name == "probability":
        return f"chance to win in {objective.horizon}"
    return "worst case" if objective.name == "worst" else "expected guesses"


def _to_the_end(objective: Objective, played: int, value: Fraction) -> Fraction:
    """A value counted from the start of the game (as the engine counts it), counted from
    the turn after the `played` guesses (a chance within the horizon stays as it is)."""
    return value if objective.name == "probability" else value - played


#: What a bounded list's numbers are, by objective: the value, and what backs each side.
STRATEGY = "a strategy playing it, then the most-parts rule to the end"
BOUNDED = {
    "expected": (
        "expected guesses to the end, this one included, lie",
        f"at most: {STRATEGY}; at least: the search's lower bound of each part it leaves",
    ),
    "worst": (
        "worst case to the end, this one included, lies",
        f"at most: {STRATEGY}; at least: the fewest guesses the search's bound leaves "
        "room for in each part it leaves",
    ),
    "probability": (
        "chance to win within {horizon} guesses lies",
        f"at least: {STRATEGY}; at most: the search's bound on the secrets each part it "
        "leaves must lose",
    ),
}


def bounded(history, objective: Objective, picks: np.ndarray, known: tuple, rows: tuple) -> Options:
    """The rule of thumb's `rows` (of `picks`) with the bounds `known` (``engine.bounds``)
    on each guess's value, the best found first: by what the strategy after it achieves
    (the fewest guesses, or the most chance), ties and guesses with no strategy yet as
    the rule of thumb orders them. A guess with no bounds (it learns nothing, or no
    strategy after it fits the guesses allowed) is left out."""
    played = len(history)
    by_guess = {b.guess: b for b in known}
    listed, stuck = [], 0
    for g, row in zip(np.asarray(picks).tolist(), rows):
        b = by_guess.get(g)
        if b is not None:
            stuck += b.stuck
            low, high = (
                None if v is None else _to_the_end(objective, played, v) for v in (b.low, b.high)
            )
            worst = None if b.worst is None or objective.name == "worst" else b.worst - played
            listed.append(replace(row, bounds=Bounds(low, high), worst_at_most=worst))
    listed.sort(key=lambda o: _found_first(objective, o.bounds))
    value, backed = BOUNDED[objective.name]
    side = "at least" if objective.name == "probability" else "at most"
    missing = sum(_found_first(objective, o.bounds)[0] for o in listed) - stuck
    waiting = (
        f'; {missing} of the {len(listed)} {"has" if missing == 1 else "have"} no "{side}" '
        "yet (the strategy not worked out in the time the page gives it)"
        if missing
        else ""
    ) + (
        f'; {stuck} {"has" if stuck == 1 else "have"} no "{side}": the rule of thumb cannot '
        "play on after it (the rules leave it no useful guess somewhere)"
        if stuck
        else ""
    )
    return Options(
        f"best found, not proven: each guess's {value.format(horizon=objective.horizon)} "
        f"between the two numbers shown ({backed}); the exact ranking did not end in the "
        f"time the page gives it{waiting}",
        _column(objective),
        tuple(listed),
        final=False,
        worst=objective.name != "worst",
        bounded=True,
        known=known,
        worst_note="" if objective.name == "worst" else WORST_AT_MOST,
    )


def with_book(game, history, objective: Objective, found: Options) -> Options:
    """The bounded list `found` with what the game's opening book proves at the start
    (``book.proven_opening``: Wordle's): its opening's value exact, proven optimal, and
    every other opening's "at least" raised to it (no opening does better)."""
    opening = proven_opening(game, history, objective)
    if opening is None:
        return found
    value = Fraction(opening.total, len(game.secrets()))
    word = game.format_code(game.guesses()[opening.guess])
    rows = tuple(
        replace(o, bounds=Bounds(value, value), best=True)
        if o.guess == word
        else replace(o, bounds=Bounds(max(o.bounds.low or value, value), o.bounds.high))
        for o in found.rows
    )
    return replace(
        found,
        rows=tuple(sorted(rows, key=lambda o: _found_first(objective, o.bounds))),
        label=f"{found.label}; {word}: {opening.label}, so that no guess does better",
    )


def _found_first(objective: Objective, bounds: Bounds) -> tuple[bool, Fraction]:
    """A sort key putting the best strategy found first: the least it needs (the most
    chance it wins), guesses with none yet last."""
    if objective.name == "probability":
        return (bounds.low is None, -(bounds.low or 0))
    return (bounds.high is None, bounds.high or Fraction(0))


def exact(game, history, left: np.ndarray, objective: Objective, top: int = TOP) -> Options:
    """The `top` guesses of the exact ranking, each with its value to the end of the game
    and how it splits the secrets `left`."""
    engine = engine_of(game)
    ranking = engine.ranking(game, objective, history)
    shown = [p for p in ranking.guesses if p.canonical][:top]
    played = len(history)
    values = []
    for p in shown:
        value = _to_the_end(objective, played, p.value)
        worst = objective.name == "worst"  # (a whole number of guesses)
        values.append(
            format_value(value) if worst else f"{float(value):.4f} ({format_value(value)})"
        )
    best = sum(p.canonical for p in ranking.optimal())
    what = (
        f"the chance to win within {objective.horizon} guesses"
        if objective.name == "probability"
        else "the worst case to the end, this one included"
        if objective.name == "worst"
        else "the expected guesses to the end, this one included"
    )
    rows = _rows(engine, game, left, [p.guess for p in shown])
    return Options(
        f"exact: every guess valued to the end ({what}), one of each kind of guess alike "
        f"under the game's symmetry; {_marked(best)} proven optimal",
        _column(objective),
        tuple(replace(o, value=v, best=i < best) for i, (o, v) in enumerate(zip(rows, values))),
        final=False,
        worst_note="" if objective.name == "worst" else WORST_LATE,
    )


def with_worst(game, history, objective: Objective, found: Options) -> Options:
    """The exact list `found` with each guess's worst case: the fewest guesses to the end,
    this one included, that find every secret after it (each listed guess priced under
    ``worst``); the list as it is, marked final, where the game prices no worst case or
    the values are the worst case already."""
    if objective.name == "worst":
        return replace(found, final=True)
    engine, played = engine_of(game), len(history)
    worst = Objective("worst", determine=objective.determine)
    try:
        prices = [
            engine.price(game, worst, history, engine.guess_index(game, o.guess))
            for o in found.rows
        ]
    except PerfectplayError:
        return replace(found, final=True)
    rows = tuple(
        replace(o, worst=None if price is None else int(price) - played)
        for o, price in zip(found.rows, prices)
    )
    return replace(found, rows=rows, final=True, worst=True, worst_note=WORST_EXACT)


def _marked(n: int) -> str:
    return "the one marked is" if n == 1 else f"the {n} marked are"


def options_at(game, history, objective: Objective, top: int = TOP, known: tuple = ()):
    """The rule of thumb's list, then the same guesses with bounds on their value (sent
    again each time a guess's strategy is worked out; those `known` from an earlier
    worker at once), then the exact list, then the exact one with each guess's worst
    case (a worker sends each as it comes)."""
    picks = _picks(game, history, objective, top)
    left = consistent_secrets(game, history)
    first = rule_of_thumb(game, left, picks)
    yield first
    for found in engine_of(game).bounds(game, objective, history, picks, known=known):
        yield with_book(
            game, history, objective, bounded(history, objective, picks, found, first.rows)
        )
    found = exact(game, history, left, objective, top)
    yield found
    yield with_worst(game, history, objective, found)
