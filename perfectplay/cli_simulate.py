"""``perfectplay simulate``: games played by a game's optimal strategy, their mean with
its standard error beside the exact value, and their histogram (``simulation``)."""

from __future__ import annotations

import json

import click

from .cli_ranges import Within
from .ranges import LARGEST_SEED, MOST

#: The histogram's widest bar, in characters.
BAR = 40


@click.command("simulate")
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option("--games", "games", default="10000", show_default=True, help="games to play")
@click.option(
    "--seed",
    type=Within(0, LARGEST_SEED),
    default=None,
    help="seed for chance (the same seed plays the same games)",
)
@click.option(
    "--objective",
    default="expected",
    show_default=True,
    help="expected, or probability: a scored game solved by stages played for at least "
    "--horizon points",
)
@click.option("--horizon", type=Within(0, MOST), default=None, help="the target score")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
@click.option("--quiet", is_flag=True, help="no progress bar")
def simulate(game, assignments, games, seed, objective, horizon, as_json, quiet) -> None:
    """Play GAME (with KEY=VALUE parameters) --games times by its optimal strategy (for
    the expected score or cost, or a target score) and print the mean with its standard
    error, the exact value and the histogram of the final scores (and the share of games
    that reached the target, beside its exact chance)."""
    from .catalogue import load_game
    from .objectives import objective_for
    from .progress import reporter
    from .simulation import simulate as run

    g = load_game(game, list(assignments))
    progress = reporter(quiet or as_json)
    result = run(g, games, seed, progress, objective_for(g, objective, horizon))
    progress.close()
    if as_json:
        click.echo(json.dumps(result.to_dict()))
        return
    _print(g, result)


def _print(game, result) -> None:
    """The mean, the exact value and the histogram, as rich text."""
    from rich.console import Console
    from rich.text import Text

    unit = result.unit
    console = Console(highlight=False)
    console.print(
        f"[bold]{game}[/bold]: {result.games:,} games of the optimal strategy "
        f"(seed {result.seed}; {result.seconds:.2f} s, "
        f"{result.games / max(result.seconds, 1e-9):,.0f} games a second)"
    )
    if result.target is None:
        console.print(
            f"mean [bold]{result.mean_text()}[/bold] {unit} (standard error); exact "
            f"{result.value:.6f}; standard deviation {result.std:.2f}; "
            f"{result.scores.min():g} to {result.scores.max():g}"
        )
    else:
        console.print(
            f"at least {result.target} {unit} in [bold]{result.reached:.4f} ± "
            f"{result.reached_stderr:.4f}[/bold] of the games (standard error); exact "
            f"chance {result.value:.6f}; mean {result.mean_text()} {unit}, "
            f"{result.scores.min():g} to {result.scores.max():g}"
        )
    bins = result.histogram()
    most = max(c for _, _, c in bins)
    whole = all(float(a).is_integer() for a, _, _ in bins)
    for low, high, count in bins:
        label = (
            f"{low:g}" if whole and high - low == 1 else
            f"{low:g}-{high - 1:g}" if whole else f"{low:.3g}-{high:.3g}"
        )  # fmt: skip
        bar = Text("█" * round(BAR * count / most) if most else "", style="cyan")
        console.print(Text(f"{label:>12} {count / result.games:7.2%} ").append(bar))
