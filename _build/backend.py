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

The compile starts early where the frontend allows it: with the metadata, while pip fetches
the dependencies (``early_compile``); ``build_wheel`` takes its kernels if they are the
built package's (the same digest of its sources), and otherwise, or for a frontend that
builds without asking for the metadata first, compiles as before.
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

import early_compile

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


#: The folder, inside pip's metadata folder, of the compile started with the metadata.
_EARLY = "perfectplay-kernels"
#: The kernels ``build_wheel`` found compiled early for this build (None: compile them).
_early_kernels: Path | None = None


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """setuptools' metadata, with the kernels' compile started beside it
    (``early_compile``)."""
    if _precompiling():
        early_compile.start(Path(metadata_directory) / _EARLY)
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' wheel, with the kernels compiled early if there are any."""
    global _early_kernels
    if metadata_directory is not None and _precompiling():  # (the .dist-info folder in it)
        _early_kernels = early_compile.wait_for(Path(metadata_directory).parent / _EARLY)
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


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
        kernels = built / "perfectplay" / "_kernels"
        if _early_kernels is not None and _take_early(_early_kernels, built, kernels):
            return
        command, env = early_compile.compile_command(built, kernels)
        done = subprocess.run(command, env=env, cwd=built)
        if done.returncode != 0:
            raise SystemExit("perfectplay: compiling the kernels failed (set "
                             "PERFECTPLAY_PRECOMPILE=0 to install without them)")


def _take_early(early: Path, built: Path, kernels: Path) -> bool:
    """Copy the kernels compiled early into `kernels` if they are for the built package
    (the digest of its sources, computed by the package itself); whether they were."""
    _, env = early_compile.compile_command(built, kernels)  # (the package found in `built`)
    digest = subprocess.run(
        [sys.executable, "-c", "from perfectplay.kernel_cache import source_digest as d; "
         "print(d())"], env=env, cwd=built, capture_output=True, text=True).stdout.strip()
    if not digest or not (early / digest).is_dir():
        return False
    shutil.copytree(early / digest, kernels / digest, dirs_exist_ok=True)
    return True
