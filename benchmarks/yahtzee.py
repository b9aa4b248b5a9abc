"""Solitaire Yahtzee side by side (issue 42, item 6): ``perfectplay solve yahtzee``, whole
process, against the plain numpy widget-by-widget program beside it
(benchmarks/yahtzee_widgets.py), in the same run, alternating, each in a process of its
own so that its peak memory is its own.

    python benchmarks/yahtzee.py                   # 3 runs of each, Yahtzee (free joker)
    python benchmarks/yahtzee.py --runs 5 --game yatzy
    python benchmarks/yahtzee.py --vs PATH/yatzy-anchor   # Yatzy against the fastest solver

``--vs`` times ``perfectplay solve yatzy`` against the Rust core of dlangk/yatzy (built
outside the project by ``../shared/anchors/build.sh``; its value is in 32-bit floats),
run with THREADS equal to the processors numba uses (those this process may use),
alternating, and prints each pair's
ratio of CPU seconds (user + system) and the median ratio, with the peak memory of both
and of ``perfectplay solve dice-cards n=2`` (the process's own floor).

Prints every run (wall seconds, user seconds, peak resident MiB, the value printed) and
the medians; the load average before the runs, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Run:
    """One run of one program: wall and user seconds, peak resident memory, its value."""

    wall: float
    user: float
    cpu: float
    peak_mib: float
    value: str


def run(command: list[str], env: dict[str, str] | None = None) -> Run:
    """Run `command` to the end, measured by the kernel (os.wait4: its own rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed (status {status})")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, usage.ru_utime, cpu, usage.ru_maxrss / 1024, _value(out))


def _value(out: str) -> str:
    """The value a program printed: the JSON's value_float, or the widget program's."""
    if out.startswith("{"):
        import json

        return f"{json.loads(out)['value_float']:.10f}"
    if "start value" in out:  # the anchor's
        return out.split("start value (f32) = ")[1].split()[0]
    if "│ value" in out:  # perfectplay's summary table
        return out.split("│ value")[1].split("│")[1].strip()
    return out.split(": ")[1].split()[0]


def commands(game: str) -> dict[str, list[str]]:
    """The two programs, for `game` (``yahtzee`` or ``yatzy``)."""
    return {
        f"perfectplay solve {game}": [
            sys.executable, "-m", "perfectplay", "solve", game, "--quiet", "--json",
        ],
        "yahtzee_widgets.py": [sys.executable, str(HERE / "yahtzee_widgets.py"), "--game", game],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--game", choices=["yahtzee", "yatzy"], default="yahtzee")
    parser.add_argument("--vs", metavar="ANCHOR", help="the yatzy-anchor program (Yatzy)")
    args = parser.parse_args()
    if args.vs:
        return versus(args.vs, args.runs)
    programs = commands(args.game)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    results: dict[str, list[Run]] = {name: [] for name in programs}
    for i in range(args.runs):
        for name, command in programs.items():  # alternating, so drift hits both
            r = run(command)
            results[name].append(r)
            print(
                f"run {i + 1}  {name:28} {r.wall:7.2f} s wall  {r.user:7.2f} s user  "
                f"{r.peak_mib:6.0f} MiB  {r.value}",
                flush=True,
            )
    for name, runs in results.items():
        print(
            f"median  {name:28} {statistics.median(r.wall for r in runs):7.2f} s wall  "
            f"{statistics.median(r.peak_mib for r in runs):6.0f} MiB"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def versus(anchor: str, runs: int) -> None:
    """``perfectplay solve yatzy`` against the anchor, alternating, CPU seconds compared."""
    threads = len(os.sched_getaffinity(0))  # numba's threads (not imported here: a child
    # forked from a process that imported it would count its memory before its exec)
    ours = [sys.executable, "-m", "perfectplay", "solve", "yatzy", "--quiet"]  # (--json would
    # add the score distribution's forward pass: what the anchor's table solve does not do)
    floor = [sys.executable, "-m", "perfectplay", "solve", "dice-cards", "n=2", "--quiet", "--json"]
    env = {**os.environ, "THREADS": str(threads)}
    print(f"load average before: {os.getloadavg()[0]:.2f}; threads {threads}")
    run(ours)  # kernels loaded once, not counted
    ratios, pairs = [], []
    for i in range(runs):
        a, b = run(ours), run([anchor], env)
        ratios.append(a.cpu / b.cpu)
        pairs.append((a, b))
        print(
            f"run {i + 1}  perfectplay {a.cpu:6.2f} s cpu {a.wall:6.2f} s wall {a.peak_mib:5.0f} MiB "
            f"{a.value}   anchor {b.cpu:6.2f} s cpu {b.wall:6.2f} s wall {b.peak_mib:5.0f} MiB "
            f"{b.value}   ratio {ratios[-1]:.2f}",
            flush=True,
        )
    base = statistics.median(run(floor).peak_mib for _ in range(3))
    peak = statistics.median(a.peak_mib for a, _ in pairs)
    print(
        f"median CPU ratio {statistics.median(ratios):.2f} (perfectplay / anchor); peak "
        f"{peak:.0f} MiB, {peak - base:.0f} MiB above the floor of {base:.0f} MiB "
        "(solve dice-cards n=2)"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
