"""The Starlette application and ``serve``: routes, templates, static files, errors."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..errors import PerfectplayError

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))
#: Largest request body accepted (forms are a few hundred bytes).
MAX_BODY = 16 * 1024


class _Limits:
    """Refuse, before reading them, requests larger than the page ever sends."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            length = dict(scope.get("headers") or []).get(b"content-length", b"0")
            if (not length.isdigit() or int(length) > MAX_BODY
                    or len(scope.get("query_string", b"")) > 4096):
                await PlainTextResponse("request too large", status_code=413)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def error_page(request: Request, message: str, status: int) -> HTMLResponse:
    """A page with one line saying what is wrong."""
    return templates.TemplateResponse(request, "error.html", {"message": message},
                                      status_code=status)


async def _perfectplay_error(request: Request, exc: Exception) -> HTMLResponse:
    from .forms import TooLarge
    from .jobs import Busy

    status = 413 if isinstance(exc, TooLarge) else 429 if isinstance(exc, Busy) else 400
    return error_page(request, str(exc), status)


async def _server_error(request: Request, exc: Exception) -> HTMLResponse:
    return error_page(request, f"internal error ({exc.__class__.__name__}); nothing was changed", 500)


def create_app() -> Starlette:
    """The application with its solves (ended when the application shuts down)."""
    from contextlib import asynccontextmanager

    from . import pages, play
    from .jobs import Jobs

    jobs = Jobs()

    @asynccontextmanager
    async def lifespan(app):
        yield
        jobs.close()

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
    app = Starlette(routes=routes, middleware=[Middleware(_Limits)], lifespan=lifespan,
                    exception_handlers={PerfectplayError: _perfectplay_error,
                                        Exception: _server_error})
    app.state.jobs = jobs
    return app


def serve(host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the application with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
