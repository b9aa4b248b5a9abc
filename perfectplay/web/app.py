"""The Starlette application and ``serve``: routes, templates, static files, errors."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import PerfectplayError
from .render import error_page

HERE = Path(__file__).parent
#: Largest request body accepted (forms are a few hundred bytes).
MAX_BODY = 16 * 1024


class _Limits:
    """Refuse, before reading them, requests larger than the page ever sends."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            length = dict(scope.get("headers") or []).get(b"content-length", b"0")
            if (
                not length.isdigit()
                or int(length) > MAX_BODY
                or len(scope.get("query_string", b"")) > 4096
            ):
                await PlainTextResponse("request too large", status_code=413)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _perfectplay_error(request: Request, exc: Exception) -> HTMLResponse:
    from .forms import TooLarge
    from .jobs import Busy

    status = 413 if isinstance(exc, TooLarge) else 429 if isinstance(exc, Busy) else 400
    return error_page(request, str(exc), status)


def _server_error(request: Request, exc: Exception) -> HTMLResponse:
    return error_page(
        request, f"internal error ({exc.__class__.__name__}); nothing was changed", 500
    )


def create_app(jobs=None) -> Starlette:
    """The application with its workers (`jobs`, a ``jobs.Jobs``; a new one by default),
    ended when the application shuts down."""
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
        Route("/play/{game}", play.page),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(_Limits)],
        lifespan=lifespan,
        exception_handlers={PerfectplayError: _perfectplay_error, Exception: _server_error},
    )
    app.state.jobs = jobs
    return app


#: Seconds a stopping server waits for the requests in flight (each answers within 2 s).
STOP_WAIT = 3


def serve(host: str = "127.0.0.1", port: int = 8765, say=print) -> None:
    """Warm the workers up (said, with the time it took), then serve with uvicorn until
    SIGTERM or Ctrl-C, which end every worker."""
    import uvicorn

    from .jobs import Jobs

    jobs = Jobs()
    try:
        say("perfectplay: warming up the workers (compiled kernels, the default games' tables)...")
        say(f"perfectplay: warmed up in {jobs.warm_up():.1f} s")
        say(f"perfectplay: serving on http://{host}:{port}/ (Ctrl-C stops)")
        uvicorn.run(
            create_app(jobs),
            host=host,
            port=port,
            log_level="warning",
            timeout_graceful_shutdown=STOP_WAIT,
        )
    finally:
        jobs.close()
