"""perfectplay's build backend: setuptools', with the numba kernels compiled into the wheel.

A wheel carries ``perfectplay/_kernels/<digest>``: the kernels the commands use, compiled
by ``python -m perfectplay.precompile`` on the machine that builds it (the one ``pip
install .`` runs on), so the first solve after installing loads them instead of compiling
for a minute (``perfectplay/kernel_cache.py`` says how they are found and checked).

Compiling needs the package's own dependencies in the build environment, and numba must be
the very version the package then runs with (numba refuses a cache another version wrote):
so the build requires the dependencies it imports as ``[project].dependencies`` writes them
(read from pyproject.toml), where numba and llvmlite are pinned. ``PERFECTPLAY_PRECOMPILE=0``
builds without the kernels (they are then compiled at the first run, into the user's
cache); an editable install never carries them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook not defined here)
from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
from setuptools.command.build_py import build_py as _build_py

_PROJECT = Path(__file__).resolve().parent.parent


#: The dependencies the compile imports (the others, SciPy and prompt_toolkit, are only
#: installed at run time).
_COMPILE_NEEDS = {"numpy", "numba", "llvmlite", "python-flint", "click", "rich"}


def _dependencies() -> list[str]:
    """The requirements of ``[project].dependencies`` that the compile imports, as written
    there (numba's and llvmlite's exact pins among them)."""
    with open(_PROJECT / "pyproject.toml", "rb") as f:
        wanted = tomllib.load(f)["project"]["dependencies"]
    return [spec for spec in wanted
            if re.split(r"[<>=!~ ;\[]", spec, maxsplit=1)[0] in _COMPILE_NEEDS]


def _precompiling() -> bool:
    return os.environ.get("PERFECTPLAY_PRECOMPILE", "1") != "0"


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    """Setuptools' own requirements and the dependencies the kernels' compile imports."""
    extra = _dependencies() if _precompiling() else []
    return _setuptools.get_requires_for_build_wheel(config_settings) + extra


class BdistWheel(_bdist_wheel):
    """A wheel with compiled kernels is for this Python and platform only (tagged so)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if _precompiling():
            self.root_is_pure = False


class BuildPy(_build_py):
    """setuptools' build_py, then the kernels compiled into the built package."""

    def run(self) -> None:
        built = Path(self.build_lib).resolve()
        # a build folder kept from an earlier build (pip builds in-tree) holds files since
        # deleted and the kernels of other sources: the package is copied afresh
        shutil.rmtree(built / "perfectplay", ignore_errors=True)
        super().run()
        if getattr(self, "editable_mode", False) or not _precompiling():
            return
        # before pip's own entries (its isolated build environment is found through them);
        # no bytecode written into the package, and none of the user's numba settings
        # (optimisation level, bounds checks, CPU name), which numba's keys do not name
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=os.pathsep.join(
            p for p in (str(built), os.environ.get("PYTHONPATH")) if p))
        done = subprocess.run([sys.executable, "-m", "perfectplay.precompile",
                               str(built / "perfectplay" / "_kernels")], env=env, cwd=built)
        if done.returncode != 0:
            raise SystemExit("perfectplay: compiling the kernels failed (set "
                             "PERFECTPLAY_PRECOMPILE=0 to install without them)")
