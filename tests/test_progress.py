"""The progress bar: counts only when a stage's total is known; one clock for the solve."""

import time
from types import SimpleNamespace

from perfectplay.progress import _clock, _counts


def test_no_count_without_a_total():
    counts = _counts()
    assert str(counts.render(SimpleNamespace(total=None, completed=0))) == ""
    shown = str(counts.render(SimpleNamespace(total=200, completed=50, percentage=25.0)))
    assert shown == "50/200 (25%)"


def test_the_clock_counts_from_the_start_of_the_solve():
    clock = _clock(time.perf_counter() - 75)  # the bar appears late: the clock does not
    assert str(clock.render(None)) == "0:01:15"


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_say_nothing_of_a_short_solve():
    import io

    from perfectplay.progress import Lines

    clock, out = _Clock(), io.StringIO()
    lines = Lines(delay=5, every=30, stream=out, clock=clock)
    lines.stage("exploring", unit="states")
    clock.now += 4
    lines.update(1000)
    assert out.getvalue() == ""


def test_lines_at_each_stage_and_every_interval():
    import io

    from perfectplay.progress import Lines

    clock, out = _Clock(), io.StringIO()
    lines = Lines(delay=5, every=30, stream=out, clock=clock)
    lines.stage("exploring", unit="states")
    clock.now += 6
    lines.update(1500)  # past the delay: the stage's first line
    clock.now += 10
    lines.update(3000)  # within the interval: nothing
    clock.now += 25
    lines.update(4000, "deep")  # the interval has passed
    lines.stage("value iteration", total=400, unit="sweeps")  # a new stage: at once
    clock.now += 1
    lines.update(120, "change 1.2e-07")
    assert out.getvalue().splitlines() == [
        "[0:00:06] exploring: 1,500 states",
        "[0:00:41] exploring: 4,000 states deep",
        "[0:00:41] value iteration: 0/400 sweeps (0%)",
    ]
    clock.now += 30
    lines.update(120, "change 1.2e-07")
    assert out.getvalue().splitlines()[-1] == (
        "[0:01:12] value iteration: 120/400 sweeps (30%) change 1.2e-07"
    )


def test_the_command_line_writes_lines_where_stderr_is_no_terminal(monkeypatch):
    import io

    from perfectplay.progress import Bar, Lines, Silent, reporter

    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert type(reporter(quiet=False)) is Lines
    assert type(reporter(quiet=True)) is Silent

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stderr", Terminal())
    assert type(reporter(quiet=False)) is Bar
