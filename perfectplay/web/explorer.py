"""The strategy explorer's nodes, read from the one advisor (``perfectplay.advise``).

A deduction solve is explored position by position: a node is the moves played (the
board's ``moves``, ``GUESS:FEEDBACK,...``), its advice the board's (``jobs.Jobs.advise``,
the same advice under the same objective: its suggestion, its options best first with
their values, bounds, worst cases and label), and its branches the feedbacks of the
guess explored there (the suggestion, or an option picked from the table), each leading
to the position after it. A Markov policy's node is its state, every choice after each
chance outcome in the advisor's order with its value (``advice.markov_advice``), the
suggestion marked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlencode

from ..advice import GOALS, TOP, Advice, Option as Advised
from ..advice import (
    advice_line,
    check_markov_objective,
    column,
    consistent_secrets,
    markov_advice,
    note,
)
from ..errors import PerfectplayError
from ..objectives import Objective
from ..strategy import BadPath, Branch, Decision, Option, View
from .play import OPTIONS_BUDGET, read_rules

#: Secrets still possible a node lists (more are only counted).
LISTED = 24


@dataclass(frozen=True)
class Step:
    """One level above the node the explorer shows: the node there (`title`), the branch
    followed from it (a feedback, a chance outcome) and the option taken (the next guess,
    a choice) with its value, and the address that opens that level again."""

    title: str
    branch: str
    option: str
    value: str
    href: str


@dataclass(frozen=True)
class Node:
    """What the explorer shows: the node (`view`), the levels above it (`steps`), the
    address one level up (None at the root), and a deduction node's advice (`advice`,
    None: being worked out for other boards; its table's `rows`, `column`, `note`)."""

    view: View
    steps: list[Step]
    up: str | None
    advice: Advice | None = None
    rows: tuple = ()
    column: str = ""
    note: str = ""
    goal: str = ""


def trail_query(trail: list[str], **extra: str) -> str:
    """The explorer's query for the nodes `trail` (the root first, the node shown last)."""
    return urlencode([("path", p) for p in trail] + [(k, v) for k, v in extra.items() if v])


# --- deduction solves ---------------------------------------------------------------------
def deduction_node(jobs, job, trail: list[str], asked: str) -> Node:
    """The node at the last position of `trail` (the moves from the start, one more at
    each level), its guess `asked` (a code as the game writes it; "" for the advisor's
    suggestion, or the solve's own first guess at the start of a solve told to play
    one); BadPath for a trail whose positions do not follow one another."""
    from ..engine import engine_of

    game = job.strategy.game
    engine = engine_of(game)
    aim = read_rules(game, {"objective": job.objective, "horizon": job.horizon}).aim()
    histories = []
    for i, path in enumerate(trail):
        try:
            history = engine.parse_position(game, path)
        except PerfectplayError as err:
            why = str(err).removeprefix(f"{game.name}: ")
            raise BadPath(f"not a position of {game.name}: {path!r} ({why})") from None
        if i and (len(history) != len(histories[-1]) + 1 or history[:-1] != histories[-1]):
            raise BadPath(f"{path!r} is not reached from {trail[i - 1]!r}")
        if not len(consistent_secrets(game, history)):
            raise BadPath(f"no secret gives every answer of {path!r}")
        histories.append(history)
    history, here = histories[-1], trail[-1]
    advice = jobs.advise(job.game, here, aim, OPTIONS_BUDGET)
    guess = _explored(engine, game, job, history, advice, asked)
    view = _deduction_view(engine, game, history, here, guess, advice, aim)
    steps = []
    for i in range(len(trail) - 1):  # each level: its guess, the feedback, the next guess
        g, f = histories[i + 1][-1]
        below = histories[i + 2][-1][0] if i + 2 < len(trail) else guess
        known = jobs.advice_known(job.game, trail[i + 1], aim)
        steps.append(
            Step(
                f"guess {game.format_code(game.guesses()[g])}",
                game.format_feedback(f),
                f"guess {game.format_code(game.guesses()[below])}",
                "" if known is None else option_words(known, _option(known, below)),
                trail_query(trail[: i + 1], guess=game.format_code(game.guesses()[g])),
            )
        )
    listed = () if advice is None else advice.listed(TOP)
    return Node(
        view,
        steps,
        steps[-1].href if steps else None,
        advice,
        listed,
        "" if advice is None else column(advice.objective, advice.chance),
        "" if advice is None or advice.suggestion is None else note(advice),
        "" if advice is None else GOALS[advice.objective.name],
    )


def _explored(engine, game, job, history, advice: Advice | None, asked: str) -> int | None:
    """The guess the node explores: the one `asked`, else the solve's own first guess at
    its start, else the advisor's suggestion (None: no advice yet, or the game is over)."""
    if asked:
        return engine.guess_index(game, asked)
    if not history and job.first:
        return engine.guess_index(game, job.first)
    if advice is None or advice.suggestion is None:
        return None
    return advice.suggestion.action


def _option(advice: Advice, guess: int) -> Advised | None:
    """The advice's option for `guess` (None: the advice does not list it)."""
    return next((o for o in advice.options if o.action == guess), None)


def option_words(advice: Advice, option: Advised | None) -> str:
    """An option's numbers in words, as the explorer shows them beside a guess ("" when
    the advice has none for it)."""
    if option is None:
        return ""
    worst = "" if option.worst is None else f", worst {option.worst}"
    if option.value is not None:
        if advice.chance:
            return f"chance to win {float(option.value):.4f}"
        if advice.objective.name == "worst":
            return f"worst case {option.value}"
        return f"average {float(option.value):.4f} guesses{worst}"
    bound = option.bound
    if bound is not None and not advice.chance and bound.high is not None:
        return f"at most {float(bound.high):.4f} guesses on average{worst}"
    return ""


def _deduction_view(engine, game, history, here: str, guess, advice, aim) -> View:
    """The node of the position `history` (its moves `here`) exploring `guess`: its facts
    (the secrets still possible, the advice) and the branches of each feedback."""
    from ..advice import whole_objective

    codes, secrets = game.guesses(), game.secrets()
    left = consistent_secrets(game, history)
    played = len(history)
    n = len(left)
    facts = [
        f"{n:,} secret{'s' if n != 1 else ''} still possible"
        + (": " + " ".join(game.format_code(secrets[s]) for s in left) if n <= LISTED else "")
    ]
    if advice is None:
        facts.append("the advice is being worked out for other boards: reload for it")
    elif advice.suggestion is None:
        facts.append(advice.label)
    else:
        facts.append(f"suggested: {advice_line(game, advice)}")
        if not advice.final:
            facts.append("the exact ranking is being worked out: reload for it")
        if guess is not None and guess != advice.suggestion.action:
            words = option_words(advice, _option(advice, guess))
            shown = game.format_code(codes[guess])
            facts.append(f"explored here: {shown}" + (f" ({words})" if words else ""))
    branches = []
    if guess is not None:
        limit = whole_objective(game, aim).horizon
        row = engine.feedback(game, codes[[guess]], secrets[left])[0]
        solved = game.solved_feedback()
        for f in sorted(set(row.tolist())):
            label = game.format_feedback(f)
            part = left[row == f]
            count = len(part)
            detail = f"{count:,} secret{'s' if count != 1 else ''}"
            below = engine.format_position(game, history + ((guess, f),))
            if f == solved:
                option = Option("solved", f"at guess {played + 1}", True, None)
            elif limit is not None and played + 1 >= limit:
                option = Option("lost (no guess left)", "", True, None)
            elif count == 1:  # (the one secret left is the best guess)
                code = game.format_code(secrets[part[0]])
                option = Option(f"guess {code}", f"solved at guess {played + 2}", True, below)
            else:
                option = Option("what next", "", True, below)
            branches.append(Branch(label, detail, (option,), f))
    title = "no guess" if guess is None else f"guess {game.format_code(codes[guess])}"
    return View(here, title, tuple(facts), tuple(branches), None)


# --- Markov solves ------------------------------------------------------------------------
def markov_view(job, view: View) -> View:
    """The policy's node `view` with each outcome's choices in the advisor's order, their
    values the advisor's and its suggestion marked (``advice.markov_advice``: expected
    values, or, played for a target score, each choice's best chance with the points
    still needed, ``code@needed``); a node of a graph's policy by budget left (values
    recorded for the whole horizon only) as it is."""
    strategy = job.strategy
    game = strategy.game
    aim = Objective(job.objective, job.horizon)
    code, _, needed = view.path.partition("@")
    if not code.isdigit() or not _advised(game, aim, needed):
        return view
    state, unit = int(code), game.measure.unit
    budget = int(needed) if needed else None
    branches = []
    for branch in view.branches:
        decision = Decision(state, branch.number, budget)
        advice = markov_advice(game, decision, aim, strategy=strategy)
        by_action = {o.action: o for o in branch.options}
        options = []
        for i, o in enumerate(advice.options):
            shown = by_action[o.action]
            if o.value is None:
                value = ""
            elif budget is None:
                value = f"{o.value:.6f} {unit}"
            else:
                value = f"probability {o.value:.6f}"
            options.append(replace(shown, value=value, chosen=i == 0))
        branches.append(replace(branch, options=tuple(options)))
    return replace(view, branches=tuple(branches))


def _advised(game, aim: Objective, needed: str) -> bool:
    """Whether the advisor values a node's choices: the expected objective's (a state's
    code alone), or a target score's (``code@needed``) of a scored staged game."""
    if aim.name == "expected":
        return not needed
    try:
        check_markov_objective(game, aim)
    except PerfectplayError:
        return False
    return needed.isdigit()


def markov_steps(job, trail: list[str]) -> list[Step]:
    """The levels above the last node of `trail`, each with the branch and option that
    lead to the next; BadPath if a node of the trail is not reached from the one before."""
    steps = []
    for i, (here, below) in enumerate(zip(trail, trail[1:])):
        view = markov_view(job, job.strategy.explore(here))
        # (a Markov state is reached after many outcomes: the strategy's own choice first)
        taken = sorted(
            ((b, o) for b in view.branches for o in b.options if o.path == below),
            key=lambda found: not found[1].chosen,
        )
        if not taken:
            raise BadPath(f"{below!r} is not reached from {view.title!r}")
        branch, option = taken[0]
        steps.append(
            Step(view.title, branch.label, option.label, option.value, trail_query(trail[: i + 1]))
        )
    return steps


def markov_node(job, trail: list[str]) -> Node:
    """The Markov policy's node at the last state of `trail`, the levels above it."""
    strategy = job.strategy
    view = markov_view(job, strategy.explore(trail[-1]))
    steps = markov_steps(job, trail)
    if len(trail) > 1:
        up = trail_query(trail[:-1])
    elif view.parent is not None and view.parent != view.path:
        up = trail_query([view.parent])
    else:
        up = None
    return Node(view, steps, up)
