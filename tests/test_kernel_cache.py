"""``kernel_cache``: compiled code is loaded only for exactly the source, numba version and
CPU it was made for; anything else compiles afresh, with the same values, and nothing is
ever written into the package.

A tiny package of two modules (a kernel in one calling a kernel of the other) is cached
by the same locator pointed at it; each run is a fresh interpreter that reports which
kernels numba compiled (a cache miss) and the value computed.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from perfectplay import kernel_cache

_OUTER = textwrap.dedent("""
    from numba import njit
    from .inner import step


    @njit(cache=True)
    def run(n):
        total = 0
        for i in range(n):
            total += step(i)
        return total
""")
_INNER = textwrap.dedent("""
    from numba import njit


    @njit(cache=True)
    def step(i):
        return {body}
""")
_LOCATOR = textwrap.dedent("""
    from pathlib import Path
    from perfectplay.kernel_cache import PackageLocator


    class Locator(PackageLocator):
        root = Path(__file__).resolve().parent / "kpkg"
""")
_RUN = textwrap.dedent("""
    import json, sys
    {before}
    from numba.core import event

    compiled = []

    class Seen(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Seen())
    from kpkg.outer import run
    print(json.dumps({{"value": int(run(5)), "compiled": sorted(set(compiled))}}))
""")


def _package(tmp_path: Path, body: str = "i * i") -> Path:
    package = tmp_path / "kpkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "outer.py").write_text(_OUTER)
    (package / "inner.py").write_text(_INNER.format(body=body))
    (tmp_path / "kpkg_locator.py").write_text(_LOCATOR)
    return package


def _numba_chain() -> list[str]:
    from numba.core.caching import CacheImpl

    return [
        f"{c.__module__}.{c.__qualname__}"
        for c in CacheImpl._locator_classes
        if c is not kernel_cache.PackageLocator
    ]


def _run(tmp_path: Path, cache: Path, before: str = "", **env: str) -> dict:
    """The tiny package's run in a fresh interpreter, its locator first in numba's chain."""
    source = str(Path(kernel_cache.__file__).resolve().parent.parent)
    environment = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(cache),
        PYTHONPATH=os.pathsep.join([str(tmp_path), source]),
        NUMBA_CACHE_LOCATOR_CLASSES=",".join(["kpkg_locator.Locator", *_numba_chain()]),
        **env,
    )
    done = subprocess.run(
        [sys.executable, "-c", _RUN.format(before=before)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _ship(tmp_path: Path, package: Path) -> Path:
    """Compile the package into a scratch cache and ship it as the build does."""
    scratch = tmp_path / "scratch"
    first = _run(tmp_path, scratch)
    assert first == {"value": 30, "compiled": ["run", "step"]}
    return kernel_cache.ship(scratch, package / kernel_cache.SHIPPED, package)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _compiled_outside_shipped(package: Path) -> set[str]:
    return {
        name
        for name in _files(package)
        if name.endswith((".nbi", ".nbc")) and not name.startswith(kernel_cache.SHIPPED)
    }


def test_shipped_kernels_load_and_nothing_is_written_into_the_package(tmp_path):
    package = _package(tmp_path)
    shipped = _ship(tmp_path, package)
    before = _files(shipped)
    assert any(name.endswith(".nbi") for name in before)

    user = tmp_path / "user"
    assert _run(tmp_path, user) == {"value": 30, "compiled": []}  # loaded, not compiled
    assert _run(tmp_path, user) == {"value": 30, "compiled": []}
    assert not _compiled_outside_shipped(package)  # no __pycache__ kernels: not when
    assert _files(shipped) == before  # compiling either, nothing added
    index = next(user.rglob("outer.run-*.nbi"))
    twin = shipped / index.relative_to(next(user.iterdir()))
    assert os.path.samefile(index, twin) or index.read_bytes() == twin.read_bytes()


def test_a_changed_source_file_compiles_afresh_even_for_a_caller_in_another_file(tmp_path):
    """numba alone keys a kernel by its own file: ``run`` would keep the old ``step``."""
    package = _package(tmp_path)
    _ship(tmp_path, package)
    (package / "inner.py").write_text(_INNER.format(body="i * i + 1"))
    changed = _run(tmp_path, tmp_path / "user")
    assert changed == {"value": 35, "compiled": ["run", "step"]}
    assert _run(tmp_path, tmp_path / "user") == {"value": 35, "compiled": []}


def test_another_numba_version_compiles_afresh(tmp_path):
    package = _package(tmp_path)
    _ship(tmp_path, package)
    other = "import numba; numba.__version__ = '0.0.0'"  # as if another numba were installed
    assert _run(tmp_path, tmp_path / "user", before=other) == {
        "value": 30,
        "compiled": ["run", "step"],
    }


def test_another_cpu_compiles_afresh(tmp_path):
    package = _package(tmp_path)
    shipped = _ship(tmp_path, package)
    before = _files(shipped)
    assert _run(tmp_path, tmp_path / "user", NUMBA_CPU_NAME="generic") == {
        "value": 30,
        "compiled": ["run", "step"],
    }
    assert _files(shipped) == before


def test_the_digest_covers_every_source_file_and_the_library_versions(tmp_path):
    package = _package(tmp_path)
    digest = kernel_cache.source_digest(package)
    assert kernel_cache.source_digest(package, kernel_cache._library_versions()) == digest
    assert kernel_cache.source_digest(package, "numba=0.0.0") != digest
    (package / "__init__.py").write_text("# changed\n")
    assert kernel_cache.source_digest(package) != digest
    (package / "__init__.py").write_text("")
    assert kernel_cache.source_digest(package) == digest
    (package / kernel_cache.SHIPPED).mkdir()
    (package / kernel_cache.SHIPPED / "x.py").write_text("")  # never the shipped files
    assert kernel_cache.source_digest(package) == digest


def test_the_locator_is_first_in_this_process_only():
    """Numba's chain in this process starts with the package's locator (its own locators
    follow, for every function outside the package); the environment, which programs
    started from this one inherit, is untouched."""
    from numba.core.caching import CacheImpl

    assert CacheImpl._locator_classes[0] is kernel_cache.PackageLocator
    assert CacheImpl._locator_classes.count(kernel_cache.PackageLocator) == 1
    assert "NUMBA_CACHE_LOCATOR_CLASSES" not in os.environ


def test_an_unreadable_source_or_no_home_leaves_the_kernels_to_numba(tmp_path, monkeypatch):
    """A dangling link among the sources (an editor's lock file) is not hashed; with no
    writable folder the locator steps aside (numba's next one takes the kernel)."""
    package = _package(tmp_path)
    digest = kernel_cache.source_digest(package)
    (package / ".#outer.py").symlink_to(tmp_path / "nowhere")
    assert kernel_cache.source_digest(package) == digest

    import types

    function = types.SimpleNamespace(__code__=types.SimpleNamespace(co_firstlineno=3))

    class Locator(kernel_cache.PackageLocator):
        root = package

    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocked / "cache"))  # not a folder
    assert Locator.from_function(function, str(package / "outer.py")) is None
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    found = Locator.from_function(function, str(package / "outer.py"))
    assert found is not None and found._py_file == str(package / "outer.py")
    assert Locator.from_function(function, str(tmp_path / "kpkg_locator.py")) is None


def test_folders_of_other_digests_unused_for_a_month_are_deleted(tmp_path):
    old, recent, other = (
        tmp_path / "perfectplay-old",
        tmp_path / "perfectplay-recent",
        tmp_path / "another-old",
    )
    keep = tmp_path / "perfectplay-now"
    for folder in (old, recent, other, keep):
        (folder / "deduction").mkdir(parents=True)
        (folder / "deduction" / "x.nbi").write_text("")
    month = 31 * 86400
    for folder in (old, other, keep):
        os.utime(folder, (os.stat(folder).st_atime - month, os.stat(folder).st_mtime - month))
    assert kernel_cache.tidy(tmp_path, keep) == [old]
    assert not old.exists() and recent.exists() and other.exists() and keep.exists()
    assert os.stat(keep).st_mtime > os.stat(other).st_mtime + month / 2  # marked used
    assert kernel_cache.tidy(tmp_path, keep) == []  # once per process


def test_every_game_has_one_type_of_search_state():
    """The search compiles once for every game (a field typed apart, a read-only or a
    wider array, would compile the whole search again: about a minute)."""
    from perfectplay import load_game
    from perfectplay.deduction.feedback import build_table
    from perfectplay.deduction.search import Search

    specs = [
        "mastermind(pegs=2,colors=3)",
        "permutation(n=4)",
        "bulls-and-cows(digits=2,symbols=4)",
        "item-matching(slots=2,items=3,turns=2)",
        "item-matching(slots=6,items=2,turns=2)",
    ]
    types_ = {str(numba.typeof(Search(build_table(load_game(spec))).core)) for spec in specs}
    assert len(types_) == 1


def test_a_cache_miss_is_announced_at_once(tmp_path):
    """The command says it is compiling when it starts to (killed then: no need to wait)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_CPU_NAME="generic")
    child = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "solve", "dice-cards", "n=2"],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    lines = []
    try:
        for line in child.stderr:  # until the note (or the end: a failure)
            lines.append(line)
            if "compiling the kernels" in line:
                break
    finally:
        child.kill()
        child.wait()
    assert "compiling the kernels for this machine" in lines[-1], lines
    warm = subprocess.run(
        [sys.executable, "-m", "perfectplay", "solve", "dice-cards", "n=2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert warm.returncode == 0 and "compiling" not in warm.stderr  # loaded: nothing said


def test_the_installed_kernels_serve_this_source_without_compiling(tmp_path):
    """After ``pip install .`` of this source, a solve of each engine compiles nothing."""
    digest = kernel_cache.source_digest()
    if not kernel_cache.shipped_folders(digest):  # (CI installs it: the README's command)
        pytest.skip("this source is not installed with its kernels (pip install . does it)")
    script = (
        _RUN.split("from kpkg")[0]
        + textwrap.dedent("""
        from perfectplay.cli import cli
        for args in (["mastermind", "pegs=2", "colors=3", "--no-store"], ["dice-cards", "n=2"]):
            try:
                cli(["solve", *args, "--quiet"])
            except SystemExit as done:
                assert done.code in (0, None)
        print(json.dumps(sorted(set(compiled))))
    """)
    ).format(before="")
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []
    shutil.rmtree(tmp_path, ignore_errors=True)
