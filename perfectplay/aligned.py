"""Arrays whose data starts on a cache line, for the compiled kernels' working rows.

numpy places a large array 16 bytes past a page boundary (the allocator's header), so a
row of 64 lanes read as 64-byte vectors straddles two cache lines on every read: the
staged solver's turn kernel then took half as long again as with its rows aligned, the
same solve varying by that much from one run to the next as the allocation happened
to fall (``markov.stages``).
"""

from __future__ import annotations

import math

import numpy as np

#: A cache line, and the widest vector a kernel reads at once (64 bytes: AVX-512).
LINE = 64


def aligned_empty(shape: int | tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """An uninitialised C-ordered array of `shape` whose first element starts on a LINE-
    byte boundary (a view into a buffer LINE bytes larger).

    >>> aligned_empty((3, 64)).ctypes.data % LINE
    0
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    raw = np.empty(size + LINE, dtype=np.uint8)
    skip = -raw.ctypes.data % LINE
    return raw[skip : skip + size].view(dtype).reshape(shape)


def aligned_zeros(shape: int | tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """``aligned_empty``, filled with zeros."""
    out = aligned_empty(shape, dtype)
    out.fill(0)
    return out
