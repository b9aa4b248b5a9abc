"""Compile the kernels the commands use before their first run (``pip install`` does it).

``python -m perfectplay.precompile FOLDER`` runs tiny solves of every kind the commands
meet (``GROUPS``: each engine, objective, kind of feedback table and hard mode) through
the command line itself, one group per process and every group at once, and leaves the
compiled kernels in ``FOLDER/<digest>`` (``kernel_cache``): the build backend calls it with
the wheel's ``perfectplay/_kernels``, so that the first solve after installing loads its
kernels instead of compiling them for a minute. ``--group NAME`` runs one group in this
process, compiling into (or loading from) the user's cache; the test suite warms the
kernels so before its workers start.

The groups are the two engines, whose kernels are disjoint: each is compiled once, on its
own core. (The deduction search is one specialisation for every game: a kernel compiled
for two sets of argument types costs two compiles, the search's about a minute each.)
The search's chain is the longer, so the Markov group also builds the feedback tables
the search's later lines meet (the search then loads their kernels) and expands its
games' states (as verifying, checking and playing a game do).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Command lines (after ``perfectplay``) per group; WORDS is replaced by a file of a few
#: of Wordle's answers, STORE by a result store of the run's own (the user's is never
#: read or written). Three kinds of line are not commands: ``table GAME ...`` builds a
#: deduction game's feedback table, ``expand GAME ...`` expands a Markov game's start
#: state, ``streamed GAME ...`` solves a Markov game by the streamed solve.
GROUPS: dict[str, list[str]] = {
    "search": [
        "solve mastermind pegs=2 colors=3 --no-store",
        "solve mastermind pegs=2 colors=3 --objective worst --no-store",
        "solve mastermind pegs=2 colors=3 --objective probability --horizon 3 --no-store",
        "solve mastermind pegs=2 colors=3 --strategy minimax --no-store",
        "solve mastermind pegs=2 colors=4 --possible-only --no-store",
        "solve permutation n=4 --no-store",
        "solve bulls-and-cows digits=2 symbols=4 --no-store",
        "solve item-matching slots=2 items=3 turns=2 --no-store",
        "solve item-matching slots=2 items=3 turns=2 costs=1,2,4 "
        "--objective probability-then-cost --horizon 2 --no-store",
        "solve wordle answers=WORDS guesses=WORDS --no-store",
        "solve wordle answers=WORDS guesses=WORDS mode=hard --no-store",
        "solve item-matching slots=6 items=2 turns=2 --no-store",  # a two-byte table
        "solve mastermind pegs=2 colors=3 --store STORE",  # the store keeps the journal
        # 3,024 secrets: on lanes, relaying what they find (the breadth keeps it short)
        "solve bulls-and-cows digits=4 symbols=9 --top 1 --workers 2 --no-store",
    ],
    "markov": [
        # first, the feedback tables the search's later lines meet: this process has time
        # to spare (the search's chain is the longer), and the search then loads them
        "table wordle answers=WORDS guesses=WORDS",
        "table item-matching slots=2 items=3 turns=2",
        "table item-matching slots=6 items=2 turns=2",
        "table permutation n=4",
        "solve dice-cards n=2",
        "expand dice-cards n=2",  # states expanded again: verifying, checking, playing
        "solve dice-cards n=5",  # pointers and weights in narrower types
        "solve dice-cards n=2 --objective probability --horizon 4",
        "solve tricky-trios n=2",
        "expand tricky-trios n=2",
        "streamed tricky-trios n=2",
        "solve yahtzee card=4096",  # the staged solver and Yahtzee's exit rule
        "expand yahtzee card=4096",  # a staged game's expansion (read-only arrays) checked
    ],
}
#: This module, as ``python -m`` runs it.
MODULE = "perfectplay.precompile"
#: Wordle answers (the first ones of the shipped list) in the file WORDS stands for.
WORDLE_WORDS = 40


def _wordle_words(folder: Path) -> Path:
    from importlib import resources

    words = resources.files("perfectplay.games").joinpath("data/answers.txt").read_text()
    path = folder / "words.txt"
    path.write_text("\n".join(words.split()[:WORDLE_WORDS]) + "\n")
    return path


def _run(line: str, words: Path) -> None:
    """Run one command line of ``GROUPS`` in this process; RuntimeError if it fails."""
    from .cli import cli

    store = words.parent / "store.sqlite"  # (split first: a path may hold spaces)
    args = [word.replace("WORDS", str(words)).replace("STORE", str(store)) for word in line.split()]
    special = {"streamed": _streamed, "table": _table, "expand": _expand}.get(args[0])
    if special is not None:
        special(args[1], args[2:])
        return
    args += ["--quiet", "--json"]
    try:
        cli(args)
    except SystemExit as done:
        if done.code not in (0, None):
            raise RuntimeError(f"perfectplay {' '.join(args)} failed ({done.code})") from None


def _table(name: str, assignments: list[str]) -> None:
    """Build the feedback table of the deduction game `name` (no search)."""
    from . import load_game
    from .deduction.feedback import build_table

    build_table(load_game(name, assignments))


def _expand(name: str, assignments: list[str]) -> None:
    """Expand the start of the Markov game `name` as verifying, checking and playing it
    do: through the checks of its rules (``markov.contract``: their compiled pass) and
    its compiled rules' ``expand_batch`` or its stages' expansion."""
    import numpy as np

    from . import load_game
    from .markov import contract

    game = load_game(name, assignments)
    contract.expansion(game, np.array([game.initial_state()], dtype=np.int64))


def _streamed(name: str, assignments: list[str]) -> None:
    """Solve the tiny game `name` by the streamed solve, as a game past the states the
    exact solve takes would be."""
    from unittest import mock

    from . import load_game, solve
    from .markov import solve as markov_solve

    with mock.patch.object(markov_solve, "EXACT_STATES", 0):
        solve(load_game(name, assignments))


def warm(group: str) -> None:
    """Run `group`'s command lines in this process (the kernels are compiled, or loaded)."""
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as scratch:
        words = _wordle_words(Path(scratch))
        for line in GROUPS[group]:
            with contextlib.redirect_stdout(io.StringIO()):
                _run(line, words)


def build(target: Path) -> float:
    """Compile every group, each in its own process, all at once, into a scratch cache,
    and move the kernels into ``target/<digest>``; the seconds it took."""
    from .kernel_cache import PACKAGE, ship

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, NUMBA_CACHE_DIR=scratch)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(PACKAGE.parent), env.get("PYTHONPATH")) if p
        )
        runs = {
            group: subprocess.Popen(
                [sys.executable, "-m", MODULE, "--group", group], env=env, cwd=scratch
            )
            for group in GROUPS
        }
        failed = [group for group, run in runs.items() if run.wait() != 0]
        if failed:
            raise RuntimeError(f"compiling the kernels failed in group {', '.join(failed)}")
        ship(Path(scratch), target)
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    """``FOLDER`` (build into it) or ``--group NAME`` (warm one group here)."""
    if len(argv) == 2 and argv[0] == "--group" and argv[1] in GROUPS:
        warm(argv[1])
        return 0
    if len(argv) == 1 and not argv[0].startswith("-"):
        seconds = build(Path(argv[0]))
        print(f"perfectplay: compiled the kernels in {seconds:.0f} s", file=sys.stderr)
        return 0
    print(f"usage: python -m {MODULE} FOLDER | --group {{{','.join(GROUPS)}}}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
