"""``perfectplay openings``: the proof over every opening of a deduction game, in shards
(``shards.py``; the deduction engine values them): list the openings, value a slice
against a known bound, combine."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from .cli_ranges import Within
from .ranges import MOST, MOST_LANES
from .solution import OUTPUT_RULES

if TYPE_CHECKING:
    from .shards import Shard


@click.group("openings")
def openings() -> None:
    """The proof over every opening of a deduction game, in shards that separate runs or
    machines do and that combine: list the openings, value a slice of them against a
    known bound (its file resumes when run again), combine the files."""


def _game(
    name: str, assignments: tuple[str, ...], after: str, needed_for: str = "openings to value"
):
    from .catalogue import load_game
    from .engine import engine_of

    game = load_game(name, list(assignments))
    return game, engine_of(game).position(game, after, needed_for)


_AFTER = click.option(
    "--after",
    default="",
    metavar="GUESS:FEEDBACK[,...]",
    help="the position the openings are played from (default: the start)",
)


@openings.command("list")
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@_AFTER
@click.option(
    "--rank",
    default=None,
    metavar="HEURISTIC",
    help="order them by a one-step heuristic, best first: minimax, expected-size, entropy "
    "or most-parts (the numbers stay those of --openings A:B)",
)
@click.option("--first", "first", type=Within(1, MOST), default=None, help="only the first N")
@click.option(
    "--words", is_flag=True, help="one guess per line, as `openings value --openings @FILE` reads"
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
def list_openings(game, assignments, after, rank, first, words, as_json) -> None:
    """The openings of GAME, numbered as `openings value --openings A:B` counts them:
    allowed first guesses, one per symmetry class, that learn something."""
    from .engine import engine_of

    g, position = _game(game, assignments, after)
    guesses = g.guesses()
    engine = engine_of(g)
    numbered = engine.openings(g, position)
    order = list(range(len(numbered)))
    if rank is not None:
        order = engine.rank_openings(g, numbered, rank, position)
    order = order[:first]
    named = [(k, g.format_code(guesses[numbered[k]])) for k in order]
    if as_json:
        listed = {"openings": [w for _, w in named]}
        if rank is not None or first is not None:
            listed = {"numbers": [k for k, _ in named], **listed, "rank": rank}
        click.echo(json.dumps({"game": g.name, "params": g.params, **listed}))
    elif words:
        click.echo("\n".join(w for _, w in named))
    else:
        how = f", by {rank}" if rank else ""
        shown = f"the first {len(named)} of " if len(named) < len(numbered) else ""
        click.echo(
            f"{shown}{len(numbered)} openings of {g}{how}: "
            + " ".join(f"{k}:{w}" for k, w in named)
        )


@openings.command("value")
@click.argument("game")
@click.argument("assignments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--openings",
    "spec",
    default="all",
    show_default=True,
    metavar="all|A:B|GUESS,...|@FILE",
    help="which openings: all, numbers A to B-1 (as `openings list` numbers them), "
    "guesses, or a file of guesses",
)
@click.option(
    "--bound",
    type=Within(0, MOST),
    required=True,
    help="a known total of guesses (e.g. a strategy's): openings within it get their "
    "exact total, the others a proof that they exceed it",
)
@_AFTER
@click.option(
    "--max-guesses",
    type=Within(1, MOST),
    default=None,
    help="at most this many guesses for any secret (default: the game's own limit)",
)
@click.option(
    "--workers",
    type=Within(1, MOST_LANES),
    default=None,
    help="threads for each opening's cells (default: every core)",
)
@click.option(
    "--cluster",
    default=None,
    metavar="local:N|ADDRESS",
    help="hand each opening's cells to a Dask cluster (pip install 'perfectplay[cluster]')",
)
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="the result store to answer from and add to (default: the user's cache)",
)
@click.option("--no-store", is_flag=True, help="neither read nor write a result store")
@click.option(
    "--out",
    type=click.Path(),
    default=None,
    help="the shard's file: rewritten after each opening, resumed from when it exists ("
    + OUTPUT_RULES
    + ")",
)
@click.option("--json", "as_json", is_flag=True, help="print the shard as one JSON object")
@click.option("--quiet", is_flag=True, help="no progress bar")
def value(
    game,
    assignments,
    spec,
    bound,
    after,
    max_guesses,
    workers,
    cluster,
    store_path,
    no_store,
    out,
    as_json,
    quiet,
) -> None:
    """Value a slice of GAME's openings against --bound (the expected objective's total)."""
    from .engine import engine_of
    from .progress import reporter
    from .solution import check_outputs, files_read

    g, position = _game(game, assignments, after)
    reads = files_read(g, store_path, no_store)
    if spec.strip().startswith("@"):
        reads["the list of openings (--openings @FILE)"] = spec.strip()[1:]
    check_outputs({"--out": out}, reads)
    engine = engine_of(g)
    chosen = engine.select_openings(g, engine.openings(g, position), spec)
    progress = reporter(quiet)
    store = engine.open_store(store_path, no_store, _note)
    try:
        shard = engine.value_openings(
            g,
            chosen,
            bound,
            position=position,
            max_guesses=max_guesses,
            workers=workers,
            cluster=cluster,
            store=store,
            out=out,
            progress=progress,
        )
    finally:
        progress.close()
        if store is not None:
            store.close()
    if as_json:
        click.echo(json.dumps(shard.to_json()))
        return
    mine = [r for r in shard.results if r.index in set(chosen)]
    within = sorted((r for r in mine if r.exact), key=lambda r: (r.total, r.index))
    click.echo(
        f"{len(mine)} openings valued against {bound}: {len(within)} within it"
        + (f", best {within[0].guess} {within[0].total}" if within else "")
        + (f"; shard written to {out}" if out else "")
    )
    for r in within:
        click.echo(f"  {r.index}:{r.guess} {r.total}")


def _note(message: str) -> None:
    """A remark to the person, on stderr (as the store's notes in ``solve``)."""
    click.echo(f"perfectplay: note: {message}", err=True)


@openings.command("combine")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object on stdout")
def combine_shards(files, as_json) -> None:
    """What the shard FILES of one job prove together: the optimum over every opening
    once they cover them all."""
    from fractions import Fraction

    from .shards import combine
    from .solution import format_value

    verdict = combine(_checked_shards(files))
    job = verdict.job
    if verdict.complete and verdict.best is not None:
        claim = (
            f"proven optimal over all {job.openings} openings: {verdict.best}/{job.secrets} "
            f"= {float(Fraction(verdict.best, job.secrets)):.6f}, by " + ", ".join(verdict.optimal)
        )
    elif verdict.complete:
        claim = (
            f"no opening is within {job.bound}: the optimum exceeds it "
            f"(all {job.openings} openings valued)"
        )
    else:
        gaps = ", ".join(f"{a}:{b}" for a, b in verdict.missing)
        best = (
            f"; best so far {verdict.best} by {', '.join(verdict.optimal)}"
            if verdict.best is not None
            else ""
        )
        claim = (
            f"not proven: {verdict.valued} of {job.openings} openings valued, missing {gaps}{best}"
        )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "game": job.game,
                    "params": job.params,
                    "bound": job.bound,
                    "secrets": job.secrets,
                    "openings": job.openings,
                    "valued": verdict.valued,
                    "complete": verdict.complete,
                    "missing": [list(m) for m in verdict.missing],
                    "best": verdict.best,
                    **(
                        {"value": format_value(Fraction(verdict.best, job.secrets))}
                        if verdict.best is not None
                        else {}
                    ),
                    "optimal": verdict.optimal,
                    "proven": verdict.complete,
                }
            )
        )
        return
    click.echo(claim)


def _checked_shards(files: tuple[str, ...]) -> list[Shard]:
    """The shards in `files`, each held against its game before any is believed (the
    engine's ``shard_check``: the job's counts, every record's opening, name and total),
    the game's side of a job worked out once; BadFile naming the file if not."""
    from dataclasses import asdict

    from .engine import engine_of
    from .errors import BadFile, PerfectplayError
    from .shards import Shard
    from .solution import read_document

    checks, shards = {}, []
    for path in files:
        shard = Shard.from_json(read_document(path), path)
        job = shard.job
        key = json.dumps(asdict(job), sort_keys=True)
        if key not in checks:
            words = tuple(f"{k}={v}" for k, v in job.params.items())
            try:
                game, position = _game(job.game, words, job.after, "openings to combine")
                checks[key] = engine_of(game).shard_check(game, position, job)
            except PerfectplayError as err:
                raise BadFile(f"{path}: {err}") from None
        checks[key].check(shard, path)
        shards.append(shard)
    return shards
