"""``numba_start``: cached kernels loaded without numba's whole CPU target and without
SciPy's linalg, and the claims that make that safe, checked on the numba installed (which
pyproject.toml pins exactly). Process-wide checks run in fresh interpreters."""

import ast
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numba.core.cpu
import numba.np.arraymath

from perfectplay import numba_start

NUMBA = Path(numba.__file__).parent

_LOAD = textwrap.dedent("""
    import sys
    import numpy as np
    import perfectplay
    assert "numba" not in sys.modules  # importing perfectplay does not import numba
    from perfectplay.markov.dense import solve_in_place

    A = np.array([[4.0, -1.0], [-2.0, 5.0]])
    x = np.array([1.0, 2.0])
    assert solve_in_place(A.copy(), x)  # a kernel runs
    assert np.allclose(x, np.linalg.solve(A, [1.0, 2.0]))
    hits = sum(solve_in_place._cache_hits.values())
    refreshed = "numba.np.linalg" in sys.modules  # the refresh imports it
    assert "scipy.linalg" not in sys.modules
    assert "scipy.linalg.cython_blas" not in sys.modules  # the block is gone
    print(hits, refreshed)

    if sys.argv[1:] == ["then-compile"]:
        # compiling refreshes the whole target; BLAS and LAPACK are there when used
        from numba import njit
        a = np.arange(1.0, 5.0)
        assert njit(lambda u, v: np.dot(u, v))(a, a) == 30.0
        assert "numba.np.linalg" in sys.modules and "scipy.linalg" in sys.modules
""")


def _load(*args: str) -> tuple[int, bool]:
    done = subprocess.run(
        [sys.executable, "-c", _LOAD, *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    hits, refreshed = done.stdout.split()
    return int(hits), refreshed == "True"


def test_a_cached_kernel_loads_without_the_refresh_then_compiling_refreshes():
    _load()  # compiles the kernel if no cache holds it yet
    assert _load("then-compile") == (1, False)  # loaded from the cache, not refreshed


def test_the_load_is_numbas_own_but_for_the_refresh():
    """The replaced ``Cache.load_overload`` is numba's own body: the target's refresh, then
    the guarded ``_load_overload``; ours does the same with ``_start_runtime``."""
    import numba.core.caching  # noqa: F401  (loaded: the replacement is in place)

    assert numba_start.numba_load_overload is not None
    theirs = [
        line.strip()
        for line in inspect.getsource(numba_start.numba_load_overload).splitlines()
        if line.strip() and not line.strip().startswith(("#", '"""', "Load and", "using the"))
    ]
    assert theirs == [
        "def load_overload(self, sig, target_context):",
        "target_context.refresh()",
        "with self._guard_against_spurious_io_errors():",
        "return self._load_overload(sig, target_context)",
    ]


def test_the_refresh_is_imports_and_registries_but_the_runtime():
    """Of the CPU target's refresh, loaded code needs the runtime (started by
    ``_start_runtime``): every other statement imports modules, installs their typing
    and lowering registries, or loads numba's extensions (implementations of other
    packages' types, for compiling: perfectplay's arguments are numba's and its own)."""
    source = textwrap.dedent(
        inspect.getsource(numba.core.cpu.CPUContext.load_additional_registries)
    )
    (function,) = ast.parse(source).body
    others = [
        ast.unparse(statement)
        for statement in function.body
        if not isinstance(statement, (ast.Import, ast.ImportFrom))
        and not ast.unparse(statement).startswith("self.install_registry(")
    ]
    assert others == ["rtsys.initialize(self)", "numba.core.entrypoints.init_all()"]


def test_what_loaded_code_links_against_is_named_where_expected():
    """The modules that name symbols to LLVM's linker, and those that teach ``typeof`` a
    type: a numba that adds another must be looked at again (``numba_start``'s
    docstring says where each is handled)."""

    def files_with(text: str) -> set[str]:
        return {
            str(f.relative_to(NUMBA))
            for f in NUMBA.rglob("*.py")
            if "tests" not in f.parts and text in f.read_text(encoding="utf-8")
        }

    assert files_with("ll.add_symbol(") | files_with("llvmbind.add_symbol(") == {
        "core/base.py",  # C helpers, at the context's making
        "core/runtime/nrt.py",  # the runtime: _start_runtime
        "core/externals.py",  # C math, at the context's making
        "cpython/hashing.py",  # the hash secrets: _start_runtime
        "np/ufunc/parallel.py",  # the thread pool: the cached entry's reload_init
    }
    assert files_with("typeof_impl.register(") == {
        "core/typing/typeof.py",  # numba's own, at its import
        "core/typing/builtins.py",  # IndexValue: numba's internals only
        "core/runtime/nrt.py",  # MemInfo: _start_runtime
        "core/withcontexts.py",  # with-contexts: imported with numba
        "experimental/function_type.py",  # C callbacks: _start_runtime
        "experimental/jitclass/boxing.py",  # jitclasses: perfectplay has none
    }


def test_probe_read_only_by_the_inner_product():
    """The one reader of the probe's answer is ``_get_inner_prod`` (np.correlate and
    np.convolve): a numba that reads it elsewhere must be looked at again."""
    users = {
        str(f.relative_to(NUMBA)): f.read_text(encoding="utf-8").count("_HAVE_BLAS")
        for f in NUMBA.rglob("*.py")
        if "_HAVE_BLAS" in f.read_text(encoding="utf-8")
    }
    assert users == {"np/arraymath.py": 2}  # set, and read once
    reader = inspect.getsource(numba.np.arraymath._get_inner_prod)
    assert "if not _HAVE_BLAS:" in reader
