"""Pictures of a solution (matplotlib, an optional extra: pip install 'perfectplay[plot]').

Deduction games: the histogram of the number of guesses over all secrets. Games solved
by stages (Yahtzee): the final score's distribution under the strategy and the chance of
at least each score. Other Markov games: the value (expected remaining cost) by state
family, e.g. against the cards still face up: its mean, and the best and worst states of
each family.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import PerfectplayError
from .solution import Solution, write_atomically


#: Picture formats by file suffix.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def plot_format(path: str | os.PathLike) -> str:
    """The picture format of `path` (from its suffix): a suffix other than .png, .svg or
    .pdf, or a missing matplotlib, is refused (the place is ``check_plot_path``'s)."""
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix not in FORMATS:
        raise PerfectplayError(
            f"--plot {path}: the file name must end in {', '.join(FORMATS)} (the picture's format)"
        )
    _pyplot()
    return FORMATS[suffix]


def check_plot_path(path: str | os.PathLike) -> str:
    """The picture format of `path` (``plot_format``), its place checked writable too."""
    from .solution import check_writable

    fmt = plot_format(path)
    check_writable(path, "--plot")
    return fmt


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PerfectplayError("--plot needs matplotlib: pip install 'perfectplay[plot]'") from None
    return plt


def plot_solution(game, solution: Solution, path: str | os.PathLike) -> None:
    """Draw `solution` to `path` (PNG, SVG or PDF by its suffix; written atomically)."""
    fmt = check_plot_path(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    if solution.wins is not None:
        _wins(ax, game, solution)
    elif solution.distribution is not None:
        _scores(ax, game, solution)
    elif solution.histogram is not None:
        hist = solution.histogram
        xs = sorted(hist)
        ax.bar(xs, [hist[x] for x in xs], color="#4c72b0")
        for x in xs:
            ax.annotate(str(hist[x]), (x, hist[x]), ha="center", va="bottom", fontsize=8)
        ax.set_xlabel("guesses needed")
        ax.set_ylabel("secrets")
        ax.set_xticks(xs)
        ax.set_title(
            f"{game}\n{solution.method}: average "
            f"{solution.value_float:.4f} guesses; {solution.status}",
            fontsize=10,
        )
    else:
        codes, vals = solution.strategy.live_values()
        family = np.array([game.state_family(int(c)) for c in codes])
        keys = np.unique(family)
        mean = [vals[family == k].mean() for k in keys]
        low = [vals[family == k].min() for k in keys]
        high = [vals[family == k].max() for k in keys]
        ax.fill_between(keys, low, high, alpha=0.25, color="#4c72b0", label="best to worst state")
        ax.plot(keys, mean, marker="o", color="#4c72b0", label="mean over states")
        ax.set_xlabel(game.family_label)
        ax.set_ylabel(f"expected {game.measure.to_go}")
        ax.set_title(f"{game}: {solution.value_float:.6f} {game.cost_unit} from the start")
        ax.legend()
    _save(plt, fig, ax, path, fmt)


def plot_frontier(game, front, path: str | os.PathLike) -> None:
    """Draw a Pareto frontier (``deduction.frontier``): P(win) against expected cost."""
    fmt = check_plot_path(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    xs = [float(front.expected_cost(p)) for p in front.points]
    ys = [float(front.probability(p)) for p in front.points]
    ax.step(xs, ys, where="post", color="#4c72b0", alpha=0.5)
    ax.plot(xs, ys, "o", color="#4c72b0", markersize=4)
    ax.set_xlabel("expected total item cost")
    ax.set_ylabel(f"P(win within {front.horizon} guesses)")
    ax.set_title(f"{game}\n{len(front.points)} Pareto-optimal strategies", fontsize=10)
    _save(plt, fig, ax, path, fmt)


def _wins(ax, game, solution: Solution) -> None:
    """A win-probability strategy: secrets won by guess number, and the secrets lost."""
    hist = solution.histogram
    lost = solution.secrets - solution.wins
    labels = [str(x) for x in sorted(hist)] + ["lost"]
    counts = [hist[x] for x in sorted(hist)] + [lost]
    colours = ["#4c72b0"] * len(hist) + ["#c44e52"]
    ax.bar(labels, counts, color=colours)
    for x, c in zip(labels, counts):
        ax.annotate(f"{c:,}", (x, c), ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("guess that finds the secret")
    ax.set_ylabel("secrets")
    ax.set_title(
        f"{game}\nP(win within {solution.objective.horizon} guesses) = "
        f"{solution.wins:,}/{solution.secrets:,} = {solution.value_float:.6f}; "
        f"{solution.status}",
        fontsize=10,
    )


def _scores(ax, game, solution: Solution) -> None:
    """A game solved by stages: the chance of each final score under the strategy, and
    (on the right) the chance of at least each score."""
    d = solution.distribution
    ax.bar(d.scores, d.probability, width=1.0, color="#4c72b0", label="chance of the score")
    ax.set_xlabel(f"final score ({game.cost_unit})")
    ax.set_ylabel("chance")
    right = ax.twinx()
    right.plot(d.scores, d.at_least(), color="#c44e52", label="chance of at least the score")
    right.set_ylabel("chance of at least the score", color="#c44e52")
    right.set_ylim(0, 1.02)
    ax.set_xlim(d.quantile(0.0005) - 1, d.quantile(0.9995) + 1)
    ax.set_title(
        f"{game}: mean {d.mean:.4f}, standard deviation {d.std:.4f}; {solution.status}",
        fontsize=10,
    )


def _save(plt, fig, ax, path: str | os.PathLike, fmt: str) -> None:
    """Grid, layout, and the picture written atomically to `path`; the figure closed."""
    ax.grid(alpha=0.3)
    fig.tight_layout()
    try:
        write_atomically(path, lambda tmp: fig.savefig(tmp, format=fmt), "--plot")
    finally:
        plt.close(fig)
