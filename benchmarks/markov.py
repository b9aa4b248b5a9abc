"""Markov-engine benchmarks: prints states, iterations, seconds and peak memory per case.

Each case runs in its own process so its peak memory (max RSS) is its own.

    python benchmarks/markov.py            # the standard cases
    python benchmarks/markov.py --large    # adds dice-cards n=10 and tricky-trios n=100
    python benchmarks/markov.py --case dice-exact-5
    python benchmarks/markov.py --cant-stop        # a user's big game against plain numpy
    python benchmarks/markov.py --cant-stop --big  # its board of 11.2 M states

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

A user's big game (issue 51): solitaire Can't Stop written as docs/custom-games.md
teaches (examples/cant_stop.py), solved with the graph perfectplay picks and with its
rules recomputed at every sweep, beside a plain numpy value iteration of the same game
written apart (cant_stop_numpy.py: its whole table of next states, 5.7 kB a state),
one process each; bytes per state are the peak memory the solve adds. 2026-11-28, load
average 8 to 11 on the 2 cores (wall times inflated; CPU seconds of the solve):

    case                   wall      CPU     peak MiB  bytes/state  value
    cantstop-2             11.2 s    4.7 s      721      2,856      1.667094530703 (stored)
    cantstop-recomputed-2  82 s      13.4 s     157         60      1.667094530703
    numpy-cantstop-2       255 s    127.8 s    1,081      6,915     1.667094530703

(155,208 states reached; the plain solver enumerates 159,624 valid pairs, 32 sweeps;
the recomputed solve's few MiB above its start are noise at this size: 20 bytes a state
by its estimate.) Before its levels were given to Python threads, numba's workqueue
layer spun while the threads waited for each other: 124 s, 49.0 s of CPU.
On the board of 11.2 M states the plain table would take 59 GiB: not run.

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


def run_cant_stop(kind: str, length: int) -> dict:
    """Solitaire Can't Stop on the board of `length`: examples/cant_stop.py (written as
    docs/custom-games.md teaches) solved by perfectplay, with the graph it picks
    ("cantstop") or its rules recomputed at every sweep ("cantstop-recomputed"), or the
    plain numpy value iteration written apart ("numpy-cantstop": cant_stop_numpy.py,
    nothing of perfectplay imported); bytes per state from the peak memory the solve
    adds to the process's."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    if kind == "numpy-cantstop":
        sys.path.insert(0, str(here))
        import cant_stop_numpy

        table = cant_stop_numpy.TABLE_BYTES_PER_STATE * BIG_STATES
        if length == 3 and table > available_bytes():
            return {"skipped": f"its table would take {table / 2**30:.0f} GiB"}
        before = peak_bytes()
        t, cpu = time.perf_counter(), time.process_time()
        row = cant_stop_numpy.solve(length, progress=lambda _: None)
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
        graph = "plain table"
    else:
        sys.path.insert(0, str(here.parent / "examples"))
        from cant_stop import CantStop

        from perfectplay import solve

        solve(CantStop(length=1), exact=False)  # load the compiled kernels before timing
        graph = "recomputed" if kind == "cantstop-recomputed" else None
        before = peak_bytes()
        t, cpu = time.perf_counter(), time.process_time()
        sol = solve(CantStop(length=length), exact=False, graph=graph)
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
        row = {"value": sol.value_float, "states": sol.stats["states"]}
        graph = sol.stats["graph"]
        row["sweeps"] = sol.stats.get("sweeps")
    added = peak_bytes() - before
    return {
        "value": f"{row['value']:.12f}",
        "seconds": seconds,
        "cpu_seconds": round(cpu, 3),
        "states": row["states"],
        "graph": graph,
        "bytes_per_state": round(added / row["states"], 1),
        "sweeps": row["sweeps"],
    }


#: States of Can't Stop's board of length 3 (perfectplay's reach), for the plain
#: solver's table size, which is not built when it would not fit.
BIG_STATES = 11_212_685


def peak_bytes() -> int:
    """This process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def available_bytes() -> int:
    """The memory available now (/proc/meminfo)."""
    with open("/proc/meminfo") as f:
        info = dict(line.split(":", 1) for line in f)
    return int(info["MemAvailable"].split()[0]) * 1024


def run_case(name: str, without: str = "") -> dict:
    """One case in this process; `without`: the Markov speed-ups to switch off (NAME,...)."""
    kind, _, arg = name.rpartition("-")
    n = int(arg)
    if kind in ("cantstop", "cantstop-recomputed", "numpy-cantstop"):
        return run_cant_stop(kind, n)
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
#: A big user game side by side with a plain numpy value iteration of it (--cant-stop
#: alone; --big: the board of 11.2 M states, perfectplay's rules recomputed).
CANT_STOP = ["cantstop-2", "cantstop-recomputed-2", "numpy-cantstop-2"]
CANT_STOP_BIG = ["cantstop-3", "numpy-cantstop-3"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help="run one case in this process and print JSON")
    parser.add_argument("--large", action="store_true", help="add the minutes-long cases")
    parser.add_argument(
        "--cant-stop", action="store_true", help="only Can't Stop against plain numpy"
    )
    parser.add_argument(
        "--big", action="store_true", help="Can't Stop on the board of 11.2 M states"
    )
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
    cant_stop = CANT_STOP_BIG if args.big else CANT_STOP
    cases = cant_stop if args.cant_stop else STANDARD + (LARGE if args.large else []) + cant_stop
    for case in cases:
        out = subprocess.run(
            [sys.executable, __file__, "--case", case, "--without", args.without],
            capture_output=True,
            text=True,
        )
        if out.returncode:
            print(f"{case:22} FAILED: {out.stderr.strip().splitlines()[-1]}")
            continue
        row = json.loads(out.stdout)
        if "skipped" in row:
            print(f"{case:22} not run: {row['skipped']}")
            continue
        print(
            f"{case:22} {row.pop('seconds'):9.3f} s  peak {row.pop('peak_mib'):8.0f} MiB  "
            + "  ".join(f"{k}={v}" for k, v in row.items() if v is not None),
            flush=True,
        )


if __name__ == "__main__":
    main()
