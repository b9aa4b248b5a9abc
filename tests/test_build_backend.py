"""The build backend's early compile (``_build/early_compile.py``): started with the metadata,
taken by the wheel only once it has ended well, and stopped when the frontend that asked
for it ends first. The compile itself is replaced by a stand-in command here (the real one
takes a minute; a fresh clone's install runs it)."""

import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parent.parent / "_build" / "early_compile.py"


@pytest.fixture(scope="module")
def early():
    spec = importlib.util.spec_from_file_location("early_compile", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stand_in(early, monkeypatch, script: str) -> None:
    """The compile replaced by `script` run by Python (it gets the target folder)."""
    monkeypatch.setattr(
        early,
        "compile_command",
        lambda source, target: ([sys.executable, "-c", script, str(target)], dict(os.environ)),
    )


def test_kernels_are_taken_only_from_a_compile_that_ended_well(early, tmp_path):
    folder = tmp_path / "perfectplay-kernels"
    assert early.wait_for(folder) is None  # none started
    folder.mkdir()
    (folder / "watcher").write_text(str(2**22 + 12345))  # no such process: it died
    assert early.wait_for(folder) is None
    (folder / "status").write_text("1")
    assert early.wait_for(folder) is None  # failed: the build compiles, and says why
    (folder / "status").write_text("0")
    assert early.wait_for(folder) == folder / "kernels"


def test_the_early_compile_writes_its_status(early, tmp_path, monkeypatch):
    script = "import sys, pathlib; pathlib.Path(sys.argv[1]).mkdir()"
    _stand_in(early, monkeypatch, script)
    assert early.watch(tmp_path, os.getpid()) == 0
    assert (tmp_path / "status").read_text() == "0" and (tmp_path / "kernels").is_dir()


def test_the_early_compile_stops_when_the_frontend_ends(early, tmp_path, monkeypatch):
    marker = tmp_path / "still-compiling"
    script = (
        "import sys, time, pathlib\n"
        f"for _ in range(600): pathlib.Path({str(marker)!r}).touch(); time.sleep(0.05)"
    )
    _stand_in(early, monkeypatch, script)
    frontend = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1)"])
    threading.Thread(target=frontend.wait).start()  # reaped when it ends, as pip would be
    started = time.monotonic()
    assert early.watch(tmp_path, frontend.pid) == 1
    assert time.monotonic() - started < 20
    assert (tmp_path / "status").read_text() == early.STOPPED
    (tmp_path / "watcher").write_text(str(os.getpid()))
    with pytest.raises(SystemExit, match="stopped"):  # the wheel's build stops too
        early.wait_for(tmp_path)
    marker.unlink(missing_ok=True)
    time.sleep(0.5)
    assert not marker.exists()  # the stand-in compile was stopped with it
