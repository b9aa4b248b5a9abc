"""Games a second of ``perfectplay simulate`` (issue 50, item 5): the optimal strategy of
Yahtzee (or another game) played after its stage values are loaded (kept, else solved
and kept) and the kernels warmed by a small run, so that only the games are timed.

    python benchmarks/simulate.py                          # 200,000 games of Yahtzee
    python benchmarks/simulate.py --game yatzy --games 500000

Prints the games a second, the mean with its standard error beside the exact value, the
processors numba uses and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import numba

from perfectplay.catalogue import load_game
from perfectplay.simulation import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="yahtzee")
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = load_game(args.game, [])
    t0 = time.perf_counter()
    simulate(game, 1000, seed=0)  # (the strategy loaded, the kernels compiled or loaded)
    ready = time.perf_counter() - t0
    run = simulate(game, args.games, seed=args.seed)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{game}: {run.games:,} games in {run.seconds:.2f} s: "
        f"{run.games / run.seconds:,.0f} games a second on {numba.get_num_threads()} cores "
        f"(strategy and kernels ready in {ready:.1f} s before); mean {run.mean_text()}, "
        f"exact {run.value:.6f}; peak memory {peak:,.0f} MiB"
    )


if __name__ == "__main__":
    main()
