"""The page templates, and the page that says in one line what is wrong."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))


def signed(number: float) -> str:
    """`number` with its sign written out, to 4 places, never "-0.0000"."""
    return f"{round(float(number), 4) + 0.0:+.4f}"


templates.env.filters["signed"] = signed


def error_page(request: Request, message: str, status: int) -> HTMLResponse:
    """A page with one line saying what is wrong."""
    return templates.TemplateResponse(
        request, "error.html", {"message": message}, status_code=status
    )
