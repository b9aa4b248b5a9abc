"""Benchmarks of the deduction engine: the whole ``perfectplay solve`` process, side by side
with the anchors (the best C++ solvers), in one run.

Usage: ``python benchmarks/deduction.py [CASE ...] [--vs MMSTRAT] [--vs-wordle WORDLE]
[--repeat N] [--timeout S] [--cold-tables]`` (default cases: mm46, mm46-worst).

Each case runs ``python -m perfectplay solve ... --json`` (or ``openings value``) as a
user runs it (start-up, compilation from the disk cache, table, search, tie-breaks,
output) and, when its anchor is given, the anchor on the same problem, alternately,
`--repeat` times; it prints the median wall seconds of both, their ratio (ours / anchor:
below 1.0 we are faster), our value and nodes, and the machine's load. Anchors (built
outside the repository, never part of it): fancidev's ``mmstrat -s optimal`` (one
thread) for Mastermind and Bulls and Cows, Selby's ``wordle`` for Wordle, run in a
scratch directory holding the word lists the package ships (the same words as ours).

Cases: mm46, mm46-worst, mm46-cap5 (Mastermind 4x6), mm47 (4x7; 11228/2401), bulls
(Bulls and Cows; 26274/5040), mm48 (4x8), perm3 .. perm7 and perm3-worst ..
perm7-worst (the permutation game), wordle-salet and wordle-salet-hard (Wordle after
SALET: 7920 and 8122 over 2315 answers), wordle-tarse-2023 and wordle-tarse-2023-hard
(TARSE on the New York Times lists of 2023: 11219 and 11627 over 3158), wordle-shard40
(40 openings drawn at random with ``random.Random(SHARD_SEED)`` from the 12,972, valued
against the bound 7920 on one core: ``openings value --workers 1`` against Selby's
``-t FILE -b 7920``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The word lists the package ships, by ``lists=`` name: (answers, allowed guesses).
WORDLE_DATA = ROOT / "perfectplay" / "games" / "data"
WORDLE_FILES = {
    "original": ("answers.txt", "allowed.txt"),
    "nyt-2023": ("nyt-answers-2023-07-01.txt", "nyt-allowed-2022-08-30.txt"),
}
#: The seed that draws the 40 openings of ``wordle-shard40``.
SHARD_SEED = 2026


@dataclass(frozen=True)
class Case:
    """One benchmark: our command's arguments after ``perfectplay`` and the anchor's
    (None: no anchor); Wordle's anchor runs on the lists named `lists`. ``{shard}``
    stands for the file of the drawn openings."""

    ours: tuple[str, ...]
    mmstrat: tuple[str, ...] | None = None
    wordle: tuple[str, ...] | None = None
    lists: str = "original"


def _solve(*args: str) -> tuple[str, ...]:
    return ("solve", *args)


CASES = {
    "mm46": Case(_solve("mastermind", "pegs=4", "colors=6"), ("-r", "p4c6r")),
    "mm46-worst": Case(_solve("mastermind", "pegs=4", "colors=6", "--objective", "worst")),
    "mm46-cap5": Case(_solve("mastermind", "pegs=4", "colors=6", "--max-guesses", "5")),
    "mm47": Case(_solve("mastermind", "pegs=4", "colors=7"), ("-r", "p4c7r")),
    "bulls": Case(_solve("bulls-and-cows", "digits=4", "symbols=10"), ("-r", "bc")),
    "mm48": Case(_solve("mastermind", "pegs=4", "colors=8"), ("-r", "p4c8r")),
    **{f"perm{n}": Case(_solve("permutation", f"n={n}")) for n in range(3, 8)},
    **{
        f"perm{n}-worst": Case(_solve("permutation", f"n={n}", "--objective", "worst"))
        for n in range(3, 8)
    },
    "wordle-salet": Case(_solve("wordle", "--first", "salet"), wordle=("-w", "salet")),
    "wordle-salet-hard": Case(
        _solve("wordle", "mode=hard", "--first", "salet"), wordle=("-H", "-w", "salet")
    ),
    "wordle-tarse-2023": Case(
        _solve("wordle", "lists=nyt-2023", "--first", "tarse"),
        wordle=("-w", "tarse"),
        lists="nyt-2023",
    ),
    "wordle-tarse-2023-hard": Case(
        _solve("wordle", "lists=nyt-2023", "mode=hard", "--first", "tarse"),
        wordle=("-H", "-w", "tarse"),
        lists="nyt-2023",
    ),
    "wordle-shard40": Case(
        (
            "openings",
            "value",
            "wordle",
            "--openings",
            "@{shard}",
            "--bound",
            "7920",
            "--workers",
            "1",
        ),
        wordle=("-t{shard}", "-b7920"),
    ),
}


def shard_words() -> list[str]:
    """The 40 openings of ``wordle-shard40``: drawn with SHARD_SEED from the original list."""
    import random

    words = sorted(
        set((WORDLE_DATA / "allowed.txt").read_text().split())
        | set((WORDLE_DATA / "answers.txt").read_text().split())
    )
    return random.Random(SHARD_SEED).sample(words, 40)


def scratch(folder: Path, anchor: str | None, keep_tables: bool) -> dict[str, Path]:
    """Each list's directory for the anchor (answers.txt and allowed.txt, copied from the
    package) and the shard's file, under `folder`. With `keep_tables`, both tools start
    from the table they keep between runs: ours in the user's cache (made by a first run
    if missing), Selby's in its directory (its ``-e`` start-up file, written here by one
    short run); without, both compute it in every run."""
    places = {}
    for name, (answers, allowed) in WORDLE_FILES.items():
        place = folder / name
        place.mkdir()
        (place / "answers.txt").write_bytes((WORDLE_DATA / answers).read_bytes())
        (place / "allowed.txt").write_bytes((WORDLE_DATA / allowed).read_bytes())
        places[name] = place
        if keep_tables:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "perfectplay",
                    "solve",
                    "wordle",
                    f"lists={name}",
                    "--top",
                    "1",
                    "--max-guesses",
                    "2",
                    "--quiet",
                    "--no-store",
                ],
                capture_output=True,
                env=_env(True),
            )
            if anchor:
                subprocess.run(
                    [anchor, "-a", "allowed.txt", "-h", "answers.txt", "-g2", "-e"],
                    cwd=place,
                    capture_output=True,
                )
    places["shard"] = folder / "shard.txt"
    places["shard"].write_text("\n".join(shard_words()) + "\n")
    return places


@dataclass
class Run:
    """One timed process: wall seconds, its output, and whether it finished in time."""

    seconds: float
    out: str
    ok: bool


def _env(keep_tables: bool) -> dict[str, str]:
    """Our processes' environment: this checkout's package, tables kept or not."""
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PERFECTPLAY_KEEP_TABLES": "1" if keep_tables else "0",
    }


def timed(
    argv: list[str], timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Run:
    """Run `argv` to its end (or `timeout`), timing the whole process. It runs in a
    session of its own, killed whole at the timeout (workers included)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        ok = proc.returncode == 0
        out = out if ok else out + err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        ok, out = False, "timeout"
    return Run(time.perf_counter() - t0, out, ok)


def ours_argv(case: Case, places: dict[str, Path]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "perfectplay",
        *(a.format(shard=places["shard"]) for a in case.ours),
        "--json",
        "--quiet",
        "--no-store",
    ]  # the search timed, not the result store


def anchor_argv(case: Case, args, places: dict[str, Path]) -> tuple[list[str], Path | None] | None:
    """The anchor's command line and directory for `case`, if that anchor was given."""
    if case.mmstrat is not None and args.vs:
        return [args.vs, "-s", "optimal", "-S", *case.mmstrat], None
    if case.wordle is not None and args.vs_wordle:
        return (
            [
                args.vs_wordle,
                "-a",
                "allowed.txt",
                "-h",
                "answers.txt",
                *(a.format(shard=places["shard"]) for a in case.wordle),
            ],
            places[case.lists],
        )
    return None


def summary(out: str) -> str:
    """Value, total, worst case and nodes from our JSON output (or why there are none)."""
    try:
        sol = json.loads(out)
    except json.JSONDecodeError:
        return out.strip().splitlines()[-1][:80] if out.strip() else "no output"
    if "results" in sol:  # a shard of openings
        within = [r for r in sol["results"] if r.get("exact")]
        return f"{len(sol['results'])} openings valued, {len(within)} within the bound"
    return (
        f"value {sol.get('value')} total {sol.get('total')} worst {sol.get('worst')} "
        f"nodes {sol.get('nodes', 0):,}"
    )


def median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def bench(name: str, args, places: dict[str, Path]) -> None:
    """Time one case (and its anchor) `args.repeat` times, alternately; print a line."""
    case = CASES[name]
    anchor = anchor_argv(case, args, places)
    ours, theirs = [], []
    for _ in range(args.repeat):
        ours.append(timed(ours_argv(case, places), args.timeout, env=_env(not args.cold_tables)))
        if anchor is not None:
            theirs.append(timed(anchor[0], args.timeout, anchor[1]))
    a = median(ours)
    mark = "" if all(r.ok for r in ours) else " (FAILED)"
    line = f"{name:<18} {a:>9.2f}{mark}"
    if anchor is not None:
        b = median(theirs)
        line += f" {b:>9.2f} {a / b:>7.2f}" + (
            "" if all(r.ok for r in theirs) else " (anchor FAILED)"
        )
    else:
        line += f" {'-':>9} {'-':>7}"
    print(f"{line}  {summary(ours[-1].out)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["mm46", "mm46-worst"])
    parser.add_argument("--vs", metavar="MMSTRAT", help="fancidev's mmstrat binary")
    parser.add_argument("--vs-wordle", metavar="WORDLE", help="Selby's wordle binary")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each (median)")
    parser.add_argument(
        "--cold-tables",
        action="store_true",
        help="Wordle: both tools compute their table in every run (default: "
        "both read the one they keep between runs)",
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    args = parser.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (known: {', '.join(CASES)})")
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on "
        f"{os.cpu_count()} cores; whole processes, median of {args.repeat}; Wordle's "
        f"tables {'computed in every run' if args.cold_tables else 'kept between runs'}",
        flush=True,
    )
    print(f"{'case':<18} {'ours s':>9} {'anchor s':>9} {'ratio':>7}  result", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        places = scratch(Path(folder), args.vs_wordle, not args.cold_tables)
        for name in args.cases:
            bench(name, args, places)


if __name__ == "__main__":
    main()
