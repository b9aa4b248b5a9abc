"""Markov-engine benchmarks: prints states, iterations, seconds and peak memory per case.

Each case runs in its own process so its peak memory (max RSS) is its own.

    python benchmarks/markov.py            # the standard cases
    python benchmarks/markov.py --large    # adds dice-cards n=10 and tricky-trios n=100
    python benchmarks/markov.py --case dice-exact-5

The whole ``perfectplay solve dice-cards n=5`` process (start-up included) is timed from
outside, beside the seed's own code (seed 001's value iteration, kept below) in the same
run, alternating the two:

    for i in 1 2 3 4 5; do
        /usr/bin/time -f "%e s %U user %M KB" perfectplay solve dice-cards n=5 --quiet
        /usr/bin/time -f "%e s %U user %M KB" python benchmarks/markov.py --case seed-dice-5
    done

Measured (issue 11, session 5; 2 cores shared with other engineers' jobs, so the load
average is given; seconds of the solve, peak resident memory of the case's process):

    case         before (load)                    after (load)
    trios-100    221.8 s, 10,089 MiB (2.7-4.2)    45.3 s, 5,100 MiB (1.8-2.0)
                 explore 55.5, order ~131,        explore 27.9, components 17.4
                 iterate 35.2                     (59.0 s at load 4.2)
    dice-10      112.9 s, 5,178 MiB (0.9-2.8)     79.7 s, 3,951 MiB (2.0)
    trios-50     6.6-7.1 s, 857-918 MiB           3.8 s, 476 MiB
    dice-5, whole process, 5 runs alternating with seed-dice-5: 2.24 s wall median
                 against the seed's 14.6 s (load 2.0)

Session 11 (one run each, nothing else heavy running; see docs/architecture.md for the
machine's memory, which moves dice-10 between 17 and 24 s):

    trios-100    19.0 s, 5,101 MiB (explore 12.4, components 6.6; 30.3 s that morning)
    dice-10      17.4 s, 2,710 MiB (explore 1.1, order 2.9, iterate 13.4)
    dice-5, whole process: 0.55 to 0.60 s median (0.70 s that morning); 0.80 s an hour
                 later, the seed's code 4.8 s beside it (ratio 0.16): the machine drifts

Session 12 (dice-cards' own code order, the two halves, pages faulted in by a helper
thread: docs/architecture.md, steps 1, 3 and 4; "cold": 20 s idle before the run):

    trios-100    12.1-12.3 s cold, 9.6 s warm, 4,754 MiB (explore 7.2 / 4.4, components 5.1)
    dice-10      13.2 s cold, 11.2 s warm, 2,511 MiB (explore 2.4 cold, order 1.0,
                 iterate 9.7; 39 sweeps, 3 rounds)
    dice-5, whole process: 0.575 s median of 9, the seed's code 4.14 s beside it (0.14)

Session 13 (Tricky Trios' rounds as blocks, and solved as explored, no graph kept;
``--without NAME`` times a speed-up's no-op in the same way):

    trios-100    8.5-8.6 s cold or warm, 1,475 MiB (reach 2.3, streamed pass 6.2);
                 --without streamed 12.6-13.1 s, 4,338 MiB; --without blocks 14.2 s,
                 4,755 MiB (the machine slower than in session 12: explore 7.7 s warm)

trios-100 is 53,408,689 states and 207,246,729 choices, 212.253693214, all 99 smaller n
read from the same solve (n=5 gives 9.842024 from it). The targets (10 s and 6 GiB;
15 s and 4 GiB; 0.6 s) and what stands in the way: docs/architecture.md, "Measured".
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def seed_value_iteration(N: int) -> float:
    """Seed 001's own Python code (fixed-point iteration), kept to measure the speed-up."""
    M, tolerance = 10, 10**-10
    t = [M] * 2 ** (2 * N)
    rolls = [(x, y) for x in range(1, N + 1) for y in range(1, N + 1)]

    def f(t):
        new_t = []
        for i in range(len(t) - 1):
            sm = sum(
                min(t[i ^ 2 ** (x - 1)], t[i ^ 2 ** (y - 1)], t[i ^ 2 ** (x + y - 1)])
                for x, y in rolls
            )
            new_t.append(1 + sm / N**2)
        new_t.append(0)
        return new_t

    while True:
        new_t = f(t)
        if all(abs(a - b) <= tolerance for a, b in zip(t, new_t)):
            return t[0]
        t = new_t


def run_case(name: str, without: str = "") -> dict:
    """One case in this process; `without`: the Markov speed-ups to switch off (NAME,...)."""
    kind, _, arg = name.rpartition("-")
    n = int(arg)
    if kind == "seed-dice":  # the seed's code alone: nothing of perfectplay is imported
        t = time.perf_counter()
        value = seed_value_iteration(n)
        return {"value": f"{value:.6f}", "seconds": time.perf_counter() - t}
    from perfectplay import load_game, solve
    from perfectplay.games.tricky_trios import START
    from perfectplay.markov.speedups import SpeedUps
    from perfectplay.speedups import switched_off

    speedups = switched_off(SpeedUps(), [w for w in without.split(",") if w])

    game_name = "dice-cards" if kind.startswith("dice") else "tricky-trios"
    solve(load_game(game_name, ["n=2"]))  # load the compiled kernels before timing
    game = load_game(game_name, [f"n={n}"])
    t, cpu = time.perf_counter(), time.process_time()
    sol = solve(game, exact=kind.endswith("exact"), speedups=speedups)
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    row = {
        "value": f"{sol.value_float:.9f}"
        if not (game_name == "dice-cards" and n == 6)
        else "(hidden)",
        "seconds": seconds,
        "cpu_seconds": round(cpu, 3),
        "states": sol.stats["states"],
        "choices": sol.stats["choices"],
        "components": sol.stats.get("components"),
        "sweeps": sol.stats.get("sweeps"),
        "policy_rounds": sol.stats.get("policy_rounds"),
        "status": sol.status,
        "split": {
            k: sol.stats[k]
            for k in ("compile_seconds", "order_seconds", "iterate_seconds", "exact_seconds")
            if k in sol.stats
        },
    }
    if game_name == "tricky-trios" and n > 1:
        import numpy as np

        smaller = [
            sol.strategy.value_of(int(game.encode(START, 0, np.array([m, 0, 0, 0]))))
            for m in range(1, n)
        ]
        row["smaller_n_read"] = len(smaller)
        row["n=5 from this solve"] = f"{float(smaller[4]):.6f}" if n > 5 else None
    return row


STANDARD = [
    "dice-5",
    "seed-dice-5",
    "dice-8",
    "dice-exact-4",
    "dice-exact-5",
    "trios-50",
    "trios-exact-20",
]
LARGE = ["dice-10", "trios-100"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help="run one case in this process and print JSON")
    parser.add_argument("--large", action="store_true", help="add the minutes-long cases")
    parser.add_argument(
        "--without",
        default="",
        metavar="NAME[,NAME]",
        help="Markov speed-ups to switch off (to time one beside its no-op)",
    )
    args = parser.parse_args()
    if args.case:
        row = run_case(args.case, args.without)
        row["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(row))
        return
    for case in STANDARD + (LARGE if args.large else []):
        out = subprocess.run(
            [sys.executable, __file__, "--case", case, "--without", args.without],
            capture_output=True,
            text=True,
        )
        if out.returncode:
            print(f"{case:16} FAILED: {out.stderr.strip().splitlines()[-1]}")
            continue
        row = json.loads(out.stdout)
        print(
            f"{case:16} {row.pop('seconds'):9.3f} s  peak {row.pop('peak_mib'):8.0f} MiB  "
            + "  ".join(f"{k}={v}" for k, v in row.items() if v is not None),
            flush=True,
        )


if __name__ == "__main__":
    main()
