"""Advised play on a board, kept in the page's address (nothing stored on the server):
the moves so far are in the query, undo is the same address less the last move, and a
move the rules refuse (feedback no secret fits) leaves the game as it was.

Deduction games: the advisor (``perfectplay.advise``, the terminal's too) suggests each
guess, worked out by one of the server's workers within a budget (``jobs.Jobs.advise``:
the optimal guess, else the best stage found, labelled; the table of options is the same
advice); the tool holds a secret drawn from the seed
(``secret=page``), or the person types the feedback they got (``secret=yours``). Markov
games: the strategy is solved by a worker (the board shows its progress meanwhile);
chance is drawn from the seed; every choice is shown with its expected cost (the solved
strategy's explorer node), the optimal one marked.
"""

from __future__ import annotations

import random
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import numpy as np
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import positions
from ..positions import Codes, codes, feedback, same_answer, sizes
from ..advice import GOALS, TOP, check_markov_objective, column, markov_advice, note
from ..errors import BadRules, PerfectplayError
from ..kept import kept_path
from ..objectives import WITHIN, Objective
from .render import templates
from .boards import draw
from .forms import MAX_TURNS, TooLarge, read_game, read_objective
from .jobs import REVIEW_WORK, Valuing
from .pads import pad_of
from .review import markov_review
from ..scorecard import Scorecard, scorecard
from ..strategy import Decision

#: Seconds the advisor's optimal search may take before its heuristic answers.
BUDGET = 1.0
#: Seconds the options at a turn may take to be worked out (every page answers within 2 s).
OPTIONS_BUDGET = 1.5
#: The address fields of a board that hold its moves, not its game or its rules.
BOARD_MOVES = ("moves", "guess", "feedback")
#: Secrets still possible a board lists (on a click when more than `SHOWN`; more than
#: `LISTED` are only counted).
SHOWN, LISTED = 24, 6000
#: What a deduction review counts, by objective (``Objective.ranked``).
UNITS = {
    "expected": "expected guesses",
    "worst": "guesses in the worst case",
    "probability": "chance to win within {horizon} guesses",
}
#: Seconds a Markov board waits for its strategy's solve before showing its progress.
WAIT_FOR_STRATEGY = 1.0


def page(request: Request) -> Response:
    """The board of the game named in the address, in the position its moves give. A
    board whose address names no seed (a new game) is sent to the same address with a
    fresh random one, which then holds its secret and its dice for the whole game."""
    q = request.query_params
    game = read_game(request.path_params["game"], q)
    board = BOARDS.get(game.kind)
    if board is None:
        raise PerfectplayError(f"{game.name} has no board on the web page")
    base = {k: v for k, v in game.params.items() if v != ""}
    for key in ("objective", "horizon"):
        if (q.get(key) or "").strip():
            base[key] = q[key].strip()
    if not (q.get("seed") or "").strip():
        fresh = {**base, "seed": secrets.randbelow(10**9)}
        rest = {k: v for k, v in q.items() if k not in fresh and k in _KEPT}
        return RedirectResponse(_url(game, {**fresh, **rest}), status_code=303)
    seed = _int(q["seed"], "seed")
    return board(request, game, seed, {**base, "seed": seed})


#: The query's words a board keeps when it adds a seed (the rest: parameters, read).
_KEPT = ("secret", "moves", "guess", "feedback", "position")


def _int(raw: str, what: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise PerfectplayError(f"{what} must be a whole number, got {raw!r}") from None


def _url(game, base: dict, **extra) -> str:
    return f"/play/{game.name}?" + urlencode(
        {**base, **{k: v for k, v in extra.items() if v != ""}}
    )


# --- deduction games ------------------------------------------------------------------
@dataclass(frozen=True)
class Rules:
    """What a deduction board plays for: the `objective` its advice, options and review
    serve and the most guesses allowed (`limit`: the game's own, such as Wordle's turns,
    or the horizon asked for, whichever is less; None: no limit)."""

    objective: str
    limit: int | None

    def aim(self) -> Objective:
        """The objective the board's advice, options and review serve, its horizon (for
        the chance to win) the guesses allowed, counted from the start of the game."""
        return Objective(self.objective, self.limit if self.objective in WITHIN else None)

    def lost(self, played: int, solved: bool) -> bool:
        """Whether a game not `solved` after `played` guesses has none left."""
        return not solved and self.limit is not None and played >= self.limit


def read_rules(game, query) -> Rules:
    """The board's rules from the address: the objective and horizon the catalogue's form
    sends (the game's own by default), checked as a solve checks them."""
    objective = read_objective(game, query)
    limits = [n for n in (game.guess_limit(), objective.horizon) if n is not None]
    return Rules(objective.name, min(limits) if limits else None)


def _board_objective(game, query, read):
    """What `read` makes of the address's objective and horizon, with ""; or, where it
    refuses them, what it makes of the game's own, with the refusal for the board to say
    (the game is then played under its own rules)."""
    try:
        return read(game, query), ""
    except PerfectplayError as err:
        return read(game, {}), f"{err}: the board plays the game's own objective"


@dataclass(frozen=True)
class Moves:
    """The moves of a board's address that the game allows (`history`), the secrets
    they leave (`left`, indices) and why the rest were refused (`refused`; "" if none
    were)."""

    history: tuple
    left: np.ndarray
    refused: str = ""


def _moves(game, engine, listed: Codes, text: str, hidden: int | None, limit: int | None) -> Moves:
    """The moves of the address that the game allows: refused are unreadable moves,
    feedback no secret (or not the page's secret) gives, and moves past the `limit` of
    guesses the board's rules allow (`listed`: the game's codes, ``positions.codes``)."""
    guesses, secrets_ = listed.guesses, listed.secrets
    try:
        history = engine.parse_position(game, text)
    except PerfectplayError as err:
        return Moves(
            (),
            np.arange(len(secrets_)),
            f"the moves in the address cannot be read ({_plain(game, err)}): a new game",
        )
    if len(history) > MAX_TURNS:
        raise TooLarge(f"at most {MAX_TURNS} turns")
    left = np.arange(len(secrets_))  # the secrets the moves so far leave, move by move
    for i, (g, f) in enumerate(history):
        shown = f"move {i + 1} ({game.format_code(guesses[g])} answered {game.format_feedback(f)})"
        if limit is not None and i >= limit:
            return Moves(
                history[:i],
                left,
                f"{shown} is past the {limit} guesses the rules allow: the board shows the "
                "moves before it",
            )
        if hidden is not None and feedback(game, guesses[g], secrets_[hidden]) != f:
            return Moves(
                history[:i],
                left,
                f"{shown} is not what this board's secret answers: the board shows the "
                "moves before it",
            )
        after = left[engine.feedback(game, guesses[[g]], secrets_[left])[0] == f]
        if not len(after):
            return Moves(
                history[:i],
                left,
                f"{shown}: no secret gives all these answers; the board shows the moves before it",
            )
        left = after
    return Moves(history, left)


def _plain(game, err: Exception) -> str:
    """A game's message without the game's name before it (the board names the game)."""
    return str(err).removeprefix(f"{game.name}: ")


def deduction_board(request: Request, game, seed: int, base: dict) -> Response:
    """A deduction game's board (``BOARDS``): the guesses and their feedback, the
    advisor's suggestion, the secrets still possible, the pad to play by clicks. Every
    refusal (a guess the rules or the secrets refuse, moves the address gets wrong)
    is said on the board, which stays where the game was."""
    from ..engine import engine_of

    engine = engine_of(game)
    q = request.query_params
    mode = "yours" if q.get("secret") == "yours" else "page"
    rules, refused = _board_objective(game, q, read_rules)
    size = sizes(game)
    listed = codes(game, size)  # (checked as the engine reads them; read once a page)
    guesses, secrets_ = listed.guesses, listed.secrets
    hidden = random.Random(seed).randrange(len(secrets_)) if mode == "page" else None
    moved = _moves(game, engine, listed, q.get("moves", ""), hidden, rules.limit)
    history, left = moved.history, moved.left
    message = moved.refused or refused
    if refused:  # (the board's links leave them out)
        base = {k: v for k, v in base.items() if k not in ("objective", "horizon")}
    status = 400 if message else 200
    moves = engine.format_position(game, history)
    base = {**base, "secret": mode}
    solved = bool(history) and history[-1][1] == size.solved
    over = rules.lost(len(history), solved)
    guess_text = (q.get("guess") or "").strip()
    # advising, a guess without its feedback is one picked from the options: entered only
    picked = mode == "yours" and not (q.get("feedback") or "").strip()
    if guess_text and not (solved or over or message or picked):
        found, message = _play(game, engine, listed, history, left, hidden, guess_text, q)
        if found is not None:
            new = engine.format_position(game, history + (found,))
            return RedirectResponse(_url(game, base, moves=new), status_code=303)
        status = 422
    suggestion = None
    if not solved and not over:
        advice = request.app.state.jobs.advise(str(game), moves, rules.aim(), BUDGET)
        if advice is not None and advice.suggestion is not None:
            suggestion = {"code": advice.suggestion.label, "note": note(advice)}
    if history and not message:  # the review's values worked out as the game goes
        jobs = request.app.state.jobs
        positions, _ = _review_positions(jobs, game, engine, history, rules, solved)
        if positions:
            keys = [key for _, key in positions]
            jobs.values(str(game), keys, rules.aim().ranked, 0, ahead=True)
    rows = [
        {
            "code": game.format_code(guesses[g]),
            "feedback": game.format_feedback(f),
            "letters": list(game.format_code(guesses[g])),
            "marks": list(game.format_feedback(f)),
        }
        for g, f in history
    ]
    undo = engine.format_position(game, history[:-1]) if history else None
    other = "yours" if mode == "page" else "page"
    pad = pad_of(game, history)
    return templates.TemplateResponse(
        request,
        "play_deduction.html",
        {
            "game": game,
            "rows": rows,
            "left": len(left),
            "mode": mode,
            "seed": seed,
            "listed": [game.format_code(secrets_[s]) for s in left[:LISTED]],
            "suggestion": suggestion,
            "typed": guess_text if status == 422 or picked else "",
            "options_url": _url(game, base, moves=moves).replace("?", "/options?", 1),
            "review_url": _url(game, base, moves=moves).replace("?", "/review?", 1),
            "solved": solved,
            "over": over,
            "moves": moves,
            "message": message,
            "base": base,
            "undo_url": None if undo is None else _url(game, base, moves=undo),
            "new_url": _url(game, {k: v for k, v in base.items() if k != "seed"}),
            "other_url": _url(game, {**base, "secret": other, "seed": _fresh(other, seed)}),
            "secret": game.format_code(secrets_[hidden])
            if hidden is not None and (solved or over)
            else None,
            "example": game.format_feedback(0),
            "shown": SHOWN,
            "rules": rules,
            "aims": GOALS,
            "pad": pad,
        },
        status_code=status,
    )


@dataclass(frozen=True)
class BoardPage:
    """A deduction board's page of its own (its options, its review): the address's
    query, the board's address less its moves (`base`), the game, its engine, the moves
    and the board's rules."""

    query: Any
    base: dict
    game: Any
    engine: Any
    history: tuple
    rules: Rules


def _board_page(request: Request, elsewhere: str) -> BoardPage:
    """The board page the address names, or one line refusing its game (a Markov game
    `elsewhere`: where it shows them instead) or its moves."""
    from ..engine import engine_of

    q = request.query_params
    game = read_game(request.path_params["game"], q)
    if game.kind != "deduction":
        raise PerfectplayError(f"{game.name} {elsewhere}")
    engine = engine_of(game)
    rules, _ = _board_objective(game, q, read_rules)
    moved = _moves(game, engine, codes(game), q.get("moves", ""), None, rules.limit)
    if moved.refused:
        raise PerfectplayError(moved.refused)
    base = {k: v for k, v in q.items() if k not in BOARD_MOVES}
    return BoardPage(q, base, game, engine, moved.history, rules)


def options_page(request: Request) -> Response:
    """The options at a deduction board's turn with their numbers: the advice the board's
    line says (``jobs.Jobs.advise``, the same advice: its first row is the suggestion),
    as far as it got in `OPTIONS_BUDGET` seconds; a page of its own, whose table the
    board's script places on the board (and asks for again until it is final). The
    address is the board's; each guess links to the board with that guess played
    (advising: entered, for the player to add what the other game answered)."""
    page = _board_page(request, "lists its choices on its board")
    game, base = page.game, page.base
    moves = page.engine.format_position(game, page.history)
    advice = request.app.state.jobs.advise(str(game), moves, page.rules.aim(), OPTIONS_BUDGET)
    return templates.TemplateResponse(
        request,
        "options.html",
        {
            "game": game,
            "advice": advice,
            "rows": () if advice is None else advice.listed(TOP),
            "column": "" if advice is None else column(advice.objective, advice.chance),
            "note": "" if advice is None or advice.suggestion is None else note(advice),
            "board_url": _url(game, base, moves=moves),
            "pick_url": lambda guess: _url(game, base, moves=moves, guess=guess),
        },
    )


def _review_positions(jobs, game, engine, history, rules: Rules, solved: bool):
    """What a review of `history` needs valued: its positions' values read off the board's
    exact advice there (by number of moves: ``review.advised_values``), and the others
    to work out, each (its number, (its moves, the guess played there, the guess the
    board suggested there)) (``jobs.Jobs.values``)."""
    from .review import advised_values

    chance = rules.aim().ranked.name in WITHIN
    positions, values = [], {}
    for i in range(len(history) + (0 if solved else 1)):
        moves = engine.format_position(game, history[:i])
        played = history[i][0] if i < len(history) else None
        advice = jobs.advice_known(str(game), moves, rules.aim())  # what the board said there
        said = advice.suggestion.action if advice is not None and advice.suggestion else None
        direct = None if played is None else advised_values(advice, played, chance)
        if direct is not None:  # the table's own numbers
            values[i] = direct
        else:
            positions.append((i, (moves, played, said)))
    return positions, values


def review_page(request: Request) -> Response:
    """The review of a deduction board's game so far (``web/review.py``) under the
    board's objective: every guess beside the optimal one with its value from there
    (the guesses to the end after it, or its chance to win within the horizon), and the
    luck of each feedback; a page of its own, which the board's script places on the
    board. It answers after `OPTIONS_BUDGET` seconds with the values known; their worker
    goes on (``jobs.Jobs.values``), so that the page asked again goes further."""
    from .review import deduction_review

    page = _board_page(request, "shows its review on its board")
    game, engine, history, rules = page.game, page.engine, page.history, page.rules
    aim = rules.aim().ranked
    chance = aim.name in WITHIN
    solved = bool(history) and history[-1][1] == game.solved_feedback()
    jobs = request.app.state.jobs
    positions, values = _review_positions(jobs, game, engine, history, rules, solved)
    valuing = (  # (nothing to value before the first guess)
        jobs.values(str(game), [key for _, key in positions], aim, OPTIONS_BUDGET)
        if history and positions
        else Valuing({}, "done")
    )
    values.update({i: valuing.known[key] for i, key in positions if key in valuing.known})
    review = deduction_review(game, history, values, solved, chance)
    complete = len(review.moves) == len(history)
    unreviewed = len(history) - len(review.moves)
    state = (
        ""
        if complete
        else "being worked out for another board: reload for the rest"
        if valuing.state == "busy"
        else "the others are being worked out: reload for them"
        if valuing.state == "working"
        else (
            f"the first {unreviewed} {'is' if unreviewed == 1 else 'are'} not: valuing "
            f"the position of guess {unreviewed} exactly takes longer than the "
            f"{REVIEW_WORK:.0f} s the page gives it (the command line's rank values it)"
        )
    )
    return templates.TemplateResponse(
        request,
        "review.html",
        {
            "game": game,
            "review": review,
            "total": len(history),
            "complete": complete,
            "final": complete or valuing.state == "given up",
            "state": state,
            "paid": len(review.moves),
            "chance": chance,
            "solved": solved,
            "over": rules.lost(len(history), solved),
            "unit": UNITS[aim.name].format(horizon=aim.horizon),
            "board_url": _url(game, page.base, moves=engine.format_position(game, history)),
        },
    )


def _fresh(mode: str, seed: int) -> int:
    """The seed of a game switched to `mode`: a new random secret when the page is to
    hold one (the moves of a game played elsewhere say nothing of it)."""
    return secrets.randbelow(10**9) if mode == "page" else seed


def _play(game, engine, listed: Codes, history, left, hidden, guess_text: str, q):
    """The move (guess index, feedback) a typed guess makes, or None and why it is
    refused: a guess the game cannot read, one its rules bar here (Wordle's hard mode,
    item matching's restrictions: the game says which rule), feedback unreadable or that
    no secret still possible gives."""
    guesses, secrets_ = listed.guesses, listed.secrets
    try:
        g = engine.guess_index(game, guess_text)
    except PerfectplayError as err:
        return None, f"{_plain(game, err)}: nothing changed"
    mask = game.restrict_guesses(history, guesses[[g]])
    if mask is not None and not mask[0]:
        why = game.refusal(history, guesses[g])
        return None, f"{game.format_code(guesses[g])} is not allowed here: {why}; nothing changed"
    if hidden is not None:
        f = feedback(game, guesses[g], secrets_[hidden])
    else:
        try:
            f = game.parse_feedback(q.get("feedback") or "")
        except PerfectplayError as err:
            return None, f"{_plain(game, err)}: nothing changed"
    row = engine.feedback(game, guesses[[g]], secrets_[left])[0]
    if hidden is not None:
        for other in row[left == hidden]:  # the same pair, answered by the kernel
            same_answer(game, guesses[g], secrets_[hidden], f, other)
    if (row == f).any():
        return (g, f), ""
    return None, (
        f"no secret still possible answers {game.format_code(guesses[g])} "
        f"with {game.format_feedback(f)}: feedback refused, nothing changed"
    )


# --- Markov games ---------------------------------------------------------------------
def _solved_strategy(request: Request, game, objective):
    """The strategy the board plays (solved in a worker, kept by the server), or the page
    to show meanwhile: the solve's progress, or a wait for a free place."""
    from .jobs import Busy

    jobs = request.app.state.jobs
    try:
        job = jobs.strategy(str(game), objective.name, objective.horizon)
    except Busy as busy:
        return None, templates.TemplateResponse(
            request, "play_wait.html", {"game": game, "job": None, "why": str(busy)}
        )
    deadline = time.monotonic() + WAIT_FOR_STRATEGY
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        job.poll()
    if job.state == "running":
        kept = kept_path(game, objective) is not None
        return None, templates.TemplateResponse(
            request, "play_wait.html", {"game": game, "job": job, "why": "", "kept": kept}
        )
    if job.state != "done":
        failed = BadRules if job.rules_broken else PerfectplayError
        raise failed(f"the strategy of {game} could not be solved: {job.error}")
    return job.strategy, None


def markov_board(request: Request, game, seed: int, base: dict) -> Response:
    """A Markov game's board (``BOARDS``): the state, the chance outcome drawn, every
    choice (with its expected cost when the board plays the least expected cost; the
    choices for the budget left when it plays for the best chance to finish within a
    horizon, which ends the game once spent). A move the address gets wrong is said on
    the board, which shows the moves before it."""
    q = request.query_params
    objective, message = _board_objective(game, q, read_objective)
    if message:  # (the board's links leave them out)
        base = {k: v for k, v in base.items() if k not in ("objective", "horizon")}
    horizon = objective.horizon if objective.name == "probability" else None
    raw = [m for m in (q.get("moves") or "").split(",") if m.strip()]
    if len(raw) > 10 * MAX_TURNS:
        raise TooLarge(f"at most {10 * MAX_TURNS} moves")
    try:
        moves = [int(m) for m in raw]
    except ValueError:
        moves, message = [], "the moves in the address cannot be read (whole numbers): a new game"
    if "position" in q:  # a game played elsewhere, advised from where it stands
        return _elsewhere(request, game, base, objective, q["position"].strip())
    strategy, waiting = _solved_strategy(request, game, objective)
    if waiting is not None:
        return waiting
    game = strategy.game  # (the same game, its tables built once for every visitor)
    rng = random.Random(seed)
    state, paid, log, steps = positions.start(game), 0, [], []
    card = scorecard(game)
    played = 0
    k = None
    while not bool(positions.terminal(game, np.array([state], dtype=np.int64))[0]):
        if horizon is not None and game.measure.next_budget(horizon, paid) is None:
            break
        exp = positions.expansion(game, np.array([state], dtype=np.int64))
        weights = exp.weight[0]
        ks = np.flatnonzero(weights > 0)
        k = int(rng.choices(ks.tolist(), weights=[int(w) for w in weights[ks]])[0])
        legal = np.flatnonzero(exp.next[0, k] >= 0)
        cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        if len(legal) == 1:
            c = int(legal[0])
        elif played < len(moves) and moves[played] in legal:
            c = moves[played]
            played += 1
        else:
            if played < len(moves):
                message = (
                    f"move {played + 1} (choice {moves[played]}) is not one the rules allow "
                    "there: the board shows the moves before it"
                )
                moves = moves[:played]
            break
        said = f"{game.describe_state(state)}: {game.describe_outcome(state, k)}"
        if len(legal) > 1:  # (chance alone, a roll, is said without a choice)
            log.append(f"{said} -> {game.describe_choice(state, k, c)}")
        elif len(ks) > 1:
            log.append(said)
        steps.append((state, k, c))
        if card is not None:
            card.note(state, c, int(cost[c]))
        paid += int(cost[c])
        state = int(exp.next[0, k, c])
        k = None
    budget = None if horizon is None else game.measure.next_budget(horizon, paid)
    spent = horizon is not None and budget is None
    done = k is None or spent
    choices = None if done else _markov_choices(game, strategy, state, k, paid, budget, objective)
    undo = ",".join(map(str, moves[: played - 1])) if played else None
    return templates.TemplateResponse(
        request,
        "play_markov.html",
        {
            "game": game,
            "state": game.describe_state(state),
            "outcome": None if done else game.describe_outcome(state, k),
            "choices": choices,
            "done": done,
            "spent": spent,
            "review": None if horizon is not None else markov_review(game, strategy, steps, state),
            "horizon": horizon,
            "board": draw(game, state, None if spent else k),
            "card": card,
            "elsewhere_url": _url(game, base, position=" "),
            "paid": paid,
            "log": log[-12:],
            "value": strategy.value(positions.start(game)),
            "measure": game.measure,
            "seed": seed,
            "message": message,
            "move_url": lambda c: _url(game, base, moves=",".join(map(str, moves[:played] + [c]))),
            "undo_url": None if undo is None else _url(game, base, moves=undo),
            "new_url": _url(game, {k: v for k, v in base.items() if k != "seed"}),
        },
        status_code=400 if message else 200,
    )


#: How a position of a game played elsewhere is written, for the board's form.
POSITION_EXAMPLE = "aces 3, full house 25; roll 2: 1 3 3 5 6"


def _elsewhere(request: Request, game, base: dict, objective, typed: str) -> Response:
    """The advice at a position of a game played elsewhere (``MarkovGame.parse_position``:
    its card and its dice), for the expected objective: every choice best first with the
    final total it is expected to bring and its loss; a position that does not read is
    one line on the board, whose form keeps what was typed."""
    message, choices, state, paid = "", None, None, 0
    readable = positions.reads_positions(game)
    if typed:
        try:
            state, paid = game.parse_position(typed)
        except PerfectplayError as err:
            message = _plain(game, err)
    if state is not None:
        strategy, waiting = _solved_strategy(request, game, objective)
        if waiting is not None:
            return waiting
        choices = _markov_choices(game, strategy, state, 0, paid, None, Objective())
    card = None if state is None else scorecard(game, typed)
    return templates.TemplateResponse(
        request,
        "play_elsewhere.html",
        {
            "game": game,
            "readable": readable,
            "typed": typed,
            "example": POSITION_EXAMPLE,
            "state": None if state is None else game.describe_state(state),
            "board": None if state is None else draw(game, state, 0),
            "choices": choices,
            "card": card,
            "paid": paid,
            "measure": game.measure,
            "message": message,
            "board_url": _url(game, {k: v for k, v in base.items() if k != "seed"}),
            "next_url": lambda c: _url(
                game, base, position=_next_position(game, card, state, c, typed)
            ),
        },
        status_code=400 if message or not readable else 200,
    )


def _next_position(game, card, state: int, c: int, typed: str) -> str:
    """The position after choice `c` at `state` of a game played elsewhere (`typed`), as
    its form takes it up for the next dice to be added: a keep, the next roll with the
    dice kept; a box, its card with the box filled and the next turn's first roll."""
    roll = re.search(r"roll\s*([123])", typed.rpartition(";")[2], re.IGNORECASE)
    kept = _keep(game, state, c)
    if card is None or roll is None:
        return typed
    if kept is not None:
        return f"{card.written()}; roll {int(roll[1]) + 1}: {kept}".lstrip("; ")
    after = Scorecard(game, *card.kept())
    exp = positions.expansion(game, np.array([state], dtype=np.int64))
    after.note(state, c, int(np.broadcast_to(exp.cost, exp.next.shape)[0, 0, c]))
    return f"{after.written()}; roll 1: ".lstrip("; ")


@dataclass(frozen=True)
class Choice:
    """A choice on a Markov board: its label, its choice number, its value as shown (the
    final total it is expected to bring; a budget's: as the explorer shows it), its loss
    against the best (None: not known, under a budget) and whether it is the suggestion."""

    label: str
    action: int
    value: str
    loss: float | None
    chosen: bool
    #: The dice a keep keeps, faces in increasing order ("3 3 5"; "" none), for the
    #: board's dice kept by clicks (``static/dice.js``); None: no keep.
    keep: str | None = None


def _markov_choices(game, strategy, state: int, k: int, paid: int, budget: int | None, objective):
    """The choices after outcome `k` at `state` from the advisor (``advice.markov_advice``:
    best first, the suggestion first): for the expected objective each with the final
    total it is expected to bring (`paid` so far plus its value to come) and its loss;
    played for a target score (`budget` points still needed), each with its best chance
    of reaching it and what it gives up. A graph's policy for a horizon (its values the
    whole horizon's only): the explorer's choices."""
    measure = game.measure
    if budget is not None and not _advised_target(game, objective):
        view = strategy.explore(f"{state}@{budget}")
        branch = next(b for b in view.branches if b.number == k)
        return [Choice(o.label, o.action, o.value, None, o.chosen) for o in branch.options]
    options = markov_advice(game, Decision(state, k, budget), objective, strategy).options
    if budget is not None:
        return [
            Choice(
                o.label,
                o.action,
                f"chance {o.value:.4f}",
                options[0].value - o.value + 0.0,
                i == 0,
                _keep(game, state, o.action),
            )
            for i, o in enumerate(options)
        ]
    return [
        Choice(
            o.label,
            o.action,
            f"{paid + o.value:.4f} {measure.unit}"
            + ("" if o.spread is None else f" (sd {o.spread:.2f})"),
            measure.regret(o.value, options[0].value) + 0.0,
            i == 0,
            _keep(game, state, o.action),
        )
        for i, o in enumerate(options)
    ]


def _advised_target(game, objective) -> bool:
    """Whether the advisor values the board's choices for `objective` (a target score of
    a scored game solved by stages)."""
    try:
        check_markov_objective(game, objective)
    except PerfectplayError:
        return False
    return True


def _keep(game, state: int, c: int) -> str | None:
    """The faces choice `c` keeps at `state` ("3 3 5"), for a game of dice; else None."""
    kept = game.kept(state, c) if hasattr(game, "kept") else None
    return None if kept is None else " ".join(str(f + 1) for f in range(6) for _ in range(kept[f]))


#: The board of each kind of game.
BOARDS = {"deduction": deduction_board, "markov": markov_board}
