"""Fresh arrays paged in on a background thread while a compiled pass writes them.

An array from ``np.empty`` is only address space: each page is backed by the kernel the
first time it is written, a fault that stalls the writer. The exploration's second pass
(``compiled.fill``) writes gigabytes front to back, so most of its time can be such
stalls, most of all on a virtual machine whose host backs a page when it is first
touched (docs/measurements.md). A helper thread asks the kernel to back the pages ahead of the writer
(``madvise(MADV_POPULATE_WRITE)``, Linux 5.14 and later: it faults pages in as a write
would, without changing their contents, so it is safe beside the writer), each array
in step with the others as the pass writes them all together; the pass (compiled
without the GIL) meanwhile computes.

Where the call is not available (another system, an older kernel) nothing is done and
the writer faults its pages itself, as before.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence

import numpy as np

#: ``madvise``'s advice to fault pages in writable (linux/mman.h).
MADV_POPULATE_WRITE = 23
#: Steps in which each array is paged in (all arrays advance together, a step apart).
STEPS = 128
#: Below this many bytes in all, the thread is not worth starting.
MIN_BYTES = 64 << 20


def _madvise() -> Callable | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.madvise
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    call.restype = ctypes.c_int
    return call


def _page_in(
    arrays: Sequence[np.ndarray], madvise: Callable, page: int, done: threading.Event | None = None
) -> None:
    for k in range(STEPS):
        if done is not None and done.is_set():
            return  # the writer has finished (or stopped early): the rest is not needed
        for a in arrays:
            base, size = a.ctypes.data, a.nbytes
            start = (base + size * k // STEPS) // page * page
            end = base + size * (k + 1) // STEPS
            if end > start and madvise(start, end - start, MADV_POPULATE_WRITE) != 0:
                return  # not supported here: the writer faults its own pages


def writing(arrays: Sequence[np.ndarray], write: Callable[[], object]) -> object:
    """``write()`` (a compiled pass that releases the GIL and writes `arrays`, fresh from
    ``np.empty`` or ``np.zeros``, front to back, all at once), with their pages faulted
    in ahead of it on a helper thread, which stops when `write` returns. Returns what
    `write` returns."""
    madvise = _madvise()
    if madvise is None or sum(a.nbytes for a in arrays) < MIN_BYTES:
        return write()
    import mmap

    done = threading.Event()
    helper = threading.Thread(
        target=_page_in, args=(arrays, madvise, mmap.PAGESIZE, done), daemon=True
    )
    helper.start()
    try:
        return write()
    finally:
        done.set()
        helper.join()
