"""What checking a user's rules where they are read costs, against the solve that reads
them (issue 48: under 5 %).

Usage: ``python benchmarks/rules_checks.py [--repeat N]``.

Each case solves in this process, after one solve that loads the compiled kernels, with
every cache of the engine cleared, so that each run reads the rules afresh: Mastermind
4x6 (the table built, its every feedback checked, the declared symmetry checked on the
whole table, the scalar rule held to it on a sample, then the search), and dice-cards
n=5 and Tricky Trios n=8 and 12 explored by batches through their vectorised ``expand``
(every batch's expansion checked; their compiled exploration, the way they are solved
by default, checks inside its kernel, at no measurable cost). The checks' own functions (``deduction/contract.py``,
``deduction/declared.py``, ``markov/contract.py``: what they do beyond calling the
rules) are timed from inside, the outermost call only, and printed against the whole
solve: the median of `--repeat` runs of each.

Measured (2026-11-28, 2 cores, an otherwise idle machine, median of 7):

    case                             solve s  checks s   share
    mastermind(pegs=4,colors=6)        0.193    0.0078   4.05 %
    dice-cards(n=5)                    0.031    0.0004   1.18 %
    tricky-trios(n=8)                  0.022    0.0009   4.06 %
    tricky-trios(n=12)                 0.080    0.0016   2.03 %

Mastermind's checks: the declared symmetry on the whole table (four generators, about
6 ms), the scalar rule on 24 pairs (1.6 ms), the table's feedbacks (0.6 ms), the codes
(0.8 ms). A batch's expansion is checked in one compiled pass over its weights and next
states (``markov.contract._all_well``) and two over its costs, about 10 microseconds
however small the batch: Tricky Trios explored by batches meets its states in some 75
small layers, where a dozen numpy passes a batch (15 microseconds on their own) took
5 to 9 % of these solves of a few hundredths of a second.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

#: The checks timed, as (module, function) pairs: what each engine does to the rules'
#: answers beyond reading them.
DEDUCTION_CHECKS = (
    ("perfectplay.deduction.contract", "sizes"),
    ("perfectplay.deduction.contract", "codes"),
    ("perfectplay.deduction.contract", "feedback_breach"),
    ("perfectplay.deduction.feedback", "sizes"),
    ("perfectplay.deduction.feedback", "codes"),
    ("perfectplay.deduction.feedback", "check_feedbacks"),
    ("perfectplay.deduction.feedback", "feedback_breach"),
    ("perfectplay.deduction.feedback", "_sampled"),
    ("perfectplay.deduction.declared", "check_declared"),
)
MARKOV_CHECKS = (
    ("perfectplay.markov.contract", "_array"),
    ("perfectplay.markov.contract", "_check"),
    ("perfectplay.markov.contract", "start"),
    ("perfectplay.markov.contract", "code_bound"),
    ("perfectplay.markov.contract", "same_state"),
)


class Stopwatch:
    """Seconds spent in the wrapped functions, a call inside another counted once."""

    def __init__(self) -> None:
        self.seconds, self._depth = 0.0, 0

    def wrap(self, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            self._depth += 1
            t = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.seconds += time.perf_counter() - t

        return timed

    def install(self, checks) -> None:
        import importlib

        for module, name in checks:
            mod = importlib.import_module(module)
            setattr(mod, name, self.wrap(getattr(mod, name)))


def _clear_caches() -> None:
    """Every lru_cache of the engines' modules: the next solve reads the rules afresh."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith(("perfectplay.deduction", "perfectplay.markov")):
            for value in vars(module).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()


def run(spec: str, options: dict, checks, repeat: int) -> tuple[float, float]:
    """(median solve seconds, median seconds in the checks) of `spec`."""
    from perfectplay import load_game, solve

    game = load_game(spec)
    solve(game, **options)  # the kernels loaded, the rules read once
    watch = Stopwatch()
    watch.install(checks)
    solves, spent = [], []
    for _ in range(repeat):
        _clear_caches()
        watch.seconds = 0.0
        t = time.perf_counter()
        solve(game, **options)
        solves.append(time.perf_counter() - t)
        spent.append(watch.seconds)
    return statistics.median(solves), statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = (
        ("mastermind(pegs=4,colors=6)", {"store": None}, DEDUCTION_CHECKS),
        ("dice-cards(n=5)", {"compiled": False}, MARKOV_CHECKS),
        ("tricky-trios(n=8)", {"compiled": False}, MARKOV_CHECKS),
        ("tricky-trios(n=12)", {"compiled": False}, MARKOV_CHECKS),
    )
    print(f"{'case':30} {'solve s':>9} {'checks s':>9} {'share':>7}")
    for spec, options, checks in cases:
        solved, spent = run(spec, options, checks, args.repeat)
        print(f"{spec:30} {solved:9.3f} {spent:9.4f} {100 * spent / solved:6.2f} %", flush=True)


if __name__ == "__main__":
    main()
