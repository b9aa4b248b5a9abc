"""Advised play on a board, kept in the page's address (nothing stored on the server):
the moves so far are in the query, undo is the same address less the last move, and a
move the rules refuse (feedback no secret fits) leaves the game as it was.

Deduction games: the advisor of ``play/deduction_play.py`` suggests each guess, worked
out by one of the server's workers within a budget (``jobs.Jobs.advise``: the optimal
guess, else the heuristic's, labelled); the tool holds a secret drawn from the seed
(``secret=page``), or the person types the feedback they got (``secret=yours``). Markov
games: the strategy is solved by a worker (the board shows its progress meanwhile);
chance is drawn from the seed; every choice is shown with its expected cost (the solved
strategy's explorer node), the optimal one marked.
"""

from __future__ import annotations

import random
import time
from urllib.parse import urlencode

import numpy as np
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import PerfectplayError
from .render import templates
from .boards import draw
from .forms import MAX_TURNS, TooLarge, read_game

#: Seconds the advisor's optimal search may take before its heuristic answers.
BUDGET = 1.0
#: Seconds a Markov board waits for its strategy's solve before showing its progress.
WAIT_FOR_STRATEGY = 1.0


def page(request: Request) -> Response:
    """The board of the game named in the address, in the position its moves give."""
    q = request.query_params
    game = read_game(request.path_params["game"], q)
    seed = _int(q.get("seed") or "1", "seed")
    base = {**{k: v for k, v in game.params.items() if v != ""}, "seed": seed}
    board = BOARDS.get(game.kind)
    if board is None:
        raise PerfectplayError(f"{game.name} has no board on the web page")
    return board(request, game, seed, base)


def _int(raw: str, what: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise PerfectplayError(f"{what} must be an integer, got {raw!r}") from None


def _url(game, base: dict, **extra) -> str:
    return f"/play/{game.name}?" + urlencode(
        {**base, **{k: v for k, v in extra.items() if v != ""}}
    )


# --- deduction games ------------------------------------------------------------------
def deduction_board(request: Request, game, seed: int, base: dict) -> Response:
    """A deduction game's board (``BOARDS``): the guesses and their
    feedback, the advisor's suggestion, the secrets still possible."""
    from ..engine import engine_of
    from ..play.deduction_play import consistent_secrets

    engine = engine_of(game)
    q = request.query_params
    mode = "yours" if q.get("secret") == "yours" else "page"
    base = {**base, "secret": mode}
    history = engine.parse_position(game, q.get("moves", ""))
    if len(history) > MAX_TURNS:
        raise TooLarge(f"at most {MAX_TURNS} turns")
    guesses, secrets = game.guesses(), game.secrets()
    left = consistent_secrets(game, history)
    if not len(left):
        raise PerfectplayError("no secret fits these moves")
    hidden = random.Random(seed).randrange(len(secrets)) if mode == "page" else None
    moves = engine.format_position(game, history)
    message, status = "", 200
    guess_text = (q.get("guess") or "").strip()
    solved = bool(history) and history[-1][1] == game.solved_feedback()
    if guess_text and not solved:
        g = engine.guess_index(game, guess_text)
        mask = game.restrict_guesses(history, guesses[[g]])
        if mask is not None and not mask[0]:
            message, status = f"{guess_text} is not allowed here (the game's hard mode)", 422
        else:
            if hidden is not None:
                f = int(game.feedback(guesses[g], secrets[hidden]))
            else:
                f = game.parse_feedback(q.get("feedback") or "")
            row = engine.feedback(game, guesses[[g]], secrets[left])[0]
            if (row == f).any():
                new = engine.format_position(game, history + ((g, f),))
                return RedirectResponse(_url(game, base, moves=new), status_code=303)
            message, status = (
                (
                    f"no secret still possible answers {game.format_code(guesses[g])} "
                    f"with {game.format_feedback(f)}: feedback refused, nothing "
                    "changed"
                ),
                422,
            )
    horizon = game.default_horizon() if game.default_objective == "probability" else None
    over = horizon is not None and len(history) >= horizon and not solved
    suggestion = None
    if not solved and not over:
        turns_left = None if horizon is None else horizon - len(history)
        advice = request.app.state.jobs.advise(str(game), moves, turns_left, BUDGET)
        if advice is not None:
            suggestion = {"code": game.format_code(guesses[advice.guess]), "source": advice.source}
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
    return templates.TemplateResponse(
        request,
        "play_deduction.html",
        {
            "game": game,
            "rows": rows,
            "left": len(left),
            "mode": mode,
            "seed": seed,
            "listed": [game.format_code(secrets[s]) for s in left[:24]],
            "suggestion": suggestion,
            "solved": solved,
            "over": over,
            "moves": moves,
            "message": message,
            "base": base,
            "undo_url": None if undo is None else _url(game, base, moves=undo),
            "new_url": _url(game, {**base, "seed": seed + 1}),
            "secret": game.format_code(secrets[hidden])
            if hidden is not None and (solved or over)
            else None,
            "example": game.format_feedback(0),
            "turns": horizon,
        },
        status_code=status,
    )


# --- Markov games ---------------------------------------------------------------------
def _solved_strategy(request: Request, game):
    """The strategy the board plays (solved in a worker, kept by the server), or the page
    to show meanwhile: the solve's progress, or a wait for a free place."""
    from .jobs import Busy

    jobs = request.app.state.jobs
    try:
        job = jobs.strategy(str(game), "expected")
    except Busy as busy:
        return None, templates.TemplateResponse(
            request, "play_wait.html", {"game": game, "job": None, "why": str(busy)}
        )
    deadline = time.monotonic() + WAIT_FOR_STRATEGY
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        job.poll()
    if job.state == "running":
        return None, templates.TemplateResponse(
            request, "play_wait.html", {"game": game, "job": job, "why": ""}
        )
    if job.state != "done":
        raise PerfectplayError(f"the strategy of {game} could not be solved: {job.error}")
    return job.strategy, None


def markov_board(request: Request, game, seed: int, base: dict) -> Response:
    """A Markov game's board (``BOARDS``): the state, the chance outcome
    drawn, every choice with its expected cost."""
    q = request.query_params
    raw = [m for m in (q.get("moves") or "").split(",") if m.strip()]
    if len(raw) > 10 * MAX_TURNS:
        raise TooLarge(f"at most {10 * MAX_TURNS} moves")
    moves = [_int(m, "a move") for m in raw]
    strategy, waiting = _solved_strategy(request, game)
    if waiting is not None:
        return waiting
    rng = random.Random(seed)
    state, paid, log = game.initial_state(), 0, []
    played = 0
    k = None
    while not bool(np.asarray(game.is_terminal(np.array([state], dtype=np.int64)))[0]):
        exp = game.expand(np.array([state], dtype=np.int64))
        weights = exp.weight[0]
        ks = np.flatnonzero(weights > 0)
        k = int(rng.choices(ks.tolist(), weights=[int(w) for w in weights[ks]])[0])
        legal = np.flatnonzero(exp.next[0, k] >= 0)
        cost = np.broadcast_to(exp.cost, exp.next.shape)[0, k]
        if len(legal) == 1:
            c = int(legal[0])
        elif played < len(moves):
            c = moves[played]
            played += 1
            if c not in legal:
                raise PerfectplayError(f"move {played}: choice {c} is not legal there")
        else:
            break
        log.append(
            f"{game.describe_state(state)}: {game.describe_outcome(state, k)} -> "
            f"{game.describe_choice(state, k, c)}"
        )
        paid += int(cost[c])
        state = int(exp.next[0, k, c])
        k = None
    done = k is None
    view = branch = None
    if not done:
        view = strategy.explore(str(state))
        branch = next(b for b in view.branches if b.number == k)
    undo = ",".join(map(str, moves[: played - 1])) if played else None
    return templates.TemplateResponse(
        request,
        "play_markov.html",
        {
            "game": game,
            "state": game.describe_state(state),
            "branch": branch,
            "done": done,
            "board": draw(game, state, k),
            "paid": paid,
            "log": log[-12:],
            "value": strategy.value(game.initial_state()),
            "measure": game.measure,
            "seed": seed,
            "move_url": lambda c: _url(game, base, moves=",".join(map(str, moves[:played] + [c]))),
            "undo_url": None if undo is None else _url(game, base, moves=undo),
            "new_url": _url(game, {**base, "seed": seed + 1}),
        },
    )


#: The board of each kind of game.
BOARDS = {"deduction": deduction_board, "markov": markov_board}
