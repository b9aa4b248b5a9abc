"""The ``perfectplay`` command: list the catalogue, solve a game, export its strategy."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
from typing import TYPE_CHECKING

import click

from .cli_ranges import Within
from .errors import PerfectplayError, Unsupported
from .ranges import LARGEST_SEED, LONGEST_WAIT, MOST, MOST_LANES
from .solution import OUTPUT_RULES

if TYPE_CHECKING:
    from fractions import Fraction


class _Group(click.Group):
    """A command group whose usage errors are one line, like every other error here."""

    def main(self, *args, **kwargs):  # noqa: D401 - click's signature
        kwargs["standalone_mode"] = False
        try:
            return super().main(*args, **kwargs)
        except click.exceptions.Exit as done:
            sys.exit(done.exit_code)
        except click.Abort:
            _fail("interrupted", 130)
        except click.ClickException as err:
            _fail(err.format_message(), 2)
        except PerfectplayError as err:
            _fail(str(err), 2)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except OSError as err:
            _fail(f"{err.strerror or err}: {err.filename}" if err.filename else str(err), 2)
        except MemoryError:
            _fail("out of memory; try smaller parameters", 2)


def _say_when_compiling() -> None:
    """A note on stderr when the command starts to compile kernels (none were compiled at
    install for this source, numba or CPU): the wait is said, not silent."""
    from .kernel_cache import on_compile

    on_compile(lambda message: click.echo(f"perfectplay: note: {message}", err=True))


def _fail(message: str, code: int) -> None:
    click.echo(f"perfectplay: error: {message}", err=True)
    sys.exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="perfectplay")
def cli() -> None:
    """Exact optimal strategies for one-player games of chance and hidden information."""


@cli.command("list")
def list_games() -> None:
    """The catalogue: every game, its parameters (default and range) and objectives."""
    from rich.console import Console
    from rich.table import Table

    from .catalogue import game_class, game_names

    table = Table(title="perfectplay games", show_lines=False)
    for col in ("game", "kind", "parameters", "objectives", "what it is"):
        table.add_column(col)
    for name in game_names():
        try:
            cls = game_class(name)
        except PerfectplayError as err:  # a plug-in that cannot load: say so, list the rest
            table.add_row(name, "?", "", "", f"[red]{err}[/red]")
            continue
        params = "\n".join(f"{s.describe()}: {s.help}" for s in cls.param_specs())
        table.add_row(name, cls.kind, params, ", ".join(cls.objectives), cls.summary)
    Console().print(table)


@cli.command()
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--objective",
    default=None,
    help="expected | worst | probability (default: the game's, usually expected)",
)
@click.option(
    "--horizon",
    type=Within(0, MOST),
    default=None,
    help="budget of moves/guesses for --objective probability "
    "(default: the game's own, e.g. item-matching's turns)",
)
@click.option(
    "--exact/--float",
    "exact",
    default=None,
    help="Markov games: insist on (or skip) the exact rational stage; default: where sizes allow",
)
@click.option(
    "--tol",
    type=Within(0.0, 1.0, integer=False),
    default=None,
    help="Markov games: value-iteration tolerance (relative change per sweep; default: 1e-12)",
)
@click.option(
    "--strategy",
    default=None,
    help="deduction games: optimal | minimax | expected-size | entropy | most-parts "
    "(default: optimal)",
)
@click.option(
    "--max-guesses",
    type=Within(1, MOST),
    default=None,
    help="deduction games: at most this many guesses for any secret",
)
@click.option(
    "--top",
    type=Within(1, MOST),
    default=None,
    metavar="N",
    help="deduction games: search only the N best guesses by bound at each node; "
    "fast, and the value is an upper bound, labelled so, not an optimum (no "
    "store)",
)
@click.option(
    "--workers",
    type=Within(1, MOST_LANES),
    default=None,
    help="deduction games: lanes (threads) a large position is split over (default: "
    "every core; one for the probability objectives, which lose more cut-offs "
    "split than they gain)",
)
@click.option(
    "--without",
    default="",
    metavar="NAME[,NAME]",
    help="speed-ups to switch off; the value stays, the time changes (deduction "
    "games: symmetry, bounds, memo, obvious, table, lookahead, columns, cutoff, relay, "
    "floor; "
    "Markov games: components, packed, merged, warm, renumber, code_order, "
    "halves, blocks, streamed, stages)",
)
@click.option(
    "--first",
    default=None,
    metavar="GUESS",
    help="deduction games: the first guess to play (from --after's position if "
    "given); the rest is optimal",
)
@click.option(
    "--after",
    default="",
    metavar="GUESS:FEEDBACK[,...]",
    help="deduction games: solve from the position these guesses and their "
    "feedbacks leave (e.g. salet:BBYBB,crony:BGGBB); one whose secret is already "
    "found (crony:GGGGG) is refused",
)
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="deduction games: the result store to answer from and add to (default: "
    "$PERFECTPLAY_STORE, else $XDG_CACHE_HOME/perfectplay/store.sqlite, "
    "i.e. ~/.cache/perfectplay/store.sqlite)",
)
@click.option(
    "--no-store", is_flag=True, help="deduction games: neither read nor write a result store"
)
@click.option(
    "--cluster",
    default=None,
    metavar="local:N|ADDRESS",
    help="deduction games: hand the first guesses' cells to a Dask cluster; games "
    "solved by stages (Yahtzee): split each layer over its workers. N "
    "local worker processes, or a running scheduler (tcp://host:8786), which must "
    "answer with a worker within 25 s ($PERFECTPLAY_CLUSTER_TIMEOUT) else one line, "
    "exit 2; needs pip install 'perfectplay[cluster]'",
)
@click.option(
    "--possible-only",
    is_flag=True,
    help="deduction games: guess only secrets still possible (possible_only=1)",
)
@click.option(
    "--determine",
    is_flag=True,
    help="deduction games: a secret is found once the feedback leaves it alone "
    "(the last guess is not played), not once it is guessed",
)
@click.option(
    "--frontier",
    "pareto",
    is_flag=True,
    help="deduction games, small: every Pareto-optimal (P(win within the horizon), "
    "expected cost) pair with a strategy (a table; a picture with --plot)",
)
@click.option(
    "--cost-weight",
    default=None,
    metavar="W",
    help="deduction games, small: maximise P(win) - W * expected cost (W exact, like 1/100)",
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
@click.option(
    "--out",
    type=click.Path(),
    help="write the solution with its strategy as JSON (" + OUTPUT_RULES + ")",
)
@click.option(
    "--plot",
    type=click.Path(),
    help="draw the histogram of guesses or the value by state family (.png, .svg or .pdf; "
    + OUTPUT_RULES
    + ")",
)
@click.option("--quiet", is_flag=True, help="no progress bar")
def solve(
    game,
    assignments,
    objective,
    horizon,
    exact,
    tol,
    strategy,
    max_guesses,
    top,
    workers,
    without,
    first,
    after,
    store_path,
    no_store,
    cluster,
    possible_only,
    determine,
    pareto,
    cost_weight,
    as_json,
    out,
    plot,
    quiet,
) -> None:
    """Solve GAME (with KEY=VALUE parameters) and print its optimal value."""
    from .catalogue import load_game
    from .engine import SolveArgs, engine_of, solve as run
    from .objectives import objective_for
    from .progress import reporter
    from .solution import check_outputs, files_read

    g = load_game(game, _with_flags(assignments, possible_only))
    # before the work, which can take minutes
    check_outputs({"--out": out, "--plot": plot}, files_read(g, store_path, no_store))
    if plot:  # (its place checked writable with the other outputs)
        from .plot import plot_format

        plot_format(plot)
    obj = objective_for(g, objective, horizon, determine)
    if pareto or cost_weight is not None:
        return _trade_off(g, obj, after, pareto, cost_weight, as_json, plot)
    args = SolveArgs(
        exact=exact,
        tol=tol,
        strategy=strategy,
        max_guesses=max_guesses,
        top=top,
        workers=workers,
        without=without,
        first=first,
        after=after,
        store=store_path,
        no_store=no_store,
        cluster=cluster,
        written=bool(as_json or out or plot),
    )
    engine = engine_of(g)
    engine.check(g, args)
    options = engine.solve_options(
        g, args, note=lambda msg: click.echo(f"perfectplay: note: {msg}", err=True)
    )
    if not quiet:
        _say_when_compiling()
    progress = reporter(quiet)
    store = options.get("store")
    try:
        solution = run(g, obj, progress=progress, **options)
    except KeyboardInterrupt:
        progress.close()
        kept = (
            "; what it proved is kept in the store: run it again to resume"
            if store is not None and store.usable
            else ", nothing written"
        )
        _fail(f"interrupted while {progress.stage_name or 'starting'}; no result{kept}", 130)
    finally:
        if store is not None:
            store.close()
    progress.close()
    if out:
        try:
            solution.write(out)
        except KeyboardInterrupt:  # (the file written whole or not at all)
            _fail(f"interrupted while writing {out}; nothing written", 130)
    if plot:
        from .plot import plot_solution

        plot_solution(g, solution, plot)
    if as_json:
        click.echo(json.dumps(solution.to_dict()))
    else:
        _print_summary(g, solution, out, plot)


@cli.command()
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--seed",
    type=Within(0, LARGEST_SEED),
    default=None,
    help="seed for chance (dice, a random secret)",
)
@click.option(
    "--secret",
    default=None,
    help="deduction games: the tool holds this secret (a code, or 'random')",
)
@click.option(
    "--budget",
    type=Within(0.0, LONGEST_WAIT, integer=False, unit="seconds"),
    default=None,
    help="deduction games: seconds for the optimal suggestion before a heuristic "
    "answers (default: 2; 0: the heuristic at once; at most 86400, a day)",
)
@click.option(
    "--enter-chance",
    is_flag=True,
    help="Markov games: you type what chance gave at each roll (the dice of a game "
    "played at a table; Enter rolls here)",
)
@click.option(
    "--position",
    default=None,
    help="Markov games that read one (Yahtzee, Yatzy): advice from this position of a "
    "game played elsewhere, e.g. 'aces 3, full house 25; roll 2: 1 3 3 5 6' ('ask': "
    "typed at a prompt)",
)
@click.option(
    "--objective",
    default=None,
    help="deduction games: what the advice aims at: expected | worst | probability | "
    "probability-then-cost (default: the game's)",
)
@click.option(
    "--horizon",
    type=Within(0, MOST),
    default=None,
    help="deduction games: guesses allowed for --objective probability (default: the game's)",
)
def play(
    game, assignments, seed, secret, budget, enter_chance, position, objective, horizon
) -> None:
    """Play GAME with advice: the optimal choice (Markov games) or the suggested guess
    and the secrets still possible (deduction games)."""
    from .catalogue import load_game
    from .engine import PlayArgs, engine_of, require_supported
    from .objectives import objective_for
    from .play.advisor import play_game
    from .play.console import Console, Quit

    g = load_game(game, list(assignments))
    aim = None
    if objective is not None or horizon is not None:
        aim = objective_for(g, objective, horizon)
        require_supported(g, aim)
    args = PlayArgs(
        secret=secret, budget=budget, enter_chance=enter_chance, position=position, objective=aim
    )
    engine_of(g).check(g, args)
    console = Console()
    _say_when_compiling()
    try:
        play_game(g, console, seed, args)
    except Quit:
        console.say("bye")
    except KeyboardInterrupt:  # Ctrl-C is a way to stop playing, not an error
        console.say("\nbye")
        sys.exit(130)


@cli.command()
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--objective",
    default=None,
    help="expected | worst | probability (default: the game's, usually expected)",
)
@click.option(
    "--horizon",
    type=Within(0, MOST),
    default=None,
    help="guesses allowed for --objective probability (default: the game's own)",
)
@click.option(
    "--after",
    default="",
    metavar="GUESS:FEEDBACK[,...]",
    help="rank the guesses at the position these guesses and feedbacks leave",
)
@click.option(
    "--top",
    type=Within(1, MOST),
    default=10,
    show_default=True,
    help="how many of the best guesses to list",
)
@click.option("--possible-only", is_flag=True, help="guess only secrets still possible")
@click.option(
    "--determine", is_flag=True, help="a secret is found once the feedback leaves it alone"
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
@click.option("--quiet", is_flag=True, help="no progress bar")
def rank(
    game, assignments, objective, horizon, after, top, possible_only, determine, as_json, quiet
) -> None:
    """The exact value of the best guesses of a deduction GAME at a position, and how many
    guesses are optimal there (in all, and up to symmetry)."""
    from rich.console import Console
    from rich.table import Table

    from .catalogue import load_game
    from .engine import engine_of, require_supported
    from .objectives import objective_for
    from .progress import reporter
    from .solution import format_value

    g = load_game(game, _with_flags(assignments, possible_only))
    obj = objective_for(g, objective, horizon, determine)
    require_supported(g, obj)
    progress = reporter(quiet)
    try:
        ranking = engine_of(g).rank(g, obj, after, progress)
    finally:
        progress.close()
    shown = ranking.choices[:top]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "game": g.name,
                    "params": g.params,
                    "objective": obj.name,
                    **({"horizon": obj.horizon} if obj.horizon is not None else {}),
                    **({"determine": True} if obj.determine else {}),
                    **({"after": ranking.position} if ranking.position else {}),
                    "secrets": ranking.secrets,
                    "allowed": len(ranking.choices),
                    "classes": ranking.classes,
                    "optimal": ranking.optimal,
                    "optimal_classes": ranking.optimal_classes,
                    "top": [
                        {
                            "guess": p.label,
                            "value": format_value(p.value),
                            "value_float": float(p.value),
                        }
                        for p in shown
                    ],
                }
            )
        )
        return
    what = {
        "expected": "expected guesses",
        "worst": "worst-case guesses",
        "probability": f"P(win within {obj.horizon})",
    }[obj.name]
    table = Table(
        title=f"{g}: {what}{', determine' if obj.determine else ''}"
        f"{' after ' + ranking.position if ranking.position else ''}"
    )
    for col in ("rank", "guess", "value", "exact", "vs best"):
        table.add_column(col)
    for i, p in enumerate(shown, 1):
        gap = p.value - ranking.best
        table.add_row(
            str(i),
            p.label,
            f"{float(p.value):.6f}",
            format_value(p.value),
            "optimal" if gap == 0 else f"{float(gap):+.6f}",
        )
    Console().print(table)
    merged = (ranking.optimal_classes, ranking.classes) != (ranking.optimal, len(ranking.choices))
    click.echo(
        f"{ranking.optimal} of {len(ranking.choices)} useful guesses are optimal"
        + (f" ({ranking.optimal_classes} of {ranking.classes} up to symmetry)" if merged else "")
        + f"; {ranking.secrets} secrets possible"
    )


def _trade_off(
    g, obj, after: str, pareto: bool, cost_weight: str | None, as_json: bool, plot: str | None
) -> None:
    """``solve --frontier`` / ``--cost-weight``: win probability against item cost."""
    from rich.console import Console
    from rich.table import Table

    from .engine import engine_of
    from .solution import format_value

    weight = None if cost_weight is None else _cost_weight(cost_weight)
    trade = engine_of(g).trade_off(g, obj, after)
    front = trade.front
    rows = [
        {
            "probability": format_value(front.probability(p)),
            "expected_cost": format_value(front.expected_cost(p)),
            "wins": p.wins,
            "total_cost": p.cost,
            "first": first,
        }
        for p, first in zip(front.points, trade.first)
    ]
    doc = {
        "game": g.name,
        "params": g.params,
        "horizon": obj.horizon,
        "secrets": front.secrets,
        **({"determine": True} if obj.determine else {}),
        **({"frontier": rows} if pareto else {}),
    }
    if weight is not None:
        value, point = front.weighted(weight)
        doc.update(
            {
                "cost_weight": format_value(weight),
                "value": format_value(value),
                "probability": format_value(front.probability(point)),
                "expected_cost": format_value(front.expected_cost(point)),
                "first": trade.first_of(point),
            }
        )
    if plot:
        from .plot import plot_frontier

        plot_frontier(g, front, plot)
    if as_json:
        click.echo(json.dumps(doc))
        return
    if pareto:
        table = Table(title=f"{g}: Pareto frontier within {obj.horizon} guesses")
        for col in ("P(win)", "exact", "expected cost", "exact", "first guess"):
            table.add_column(col)
        for p, row in zip(front.points, rows):
            table.add_row(
                f"{float(front.probability(p)):.6f}",
                row["probability"],
                f"{float(front.expected_cost(p)):.6f}",
                row["expected_cost"],
                row["first"],
            )
        Console().print(table)
    if weight is not None:
        click.echo(
            f"max P(win) - {doc['cost_weight']} * E[cost] = {doc['value']} "
            f"(P(win) {doc['probability']}, E[cost] {doc['expected_cost']}, "
            f"first guess {doc['first']})"
        )
    if plot:
        click.echo(f"picture written to {plot}")


def _cost_weight(text: str) -> Fraction:
    """``--cost-weight`` exactly: a fraction A/B of whole numbers or a decimal (``0.01``,
    ``1e-2``), 0 or from 1/``MOST`` to ``MOST`` (where only the chance counts, or only
    the cost, for any game solved); one line otherwise (nan, or ``1e99999999``, which
    Fraction would spend minutes writing out)."""
    from decimal import Decimal
    from fractions import Fraction

    from .errors import BadParameter
    from .ranges import shown, within

    top, slash, bottom = text.partition("/")
    weight = None
    try:
        if slash:
            weight = Fraction(int(within(top, 0, MOST)), int(within(bottom, 1, MOST)))
        else:
            number = Decimal(text.strip())  # (its exponent kept as written: no digits made)
            if number.is_finite() and (number == 0 or 1 / Decimal(MOST) <= abs(number) <= MOST):
                weight = Fraction(number)
    except (BadParameter, ValueError, ArithmeticError):  # (decimal's InvalidOperation, Overflow)
        pass
    if weight is None or not (weight == 0 or Fraction(1, MOST) <= weight <= MOST):
        raise Unsupported(
            f"--cost-weight must be a number like 1/100 or 0.01, 0 or from 1/{MOST:,} to "
            f"{MOST:,}, got {shown(text)!r}"
        )
    return weight


def _with_flags(assignments, possible_only: bool) -> list[str]:
    """The KEY=VALUE words with those the flags stand for (``--possible-only``)."""
    return [*assignments, *(["possible_only=1"] if possible_only else [])]


#: What a Markov solve's graph (``stats["graph"]``) was, as the summary says it.
GRAPHS = {
    "stored": "stored (every edge kept)",
    "as explored": "solved as explored (no edge kept)",
    "recomputed": "rules recomputed each sweep (no edge kept)",
}


def _print_summary(game, solution, out, plot) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=str(game), show_header=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    objective = solution.objective
    table.add_row("objective", game.measure.objective_text(objective.name, objective.horizon))
    table.add_row("value", f"{solution.value_float:.9f}")
    if solution.exact:
        table.add_row("exact", _exact_text(solution.value))
    table.add_row("status", solution.status)
    if solution.distribution is not None:
        table.add_row("score", "\n".join(solution.distribution.summary(game.cost_unit)[:2]))
    if solution.wins is not None:
        table.add_row(
            "wins",
            f"{solution.wins:,} of {solution.secrets:,} "
            f"secrets ({solution.wins}/{solution.secrets})",
        )
        table.add_row("histogram", _histogram_text(solution.histogram))
    elif solution.total is not None:
        _add_deduction_rows(table, solution)
    if "store" in solution.stats:
        store = solution.stats["store"]
        table.add_row(
            "store",
            (
                "answered whole from "
                if solution.stats["from_store"]
                else f"{store['read']} answers read, {store['written']} kept "
                f"(and {store.get('journal_read', 0):,} values found inside "
                f"tasks read, {store.get('journal_written', 0):,} kept) in "
            )
            + store["path"],
        )
    if "cluster" in solution.stats:
        table.add_row("cluster", solution.stats["cluster"])
    if "graph" in solution.stats:
        table.add_row("graph", GRAPHS.get(solution.stats["graph"], solution.stats["graph"]))
    for key in (
        "states", "stages", "choices", "sweeps", "exact_rounds", "nodes", "seconds",
        "distribution_seconds",
    ):  # fmt: skip
        if key in solution.stats:
            table.add_row(
                key,
                f"{solution.stats[key]:,}"
                if isinstance(solution.stats[key], int)
                else str(solution.stats[key]),
            )
    if out:
        table.add_row("strategy", f"written to {out}")
    if plot:
        table.add_row("picture", f"written to {plot}")
    Console().print(table)


def _exact_text(value) -> str:
    """The exact value, or its digit counts when it is too long to read."""
    from .solution import exact_text

    text = exact_text(value)
    return text if "digits" not in text else f"a fraction of {text} (in full: --json or --out)"


def _add_deduction_rows(table, solution) -> None:
    table.add_row("total", f"{solution.total:,} guesses over {solution.secrets:,} secrets")
    table.add_row("worst case", str(solution.worst))
    table.add_row("histogram", _histogram_text(solution.histogram))


def _histogram_text(histogram: dict[int, int]) -> str:
    return "  ".join(f"{k}:{v}" for k, v in sorted(histogram.items()))


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
@click.option(
    "--solve/--no-solve",
    "resolve",
    default=True,
    show_default=True,
    help="re-establish a claim of optimality by solving the same game again "
    "(--no-solve: say that it was not checked)",
)
def verify(file, as_json, resolve) -> None:
    """Re-check an exported strategy: replay every secret through a deduction tree, or
    every state through a Markov policy (values recomputed); check every number the file
    states, and its claim of optimality (by solving again, unless --no-solve)."""
    from .solution import read_document
    from .verify_file import check_document

    verdict = check_document(read_document(file), resolve=resolve)
    if as_json:
        click.echo(
            json.dumps({"game": verdict.game.name, "params": verdict.game.params, **verdict.data})
        )
        return
    for line in verdict.lines:
        click.echo(line)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--depth",
    type=Within(0, 50),
    default=2,
    show_default=True,
    help="how many levels of the strategy to print",
)
def show(file, depth) -> None:
    """Print an exported strategy (deduction tree or Markov policy) as an indented tree,
    once its numbers are checked as verify checks them."""
    from rich.console import Console

    from .show import strategy_tree
    from .solution import read_document
    from .catalogue import load_strategy

    strategy = load_strategy(read_document(file))
    Console().print(strategy_tree(strategy, depth, strategy.verify(resolve=False)))
    table = strategy.learned()
    if table is not None:
        Console().print(table)


@cli.group("store")
def store_group() -> None:
    """The result store: what long solves proved, kept for the next run (default file:
    $PERFECTPLAY_STORE, else $XDG_CACHE_HOME/perfectplay/store.sqlite)."""


_STORE_OPTION = click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="the store file (default: the user's cache)",
)


@store_group.command("info")
@_STORE_OPTION
def store_info(store_path) -> None:
    """The store's file, size, engine version and answers by game and objective."""
    from .store import Store, chosen_path

    path = chosen_path(store_path)
    if not os.path.exists(path):
        click.echo(f"{path}: no store yet")
        return
    store = Store(path)
    summary = store.summary()
    store.close()
    click.echo(
        f"{summary.path}: {summary.bytes / 1e6:.2f} MB, engine {summary.engine}"
        + ("" if summary.usable else " (another engine version: not used)")
    )
    for game, objective, exact, bounds, largest in summary.rows:
        click.echo(
            f"  {game} {objective}: {exact:,} values, {bounds:,} bounds, "
            f"largest set {largest:,} secrets"
        )
    if summary.journals:
        searches = f"{summary.journals:,} search" + ("es" if summary.journals != 1 else "")
        click.echo(
            f"  found inside tasks (for resuming): {summary.journal_entries:,} values "
            f"and bounds, of {searches}"
        )


@store_group.command("clear")
@_STORE_OPTION
def store_clear(store_path) -> None:
    """Delete the store file (damaged or not, of any engine version) and its companion
    files. A file that is not a perfectplay store, a read-only store and a store another
    process has open are not deleted (exit code 2, one line saying why)."""
    from .store import chosen_path, clear

    path = chosen_path(store_path)
    click.echo(f"{path}: {'deleted' if clear(path) else 'no store to delete'}")


@cli.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="address to listen on (the default answers this machine only)",
)
@click.option(
    "--port",
    type=Within(0, 65535),
    default=8765,
    show_default=True,
    help="port to listen on (0: a free one, said when serving)",
)
def serve(host, port) -> None:
    """Serve the web page: the catalogue, solves with live progress, the strategy
    explorer and advised play (needs: pip install 'perfectplay[web]')."""
    try:
        from .web.app import serve as run
    except ImportError as err:
        raise PerfectplayError(
            f"serve needs the web extra ({err.name} is missing): pip install 'perfectplay[web]'"
        ) from None
    run(host, port, say=click.echo)


def _add_commands() -> None:
    """Commands written in modules of their own."""
    from .cli_openings import openings
    from .cli_simulate import simulate

    cli.add_command(openings)
    cli.add_command(simulate)


_add_commands()


def main() -> None:
    """The console script: the command, then a quick exit (see ``_exit``)."""
    try:
        cli()
        code = 0
    except SystemExit as done:
        code = done.code
    _exit(code)


def _exit(code: int | str | None) -> None:
    """End the process with `code` (as ``sys.exit`` reads it). When nothing else runs (no
    thread, no child process, no cluster client), exit-time callbacks are run and the
    interpreter's teardown is skipped: freeing numba's compiled code at teardown is a
    large share of a small solve's whole process (docs/measurements.md). Otherwise the
    usual exit."""
    processes = sys.modules.get("multiprocessing")
    if (
        threading.active_count() > 1
        or "distributed" in sys.modules
        or (processes is not None and processes.active_children())
    ):
        sys.exit(code)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a closed pipe: nothing left to tell
            stream.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    main()
