"""The catalogue, solves with live progress, results and the strategy explorer.

Every page is a plain function, which Starlette runs in its thread pool: nothing a page
computes (reading and checking a game, starting a worker, rendering) runs on the event
loop, so no request waits for another's work. Only reading a posted form awaits.
"""

from __future__ import annotations

import json
import re
import secrets
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from ..catalogue import game_class, game_names
from ..errors import PerfectplayError
from .render import error_page, templates
from .forms import (
    MAX_TURNS,
    SOLVE_NOTES,
    read_first,
    read_game,
    read_objective,
    web_default,
    web_high,
)


#: The cookie naming the visitor who started a solve: random, set by the answer that
#: starts it (so a page reached from another site, which does not send it, never replaces
#: it), sent by this site's pages only and read by no script.
VISITOR = "perfectplay_visitor"
#: What the cookie holds (``secrets.token_urlsafe(16)``); anything else is no visitor.
_VISITOR_TEXT = re.compile(r"[A-Za-z0-9_-]{22}")


def visitor(request: Request) -> str | None:
    """The visitor the request comes from (its cookie), or None for one that has none."""
    token = request.cookies.get(VISITOR, "")
    return token if _VISITOR_TEXT.fullmatch(token) else None


def _games(broken: dict[str, str]) -> list[dict]:
    """Every game with its parameters (files excepted) for the catalogue's forms; a game
    that cannot load, or whose rules failed on a page (`broken`: name -> why, one line),
    with the reason alone."""
    games = []
    for name in game_names():
        try:
            cls = game_class(name)
        except PerfectplayError as err:
            games.append({"name": name, "error": str(err)})
            continue
        if name in broken:
            games.append({"name": name, "error": broken[name]})
            continue
        params = [s for s in cls.param_specs() if not s.path]
        defaults, highs = {}, {}
        for spec in params:
            web = web_default(name, spec.name)
            defaults[spec.name] = spec.default if web is None else web
            highs[spec.name] = web_high(name, spec)
        games.append(
            {
                "name": name,
                "cls": cls,
                "params": params,
                "defaults": defaults,
                "highs": highs,
                "note": SOLVE_NOTES.get(name, ""),
            }
        )
    return games


def catalogue(request: Request) -> Response:
    return templates.TemplateResponse(
        request,
        "catalogue.html",
        {"games": _games(request.app.state.broken), "max_turns": MAX_TURNS},
    )


async def solve(request: Request) -> Response:
    """Start a solve of the posted game and objective; its page shows the progress."""
    form = await request.form()
    return await run_in_threadpool(_start, request, form)


def _start(request: Request, form) -> Response:
    """Check the posted game and objective and start their solve (in the thread pool),
    for the visitor who posts it (a new one, given its cookie, if it has none)."""
    game = read_game(str(form.get("game", "")), form)
    objective = read_objective(game, form)
    first = read_first(game, form)
    known = visitor(request)
    who = known or secrets.token_urlsafe(16)
    job = request.app.state.jobs.start(
        str(game), objective.name, objective.horizon, visitor=who, first=first
    )
    response = RedirectResponse(f"/jobs/{job.id}", status_code=303)
    if known is None:
        response.set_cookie(VISITOR, who, httponly=True, samesite="strict")
    return response


def _started_by(job, request: Request) -> bool:
    """True if the request comes from the visitor who started `job`."""
    who = visitor(request)
    return job.visitor is not None and who is not None and secrets.compare_digest(job.visitor, who)


def _job(request: Request):
    job = request.app.state.jobs.get(request.path_params["job_id"])
    if job is None:
        raise _NoJob(
            f"no solve {request.path_params['job_id']!r} on this server (results last "
            "until it stops)"
        )
    return job


class _NoJob(PerfectplayError):
    """A job id the server does not know."""


def _found(request: Request):
    """The solve the address names (a ``jobs.Job``), or the 404 page saying there is none."""
    try:
        return _job(request)
    except _NoJob as err:
        return error_page(request, str(err), 404)


def job(request: Request) -> Response:
    """A running solve (progress, cancel) or its result (status, value, histogram)."""
    job = _found(request)
    if isinstance(job, Response):
        return job
    result = None
    if job.state == "done":
        result = _result(job)
    return templates.TemplateResponse(
        request,
        "job.html",
        {"job": job, "result": result, "cancellable": _started_by(job, request)},
    )


def _result(job) -> dict:
    doc = job.document
    histogram = {int(k): v for k, v in (doc.get("histogram") or {}).items()}
    lost = doc["secrets"] - doc["wins"] if "wins" in doc else 0
    bars = sorted(histogram.items()) + ([("lost", lost)] if lost else [])
    return {
        "doc": doc,
        "bars": bars,
        "top": max([v for _, v in bars] or [1]),
        "root": job.strategy.root_path,
        "game": job.strategy.game,
        "objective": job.strategy.game.measure.objective_text(doc["objective"], doc.get("horizon")),
        "board": board_url(job),
        "file": file_name(job),
    }


def board_url(job) -> str:
    """The address of a board of the solved game, under the solve's objective and horizon
    (a fresh secret: the board draws it)."""
    game = job.strategy.game
    query = {k: v for k, v in game.params.items() if v != ""}
    query["objective"] = job.objective
    if job.horizon is not None:
        query["horizon"] = job.horizon
    return f"/play/{game.name}?" + urlencode(query)


def file_name(job) -> str:
    """The strategy file's name: the game, its parameters, the objective and the first
    guess asked for (``mastermind-pegs3-colors4-expected.json``,
    ``wordle-...-expected-first-salet.json``)."""
    game = job.strategy.game
    parts = [game.name, *(f"{k}{v}" for k, v in game.params.items() if v != "")]
    parts.append(job.objective + ("" if job.horizon is None else str(job.horizon)))
    if job.first:
        parts.append(f"first-{job.first}")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", "-".join(parts)) + ".json"


def _finished(request: Request):
    """The finished solve the address names (a ``jobs.Job``), or the page saying why there
    is none: no such solve (404), or one not finished (409)."""
    job = _found(request)
    if isinstance(job, Response):
        return job
    if job.state != "done":
        return error_page(request, f"solve {job.id} has no strategy ({job.state})", 409)
    return job


def download(request: Request) -> Response:
    """The solved strategy as the file ``perfectplay verify`` and ``show`` read (the
    document ``solve --out`` writes), saved under a name naming the game."""
    job = _finished(request)
    if isinstance(job, Response):
        return job
    headers = {"Content-Disposition": f'attachment; filename="{file_name(job)}"'}
    if job.kept_file is not None:  # (the kept file, as solve --out writes it: streamed)
        return FileResponse(job.kept_file, media_type="application/json", headers=headers)
    body = json.dumps(job.document, separators=(",", ":")) + "\n"
    return Response(body, media_type="application/json", headers=headers)


def job_status(request: Request) -> Response:
    """The solve's progress as JSON, for the page's live view."""
    try:
        job = _job(request)
    except _NoJob as err:
        return JSONResponse({"error": str(err)}, status_code=404)
    p = job.progress
    return JSONResponse(
        {
            "state": job.state,
            "stage": p.stage,
            "done": p.done,
            "total": p.total,
            "unit": p.unit,
            "info": p.info,
            "seconds": round(job.seconds, 1),
            "left": job.left,
            "error": job.error,
        }
    )


def cancel(request: Request) -> Response:
    """Cancel a solve, if the visitor who asks started it."""
    job = _found(request)
    if isinstance(job, Response):
        return job
    if not _started_by(job, request):
        return error_page(
            request,
            f"solve {job.id} was not started from this browser: only whoever started "
            "it can cancel it; nothing was changed",
            403,
        )
    job.stop("cancelled from this browser; nothing more is computed")
    return RedirectResponse(f"/jobs/{job.id}", status_code=303)


def explore(request: Request) -> Response:
    """One node of the solved game under the levels opened to reach it (each with the
    branch and option followed, and its value), its branches linking one level down and
    "up" one level up, its advice the one advisor's (``web/explorer.py``). The address
    lists the nodes from the root (``path=`` each), so that a Markov policy, whose nodes
    are states reached in many ways, goes back the way it came; a deduction node may name
    the guess it explores (``guess=``, an option of its table)."""
    from .explorer import deduction_node, markov_node, trail_query

    job = _finished(request)
    if isinstance(job, Response):
        return job
    result = _result(job)
    trail = request.query_params.getlist("path") or [result["root"]]
    if job.strategy.game.kind == "deduction":
        asked = (request.query_params.get("guess") or "").strip()
        node = deduction_node(request.app.state.jobs, job, trail, asked)
    else:
        node = markov_node(job, trail)
    here = trail_query(trail)
    return templates.TemplateResponse(
        request,
        "explore.html",
        {
            "job": job,
            "node": node,
            "view": node.view,
            "result": result,
            "steps": node.steps,
            "here": here,
            "up": node.up,
            "level": len(trail),
            "pick_url": lambda guess: f"?{trail_query(trail, guess=guess)}",
        },
    )
