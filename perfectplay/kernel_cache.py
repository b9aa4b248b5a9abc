"""Where numba keeps perfectplay's compiled kernels: one cache per version of the package.

Numba caches a compiled function beside its source file, keyed by that file's content,
its own version, the Python version and the CPU. For a package that is not enough:

* a kernel that calls another module's kernel keeps the old callee after that module
  changes (the key names the caller's file only);
* every fresh install compiles everything again at its first run (about a minute of one
  core for the deduction search), and writes its cache into site-packages, where
  uninstalling leaves it behind.

So perfectplay's kernels are cached under one key for the whole package
(``source_digest``): the content of every source file of the package and the versions of
numba, llvmlite and numpy. Numba's own checks still apply inside that folder (its version
in each index, the Python version in each file name, the CPU's name and features in each
entry's key): code made for anything else is never loaded; the function is compiled
afresh, and ``on_compile`` lets the command line say so.

The folder is the user's (``user_root``; ``NUMBA_CACHE_DIR`` moves it), one per digest, so
every clone and venv of the same source shares it and nothing is written into the
installed package; the folders of other digests unused for ``KEEP_DAYS`` are deleted
(``tidy``). ``pip install`` compiles the kernels that the commands use into the
package itself, ``_kernels/<digest>`` (``perfectplay.precompile``, run by the build
backend); the first use of a module links (or copies) those files into the user's
folder, where numba reads them as its own. Kernels of code outside the package are left
to numba's usual locators.

``install`` puts the locator first in numba's chain of locators in this process, as soon
as numba's caching module is loaded (importing perfectplay does not import numba); the
environment is left alone, so other programs started from this one keep numba's chain.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

from .numba_hooks import when_loaded

#: The package whose kernels are cached here.
PACKAGE = Path(__file__).resolve().parent
#: The folder, inside the installed package, of the kernels compiled at install.
SHIPPED = "_kernels"
#: The libraries whose versions are part of the key (numba's code depends on all three;
#: numpy by its major version, where its types and C interface change).
KEYED_LIBRARIES = ("numba", "llvmlite", "numpy")


def _put_first(caching) -> None:
    chain = caching.CacheImpl._locator_classes
    if PackageLocator not in chain:
        chain.insert(0, PackageLocator)


def install() -> None:
    """Put ``PackageLocator`` first in numba's chain of cache locators, now if numba's
    caching is loaded, else when it is (before any kernel is defined). A chain the user
    names in ``NUMBA_CACHE_LOCATOR_CLASSES`` replaces numba's, ours included."""
    when_loaded("numba.core.caching", _put_first)


def _library_versions() -> str:
    import importlib

    versions = {name: importlib.import_module(name).__version__ for name in KEYED_LIBRARIES}
    versions["numpy"] = versions["numpy"].split(".")[0]
    return ";".join(f"{name}={version}" for name, version in versions.items())


def source_digest(root: Path = PACKAGE, versions: str | None = None) -> str:
    """The key of `root`'s compiled kernels: a SHA-256 of every ``.py`` file under it (its
    path and its bytes) and of the keyed libraries' versions (``versions``, by default
    those imported)."""
    digest = hashlib.sha256((versions if versions is not None else _library_versions()).encode())
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if (
            "__pycache__" in relative.parts
            or relative.parts[0] == SHIPPED
            or any(part.startswith(".") for part in relative.parts)
            or not path.is_file()
        ):
            continue  # (an editor's lock file is a dangling link named .#file.py)
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:32]


@functools.cache
def _digest(root: Path) -> str:
    """``source_digest(root)``, computed once per process."""
    return source_digest(root)


def package_digest() -> str:
    """The digest of the package's sources and libraries (``source_digest``): what decides
    anything the package computes and keeps (its kernels, the strategies of ``kept``)."""
    return _digest(PACKAGE)


def cache_home() -> Path:
    """The user's perfectplay cache: ``$XDG_CACHE_HOME/perfectplay`` (``~/.cache/...``
    when unset; without a home, a folder of this user's in the temporary folder)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = Path.home() / ".cache"
        except RuntimeError:
            import tempfile

            return Path(tempfile.gettempdir()) / f"perfectplay-{os.getuid()}"
    return Path(base) / "perfectplay"


def user_root() -> Path:
    """The user's folder of compiled kernels: under ``NUMBA_CACHE_DIR`` when set, else
    in the user's perfectplay cache (``cache_home``)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen)
    return cache_home() / "kernels"


@functools.cache
def shipped_folders(digest: str, root: Path = PACKAGE) -> tuple[Path, ...]:
    """The folders of kernels compiled at install for `digest`: the package's own, and
    those of the copies installed in site-packages (a source checkout of the same content
    uses those of the installed copy); looked for once per process."""
    import site

    homes = [root] + [
        Path(p) / root.name for p in (*site.getsitepackages(), site.getusersitepackages())
    ]
    found = []
    for home in homes:
        folder = home / SHIPPED / digest
        if folder not in found and any(folder.rglob("*.nbi")):
            found.append(folder)
    return tuple(found)


#: Days a folder of kernels of another digest is kept after its last use.
KEEP_DAYS = 30
_tidied: set[Path] = set()


def tidy(home: Path, keep: Path, days: float = KEEP_DAYS) -> list[Path]:
    """Mark `keep` (a digest's folder in `home`) used now, and delete the folders of the
    same package's other digests not used for `days` (every edit of the source and every
    upgrade makes a new one); once per process. The folders deleted."""
    import time

    if keep in _tidied:
        return []
    _tidied.add(keep)
    os.utime(keep)
    package = keep.name.rsplit("-", 1)[0]
    cutoff = time.time() - days * 86400
    gone = []
    for folder in home.glob(f"{package}-*"):
        try:
            if folder != keep and folder.is_dir() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                gone.append(folder)
        except OSError:  # another process deleted it meanwhile
            continue
    return gone


_seeded: set[Path] = set()
#: The cache folders found writable in this process.
_writable: set[str] = set()


@functools.cache
def _folder_in(py_file: str, root: Path) -> Path | None:
    """The folder of `py_file` relative to `root`, or None when it lies outside (asked
    once per source file and process)."""
    try:
        return Path(py_file).resolve().relative_to(root).parent
    except ValueError:
        return None


def _seed(cache: Path, shipped: list[Path]) -> None:
    """Link (or copy) into `cache` the shipped files of its folder that it lacks, once per
    process; numba then reads them as its own. A file already there is kept: it is of the
    same digest, and may hold more specialisations."""
    if cache in _seeded:
        return
    for folder in shipped:
        if not folder.is_dir():
            continue
        for source in folder.iterdir():
            target = cache / source.name
            if target.exists():
                continue
            try:
                os.link(source, target)
            except FileExistsError:
                continue
            except OSError:  # another file system, or no links: a copy, then a rename
                partial = target.with_name(f"{target.name}.{os.getpid()}.part")
                try:
                    shutil.copyfile(source, partial)
                    os.replace(partial, target)
                finally:
                    partial.unlink(missing_ok=True)
    _seeded.add(cache)


class PackageLocator:
    """Numba's cache locator for the kernels of one package (``root``): the user's folder
    of the package's digest, seeded from the kernels compiled at install. (Numba calls
    the methods of its own ``_CacheLocator``; this class has them without importing numba,
    so that ``install`` costs nothing.)"""

    #: The package whose kernels this locator takes (a test points a subclass elsewhere).
    root: Path = PACKAGE

    def __init__(self, py_func, py_file: str, relative: Path) -> None:
        self._py_file = py_file  # numba names it in the warning of a kernel it cannot cache
        self._lineno = py_func.__code__.co_firstlineno
        digest = _digest(self.root)
        self._stamp = digest
        self._home = user_root() / f"{self.root.name}-{digest}"
        self._cache_path = str(self._home / relative)
        self._shipped = [folder / relative for folder in shipped_folders(digest, self.root)]

    def get_cache_path(self) -> str:
        return self._cache_path

    def ensure_cache_path(self) -> None:
        """Make the folder; OSError if it cannot be written. Checked once per folder and
        process (a module defines tens of kernels, each asking at its definition)."""
        import tempfile

        if self._cache_path in _writable:
            return
        os.makedirs(self._cache_path, exist_ok=True)
        tempfile.TemporaryFile(dir=self._cache_path).close()
        _writable.add(self._cache_path)

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file: str):
        """A locator for `py_func` if its file is in the package and the user's folder is
        writable; else None (numba's next locator)."""
        relative = _folder_in(py_file, cls.root)
        if relative is None:
            return None
        try:
            self = cls(py_func, py_file, relative)
            self.ensure_cache_path()
            _seed(Path(self._cache_path), self._shipped)
            tidy(self._home.parent, self._home)
        except (OSError, RuntimeError, AttributeError):  # (no home, an old virtualenv's site)
            return None
        return self


def ship(cache: Path, target: Path, root: Path = PACKAGE) -> Path:
    """Copy the kernels of `root` compiled into the user folder `cache` (a scratch
    ``NUMBA_CACHE_DIR``) to ``target/<digest>``, as the build ships them; that folder."""
    digest = source_digest(root)
    compiled = cache / f"{root.name}-{digest}"
    if not compiled.is_dir():
        raise RuntimeError(f"no kernels were compiled under {compiled}")
    destination = target / digest
    shutil.rmtree(destination, ignore_errors=True)
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(compiled, destination)
    return destination


#: Where ``on_compile``'s listener sends its one message (None: nowhere).
_note: list = [None]


def on_compile(note) -> None:
    """Call ``note(message)`` once, when numba first compiles a kernel of this package in
    this process (a cache miss: a first run, another CPU, a changed source); a later call
    names another `note` (one listener per process)."""
    from numba.core import event

    first = _note[0] is None
    _note[0] = note
    if not first:
        return

    class _FirstCompile(event.Listener):
        done = False

        def on_start(self, ev) -> None:
            if self.done:
                return
            function = getattr(ev.data["dispatcher"], "py_func", None)
            module = getattr(function, "__module__", "") or ""
            if module.split(".")[0] == PACKAGE.name:
                self.done = True
                _note[0]("compiling the kernels for this machine (once; later runs load them)")

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", _FirstCompile())
