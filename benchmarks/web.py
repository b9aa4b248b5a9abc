"""What a person meets on the web page: `perfectplay serve`'s warm-up, every board at the
start and a later turn, five boards asked at once, the first usable board of each staged
game (Yahtzee, Yatzy: its solve awaited), 20 visitors at once on each of several boards
(their median, 95th percentile and slowest page), and the stop on SIGTERM, each timed
as whole HTTP requests against the real server process. Then the same server is started
again: the staged games' boards, kept, are usable at once (``perfectplay.kept``).

Usage: ``python benchmarks/web.py [--port P] [--cold]`` (``--cold``: the kept
strategies in a fresh folder, so that the first server solves them; by default the
user's cache, which may hold them already)

Each request prints its status, its time and what the board suggests (the guess and
where it comes from: "optimal" or the heuristic's name), or that a Markov board plays
("board") or shows its strategy's solve ("waiting"). The machine's load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

#: Boards at the web page's defaults, at the start, then later turns and larger games.
BOARDS = [
    "/",
    "/play/wordle",
    "/play/wordle?mode=hard",
    "/play/mastermind",
    "/play/permutation",
    "/play/bulls-and-cows",
    "/play/item-matching",
    "/play/dice-cards",
    "/play/tricky-trios",
    "/play/wordle?secret=yours&moves=salet:bbbyg",
    "/play/dice-cards?n=8",
]
#: Staged games: the time to a board with its choices (a first solve, then kept).
STAGED = ["/play/yahtzee", "/play/yatzy"]
#: Visitors asking at once, on each of `CROWDED` in turn (each a game of its own seed).
VISITORS = 20
CROWDED = [
    "/play/yahtzee",
    "/play/yatzy",
    "/play/dice-cards",
    "/play/tricky-trios",
    "/play/mastermind",
    "/play/wordle",
]
#: Asked at once: positions no earlier request advised, and two Markov boards.
AT_ONCE = [
    "/play/wordle?secret=yours&moves=raise:bbbbb",
    "/play/wordle?secret=yours&mode=hard&moves=crane:bbbbb",
    "/play/bulls-and-cows?secret=yours&moves=0123:0B1C",
    "/play/dice-cards?n=6",
    "/play/tricky-trios?n=7",
]


def get(base: str, path: str) -> tuple[int, float, str]:
    """Status, seconds and body of one request."""
    t0 = time.perf_counter()
    with urllib.request.urlopen(base + path, timeout=120) as response:
        body = response.read().decode()
        return response.status, time.perf_counter() - t0, body


def what(body: str) -> str:
    """What the page shows: the suggestion and its source, a board, or a wait."""
    if 'id="suggestion">' in body:
        guess = body.split('id="suggestion">')[1].split("<")[0]
        source = body.split("</strong> (")[1].split(")")[0]
        return f"{guess} ({source})"
    if "optimal play needs" in body:
        return "board"
    if 'id="waiting"' in body:
        return "waiting"
    if 'id="advice"' in body:
        return "no suggestion"
    return ""


def usable(base: str, path: str, limit: float = 600.0) -> float:
    """Seconds until the board at `path` (a fixed seed) shows its choices."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        _, _, body = get(base, path + "?seed=1")
        if 'id="choices"' in body:
            break
        time.sleep(0.2)
    return time.perf_counter() - t0


def crowd(base: str, path: str, visitors: int = VISITORS) -> list[float]:
    """The seconds of each of `visitors` pages of `path` asked at once (seeds 1, 2, ...),
    sorted."""
    times: list[float] = []

    def visit(seed: int) -> None:
        times.append(get(base, f"{path}?seed={seed}")[1])

    threads = [threading.Thread(target=visit, args=(i + 1,)) for i in range(visitors)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(times)


def serve(port: int, env: dict) -> subprocess.Popen:
    """`perfectplay serve` on `port`, once it listens (its log printed)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    for line in server.stdout:
        print(line.rstrip())
        if "serving on" in line:
            break
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.05)


def stop(server: subprocess.Popen) -> None:
    """SIGTERM, timed."""
    t2 = time.perf_counter()
    server.send_signal(signal.SIGTERM)
    server.wait(60)
    print(f"SIGTERM: the server ended in {time.perf_counter() - t2:.2f} s")


def staged_and_crowded(base: str) -> None:
    """The staged games' first usable boards, then `VISITORS` at once on each board."""
    for path in STAGED:
        print(f"usable board after {usable(base, path):6.2f} s  {path}")
    for path in CROWDED:
        times = crowd(base, path)
        p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]
        print(
            f"{VISITORS} at once on {path}: median {statistics.median(times):.2f} s, "
            f"p95 {p95:.2f} s, slowest {times[-1]:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8811)
    parser.add_argument("--cold", action="store_true", help="kept strategies in a fresh folder")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    base = f"http://127.0.0.1:{args.port}"
    env = dict(os.environ)
    if args.cold:
        env["PERFECTPLAY_STRATEGIES"] = tempfile.mkdtemp(prefix="perfectplay-kept-")
    t0 = time.perf_counter()
    server = serve(args.port, env)
    try:
        print(f"listening {time.perf_counter() - t0:.1f} s after the command")
        for path in BOARDS:
            status, seconds, body = get(base, path)
            print(f"{status} {seconds:5.2f} s  {path}  {what(body)}")
        answers: dict[str, tuple[int, float]] = {}

        def ask(path: str) -> None:
            status, seconds, _ = get(base, path)
            answers[path] = (status, seconds)

        t1 = time.perf_counter()
        threads = [threading.Thread(target=ask, args=(p,)) for p in AT_ONCE]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"five at once, all answered within {time.perf_counter() - t1:.2f} s:")
        for path in AT_ONCE:
            status, seconds = answers.get(path, (0, float("nan")))
            print(f"  {status} {seconds:5.2f} s  {path}")
        staged_and_crowded(base)
        stop(server)
        print("the server started again:")
        server = serve(args.port, env)
        staged_and_crowded(base)
        stop(server)
    finally:
        if server.poll() is None:
            server.kill()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
