"""``numba_start``: numba's target started without SciPy's linalg, and the claims that make
that safe, checked on the numba installed. Each check runs in a fresh interpreter: the
start is once per process."""

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numba.np.arraymath

_CHECK = textwrap.dedent("""
    import sys
    import numpy as np
    from numba import njit
    from perfectplay.numba_start import start_without_blas_probe
    from perfectplay.markov.dense import solve_in_place

    assert start_without_blas_probe()
    assert not start_without_blas_probe()  # once
    A = np.array([[4.0, -1.0], [-2.0, 5.0]])
    x = np.array([1.0, 2.0])
    assert solve_in_place(A.copy(), x)  # a kernel runs
    assert "scipy.linalg" not in sys.modules
    assert "scipy.linalg.cython_blas" not in sys.modules  # the block is gone
    import numba.np.arraymath
    assert not numba.np.arraymath._HAVE_BLAS

    a = np.arange(1.0, 5.0)
    conv = njit(lambda u, v: np.convolve(u, v))(a, a[:2])
    assert np.allclose(conv, np.convolve(a, a[:2]))  # numba's own loop
    M = A @ A.T + np.eye(2)
    assert np.allclose(njit(lambda u, v: np.dot(u, v))(M, a[:2]), M @ a[:2])
    assert np.allclose(njit(lambda m, v: np.linalg.solve(m, v))(M, a[:2]),
                       np.linalg.solve(M, a[:2]))
    assert "scipy.linalg" in sys.modules  # BLAS and LAPACK loaded when used
    print("ok")
""")


def test_start_without_scipy_then_blas_on_demand():
    done = subprocess.run(
        [sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_probe_read_only_by_the_inner_product():
    """The one reader of the probe's answer is ``_get_inner_prod`` (np.correlate and
    np.convolve): a numba that reads it elsewhere must be looked at again."""
    package = Path(numba.__file__).parent
    users = {
        str(f.relative_to(package)): f.read_text(encoding="utf-8").count("_HAVE_BLAS")
        for f in package.rglob("*.py")
        if "_HAVE_BLAS" in f.read_text(encoding="utf-8")
    }
    assert users == {"np/arraymath.py": 2}  # set, and read once
    reader = inspect.getsource(numba.np.arraymath._get_inner_prod)
    assert "if not _HAVE_BLAS:" in reader
