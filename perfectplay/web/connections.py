"""The connections the server keeps: idle and slow ones closed, no more open than the
process's file limit leaves room for, and the refusals said once in the log.

uvicorn closes a connection left idle only after it has answered a request on it
(``timeout_keep_alive``): a connection that never sends one, or sends it a byte at a
time, stays open for ever, and each holds a file descriptor. 1,100 of them under
``ulimit -n 1024`` left no descriptor to accept with: new requests timed out, and the
event loop logged a traceback of "Too many open files" for each attempt (74 MB of log
in 40 s). Here:

- `Guarded`, the HTTP protocol the server speaks (uvicorn's h11 one), closes a
  connection whose request has not arrived whole within ``request_seconds`` of its
  opening, or of the answer before it (idle, or slow: a request trickled in);
- it keeps no more than `connection_cap` connections open: a cap below the file limit
  (``RLIMIT_NOFILE``), so that the descriptors the server needs for itself (its
  files, its workers' pipes, the listening socket) and the connections accepted but
  not yet closed are not taken. A new connection beyond the cap closes the one that
  has waited longest for a request (or, when every one is being answered, itself), so
  that a fresh request is answered even while idle connections fill the cap;
- the server accepts at most ``ACCEPT_BATCH`` connections at a time (its listening
  backlog: the event loop accepts as many at once before any is looked at);
- `SaidOnce`, a filter on the loggers of the event loop and of uvicorn, lets the first
  record of a refused connection (the cap reached, or descriptors run out) through and
  drops the rest.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a request has to arrive whole, from the connection's opening or the answer
#: before it (the pages' forms are a few hundred bytes; a browser sends one at once).
REQUEST_SECONDS = 10.0
#: Seconds an idle connection is kept after an answer, for the next request (uvicorn's).
KEEP_ALIVE_SECONDS = 5
#: File descriptors kept below the file limit for the server's own files and for the
#: connections accepted but not yet closed: at least this many, or a quarter of the
#: limit.
SPARE_FILES = 128
#: Connections the event loop accepts at once (uvicorn's ``backlog``; its default,
#: 2,048, accepted 1,100 connections in one go, past any cap, before one was looked at).
ACCEPT_BATCH = 64

#: The errors of descriptors run out.
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
#: The log every refusal of a connection is said in (once: `SaidOnce`).
log = logging.getLogger("perfectplay.web.connections")


def connection_cap() -> int:
    """The most connections the server keeps open: its file limit (``RLIMIT_NOFILE``,
    ``ulimit -n``) less what it keeps spare (``SPARE_FILES``, or a quarter of the
    limit), at least 16."""
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY:
        limit = 1 << 20
    return max(16, limit - max(SPARE_FILES, limit // 4))


class Guarded(H11Protocol):
    """uvicorn's h11 protocol, which closes idle and slow connections and the
    connections beyond the cap (see the module's docstring). The limits are the
    class's: ``guarded`` makes a class with others."""

    request_seconds: float = REQUEST_SECONDS
    cap: int = 1 << 20

    _deadline: asyncio.TimerHandle | None = None
    #: When the connection began to wait for its request (the loop's clock).
    _since: float = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        if len(self.connections) > self.cap:
            log.warning(
                "perfectplay: more than %d connections at once (the file limit, ulimit -n, "
                "less what the server keeps spare): each new one closes the one that has "
                "waited longest for a request; said once",
                self.cap,
            )
            waiting = (c for c in self.connections if isinstance(c, Guarded) and c._waiting())
            min(waiting, key=lambda c: c._since, default=self).transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        """Give the next request `request_seconds` to arrive whole."""
        if self._deadline is not None:
            self._deadline.cancel()
        self._since = self.loop.time()
        self._deadline = self.loop.call_later(self.request_seconds, self._expired)

    def _waiting(self) -> bool:
        """Whether the connection waits for a request whose head has not arrived whole
        (none begun, or trickling in), nothing being answered on it."""
        return (
            self.conn.their_state is h11.IDLE
            and (self.cycle is None or self.cycle.response_complete)
            and not self.transport.is_closing()
        )

    def _expired(self) -> None:
        """Close the connection if its request has still not arrived whole; a request
        being answered is left alone (its answer arms the deadline again)."""
        self._deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


def guarded(request_seconds: float = REQUEST_SECONDS, cap: int | None = None) -> type[Guarded]:
    """The protocol class for one server: requests given `request_seconds`, at most
    `cap` connections (by default ``connection_cap()``)."""
    return type(
        "Guarded",
        (Guarded,),
        {"request_seconds": request_seconds, "cap": connection_cap() if cap is None else cap},
    )


class SaidOnce(logging.Filter):
    """Lets the first record of a refused connection through (the cap reached, or
    descriptors run out: "Too many open files", with or without its traceback), and
    drops every later one; other records pass."""

    def __init__(self) -> None:
        super().__init__()
        self.said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if not _refusal(record):
            return True
        if self.said:
            return False
        self.said = True
        return True


def _refusal(record: logging.LogRecord) -> bool:
    """Whether `record` says a connection was refused or descriptors ran out."""
    if record.name == log.name:
        return True
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, OSError) and error.errno in _OUT_OF_FILES:
        return True
    return "Too many open files" in record.getMessage()


#: The loggers a refused connection is said in: the event loop's (a failed accept),
#: uvicorn's, and this module's.
LOGGERS = ("asyncio", "uvicorn.error", log.name)


#: The one filter of the process's server.
_ONCE = SaidOnce()


def say_refusals_once() -> SaidOnce:
    """Filter every logger of `LOGGERS` through the process's one `SaidOnce` (once:
    installing it again changes nothing); returns it."""
    for name in LOGGERS:
        logging.getLogger(name).addFilter(_ONCE)
    return _ONCE
