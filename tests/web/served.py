"""`perfectplay serve` started as a person starts it, for the web tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest

from ..cli_runner import default_signals

#: Seconds a request or the server's start may take before a test calls it hung (the
#: pages answer within 2 s; the figures are measured in the docs, not asserted).
HUNG = 30


def serve_process():
    """`perfectplay serve` as a process of its own (as a person starts it), once it has
    said it warmed up and serves and it listens: yields the process and its base
    address; killed after the test if still running."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=default_signals,
    )
    said = []
    for line in proc.stdout:
        said.append(line)
        if "serving on" in line:
            break
    else:
        pytest.fail("the server ended before serving: " + "".join(said))
    assert any("warmed up in" in line for line in said), said
    deadline = time.monotonic() + HUNG
    while True:  # (the line comes just before the server listens)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.05)
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # (never blocks it)
    yield proc, f"http://127.0.0.1:{port}"
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
