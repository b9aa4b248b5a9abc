"""Figures of the result store and the Dask back end (issue 13), whole processes timed.

    python benchmarks/store.py [GAME KEY=VALUE ...] [--workers 2] [--only NAME[,NAME]] [--repeat N]

For one game (default: Bulls and Cows; ``mastermind pegs=4 colors=7`` is a quicker
stand-in) it prints, as Markdown rows with the load average at each:

* ``cluster``: a 2-worker local Dask cluster against 2 thread lanes (``--workers 2``)
  (both without a store): wall time and the cluster's overhead;
* ``fresh``: an uninterrupted solve into an empty store: wall time, store size;
* ``second``: the same command again, answered from the store: wall time;
* ``resume``: a solve into another empty store killed (SIGKILL) at half the fresh
  solve's time, then run again: the two times summed against the fresh one.

Every process runs in its own session and is killed whole at the end (workers too).
The machine this was written on is shared: the load average says how much to trust a row.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _solve(
    game: list[str], *options: str, kill_after: float | None = None
) -> tuple[float, dict | None]:
    """Wall time of ``perfectplay solve GAME --json --quiet OPTIONS`` and its JSON (None
    when killed after `kill_after` seconds)."""
    cmd = [sys.executable, "-m", "perfectplay", "solve", *game, "--json", "--quiet", *options]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=kill_after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return time.perf_counter() - start, None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()}")
    return seconds, json.loads(out)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="*", default=["bulls-and-cows"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="cluster,fresh,second,resume")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each figure, alternating the variants; medians printed",
    )
    args = parser.parse_args()
    only = set(args.only.split(","))
    game, w = args.game, str(args.workers)
    name = " ".join(game)
    print("| figure | game | result | load |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        if "cluster" in only:
            lanes, dask = [], []
            for _ in range(args.repeat):
                a_time, a = _solve(game, "--no-store", "--workers", w)
                b_time, b = _solve(game, "--no-store", "--cluster", f"local:{w}")
                assert a["value"] == b["value"], (a["value"], b["value"])
                lanes.append(a_time)
                dask.append(b_time)
            x, y = median(lanes), median(dask)
            print(
                f"| cluster | {name} | {w} thread lanes {x:.1f} s, Dask local:{w} {y:.1f} s "
                f"(overhead {100 * (y - x) / x:+.0f}%), value {a['value']}{_runs(lanes, dask)} "
                f"| {_load()} |"
            )
        if not only & {"fresh", "second", "resume"}:
            return
        fresh_times, resumed, killed_at, read = [], [], [], []
        for k in range(args.repeat):
            store = Path(tmp) / f"fresh{k}.sqlite"
            fresh, a = _solve(game, "--store", str(store), "--workers", w)
            fresh_times.append(fresh)
            if k == 0 and "fresh" in only:
                print(
                    f"| fresh | {name} | {fresh:.1f} s, value {a['value']}, {a['nodes']:,} nodes, "
                    f"store {_size(store) / 1e3:,.0f} kB ({a['store']['written']} answers) "
                    f"| {_load()} |"
                )
            if k == 0 and "second" in only:
                again, b = _solve(game, "--store", str(store), "--workers", w)
                assert b["from_store"] and b["value"] == a["value"]
                print(
                    f"| second | {name} | {again:.2f} s whole process, from the store | {_load()} |"
                )
            if "resume" in only:
                other = Path(tmp) / f"resume{k}.sqlite"
                killed, _ = _solve(
                    game, "--store", str(other), "--workers", w, kill_after=fresh / 2
                )
                rest, c = _solve(game, "--store", str(other), "--workers", w)
                assert c["value"] == a["value"]
                resumed.append(killed + rest)
                killed_at.append(killed)
                read.append(c["store"]["read"])
        if "resume" in only:
            x, y = median(fresh_times), median(resumed)
            print(
                f"| resume | {name} | killed at about {median(killed_at):.1f} s, then resumed "
                f"({median(read):.0f} answers from the store): {y:.1f} s in all against "
                f"{x:.1f} s uninterrupted ({100 * (y - x) / x:+.0f}%){_runs(fresh_times, resumed)} "
                f"| {_load()} |"
            )


def _runs(first: list[float], second: list[float]) -> str:
    """The single runs behind two medians, when there are several."""
    if len(first) < 2:
        return ""
    return (
        f"; medians of {len(first)} runs: {', '.join(f'{t:.1f}' for t in first)} and "
        f"{', '.join(f'{t:.1f}' for t in second)} s"
    )


if __name__ == "__main__":
    main()
