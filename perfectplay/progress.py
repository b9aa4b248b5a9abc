"""Progress of long solves: engines report stages and counts; the CLI draws them.

Engines take any object with ``stage`` and ``update`` (calling it with a message is a
free-form note within the current stage); ``Silent`` ignores all three. The command
line's ``Bar`` draws a rich progress bar on stderr, only once a solve has run for about a
second, and remembers the stage an interruption happened in.
"""

from __future__ import annotations

import time


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
            seconds = int(time.perf_counter() - started)
            return Text(
                f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}",
                style="progress.elapsed",
            )

    return Clock()
