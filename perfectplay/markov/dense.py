"""A small dense linear solve compiled with the kernels, without BLAS or LAPACK.

``kernels.evaluate_blocks`` solves each strong component of a policy of at most
``solve.MAX_DENSE`` states as one dense system. It used ``np.linalg.solve``, which numba
runs through SciPy's LAPACK, importing ``scipy.linalg``, a large share of a small
solve's whole process. The systems are small
(hundreds of unknowns) and sparse (a policy's row has a few entries, and elimination
fills in little), so Gaussian elimination with partial pivoting, the algorithm of
LAPACK's ``dgesv``, written here unblocked and updating only the pivot row's nonzero
columns, is as fast (docs/measurements.md). With no kernel needing
SciPy, perfectplay keeps it out of the process while numba loads them (``numba_start``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def solve_in_place(A, b):
    """Solve ``A x = b`` for a square float matrix A: A is overwritten by its LU factors
    (zeros of the pivot rows skipped) and b by x. Partial pivoting: each column's pivot is
    its largest entry in magnitude at or below the diagonal. Returns False when a pivot is
    zero (A is singular; b is then partly overwritten)."""
    m = b.shape[0]
    cols = np.empty(m, dtype=np.int64)  # the pivot row's nonzero columns right of the pivot
    for k in range(m):
        p = k
        big = abs(A[k, k])
        for i in range(k + 1, m):
            if abs(A[i, k]) > big:
                big = abs(A[i, k])
                p = i
        if big == 0.0:
            return False
        if p != k:
            for j in range(k, m):
                A[k, j], A[p, j] = A[p, j], A[k, j]
            b[k], b[p] = b[p], b[k]
        nz = 0
        for j in range(k + 1, m):
            if A[k, j] != 0.0:
                cols[nz] = j
                nz += 1
        pivot = A[k, k]
        for i in range(k + 1, m):
            f = A[i, k] / pivot
            if f != 0.0:
                for q in range(nz):
                    A[i, cols[q]] -= f * A[k, cols[q]]
                b[i] -= f * b[k]
    for i in range(m - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, m):
            s -= A[i, j] * b[j]
        b[i] = s / A[i, i]
    return True
