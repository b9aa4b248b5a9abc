"""What a person meets on the web page: `perfectplay serve`'s warm-up, every board at the
start and a later turn, five boards asked at once, and the stop on SIGTERM, each timed as
whole HTTP requests against the real server process.

Usage: ``python benchmarks/web.py [--port P]``

Each request prints its status, its time and what the board suggests (the guess and
where it comes from: "optimal" or the heuristic's name), or that a Markov board plays
("board") or shows its strategy's solve ("waiting"). The machine's load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8811)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    base = f"http://127.0.0.1:{args.port}"
    t0 = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--port", str(args.port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for line in server.stdout:
            print(line.rstrip())
            if "serving on" in line:
                break
        while True:
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
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
        t2 = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        print(f"SIGTERM: the server ended in {time.perf_counter() - t2:.2f} s")
    finally:
        if server.poll() is None:
            server.kill()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
