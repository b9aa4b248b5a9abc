"""Running the ``perfectplay`` command from tests: in the test's own process, as a
separate process through pipes, or in a terminal."""

import contextlib
import os
import resource
import signal
import subprocess
import sys
import traceback

import pexpect
from click.testing import CliRunner


def perfectplay(*args: str, input: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run ``perfectplay ARGS`` in this process with `input` on stdin, capturing its output
    as text: the console script's own command group (its parsing, its one-line errors and
    their exit codes, its output) without a fresh interpreter, whose start (numba's import
    and target, the kernels loaded) costs about a second. An exception that escapes the
    command is written to stderr as its traceback, as the interpreter would, with exit
    code 1. What needs a process of its own (signals, a terminal, the exit path, start-up)
    is tested with `in_process_of_its_own` or `in_terminal`."""
    from perfectplay.cli import cli

    with _working_directory(cwd):
        result = CliRunner().invoke(cli, list(args), input=input, prog_name="perfectplay")
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(result.exception)
        )
    return subprocess.CompletedProcess(
        ["perfectplay", *args], result.exit_code, result.stdout, stderr
    )


def in_process_of_its_own(
    *args: str, input: str | None = None, cwd=None, env=None, address_space: int | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m perfectplay ARGS`` as a process of its own (pipes), as a person's
    shell would, capturing its output as text; with `address_space`, the process may map
    no more than that many bytes (``RLIMIT_AS``, as ``ulimit -v`` sets it): a run that
    would take more memory fails at once instead of taking the machine's."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run(
        [sys.executable, "-m", "perfectplay", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        preexec_fn=None if address_space is None else limited,
    )


@contextlib.contextmanager
def _working_directory(cwd):
    if cwd is None:
        yield
        return
    before = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


def default_signals() -> None:
    """In a child: Ctrl-C, hang-up and terminate as a terminal leaves them (a test run
    started under ``nohup`` ignores SIGHUP, and its children would inherit that)."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def in_terminal(*args: str, cwd=None) -> pexpect.spawn:
    """Start ``perfectplay ARGS`` in a pseudo-terminal, as a person would."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "perfectplay", *args],
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
        cwd=cwd,
        preexec_fn=default_signals,
    )


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
