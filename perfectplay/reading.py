"""Reading a file a person names (a document, a word list, a list of openings): a
regular file only, and only as much as the memory holds.

A FIFO would block the read until something writes to it (forever, as often as not), a
device such as ``/dev/zero`` never ends, and a socket or a directory holds no text:
each is refused at once, in one line saying what it is, before anything waits on it
(the file is opened without waiting for a writer, ``O_NONBLOCK``, and looked at again
once open, in case it was replaced in between). A regular file is held to the memory
available before it is read: what reading it takes is its size times what the reader
makes of each byte (`read_text`'s ``bytes_per_byte``), and beyond the memory available
it is refused naming both (``memory.refuse_beyond``).
"""

from __future__ import annotations

import os
import stat
from typing import Callable

from .errors import BadFile
from .memory import refuse_beyond, size_text

#: What a file that is not a regular one is, by its type.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_file(path: str | os.PathLike, mode: int, what: str) -> str | None:
    """Why `path` (`what` it is meant to be: "the document"), of the file mode `mode`
    (``os.stat``'s), cannot be read as a file, in one line (None: it is a regular file)."""
    if stat.S_ISREG(mode):
        return None
    kind = next((kind for test, kind in _KINDS if test(mode)), "not a regular file")
    return f"{what} {os.fspath(path)} is {kind}, not a file"


def read_text(
    path: str | os.PathLike,
    bytes_per_byte: int | Callable[[int, int], int],
    what: str,
    encoding: str | None = None,
) -> str:
    """The text of the regular file `path` (in `encoding`; None: the locale's, as
    ``open`` has it). A FIFO, device, socket or directory is refused at once, and a file
    whose reading (`bytes_per_byte` bytes of memory for each of its bytes, or what
    ``bytes_per_byte(fd, size)`` says of the open file) would exceed the memory
    available, before it is read (BadFile, one line naming `what` it is: "the
    document"). OSError and UnicodeDecodeError as ``open`` and ``read`` raise them."""
    before = os.stat(path)
    refusal = not_a_file(path, before.st_mode, what)
    if refusal is not None:
        raise BadFile(refusal)
    with open(path, encoding=encoding, opener=_without_waiting) as handle:
        info = os.fstat(handle.fileno())
        refusal = not_a_file(path, info.st_mode, what)
        if refusal is not None:  # replaced since it was looked at
            raise BadFile(refusal)
        need = (
            bytes_per_byte(handle.fileno(), info.st_size)
            if callable(bytes_per_byte)
            else info.st_size * bytes_per_byte
        )
        refuse_beyond(
            need,
            f"reading {what} {os.fspath(path)} ({size_text(info.st_size)})",
            "a smaller file, or more memory",
            error=BadFile,
        )
        return handle.read(info.st_size)  # as large as it was checked: no more if it grows


def _without_waiting(path: str, flags: int) -> int:
    """``open``'s opener: the file opened without waiting (a FIFO with no writer would
    block the open itself)."""
    return os.open(path, flags | os.O_NONBLOCK)


#: Bytes of a file counted at a time (``json_memory``).
SCAN = 16 << 20
#: What each of a JSON text's structural characters (``{[,:``) may cost once parsed,
#: at most: an empty object every three bytes measured 28 bytes a byte (``{},``: two of
#: them), and ``solution.nesting``'s passes over the text.
PER_TOKEN = 48
#: What each byte of it costs besides: the text, and the strings parsed from it (four
#: bytes a character at most: text outside the first 256 code points).
PER_BYTE = 5


def json_memory(fd: int, size: int) -> int:
    """The memory reading the JSON text of `size` bytes open as `fd` may take at most:
    PER_BYTE a byte and PER_TOKEN a structural character (the file counted SCAN bytes at
    a time, without moving its offset): a document that is mostly one long string (a
    target's rows in base64: half a GB) is held to a few times its size, not to what as
    many empty objects would take."""
    tokens = 0
    for at in range(0, size, SCAN):
        chunk = os.pread(fd, min(SCAN, size - at), at)
        tokens += sum(chunk.count(c) for c in (b"{", b"[", b",", b":"))
    return PER_BYTE * size + PER_TOKEN * tokens
