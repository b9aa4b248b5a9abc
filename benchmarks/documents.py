"""Reading a document is linear in its size: the time ``read_document`` takes to refuse
a string left open and full of escaped quotes (``"`` then N times ``\\"``), the case that
was quadratic (40,000 escapes, 80 KB: a minute), and an array of N small objects, for
N growing tenfold.

Usage: ``python benchmarks/documents.py [--largest N]`` (default 400,000). Each line
prints N, the file's size, the seconds and the seconds per megabyte: linear reading
keeps the last column about constant (measured 2026-11-28, the machine of the work:
40,000 escapes in 0.002 s, 400,000 in 0.022 s).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from perfectplay.errors import PerfectplayError
from perfectplay.solution import read_document

CASES = {
    "string left open": lambda n: '"' + '\\"' * n,
    "array of objects": lambda n: "[" + ",".join(['{"a": [1, "b\\""]}'] * n) + "]",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--largest", type=int, default=400_000)
    largest = parser.parse_args().largest
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "doc.json"
        for name, text_of in CASES.items():
            print(name)
            n = max(1, largest // 1000)
            while n <= largest:
                path.write_text(text_of(n))
                size = path.stat().st_size
                start = time.perf_counter()
                try:
                    read_document(path)
                except PerfectplayError:
                    pass  # the string left open is refused: its time is the point
                seconds = time.perf_counter() - start
                print(
                    f"  {n:>9,}  {size / 1e6:8.2f} MB  {seconds:8.4f} s  {seconds / size * 1e6:.4f} s/MB"
                )
                n *= 10


if __name__ == "__main__":
    main()
