"""Running the ``perfectplay`` command from tests: through pipes, or in a terminal."""

import signal
import subprocess
import sys

import pexpect


def perfectplay(*args: str, input: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run ``perfectplay ARGS`` with `input` on stdin (pipes), capturing its output as text."""
    return subprocess.run([sys.executable, "-m", "perfectplay", *args], input=input,
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def default_signals() -> None:
    """In a child: Ctrl-C, hang-up and terminate as a terminal leaves them (a test run
    started under ``nohup`` ignores SIGHUP, and its children would inherit that)."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def in_terminal(*args: str, cwd=None) -> pexpect.spawn:
    """Start ``perfectplay ARGS`` in a pseudo-terminal, as a person would."""
    return pexpect.spawn(sys.executable, ["-m", "perfectplay", *args], encoding="utf-8",
                         timeout=60, dimensions=(40, 200), cwd=cwd,
                         preexec_fn=default_signals)


def accept_suggestions(child: pexpect.spawn, prompt: str, finished: str, turns: int) -> int:
    """Press Enter at each `prompt` until `finished` shows (at most `turns` times), then wait
    for the program to end; returns its exit status."""
    for _ in range(turns):
        if child.expect([prompt, finished]) == 1:
            break
        child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def assert_one_line_error(res: subprocess.CompletedProcess, needle: str) -> None:
    """The command failed as bad input must: exit code 2, one line on stderr naming the
    problem (`needle`), no traceback."""
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert needle in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
