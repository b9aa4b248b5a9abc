"""Keep freed memory for reuse in a process that runs the compiled search (a Dask worker).

The deduction search allocates and frees scratch arrays of a few hundred kB at every
node (a candidate's counts by feedback, for instance). glibc serves them from its heap and
keeps what is freed for the next node, as long as its thresholds are the adaptive
defaults. Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (so that
a worker hands freed memory back to the system at once), which also fixes the size above
which glibc maps memory afresh at 128 kB: each of those arrays then becomes a new mapping
whose pages are faulted in, zeroed, and unmapped again: many times the page faults,
and system time a large share of the run (docs/measurements.md).

``keep_freed_memory`` sets both thresholds in the running process (``mallopt``), where
the environment variable can no longer be changed, so it works however the worker was
started (a local cluster, ``dask worker`` by hand, dask-jobqueue). The setting lasts as
long as the worker process: a worker of a shared cluster keeps up to 64 MiB of freed
memory per arena for reuse afterwards, as glibc does by default without Dask's setting.
"""

from __future__ import annotations

import ctypes
import sys

#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: Allocations up to this size come from the heap (glibc's largest allowed on 64 bits).
MMAP_THRESHOLD = 32 << 20
#: Free memory at the top of the heap is handed back only beyond this (twice the mapping
#: threshold, as glibc's own adaptive setting has it at most).
TRIM_THRESHOLD = 64 << 20


def keep_freed_memory() -> bool:
    """Let glibc keep freed memory for reuse in this process (see the module's
    docstring); returns whether it could (False off Linux or without glibc's
    ``mallopt``)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library this process runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
