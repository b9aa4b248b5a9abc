"""`perfectplay serve` started as a person starts it, for the web tests."""

from __future__ import annotations

import re
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
    """`perfectplay serve --port 0` as a process of its own (as a person starts it), once
    it has said it warmed up and serves and it listens: yields the process and the base
    address it said (the port the system chose); killed after the test if still running."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--port", "0"],
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
    base = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", said[-1]).group(1)
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # (never blocks it)
    yield proc, base
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)


def serve_in_thread(jobs, **guards):
    """The application on `jobs` served by uvicorn in a thread of this process, on a free
    loopback port bound as `perfectplay serve` binds it and with its settings
    (``server_config``; `guards`: its connections' limits): yields the port; stopped
    after the test."""
    import uvicorn

    from perfectplay.web.app import create_app, listen, server_config
    from perfectplay.web.guards import served_hosts

    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = create_app(jobs, served_hosts("127.0.0.1", port))
    server = uvicorn.Server(server_config(app, **guards))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HUNG
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn never started"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(HUNG)
