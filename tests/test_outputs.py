"""What `--out` and `--plot` write: refused before the work when the path is not a
regular file's (a name ending in /, a directory, a FIFO, socket or device), is a file the
command reads (the store, a word list, a list of openings) or the other output's file;
a symbolic link written through; every write atomic."""

import json
import os
import socket
import stat

import pytest

from perfectplay.errors import PerfectplayError
from perfectplay.solution import write_atomically

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as run

#: A game the solve refuses as too large, after the output paths are checked: a path
#: refused with this command was refused before any work.
TOO_LARGE = ("solve", "dice-cards", "n=16")


def _special(tmp_path, kind: str) -> str:
    """A path in `tmp_path` that is not a regular file's, of `kind`."""
    if kind == "directory":
        (tmp_path / "d").mkdir()
        return str(tmp_path / "d")
    if kind == "trailing slash":
        return str(tmp_path / "newdir") + "/"
    if kind == "fifo":
        os.mkfifo(tmp_path / "f")
        return str(tmp_path / "f")
    if kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(tmp_path / "s"))
        server.close()  # the socket file stays
        return str(tmp_path / "s")
    assert kind == "device"
    return os.devnull


@pytest.mark.parametrize(
    "kind,needle",
    [
        ("trailing slash", "names a directory (it ends in /), not a file"),
        ("directory", "is a directory"),
        ("fifo", "is a FIFO (named pipe), not a regular file"),
        ("socket", "is a socket, not a regular file"),
        ("device", "is a device, not a regular file"),
    ],
)
@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_a_path_that_is_no_regular_file_is_refused_before_the_work(tmp_path, kind, needle, option):
    # The issue: `--out newdir/` wrote a file `newdir`, a FIFO became a regular file.
    path = _special(tmp_path, kind)
    before = {p.name: p.lstat().st_mode for p in tmp_path.iterdir()}
    res = run(*TOO_LARGE, option, path)
    assert_one_line_error(res, f"{option} {path}: {needle}")
    assert {p.name: p.lstat().st_mode for p in tmp_path.iterdir()} == before


def test_the_store_its_sqlite_files_and_the_default_store_are_refused(tmp_path, monkeypatch):
    store = tmp_path / "mine.sqlite"
    store.write_bytes(b"kept")
    res = run(*TOO_LARGE, "--store", str(store), "--out", str(store))
    assert_one_line_error(res, f"--out {store}: is the result store (--store)")
    wal = f"{store}-wal"
    res = run(*TOO_LARGE, "--store", str(store), "--plot", wal)
    assert_one_line_error(res, f"--plot {wal}: is the result store's SQLite wal file")
    monkeypatch.setenv("PERFECTPLAY_STORE", str(store))  # the default store, not named
    res = run(*TOO_LARGE, "--out", str(store))
    assert_one_line_error(res, "is the result store (--store)")
    linked = tmp_path / "link.json"
    linked.symlink_to(store)
    res = run(*TOO_LARGE, "--out", str(linked))
    assert_one_line_error(res, "is the result store (--store)")
    assert store.read_bytes() == b"kept"
    # without a store, the file is the user's to replace
    small = ("solve", "mastermind", "pegs=2", "colors=3", "--quiet")
    res = run(*small, "--no-store", "--out", str(store))
    assert res.returncode == 0, res.stderr
    assert json.loads(store.read_text())["game"] == "mastermind"


def test_a_word_list_and_a_list_of_openings_are_refused(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("abcde\nfghij\nklmno\n")
    for parameter in ("answers", "guesses"):
        res = run(
            "solve", "wordle", f"{parameter}={words}", "--no-store", "--out", str(words), "--quiet"
        )
        assert_one_line_error(res, f"--out {words}: is the file {parameter}= names")
    openings = tmp_path / "openings.txt"
    openings.write_text("1122\n")
    value = ("openings", "value", "mastermind", "pegs=2", "colors=3", "--bound", "20")
    res = run(*value, "--openings", f"@{openings}", "--out", str(openings), "--no-store")
    assert_one_line_error(res, f"--out {openings}: is the list of openings (--openings @FILE)")
    assert words.read_text() == "abcde\nfghij\nklmno\n" and openings.read_text() == "1122\n"


def test_openings_value_checks_its_shard_path_before_reading_it(tmp_path):
    # A FIFO as the shard's file was opened to resume from: the command waited for ever.
    os.mkfifo(tmp_path / "f")
    store = tmp_path / "store.sqlite"
    value = ("openings", "value", "mastermind", "pegs=2", "colors=3", "--bound", "20")
    res = run(*value, "--out", str(tmp_path / "f"))
    assert_one_line_error(res, "is a FIFO (named pipe), not a regular file")
    res = run(*value, "--store", str(store), "--out", str(store))
    assert_one_line_error(res, "is the result store (--store)")
    res = run(*value, "--out", str(tmp_path) + "/")
    assert_one_line_error(res, "names a directory")


def test_out_and_plot_on_one_file_are_refused(tmp_path):
    # The issue: `--out x --plot x` kept only the picture but reported both.
    picture = tmp_path / "x.png"
    res = run(*TOO_LARGE, "--out", str(picture), "--plot", str(picture))
    assert_one_line_error(res, f"--out {picture} and --plot {picture} are the same file")
    res = run(*TOO_LARGE, "--out", str(picture), "--plot", f"{tmp_path}/./x.png")
    assert_one_line_error(res, "are the same file")
    assert not picture.exists()


def test_a_symbolic_link_is_written_through(tmp_path):
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target.name)
    res = run("solve", "tricky-trios", "n=2", "--quiet", "--out", str(link))
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and os.readlink(link) == target.name
    assert json.loads(target.read_text())["value"] == "17/5"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("made.json")  # as a shell's `>` would, the file is created
    res = run("solve", "tricky-trios", "n=2", "--quiet", "--out", str(dangling))
    assert res.returncode == 0, res.stderr
    assert dangling.is_symlink() and json.loads((tmp_path / "made.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.json",
        "link.json",
        "made.json",
        "target.json",
    ]


def test_a_loop_of_links_is_one_line(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    res = run(*TOO_LARGE, "--out", str(tmp_path / "a"))
    assert_one_line_error(res, f"--out {tmp_path / 'a'}: ")


def test_an_interrupted_write_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("before")

    def half_then_interrupted(tmp: str) -> None:
        with open(tmp, "w") as handle:
            handle.write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, half_then_interrupted)
    assert path.read_text() == "before" and [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_a_path_that_became_a_fifo_after_the_check_is_not_replaced(tmp_path):
    # The check before the work is repeated at the write, minutes later.
    path = tmp_path / "x.json"
    os.mkfifo(path)
    with pytest.raises(PerfectplayError, match="--plot .*is a FIFO"):
        write_atomically(path, lambda tmp: None, "--plot")
    assert stat.S_ISFIFO(path.lstat().st_mode) and [p.name for p in tmp_path.iterdir()] == [
        "x.json"
    ]


@pytest.mark.parametrize("command", [("solve",), ("openings", "value")])
def test_the_help_says_what_a_link_and_a_refusal_are(command):
    res = run(*command, "--help")
    text = " ".join(res.stdout.split())
    assert "a symbolic link is written through: the file it points to is replaced" in text
    assert "a FIFO, socket or device" in text
