"""The Starlette application and ``serve``: routes, templates, static files, errors."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..catalogue import game_names, shipped_names
from ..errors import BadRules, IncompleteRules, PerfectplayError
from .guards import IN_PROCESS, Hosts, Limits, SameOrigin, ServedHosts, served_hosts
from .render import error_page

HERE = Path(__file__).parent


def _perfectplay_error(request: Request, exc: Exception) -> HTMLResponse:
    from .forms import TooLarge
    from .jobs import Busy

    if isinstance(exc, (BadRules, IncompleteRules)):
        _note_broken(request, exc)
    status = 413 if isinstance(exc, TooLarge) else 429 if isinstance(exc, Busy) else 400
    return error_page(request, str(exc), status)


#: What a page says for the HTTP errors Starlette raises itself (an address no route has,
#: a method a route does not take).
_HTTP_WORDS = {
    404: "there is no page at this address",
    405: "this page is not reached that way (method {method})",
}


def _http_error(request: Request, exc: Exception) -> HTMLResponse:
    """Starlette's own HTTP errors as the site's error page, in its words."""
    status = getattr(exc, "status_code", 400)
    words = _HTTP_WORDS.get(status, str(getattr(exc, "detail", "")) or "refused")
    return error_page(request, words.format(method=request.method), status)


def _server_error(request: Request, exc: Exception) -> HTMLResponse:
    _note_broken(request, exc)
    return error_page(
        request, f"internal error ({exc.__class__.__name__}); nothing was changed", 500
    )


#: The longest reason a broken game is shown with on the catalogue.
BROKEN_WORDS = 200


def _note_broken(request: Request, exc: Exception) -> None:
    """Mark the game of the page that failed (its address's) as broken, with one line
    why, for the catalogue (``app.state.broken``), when it is not a game the package
    ships: a plug-in's rules are the plug-in's, and the server goes on with the others."""
    name = request.path_params.get("game")
    if not isinstance(name, str) or name in shipped_names() or name not in game_names():
        return
    words = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    broken = request.app.state.broken
    broken[name] = f"broken: its rules failed ({words[:BROKEN_WORDS]})"


def create_app(jobs=None, hosts: ServedHosts = IN_PROCESS) -> Starlette:
    """The application with its workers (`jobs`, a ``jobs.Jobs``; a new one by default),
    ended when the application shuts down, answering the ``Host`` headers `hosts` (those
    of the address ``serve`` binds; by default an in-process client's alone) and refusing
    what ``guards`` refuses (too large, another site's form)."""
    from contextlib import asynccontextmanager

    from . import pages, play
    from .jobs import Jobs

    jobs = jobs or Jobs()

    @asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            await run_in_threadpool(jobs.close)

    routes = [
        Route("/", pages.catalogue),
        Route("/solve", pages.solve, methods=["POST"]),
        Route("/jobs/{job_id}", pages.job),
        Route("/api/jobs/{job_id}", pages.job_status),
        Route("/jobs/{job_id}/cancel", pages.cancel, methods=["POST"]),
        Route("/jobs/{job_id}/explore", pages.explore),
        Route("/jobs/{job_id}/strategy.json", pages.download),
        Route("/play/{game}", play.page),
        Route("/play/{game}/options", play.options_page),
        Route("/play/{game}/review", play.review_page),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Hosts, hosts=hosts), Middleware(Limits), Middleware(SameOrigin)],
        lifespan=lifespan,
        exception_handlers={
            PerfectplayError: _perfectplay_error,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.state.jobs = jobs
    app.state.broken = {}  # game name -> why its rules are broken (``_note_broken``)
    return app


#: Seconds a stopping server waits for the requests in flight (each answers within 2 s).
STOP_WAIT = 3


class CannotListen(PerfectplayError):
    """The address to serve cannot be had (a port in use, an address not of this machine)."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host`:`port` (port 0: a free port the system picks), or a
    one-line ``CannotListen`` naming why not. Bound here, before anything is started, so
    that a port in use is said at once and the port the system chose is known."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()
    except OSError as err:
        sock.close()
        hint = (
            " (--port picks another; --port 0 any free one)"
            if err.errno == errno.EADDRINUSE
            else ""
        )
        raise CannotListen(
            f"cannot serve on {_address(host, port)}: {err.strerror or err}{hint}"
        ) from None
    return sock


def _address(host: str, port: int) -> str:
    """`host`:`port` as an address is written (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def server_config(app: Starlette, request_seconds: float | None = None, cap: int | None = None):
    """uvicorn's settings for serving `app`: its log at warnings, requests in flight
    given STOP_WAIT seconds at a stop, connections guarded (``connections``: a request
    must arrive whole within `request_seconds`, by default ``REQUEST_SECONDS``; at most
    `cap` connections, by default below the file limit, accepted ``ACCEPT_BATCH`` at a
    time; a refused connection said once in the log). uvicorn's own
    ``limit_concurrency`` is not used: it answers 503 but still accepts, each
    connection taking a descriptor."""
    import uvicorn

    from .connections import (
        ACCEPT_BATCH,
        KEEP_ALIVE_SECONDS,
        REQUEST_SECONDS,
        guarded,
        say_refusals_once,
    )

    config = uvicorn.Config(
        app,
        log_level="warning",
        backlog=ACCEPT_BATCH,
        timeout_graceful_shutdown=STOP_WAIT,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        http=guarded(REQUEST_SECONDS if request_seconds is None else request_seconds, cap),
    )
    say_refusals_once()  # after uvicorn has configured its loggers
    return config


def serve(host: str = "127.0.0.1", port: int = 8765, say=print) -> None:
    """Take the address (a port in use is a one-line error before anything starts), warm
    the workers up (said, with the time it took), then serve with uvicorn until SIGTERM or
    Ctrl-C, which end every worker. The address said is the one listening (``--port 0``:
    the port the system chose)."""
    import uvicorn

    from .jobs import Jobs

    sock = listen(host, port)
    port = sock.getsockname()[1]
    jobs = Jobs()
    try:
        say("perfectplay: warming up the workers (compiled kernels, the default games' tables)...")
        say(f"perfectplay: warmed up in {jobs.warm_up():.1f} s")
        say(f"perfectplay: serving on http://{_address(host, port)}/ (Ctrl-C stops)")
        config = server_config(create_app(jobs, served_hosts(host, port)))
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        jobs.close()
        sock.close()
