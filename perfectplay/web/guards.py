"""What the server checks of every request before a page sees it: its size (the body
counted as it arrives, whatever its framing), its ``Host`` (the address served, no other)
and, for a form it posts, its origin (this server's pages, no other site's).

Each is an ASGI middleware answering a one-line refusal itself, on the event loop: they
read headers and count bytes, nothing more (the pages' work runs in the thread pool).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse, PlainTextResponse

#: Largest request body accepted (forms are a few hundred bytes).
MAX_BODY = 16 * 1024
#: Longest query string accepted (a board's moves are a few hundred bytes).
MAX_QUERY = 4096
#: The names of this machine's loopback addresses, as a ``Host`` header writes them.
LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
#: Methods that change nothing (a form posted by any other method is checked for its origin).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class ServedHosts:
    """The ``Host`` headers a server answers (lower case, with the port as browsers write
    it), and, for a server on every interface, the port with which any IP address is
    served too (its addresses are not listed; an address cannot be rebound by another
    site's name, so it needs no listing)."""

    names: frozenset[str]
    any_address_port: int | None = None

    def serve(self, host: str) -> bool:
        """True if `host` (a ``Host`` header) names the address served."""
        host = host.lower()
        if host in self.names:
            return True
        if self.any_address_port is None:
            return False
        try:
            parts = urlsplit("//" + host)
            ipaddress.ip_address(parts.hostname or "")
            return (parts.port or 80) == self.any_address_port  # (80 is not written)
        except ValueError:  # not an address, or no port
            return False


#: The ``Host`` a client inside the process sends (Starlette's TestClient): all that an
#: application answers when it is not told the address it is served at, a name no
#: network client gives.
IN_PROCESS = ServedHosts(frozenset({"testserver"}))


def served_hosts(host: str, port: int) -> ServedHosts:
    """The ``Host`` headers that name the address `host`:`port` served: the host as given
    (an IPv6 address in brackets); every loopback name for a loopback address; for every
    interface (``0.0.0.0``, ``::``) the loopback names, this machine's name and any IP
    address. Each with the port, and also without it when the port is HTTP's own (80)."""
    name = host.lower()
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    names = {f"[{name}]" if address is not None and address.version == 6 else name}
    if name == "localhost" or (address is not None and address.is_loopback):
        names.update(LOOPBACK)
    everywhere = address is not None and address.is_unspecified
    if everywhere:
        names.update(LOOPBACK)
        names.add(socket.gethostname().lower())
    with_port = {f"{n}:{port}" for n in names} | (names if port == 80 else set())
    return ServedHosts(frozenset(with_port), port if everywhere else None)


def _refuse(status: int, line: str):
    """The one-line plain-text refusal (an ASGI app)."""
    return PlainTextResponse(line, status_code=status)


def _too_large():
    """The refusal of a request too large: the site's error page (an ASGI app), the
    request left unread."""
    from .render import templates

    page = templates.env.get_template("error.html").render(
        message=f"request too large: at most {MAX_BODY // 1024} KB (nothing was done)"
    )
    return HTMLResponse(page, status_code=413)


def _header(scope, name: bytes) -> str | None:
    """The value of the request header `name` (lower case), or None."""
    for key, value in scope.get("headers") or ():
        if key == name:
            return value.decode("latin-1")
    return None


class Hosts:
    """Refuse a request whose ``Host`` is not the address served (`hosts`): a page of
    another site that has its own name resolve to this machine (DNS rebinding) then
    reaches nothing."""

    def __init__(self, app, hosts: ServedHosts):
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            host = _header(scope, b"host") or ""
            if not self.hosts.serve(host):
                refusal = _refuse(
                    400, f"host {host!r} is not the address this server serves; nothing was done"
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Limits:
    """Refuse requests larger than the page ever sends: a declared length or a query over
    the caps before reading anything, and a body of any framing (``Transfer-Encoding:
    chunked`` declares no length) counted as it arrives, refused as soon as it passes
    `MAX_BODY`. A body within the cap is read whole here and handed on as it came."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length") or "0"
        if (
            not length.isdigit()
            or int(length) > MAX_BODY
            or len(scope.get("query_string", b"")) > MAX_QUERY
        ):
            await _too_large()(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":  # the client left: nothing to answer
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY:
                await _too_large()(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _replay(body: bytes, receive):
    """A `receive` that gives `body` whole at its first call, then what `receive` gives
    (the disconnect a streaming response waits for)."""
    given = False

    async def again():
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


class SameOrigin:
    """Refuse a form posted from another site: a request by any method but GET, HEAD and
    OPTIONS whose ``Origin`` (or, missing that, whose ``Referer``'s origin) is not the
    origin the request itself names (its scheme and ``Host``, already checked by
    ``Hosts``).

    An origin check rather than a CSRF token: the pages are plain forms and links, and
    browsers send ``Origin`` with every form they post (the Fetch standard: any method
    but GET and HEAD; ``null`` from a sandboxed or privacy-stripped page, refused too),
    so the check needs no token in every form and no state kept per visitor. A request
    with neither header is served: it does not come from a browser's page but from a
    script or ``curl``, which sends whatever headers it likes and so forges nothing. (An
    old browser that posted across sites without either could still cancel nothing: it
    would not send the visitor's ``SameSite=Strict`` cookie.)
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin is None and (referer := _header(scope, b"referer")) is not None:
                parts = urlsplit(referer)
                origin = f"{parts.scheme}://{parts.netloc}"
            served = f"{scope.get('scheme', 'http')}://{_header(scope, b'host') or ''}"
            if origin is not None and origin.lower() != served.lower():
                refusal = _refuse(
                    403,
                    f"a form posted from {origin} is refused: only this server's own "
                    f"pages ({served}) post here",
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
