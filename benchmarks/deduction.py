"""Benchmarks of the deduction engine: value, nodes, seconds and peak memory per case.

Usage: ``python benchmarks/deduction.py [CASE ...] [--workers N]`` (default: the 4x6
cases). Cases: mm46 (Mastermind 4x6, expected), mm46-worst, mm46-cap5, mm47
(Mastermind 4x7, expected; Ville 2013: 11228/2401), bulls (Bulls and Cows, expected;
26274/5040), perm3 .. perm7 (the permutation game, both objectives).
Targets (issue 3): mm46 under 5 s, mm47 under 30 min, bulls under 1 hour.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

from perfectplay import load_game, solve

CASES = {
    "mm46": ("mastermind(pegs=4,colors=6)", "expected", None),
    "mm46-worst": ("mastermind(pegs=4,colors=6)", "worst", None),
    "mm46-cap5": ("mastermind(pegs=4,colors=6)", "expected", 5),
    "mm47": ("mastermind(pegs=4,colors=7)", "expected", None),
    "bulls": ("bulls-and-cows(digits=4,symbols=10)", "expected", None),
    **{f"perm{n}": (f"permutation(n={n})", "expected", None) for n in range(3, 8)},
    **{f"perm{n}-worst": (f"permutation(n={n})", "worst", None) for n in range(3, 8)},
}


def peak_mb() -> float:
    """Peak resident memory of this process and its finished workers (MB, Linux units)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["mm46", "mm46-worst", "mm46-cap5"])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--progress", action="store_true", help="progress messages on stderr")
    args = parser.parse_args()
    print(f"{'case':<12} {'value':>14} {'total':>7} {'worst':>5} {'nodes':>10} {'seconds':>9} "
          f"{'peak MB':>8}  workers={args.workers}", flush=True)
    for name in args.cases:
        spec, objective, cap = CASES[name]
        t0 = time.perf_counter()
        note = (lambda msg: print(f"  {msg}", file=sys.stderr, flush=True)) if args.progress else None
        sol = solve(load_game(spec), objective, max_guesses=cap, workers=args.workers, progress=note)
        seconds = time.perf_counter() - t0
        print(f"{name:<12} {str(sol.value):>14} {sol.extra['total']:>7} {sol.extra['worst']:>5} "
              f"{sol.stats.get('nodes', 0):>10,} {seconds:>9.2f} {peak_mb():>8.0f}", flush=True)
        print("  histogram " + " ".join(f"{k}:{v}" for k, v in sol.extra["histogram"].items()),
              flush=True)


if __name__ == "__main__":
    main()
