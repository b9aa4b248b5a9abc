"""``allocator.keep_freed_memory``: with Dask's setting for its workers
(``MALLOC_TRIM_THRESHOLD_=65536``), every array of 1 MiB allocated and freed again is a
fresh mapping whose pages fault in one by one; once the thresholds are set, freed memory
is reused."""

import os
import platform
import subprocess
import sys

import pytest

PROGRAM = """
import resource
import numpy as np
from perfectplay.allocator import keep_freed_memory

def faults():
    start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(200):
        np.ones(1 << 17).sum()  # 1 MiB, written, freed
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start

before = faults()
kept = keep_freed_memory()
print(before, faults(), kept)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_freed_memory_is_reused_under_dasks_trim_setting():
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    before, after, kept = int(out[0]), int(out[1]), out[2] == "True"
    assert kept
    pages = (1 << 20) // os.sysconf("SC_PAGE_SIZE")  # a MiB's pages, faulted in every time
    assert before >= 200 * pages * 3 // 4
    assert after < before / 20
