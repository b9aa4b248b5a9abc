"""Test-session set-up: on a checkout installed without its compiled kernels (an editable
install, another source), they are compiled once, before the tests that run the command
in subprocesses with time limits; a parallel run's controller does it before its
workers start. (Installed with them, the tests load them as they go.)"""

import os
import subprocess
import sys
from pathlib import Path

import perfectplay
import pytest
from perfectplay.precompile import GROUPS

# Commands the tests start (``python -m perfectplay``, servers, cluster workers) import the
# same copy of the package as the tests do. (Its kernels are those ``pip install .`` of the
# same source compiled, found by the digest of the source: ``perfectplay.kernel_cache``.)
_SOURCE = str(Path(perfectplay.__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_SOURCE, os.environ.get("PYTHONPATH")) if p)


def pytest_configure(config):
    """The controller of a parallel run (pytest-xdist) warms every group of kernels of
    ``perfectplay.precompile`` at once, one process each, before its workers start: the
    workers then load them (compiled at install, or here on a checkout installed without
    them) and rarely compile one."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if not config.getoption("numprocesses") or _installed_with_kernels():
        return
    warming = [
        subprocess.Popen(
            [sys.executable, "-m", "perfectplay.precompile", "--group", group], cwd=_SOURCE
        )
        for group in GROUPS
    ]
    if any(p.wait() != 0 for p in warming):
        raise pytest.UsageError(
            "compiling the kernels failed (python -m perfectplay.precompile --group NAME shows why)"
        )


def _installed_with_kernels() -> bool:
    """Whether ``pip install`` compiled the kernels of this very source (its digest): the
    tests then load them as they go, and warming them first would only delay the start."""
    from perfectplay.kernel_cache import shipped_folders, source_digest

    return bool(shipped_folders(source_digest()))


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels(request):
    """In a run in one process, the groups of ``perfectplay.precompile``: the kernels are
    loaded (or compiled) here (a parallel run's controller did it already)."""
    if hasattr(request.config, "workerinput") or _installed_with_kernels():
        return
    from perfectplay.precompile import warm

    for group in GROUPS:
        warm(group)


@pytest.fixture(autouse=True)
def own_store(tmp_path_factory, monkeypatch):
    """Every test's default result store is its own file (never the user's cache: CI runs
    as root), so that no test answers from another's results; outside the test's
    tmp_path, which some tests expect to stay empty."""
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    monkeypatch.setenv("PERFECTPLAY_STORE", str(path))


@pytest.fixture(autouse=True)
def own_strategies(tmp_path_factory, monkeypatch):
    """Every test's kept strategies (``perfectplay.kept``) are its own, so that no test
    plays a strategy another solved (nor the user's)."""
    monkeypatch.setenv("PERFECTPLAY_STRATEGIES", str(tmp_path_factory.mktemp("strategies")))
