"""Seed 000's table: item matching, S = 5 slots, T = 4 turns, I = 5..10 items.

Each row is solved in a fresh process (so its peak memory is its own), after a tiny
warm-up solve that loads the compiled kernels, and is checked against the seed's count.
Prints per row: the value (reduced and unreduced), seconds (wall clock, and the main
process's CPU time: on a shared machine the two differ), states evaluated and peak
resident memory (lanes are threads of the row's process, so this covers them).

    python benchmarks/item_matching.py                 # I = 5..10
    python benchmarks/item_matching.py --items 5-8     # the one-minute rows
    python benchmarks/item_matching.py --slots 4 --turns 5 --items 5-7
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

# Seed 000, Section 0 (S = 5, T = 4); it prints 59045 for I = 9, but 9^5 = 59049.
SEED = {
    5: "3119/3125",
    6: "7735/7776",
    7: "16621/16807",
    8: "31322/32768",
    9: "49728/59049",
    10: "68327/100000",
}

ROOT = Path(__file__).resolve().parent.parent


def row(slots: int, items: int, turns: int, restrict: str, workers: int) -> dict:
    """Solve one row in this process; the figures as a dict."""
    sys.path.insert(0, str(ROOT))
    from perfectplay import load_game
    from perfectplay.deduction.solve import SolveOptions, solve_deduction
    from perfectplay.objectives import Objective

    # load the compiled kernels first (numba's cache; compiled once per checkout)
    solve_deduction(
        load_game("item-matching", ["slots=3", "items=3", "turns=3"]), Objective("probability", 3)
    )
    game = load_game(
        "item-matching",
        [f"slots={slots}", f"items={items}", f"turns={turns}", f"restrict={restrict}"],
    )
    t0, c0 = time.perf_counter(), time.process_time()
    solution = solve_deduction(game, Objective("probability", turns), SolveOptions(workers=workers))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "items": items,
        "value": str(solution.value),
        "unreduced": solution.extra["unreduced"],
        "seconds": round(seconds, 2),
        "cpu": round(cpu, 2),
        "states": solution.stats["states"],
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="5-10", help="a range like 5-10, or one number")
    parser.add_argument("--slots", type=int, default=5)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--restrict", default="both")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per row")
    parser.add_argument("--row", type=int, help=argparse.SUPPRESS)  # internal: one row, as JSON
    args = parser.parse_args()
    if args.row is not None:
        print(json.dumps(row(args.slots, args.row, args.turns, args.restrict, args.workers)))
        return
    low, _, high = args.items.partition("-")
    total = 0.0
    print(
        f"item-matching slots={args.slots} turns={args.turns} restrict={args.restrict} "
        f"workers={args.workers}"
    )
    print(
        f"{'I':>3} {'value':>14} {'unreduced':>14} {'seconds':>9} {'cpu s':>8} {'states':>9} "
        f"{'peak MB':>8}  check"
    )
    for items in range(int(low), int(high or low) + 1):
        try:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--row",
                    str(items),
                    "--slots",
                    str(args.slots),
                    "--turns",
                    str(args.turns),
                    "--restrict",
                    args.restrict,
                    "--workers",
                    str(args.workers),
                ],
                capture_output=True,
                text=True,
                timeout=args.timeout,
            )
        except subprocess.TimeoutExpired:
            print(f"{items:>3} not finished within {args.timeout:.0f} s", flush=True)
            continue
        if out.returncode:
            print(f"{items:>3} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout)
        total += r["seconds"]
        seed = (args.slots, args.turns, args.restrict) == (5, 4, "both") and items in SEED
        check = (
            ("= seed" if r["unreduced"] == SEED[items] else f"seed says {SEED[items]}")
            if seed
            else ""
        )
        peak = f"{r['peak_mb']}"
        print(
            f"{items:>3} {r['value']:>14} {r['unreduced']:>14} {r['seconds']:>9.2f} {r['cpu']:>8.2f} "
            f"{r['states']:>9,} {peak:>8}  {check}",
            flush=True,
        )
    print(f"total {total:.1f} s (wall clock)")


if __name__ == "__main__":
    main()
