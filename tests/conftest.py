"""Test-session set-up: the compiled kernels are loaded (compiled on a fresh checkout) once,
before the tests that run the command in subprocesses with time limits; a parallel run's
controller compiles them before its workers start."""

import os
import subprocess
import sys
from pathlib import Path

import perfectplay
import pytest

# Commands the tests start (``python -m perfectplay``, servers, cluster workers) import the
# same copy of the package as the tests do: with ``pip install .`` a second copy sits in
# site-packages, and each copy compiles and caches its own numba kernels (minutes).
_SOURCE = str(Path(perfectplay.__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_SOURCE, os.environ.get("PYTHONPATH")) if p)


def pytest_configure(config):
    """The controller of a parallel run (pytest-xdist) compiles the kernels of both engines
    at once, one process each, before its workers start (see ``warm_kernels``)."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if not config.getoption("numprocesses"):
        return
    from .warm_kernels import GAMES

    root = Path(__file__).resolve().parent.parent
    warming = [subprocess.Popen([sys.executable, "-m", "tests.warm_kernels", engine], cwd=root)
               for engine in GAMES]
    if any(p.wait() != 0 for p in warming):
        raise pytest.UsageError("compiling the kernels failed (python -m tests.warm_kernels ENGINE "
                                "shows why)")


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels(request):
    """In a run in one process, the tiny games of ``warm_kernels``: numba compiles (or
    loads) and caches the kernels (a parallel run's controller did it already)."""
    if hasattr(request.config, "workerinput"):
        return
    from .warm_kernels import GAMES, warm

    for engine in GAMES:
        warm(engine)


@pytest.fixture(autouse=True)
def own_store(tmp_path_factory, monkeypatch):
    """Every test's default result store is its own file (never the user's cache: CI runs
    as root), so that no test answers from another's results; outside the test's
    tmp_path, which some tests expect to stay empty."""
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    monkeypatch.setenv("PERFECTPLAY_STORE", str(path))
