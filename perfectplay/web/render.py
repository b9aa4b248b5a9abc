"""The page templates, and the page that says in one line what is wrong."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))


def error_page(request: Request, message: str, status: int) -> HTMLResponse:
    """A page with one line saying what is wrong."""
    return templates.TemplateResponse(
        request, "error.html", {"message": message}, status_code=status
    )
