"""What a new user meets first: installing, the first solves, and short questions, each
timed as a whole process in a fresh venv with empty caches.

Usage: ``python benchmarks/startup.py [--vs MMSTRAT] [--repeat N] [--suite] [--keep DIR]``

Steps, in order, each printed as it ends:

1. ``pip install SOURCE`` into a new venv (pip's download cache is the machine's: on a
   machine that never downloaded the dependencies, add their download);
2. the first and then a second (warm) run of ``perfectplay solve dice-cards n=5``,
   ``perfectplay solve mastermind --no-store`` and ``perfectplay solve wordle --first
   salet --no-store``, with empty user, numba and result caches (``XDG_CACHE_HOME``,
   ``NUMBA_CACHE_DIR`` and ``PERFECTPLAY_STORE`` point into a new folder);
3. warm short questions, alternating with the yardsticks, median of ``--repeat`` runs:
   ``perfectplay solve mastermind --no-store --quiet --json`` beside fancidev's
   ``mmstrat -s optimal`` (``--vs``; built outside the project), and ``perfectplay solve
   dice-cards n=5 --quiet --json`` beside the seed's own value iteration
   (``benchmarks/markov.py --case seed-dice-5``, which imports nothing of perfectplay);
4. what ``pip uninstall`` leaves in site-packages;
5. with ``--suite``: a fresh clone, the README's test command (``pip install '.[test]' &&
   ruff check && ruff format --check && pytest``) in another new venv.

The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST = [
    ["solve", "dice-cards", "n=5"],
    ["solve", "mastermind", "--no-store"],
    ["solve", "wordle", "--first", "salet", "--no-store"],
]


def timed(command: list[str], env: dict | None = None, cwd: Path | None = None) -> float:
    """Seconds `command` takes as a whole process; SystemExit if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return seconds


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where / "bin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vs", metavar="MMSTRAT", help="fancidev's mmstrat binary")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--suite",
        action="store_true",
        help="also time the README's test command from a fresh clone",
    )
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pp-startup-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"# {load()}; {os.cpu_count()} cores; in {work}", flush=True)

    bin_ = venv(work / "venv")
    seconds = timed([str(bin_ / "pip"), "install", "-q", str(ROOT)])
    print(f"pip install .                                   {seconds:7.1f} s", flush=True)

    caches = work / "caches"
    env = dict(
        os.environ,
        XDG_CACHE_HOME=str(caches / "xdg"),
        NUMBA_CACHE_DIR=str(caches / "numba"),
        PERFECTPLAY_STORE=str(caches / "store.sqlite"),
    )
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{bin_}{os.pathsep}{env['PATH']}"
    script = str(bin_ / "perfectplay")
    for command in FIRST:
        first = timed([script, *command], env, cwd=work)
        warm = timed([script, *command], env, cwd=work)
        print(
            f"{'perfectplay ' + ' '.join(command):48s}first {first:6.2f} s   warm {warm:6.2f} s"
            f"   first - warm {first - warm:+.2f} s",
            flush=True,
        )

    pairs = [
        (
            ["solve", "mastermind", "--no-store", "--quiet", "--json"],
            [args.vs, "-s", "optimal", "-S"] if args.vs else None,
            "mmstrat -s optimal -S",
        ),
        (
            ["solve", "dice-cards", "n=5", "--quiet", "--json"],
            [str(bin_ / "python"), str(ROOT / "benchmarks" / "markov.py"), "--case", "seed-dice-5"],
            "the seed's value iteration",
        ),
    ]
    for ours, theirs, name in pairs:
        mine, yard = [], []
        for _ in range(args.repeat):
            mine.append(timed([script, *ours], env, cwd=work))
            if theirs:
                yard.append(timed(theirs, env, cwd=work))
        line = f"{'perfectplay ' + ' '.join(ours):60s}median {statistics.median(mine):6.3f} s"
        if yard:
            ratio = statistics.median(mine) / statistics.median(yard)
            line += f"   {name}: {statistics.median(yard):6.3f} s   ratio {ratio:.2f}"
        print(line, flush=True)

    site = subprocess.run(
        [str(bin_ / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run([str(bin_ / "pip"), "uninstall", "-q", "-y", "perfectplay"], check=True)
    left = [p for p in Path(site).glob("perfectplay*")]
    print(
        f"after pip uninstall, left in site-packages: {[p.name for p in left] or 'nothing'}",
        flush=True,
    )

    if args.suite:
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        suite_bin = venv(work / "suite-venv")
        suite_env = dict(
            os.environ,
            PATH=f"{suite_bin}{os.pathsep}{os.environ['PATH']}",
            XDG_CACHE_HOME=str(caches / "suite-xdg"),
            NUMBA_CACHE_DIR=str(caches / "suite-numba"),
        )
        suite_env.pop("PYTHONPATH", None)
        seconds = timed(
            [
                "bash",
                "-c",
                "pip install -q '.[test]' && ruff check && ruff format --check && "
                "pytest -q -p no:cacheprovider",
            ],
            suite_env,
            cwd=clone,
        )
        print(
            f"fresh clone: pip install '.[test]' && ruff check && ruff format --check && pytest   {seconds:7.1f} s",
            flush=True,
        )
    print(f"# {load()}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
