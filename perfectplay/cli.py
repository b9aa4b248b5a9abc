"""The ``perfectplay`` command: list the catalogue, solve a game, export its strategy."""

from __future__ import annotations

import json
import os
import sys
import time

import click

from .errors import PerfectplayError, Unsupported


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
            _fail("interrupted; nothing was written", 130)
        except MemoryError:
            _fail("out of memory; try smaller parameters", 2)


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
        cls = game_class(name)
        params = "\n".join(f"{s.describe()}: {s.help}" for s in cls.param_specs())
        table.add_row(name, cls.kind, params, ", ".join(cls.objectives), cls.summary)
    Console().print(table)


@cli.command()
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option("--objective", default="expected", show_default=True,
              help="expected | worst | probability")
@click.option("--horizon", type=int, default=None,
              help="budget of moves/guesses for --objective probability")
@click.option("--exact/--float", "exact", default=None,
              help="insist on (or skip) the exact rational stage; default: where sizes allow")
@click.option("--tol", type=float, default=1e-12, show_default=True,
              help="value-iteration tolerance (relative change per sweep)")
@click.option("--strategy", default="optimal", show_default=True,
              help="deduction games: optimal | minimax | expected-size | entropy | most-parts")
@click.option("--max-guesses", type=int, default=None,
              help="deduction games: at most this many guesses for any secret")
@click.option("--workers", type=int, default=None,
              help="deduction games: processes for the first guesses (default: every core)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              help="write the solution with its strategy as JSON")
@click.option("--quiet", is_flag=True, help="no progress messages")
def solve(game, assignments, objective, horizon, exact, tol, strategy, max_guesses, workers,
          as_json, out, quiet) -> None:
    """Solve GAME (with KEY=VALUE parameters) and print its optimal value."""
    from .catalogue import load_game
    from .engines import solve as run
    from .objectives import Objective
    from .solution import write_json_atomically

    g = load_game(game, list(assignments))
    obj = Objective(objective, horizon)
    progress = None if quiet or as_json else (lambda msg: click.echo(f"  {msg}", err=True))
    t0 = time.perf_counter()
    if g.kind == "deduction":
        if workers is not None and workers < 1:
            raise Unsupported(f"--workers must be at least 1, got {workers}")
        options = {"strategy": strategy, "max_guesses": max_guesses,
                   "workers": workers or os.cpu_count() or 1}
    elif strategy != "optimal" or max_guesses is not None or workers is not None:
        raise Unsupported(f"{g.name} takes no --strategy, --max-guesses or --workers "
                          "(deduction games only)")
    else:
        options = {"exact": exact, "tol": tol}
    solution = run(g, obj, progress=progress, **options)
    solution.stats["seconds"] = round(time.perf_counter() - t0, 4)
    if out:
        write_json_atomically(out, solution.export())
    if as_json:
        click.echo(json.dumps(solution.to_dict()))
    else:
        _print_summary(g, solution, out)


def _print_summary(game, solution, out) -> None:
    from rich.console import Console
    from rich.table import Table

    from .solution import format_value

    table = Table(title=str(game), show_header=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    unit = getattr(game, "cost_unit", "guesses")
    what = {"expected": f"expected {unit}", "worst": f"worst-case {unit}",
            "probability": f"P(finish within {solution.objective.horizon} {unit})"}
    table.add_row("objective", what.get(solution.objective.name, solution.objective.name))
    table.add_row("value", f"{solution.value_float:.9f}")
    if solution.exact:
        table.add_row("exact", format_value(solution.value))
    table.add_row("status", solution.status)
    if "histogram" in solution.extra:
        _add_deduction_rows(table, solution.extra)
    for key in ("states", "choices", "sweeps", "exact_rounds", "nodes", "seconds"):
        if key in solution.stats:
            table.add_row(key, f"{solution.stats[key]:,}" if isinstance(solution.stats[key], int)
                          else str(solution.stats[key]))
    if out:
        table.add_row("strategy", f"written to {out}")
    Console().print(table)


def _add_deduction_rows(table, extra) -> None:
    table.add_row("total", f"{extra['total']:,} guesses over {extra['secrets']:,} secrets")
    table.add_row("worst case", str(extra["worst"]))
    table.add_row("histogram", "  ".join(f"{k}:{v}" for k, v in extra["histogram"].items()))


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
def verify(file, as_json) -> None:
    """Replay every secret through an exported deduction strategy (no solver involved)."""
    from fractions import Fraction

    from .catalogue import load_game
    from .deduction.verify import BadStrategy, tree_document, verify_document

    try:
        with open(file) as handle:
            doc = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadStrategy(f"{file}: not a JSON strategy file ({err.__class__.__name__})") from None
    tree_document(doc)
    params = doc.get("params") if isinstance(doc.get("params"), dict) else {}
    game = load_game(str(doc.get("game")), [f"{k}={v}" for k, v in params.items()])
    if game.kind != "deduction":
        raise BadStrategy(f"{file}: {game.name} is not a deduction game")
    stats, label = verify_document(game, doc)
    average = Fraction(stats.total, stats.secrets)
    if as_json:
        click.echo(json.dumps({"game": game.name, "params": game.params, "label": label,
                               "average": str(average), **stats.to_dict()}))
        return
    click.echo(f"{game}: {label}; every secret solved")
    click.echo(f"total {stats.total} over {stats.secrets} secrets, average {float(average):.6f} "
               f"({average}), worst case {stats.worst}")
    click.echo("histogram " + "  ".join(f"{k}:{v}" for k, v in sorted(stats.histogram.items())))


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--depth", type=int, default=2, show_default=True, help="levels of guesses to print")
def show(file, depth) -> None:
    """Print an exported deduction strategy tree, one guess per line, indented by level."""
    from .deduction.verify import BadStrategy, tree_document

    try:
        with open(file) as handle:
            strategy = tree_document(json.load(handle))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadStrategy(f"{file}: not a JSON strategy file ({err.__class__.__name__})") from None
    click.echo(f"{strategy.get('label', 'unlabelled')}: total {strategy.get('total')}, "
               f"worst case {strategy.get('worst')}")

    def walk(node, level, prefix):
        if not isinstance(node, dict):
            raise BadStrategy(f"{file}: a node is not an object")
        click.echo(f"{'  ' * level}{prefix}{node.get('guess')}")
        if level + 1 < depth:
            for label, child in (node.get("next") or {}).items():
                walk(child, level + 1, f"{label} -> ")

    walk(strategy["root"], 0, "")


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
