"""What a Markov result shows beside its value, made in the solve's worker from the
solution: the command line's picture of the value by state (``plot.plot_solution``, the
``--plot`` picture, as SVG inlined in the page) and its policy summary (``show``'s tree
and what the policy learned, as text). A deduction result's histogram is drawn by the
page itself from the document (``templates/job.html``).
"""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass

from ..errors import PerfectplayError

#: Levels of the policy the summary shows (``perfectplay show --depth``), fewer where
#: that many would print more than `SUMMARY_LINES` lines (a game of many chance outcomes).
SUMMARY_DEPTH = 2
SUMMARY_LINES = 600
#: Characters a line of the summary holds (the page scrolls it in its own box).
SUMMARY_WIDTH = 110


@dataclass(frozen=True)
class Pictures:
    """A result's picture (SVG text, or None with `note` saying why there is none) and
    its policy summary (text)."""

    svg: str | None
    note: str
    summary: str


def policy_pictures(game, solution, document: dict) -> Pictures:
    """The value-by-state picture and the policy summary of a Markov `solution` (whose
    exported `document` the solve's worker sends anyway)."""
    from ..catalogue import load_strategy

    svg, note = _plot(game, solution)
    return Pictures(svg, note, _summary(load_strategy(document)))


def _plot(game, solution) -> tuple[str | None, str]:
    """``plot_solution``'s picture as SVG text (from its first ``<svg``), or None and the
    one line saying why not (matplotlib missing)."""
    from ..plot import plot_solution

    with tempfile.TemporaryDirectory(prefix="perfectplay-plot-") as folder:
        path = os.path.join(folder, "plot.svg")
        try:
            plot_solution(game, solution, path)
        except PerfectplayError as err:
            return None, f"no picture of the value by state: {str(err).removeprefix('--plot ')}"
        with open(path) as handle:
            text = handle.read()
    return text[text.index("<svg") :], ""


def _summary(strategy) -> str:
    """What ``perfectplay show`` prints of `strategy` (its first levels, what it learned):
    `SUMMARY_DEPTH` levels, or one level less at a time while the level below would
    multiply the lines past `SUMMARY_LINES`."""
    verdict = strategy.verify(resolve=False)
    text = _shown(strategy, 1, verdict)
    for depth in range(2, SUMMARY_DEPTH + 1):
        lines = text.count("\n")
        if lines * lines > SUMMARY_LINES:
            break
        text = _shown(strategy, depth, verdict)
    return text


def _shown(strategy, depth: int, verdict) -> str:
    """``perfectplay show --depth DEPTH``'s text of `strategy` (checked by `verdict`)."""
    from rich.console import Console

    from ..show import strategy_tree

    console = Console(
        file=io.StringIO(), record=True, width=SUMMARY_WIDTH, color_system=None, highlight=False
    )
    console.print(strategy_tree(strategy, depth, verdict))
    table = strategy.learned()
    if table is not None:
        console.print(table)
    return console.export_text()
