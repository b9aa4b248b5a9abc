"""Progress of long solves: engines report stages and counts; the CLI draws them.

Engines take any object with ``stage`` and ``update`` (calling it with a message is a
free-form note within the current stage); ``Silent`` ignores all three. The command
line's ``Bar`` draws a rich progress bar on stderr, only once a solve has run for about a
second, and remembers the stage an interruption happened in; where stderr is not a
terminal (a log file, a pipe, a batch job) ``Lines`` writes a plain line instead, at each
new stage and every half minute, once the solve has run for a few seconds.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


class Silent:
    """Progress that shows nothing (the default for library calls)."""

    stage_name = ""
    done: float = 0

    def __call__(self, message: str) -> None:
        if not self.stage_name:
            self.stage("solving")
        self.update(self.done, message)

    def stage(self, name: str, total: float | None = None, unit: str = "") -> None:
        self.stage_name = name

    def update(self, done: float, info: str = "") -> None:
        pass

    def close(self) -> None:
        pass


class Bar(Silent):
    """A rich progress bar on stderr that appears after `delay` seconds."""

    def __init__(self, delay: float = 1.0):
        self.delay = delay
        self.started = time.perf_counter()
        self._progress = None
        self._task = None
        self._pending: tuple = ("", None, "")

    def stage(self, name: str, total: float | None = None, unit: str = "") -> None:
        self.stage_name = name
        self._pending = (name, total, unit)
        if self._progress is not None:
            self._new_task()

    def update(self, done: float, info: str = "") -> None:
        self.done = done
        if self._progress is None:
            if time.perf_counter() - self.started < self.delay:
                return
            self._start()
        self._progress.update(self._task, completed=done, info=info)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            _counts(),
            TextColumn("{task.fields[info]}"),
            _clock(self.started),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._new_task()

    def _new_task(self) -> None:
        name, total, unit = self._pending
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._progress.add_task(
            f"{name} ({unit})" if unit else name, total=total, info=""
        )


class Lines(Silent):
    """Progress as plain lines on `stream` (stderr by default), for output that is not a
    terminal: nothing for a solve shorter than `delay` seconds; then a line when a stage
    starts and one every `every` seconds within it, each with the time since the solve
    started (``[0:01:15] value iteration: 120/400 sweeps (30%) change 1.2e-07``)."""

    def __init__(
        self,
        delay: float = 5.0,
        every: float = 30.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.delay = delay
        self.every = every
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self._last: float | None = None  # when the last line was written
        self._total: float | None = None
        self._unit = ""
        self._new_stage = False

    def stage(self, name: str, total: float | None = None, unit: str = "") -> None:
        self.stage_name = name
        self._total, self._unit = total, unit
        self._new_stage = True
        self.update(0)

    def update(self, done: float, info: str = "") -> None:
        self.done = done
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self._new_stage or self._last is None or now - self._last >= self.every:
            self._new_stage = False
            self._last = now
            print(self._line(now, done, info), file=self.stream or sys.stderr, flush=True)

    def _line(self, now: float, done: float, info: str) -> str:
        unit = f" {self._unit}" if self._unit else ""
        if self._total:
            count = f"{done:,.0f}/{self._total:,.0f}{unit} ({100 * done / self._total:.0f}%)"
        else:
            count = f"{done:,.0f}{unit}" if done else ""
        words = " ".join(part for part in (count, info) if part)
        return f"[{elapsed(now - self.started)}] {self.stage_name}" + (
            f": {words}" if words else ""
        )


def reporter(quiet: bool) -> Silent:
    """The command line's progress for a solve: none when `quiet`, a bar on a terminal,
    plain lines otherwise (see ``Lines``)."""
    if quiet:
        return Silent()
    return Bar() if sys.stderr.isatty() else Lines()


def elapsed(seconds: float) -> str:
    """`seconds` as h:mm:ss."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _counts():
    """A column "done/total (percent)" for stages whose total is known, blank otherwise
    (never ``0/?``)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Counts(ProgressColumn):
        def render(self, task) -> Text:
            if task.total is None:
                return Text("")
            return Text(
                f"{task.completed:,.0f}/{task.total:,.0f} ({task.percentage:.0f}%)",
                style="progress.percentage",
            )

    return Counts()


def _clock(started: float):
    """A column with the time since the solve started (not since the bar or the stage
    appeared), redrawn at every refresh."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Clock(ProgressColumn):
        def render(self, task) -> Text:
            return Text(elapsed(time.perf_counter() - started), style="progress.elapsed")

    return Clock()
