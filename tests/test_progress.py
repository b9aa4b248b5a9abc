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
