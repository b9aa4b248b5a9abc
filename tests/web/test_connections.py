"""The server's connections (``web.connections``): idle and slow ones closed after the
request time, none kept beyond the cap (below the file limit: one more closes the one
idle longest), a refusal said once in the log, and a fresh request answered all the
while. Served by uvicorn on loopback,
with the settings of ``perfectplay serve`` and short limits."""

from __future__ import annotations

import logging
import socket
import time
import urllib.request

import pytest

from .served import HUNG, serve_in_thread

#: The cap of connections in the tests (``perfectplay serve``'s: below the file limit).
CAP = 8


def _server(**guards):
    from perfectplay.web.jobs import Jobs

    yield from serve_in_thread(Jobs(), **guards)


@pytest.fixture
def quick_port():
    """A server whose requests must arrive whole within half a second."""
    yield from _server(request_seconds=0.5)


@pytest.fixture
def capped_port():
    """A server of CAP connections at most, which waits long for requests."""
    yield from _server(request_seconds=2 * HUNG, cap=CAP)


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=HUNG)


def _closed(conn: socket.socket, wait: float) -> bool:
    """Whether the server closes `conn` within `wait` seconds (it sends nothing first)."""
    conn.settimeout(wait)
    try:
        return conn.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _answers(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=HUNG) as response:
        return response.status == 200 and "Games" in response.read().decode()


def test_idle_and_slow_connections_are_closed_and_a_fresh_request_answers(quick_port):
    # idle: never a byte sent (uvicorn kept them for ever; 1,100 took every descriptor)
    idle = [_connect(quick_port) for _ in range(20)]
    assert all(_closed(conn, HUNG) for conn in idle)
    # slow: a request's head trickled in, a line every tenth of a second, never ended
    with _connect(quick_port) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        deadline = time.monotonic() + HUNG
        closed = False
        while not closed and time.monotonic() < deadline:
            try:
                slow.sendall(b"X-Slow: 1\r\n")
            except OSError:  # the server closed it
                break
            closed = _closed(slow, 0.1)
        assert time.monotonic() < deadline, "a request trickled in was never cut off"
    # a request sent at once is answered, on a connection kept for the next one
    assert _answers(quick_port)
    for conn in idle:
        conn.close()


def test_connections_beyond_the_cap_close_the_longest_idle_and_are_said_once(capped_port, caplog):
    from perfectplay.web import connections

    connections._ONCE.said = False  # (said already by an earlier test of this process)
    caplog.set_level(logging.WARNING)
    first = [_connect(capped_port) for _ in range(CAP)]
    assert not any(_closed(conn, 0.2) for conn in first)  # open, waiting for requests
    later = [_connect(capped_port) for _ in range(5)]
    # each one beyond the cap closed the one that had waited longest: 5 of the first
    closed = [conn for conn in first + later if _closed(conn, 0.5)]
    assert len(closed) == 5 and all(conn in first for conn in closed)
    refusals = [r for r in caplog.records if "more than 8 connections at once" in r.getMessage()]
    assert len(refusals) == 1, refusals
    # a fresh request is answered while the cap is full of idle connections
    assert _answers(capped_port)
    for conn in first + later:
        conn.close()


def test_the_cap_leaves_room_below_the_file_limit(monkeypatch):
    import resource

    from perfectplay.web.connections import connection_cap

    for soft, cap in ((1024, 768), (20000, 15000), (100, 16)):
        monkeypatch.setattr(resource, "getrlimit", lambda _, soft=soft: (soft, soft))
        assert connection_cap() == cap


def test_descriptors_run_out_are_said_once():
    from perfectplay.web.connections import SaidOnce

    once = SaidOnce()

    def record(message, error=None):
        exc_info = (type(error), error, None) if error else None
        return logging.LogRecord("asyncio", logging.ERROR, "", 0, message, (), exc_info)

    out = OSError(24, "Too many open files")
    said = [once.filter(record("socket.accept() out of system resource", out)) for _ in range(50)]
    assert said == [True] + [False] * 49
    assert once.filter(record("Exception in ASGI application"))  # others pass
