"""Start numba's CPU target without the import of SciPy's linalg that its BLAS probe makes.

numba loads its CPU implementations at the first call of any compiled function, a disk
cache hit included (``BaseContext.refresh``). One of them, ``numba.np.arraymath``, probes
for BLAS when it is imported, by importing ``scipy.linalg.cython_blas``: that loads all
of ``scipy.linalg`` and, through SciPy's array-API layer, every submodule of numpy down
to ``numpy.f2py``, a large share of a small solve's whole process
(docs/measurements.md). No kernel of perfectplay uses BLAS or LAPACK (``markov.dense`` solves the
policy blocks), so the command line starts the target with that one import failing.

Why this is safe (``tests/test_numba_start.py`` checks each point on the numba
installed):

- The probe sets ``numba.np.arraymath._HAVE_BLAS``, read in one place only: whether
  ``np.correlate`` and ``np.convolve`` of floats compute their inner products through
  ``np.dot`` or with numba's own loop. In this process they use the loop: the same
  values up to rounding.
- ``np.dot``, ``@`` and ``np.linalg`` do not read it: each imports SciPy's BLAS or LAPACK
  itself when a function using it is compiled or first called, so they work as before
  and SciPy is loaded then, if ever.
- The import fails through a ``None`` entry in ``sys.modules`` (the import system's
  documented way to stop an import; no SciPy module is touched), present only while
  numba's own ``refresh`` runs, and removed after it.
- Nothing is done once numba's target has started or SciPy's linalg is loaded; should a
  later numba probe elsewhere, SciPy is imported as before: slower, never wrong.
"""

from __future__ import annotations

import sys

#: The module ``numba.np.arraymath`` imports, at its own import, to learn whether BLAS is
#: installed.
PROBE = "scipy.linalg.cython_blas"


def start_without_blas_probe() -> bool:
    """Load numba's CPU implementations now, the BLAS probe answered "not installed",
    unless numba's target has started or ``scipy.linalg`` is loaded already. Returns
    whether it did."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return False
    from numba.core.registry import cpu_target

    sys.modules[PROBE] = None
    try:
        cpu_target.target_context.refresh()
    finally:
        if PROBE in sys.modules and sys.modules[PROBE] is None:
            del sys.modules[PROBE]
    return True
