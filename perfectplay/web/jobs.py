"""Solves run for the web page: one child process each, its progress sent back on a
queue, cancelled by ending the process (the engine's own workers end with it).

At most `MAX_RUNNING` solves run at once and each is stopped after `TIME_LIMIT`
seconds, so that no request can keep the machine busy for long.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import PerfectplayError
from ..progress import Silent

#: Solves running at once; more are refused until one ends.
MAX_RUNNING = 1
#: Seconds a solve may run before it is stopped.
TIME_LIMIT = 300.0
#: Finished solves kept (the oldest are forgotten first).
KEEP = 20


class Busy(PerfectplayError):
    """Refused: as many solves run as the server allows."""


@dataclass
class Progress:
    """The last progress a solve reported."""

    stage: str = "starting"
    done: float = 0
    total: float | None = None
    unit: str = ""
    info: str = ""


@dataclass
class Job:
    """A solve: its request, its process, its progress and, once done, its document
    (``Solution.export()``) or its one-line error."""

    id: str
    game: str
    objective: str
    horizon: int | None
    process: Any = None
    channel: Any = None
    started: float = field(default_factory=time.monotonic)
    progress: Progress = field(default_factory=Progress)
    state: str = "running"   # running | done | failed | cancelled
    document: dict[str, Any] | None = None
    error: str = ""
    seconds: float = 0.0
    strategy: Any = None

    def poll(self) -> None:
        """Read what the process sent; notice its end or its time limit."""
        if self.state != "running":
            return
        try:
            while True:
                what, payload = self.channel.get_nowait()
                if what == "progress":
                    self.progress = Progress(*payload)
                elif what == "done":
                    self.document, self.state = payload, "done"
                elif what == "error":
                    self.error, self.state = payload, "failed"
        except queue.Empty:
            pass
        self.seconds = time.monotonic() - self.started
        if self.state == "running":
            if self.seconds > TIME_LIMIT:
                self.stop(f"stopped after the time limit of {TIME_LIMIT:.0f} seconds", "failed")
            elif not self.process.is_alive() and self.channel.empty():
                self.stop("the solve ended without a result", "failed")
        if self.state != "running":
            self.process.join(timeout=5)

    def stop(self, why: str, state: str = "cancelled") -> None:
        """End the solve (its process and the engine's workers)."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=10)
        if self.state == "running":
            self.state, self.error = state, why


class _Reporter(Silent):
    """Progress sent to the server, at most ten times a second."""

    def __init__(self, channel):
        self.channel = channel
        self.last = 0.0
        self.current = Progress()

    def stage(self, name: str, total: float | None = None, unit: str = "") -> None:
        self.stage_name = name
        self.current = Progress(name, 0, total, unit, "")
        self._send(force=True)

    def update(self, done: float, info: str = "") -> None:
        self.done = done
        self.current.done, self.current.info = done, info
        self._send()

    def _send(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last > 0.1:
            self.last = now
            c = self.current
            self.channel.put(("progress", (c.stage, c.done, c.total, c.unit, c.info)))


def _run(channel, spec: str, objective: str, horizon: int | None) -> None:
    """The child process: solve and send the document (or the one-line error)."""
    from ..catalogue import load_game
    from ..engines import solve
    from ..objectives import Objective

    try:
        game = load_game(spec)
        solution = solve(game, Objective(objective, horizon), progress=_Reporter(channel))
        channel.put(("done", solution.export()))
    except PerfectplayError as err:
        channel.put(("error", str(err)))
    except MemoryError:
        channel.put(("error", "out of memory; try smaller parameters"))


class Jobs:
    """The server's solves, by id."""

    def __init__(self):
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def start(self, spec: str, objective: str, horizon: int | None) -> Job:
        """Start solving the game `spec` (``name(k=v,...)``); Busy if too many run."""
        with self._lock:
            for job in self._jobs.values():
                job.poll()
            running = [j for j in self._jobs.values() if j.state == "running"]
            if len(running) >= MAX_RUNNING:
                raise Busy(f"{len(running)} solve(s) already running; wait for it or cancel it")
            ctx = multiprocessing.get_context("spawn")
            channel = ctx.Queue()
            job = Job(str(next(self._ids)), spec, objective, horizon, channel=channel)
            job.process = ctx.Process(target=_run, args=(channel, spec, objective, horizon))
            job.process.start()
            self._jobs[job.id] = job
            for old in [j for j in self._jobs.values() if j.state != "running"][:-KEEP]:
                del self._jobs[old.id]
            return job

    def get(self, job_id: str) -> Job | None:
        job = self._jobs.get(job_id)
        if job is not None:
            job.poll()
        return job

    def close(self) -> None:
        for job in self._jobs.values():
            job.stop("the server stopped")
