"""Figures of the result store and the Dask back end (issue 13), whole processes timed.

    python benchmarks/store.py [GAME KEY=VALUE ...] [--workers 2] [--only NAME[,NAME]]

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


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _solve(game: list[str], *options: str, kill_after: float | None = None) -> tuple[float, dict | None]:
    """Wall time of ``perfectplay solve GAME --json --quiet OPTIONS`` and its JSON (None
    when killed after `kill_after` seconds)."""
    cmd = [sys.executable, "-m", "perfectplay", "solve", *game, "--json", "--quiet", *options]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
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
    args = parser.parse_args()
    only = set(args.only.split(","))
    game, w = args.game, str(args.workers)
    name = " ".join(game)
    print("| figure | game | result | load |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        if "cluster" in only:
            lanes, a = _solve(game, "--no-store", "--workers", w)
            dask, b = _solve(game, "--no-store", "--cluster", f"local:{w}")
            assert a["value"] == b["value"], (a["value"], b["value"])
            print(f"| cluster | {name} | {w} thread lanes {lanes:.1f} s, Dask local:{w} {dask:.1f} s "
                  f"(overhead {100 * (dask - lanes) / lanes:+.0f}%), value {a['value']} | {_load()} |")
        store = Path(tmp) / "fresh.sqlite"
        fresh, a = _solve(game, "--store", str(store), "--workers", w)
        if only & {"fresh", "second", "resume"}:
            print(f"| fresh | {name} | {fresh:.1f} s, value {a['value']}, {a['nodes']:,} nodes, "
                  f"store {_size(store) / 1e3:,.0f} kB ({a['store']['written']} answers) "
                  f"| {_load()} |")
        if "second" in only:
            again, b = _solve(game, "--store", str(store), "--workers", w)
            assert b["from_store"] and b["value"] == a["value"]
            print(f"| second | {name} | {again:.2f} s whole process, from the store | {_load()} |")
        if "resume" in only:
            other = Path(tmp) / "resume.sqlite"
            killed, _ = _solve(game, "--store", str(other), "--workers", w, kill_after=fresh / 2)
            rest, c = _solve(game, "--store", str(other), "--workers", w)
            assert c["value"] == a["value"]
            print(f"| resume | {name} | killed at {killed:.1f} s, resumed in {rest:.1f} s "
                  f"({c['store']['read']} answers from the store): {killed + rest:.1f} s "
                  f"against {fresh:.1f} s uninterrupted ({100 * (killed + rest - fresh) / fresh:+.0f}%) "
                  f"| {_load()} |")


if __name__ == "__main__":
    main()
