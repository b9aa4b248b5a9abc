"""The kernels' compile, and its early start: begun while pip fetches the dependencies.

pip asks a build backend for the package's metadata first, then spends 20 s or so
resolving and fetching the dependencies (one core busy) before it asks for the wheel. The
backend's metadata hook starts the compile from the source tree (``start``) into a folder
inside pip's metadata folder, which pip deletes afterwards; its wheel hook takes the
kernels once the compile has ended well (``wait_for``). The compile runs under a watcher,
this file run as a script (``watch``), which records how it ended and stops it, its whole
process group, when the frontend that asked for it ends first or on Ctrl-C, so nothing
keeps compiling after pip stops. (No setuptools here: the tests run it in any
environment.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_PROJECT = Path(__file__).resolve().parent.parent
#: The status the watcher leaves when it stopped the compile (the frontend ended first).
STOPPED = "stopped"


def compile_command(source: Path, target: Path) -> tuple[list[str], dict[str, str]]:
    """The command that compiles the package found in the folder `source` into `target`,
    and its environment: `source` before pip's entries (its isolated build environment is
    found through them), no bytecode written, and none of the user's numba settings
    (optimisation level, bounds checks, CPU name), which numba's keys do not name."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    path = os.pathsep.join(p for p in (str(source), os.environ.get("PYTHONPATH")) if p)
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=path)
    return [sys.executable, "-m", "perfectplay.precompile", str(target)], env


def start(folder: Path) -> None:
    """Start compiling the source tree's package into ``folder/kernels`` under a watcher
    that stops it if this process's parent (the frontend) ends first."""
    folder.mkdir()
    with open(folder / "log", "wb") as log:
        watcher = subprocess.Popen(
            [sys.executable, __file__, str(folder), str(os.getppid())],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=folder,
        )
    (folder / "watcher").write_text(str(watcher.pid))


def wait_for(folder: Path) -> Path | None:
    """The kernels the compile started in `folder` left, once it has ended (None: none
    was started, or it failed: the build then compiles, and says why if it fails again).
    SystemExit if the watcher stopped it: the frontend has gone, and so should the build."""
    status, watcher = folder / "status", folder / "watcher"
    if not watcher.exists():
        return None
    pid = int(watcher.read_text())
    while not status.exists() and _alive(pid):
        time.sleep(0.1)
    ended = status.read_text() if status.exists() else None
    if ended == STOPPED:  # (a build left running after pip was killed compiles nothing)
        raise SystemExit("perfectplay: the install was stopped while compiling the kernels")
    return folder / "kernels" if ended == "0" else None


def watch(folder: Path, frontend: int) -> int:
    """Compile the source tree's package into ``folder/kernels`` and write the exit status
    to ``folder/status``; stop the compile (its whole process group), with the status
    ``STOPPED``, if the `frontend` process ends first or this watcher is interrupted."""
    command, env = compile_command(_PROJECT, folder / "kernels")
    run = subprocess.Popen(command, env=env, cwd=folder, start_new_session=True)
    try:
        while run.poll() is None and _alive(frontend):
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    if run.poll() is None:  # the frontend ended first, or Ctrl-C
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
        _write_status(folder, STOPPED)
        return 1
    _write_status(folder, str(run.returncode))
    return run.returncode


def _write_status(folder: Path, status: str) -> None:
    (folder / "status.tmp").write_text(status)
    os.replace(folder / "status.tmp", folder / "status")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


if __name__ == "__main__":
    sys.exit(watch(Path(sys.argv[1]), int(sys.argv[2])))
