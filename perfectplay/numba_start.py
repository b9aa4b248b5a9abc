"""Start numba for kernels loaded from its disk cache: what loading them needs, not the
whole CPU target, and without SciPy's linalg.

Before numba even looks in its disk cache for a kernel, it "refreshes" its CPU target
(``BaseContext.refresh``): it imports and installs every typing and lowering
implementation it has, some sixty modules, about 0.2 s of a small solve's whole process
(docs/measurements.md). Code loaded from the cache is already lowered and needs none of
them. What it does need is made at the first load here (``_start_runtime``):

- numba's runtime (NRT): its C functions named to LLVM's linker and its atomic helpers
  compiled (``rtsys.initialize``, the one call of the refresh that is not an import);
- the hash secrets' symbols, which ``numba.cpython.hashing`` names to the linker at its
  import (code that hashes strings links against them);
- the C helpers and Python's exception types, named when the target's context is made
  (before any load; not part of the refresh);
- the thread pool of parallel kernels, which the cached entry itself starts (numba's
  ``reload_init``), and the modules named in a kernel's environment, which unpickling
  the entry imports.

And ``typeof`` must know every argument's type before a kernel is first called: the one
registration among the refresh's modules that a perfectplay argument needs is the C
callback's (``numba.experimental.function_type``), imported at the first load, before
any C callback exists (a cached one is loaded, an uncached one compiled).

Compiling still refreshes the whole target first (numba's own pipeline does, at every
compile), so a kernel missing from the cache compiles as before, numba's extensions
(other packages' implementations, which the refresh loads through entry points) included.

One of the implementations, ``numba.np.arraymath``, probes for BLAS when it is imported
(by the refresh, or by unpickling a cached entry that names it), by importing
``scipy.linalg.cython_blas``: that loads all of ``scipy.linalg`` and, through SciPy's
array-API layer, every submodule of numpy down to ``numpy.f2py`` (0.15 s). No kernel of
perfectplay uses BLAS or LAPACK (``markov.dense`` solves the policy blocks), so while a
kernel is loaded that import fails.

Why this is safe (``tests/test_numba_start.py`` checks each point on the numba
installed, which ``pyproject.toml`` pins exactly):

- ``Cache.load_overload`` is numba's one way from a dispatcher to its disk cache; the
  replacement is numba's own body with the refresh replaced by ``_start_runtime``.
- The probe sets ``numba.np.arraymath._HAVE_BLAS``, read in one place only: whether
  ``np.correlate`` and ``np.convolve`` of floats compute their inner products through
  ``np.dot`` or with numba's own loop. In such a process they use the loop: the same
  values up to rounding.
- ``np.dot``, ``@`` and ``np.linalg`` do not read it: each imports SciPy's BLAS or LAPACK
  itself when a function using it is compiled or first called, so they work as before
  and SciPy is loaded then, if ever.
- The import fails through a ``None`` entry in ``sys.modules`` (the import system's
  documented way to stop an import; no SciPy module is touched), present only while a
  kernel is loaded, and removed after it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from .numba_hooks import when_loaded

#: The module ``numba.np.arraymath`` imports, at its own import, to learn whether BLAS is
#: installed.
PROBE = "scipy.linalg.cython_blas"

_started_runtime = False


def install() -> None:
    """Load cached kernels so in this process: now if numba's caching is loaded, else as
    soon as it is (importing perfectplay does not import numba)."""
    when_loaded("numba.core.caching", _replace_load)


#: numba's own ``Cache.load_overload``, which ``_load_overload`` replaces (kept for the
#: tests, which check that the two differ only in the refresh).
numba_load_overload = None


def _replace_load(caching) -> None:
    global numba_load_overload
    if caching.Cache.load_overload is not _load_overload:
        numba_load_overload = caching.Cache.load_overload
        caching.Cache.load_overload = _load_overload


def _load_overload(self, sig, target_context):
    """numba's ``Cache.load_overload`` with the target's refresh replaced by
    ``_start_runtime`` and the BLAS probe failing."""
    _start_runtime(target_context)
    with _without_blas_probe(), self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


def _start_runtime(target_context) -> None:
    """What a kernel loaded from the cache links against (the module's docstring)."""
    global _started_runtime
    if _started_runtime:
        return
    from numba.core.runtime import rtsys

    import numba.cpython.hashing  # noqa: F401  (the hash secrets' symbols)
    import numba.experimental.function_type  # noqa: F401  (typeof of C callbacks)

    rtsys.initialize(target_context)
    _started_runtime = True


@contextlib.contextmanager
def _without_blas_probe() -> Iterator[None]:
    """The BLAS probe fails while this holds, unless SciPy's linalg or numba's arraymath
    is loaded already (then there is nothing to keep out, or nothing left to probe)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        yield
        return
    sys.modules[PROBE] = None
    try:
        yield
    finally:
        if PROBE in sys.modules and sys.modules[PROBE] is None:
            del sys.modules[PROBE]
