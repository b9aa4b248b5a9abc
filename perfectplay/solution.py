"""The result of a solve: an exact (or float) value, what it is, and the strategy achieving it."""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from .errors import PerfectplayError
from .objectives import Objective

if TYPE_CHECKING:
    from .game import Game

#: Status labels, from strongest to weakest (DESIGN guideline 4).
PROVEN = "proven optimal"
PROVEN_GIVEN_FIRST = "proven optimal given its first guess"
CONVERGED = "optimal to tolerance"
FLOATING = "optimal in floating point"
HEURISTIC = "heuristic (upper bound)"
#: An exact search restricted to the best guesses by bound at every node (``--top``).
SEARCHED_TOP = "upper bound (the best guesses by bound searched at each node)"
#: Labels that claim no optimality: the value is that of a real strategy, no more.
UPPER_BOUNDS = (HEURISTIC, SEARCHED_TOP)


#: Integers up to this many bits are converted by Python itself; beyond, by python-flint,
#: whose conversion has no digit limit (Python refuses ints over 4,300 digits, about
#: 14,000 bits) and is subquadratic. The threshold stays well under the limit.
_PLAIN_BITS = 10_000


def format_value(value: Any) -> str:
    """Exact rationals (Fraction, int, flint fmpq) as ``p/q`` or ``p``, in full whatever
    their length; floats as a round-trippable decimal string."""
    if isinstance(value, float) or type(value).__module__ == "numpy":
        return repr(float(value))
    if isinstance(value, (int, Fraction)):
        value = Fraction(value)
        p, q = value.numerator, value.denominator
        return _int_text(p) if q == 1 else f"{_int_text(p)}/{_int_text(q)}"
    return str(value)  # flint's fmpq/fmpz print themselves without a digit limit


def _int_text(i: int) -> str:
    if abs(i).bit_length() <= _PLAIN_BITS:
        return str(i)
    from flint import fmpz

    return str(fmpz(i))


def parse_value(text: Any) -> Fraction:
    """The exact value written by ``format_value`` (``p/q``, ``p`` or a decimal), however
    many digits it has; ValueError if `text` is not one."""
    if not isinstance(text, str):
        raise ValueError(f"not a value: {text!r}")
    if is_fraction_text(text):
        p, slash, q = text.strip().partition("/")
        return Fraction(_text_int(p), _text_int(q) if slash else 1)
    return Fraction(text)  # a decimal (float values); short, within Python's limits


def is_fraction_text(text: str) -> bool:
    """Whether `text` writes an exact value (``p/q`` or ``p``), not a float's decimal."""
    p, slash, q = text.strip().partition("/")
    return p.lstrip("-").isdigit() and (not slash or q.isdigit())


def _text_int(digits: str) -> int:
    if len(digits) <= 3000:
        return int(digits)
    from flint import fmpz

    return int(fmpz(digits))


def exact_text(value: Fraction, limit: int = 60) -> str:
    """The exact value for people: the fraction in full when at most `limit` characters,
    else its digit counts (``2,731/4,125 digits``); JSON output carries it in full."""
    text = format_value(value)
    return text if len(text) <= limit else digit_counts_text(value)


def digit_counts_text(value: Fraction) -> str:
    """``2,731/4,125 digits``: the decimal digits of numerator and denominator."""
    p, _, q = format_value(value).lstrip("-").partition("/")
    return f"{len(p):,}/{len(q or '1'):,} digits"


@dataclass
class Solution:
    """A solved game: value, status, statistics and the strategy (exportable as JSON).

    ``value`` is a Fraction when ``exact`` is true, else a float. ``proven`` means the
    strategy's exact value was checked optimal in exact arithmetic (or by exhaustive search).
    """

    game: str
    params: dict[str, Any]
    objective: Objective
    value: Fraction | float
    exact: bool
    proven: bool
    status: str
    strategy: Any
    stats: dict[str, Any] = field(default_factory=dict)
    #: Deduction games: how the strategy was found (optimal or a heuristic's name).
    method: str | None = None
    #: Deduction games: the guess limit solved under (--max-guesses), if any.
    max_guesses: int | None = None
    #: Deduction games: the position solved from (``GUESS:FEEDBACK,...``), if not the start.
    after: str | None = None
    #: Deduction games: secrets counted (those the position leaves).
    secrets: int | None = None
    #: Deduction trees (expected, worst): guesses summed over the secrets, the worst case.
    total: int | None = None
    worst: int | None = None
    #: Deduction games, probability objective: secrets won within the horizon.
    wins: int | None = None
    #: Deduction games: secrets revealed by the number of guesses it took.
    histogram: dict[int, int] | None = None
    #: Item costs (probability-then-cost): the guesses' costs summed over the secrets.
    total_cost: int | None = None
    #: Games solved by stages: the final score's distribution under the strategy
    #: (``markov.stage_distribution.ScoreDistribution``), written as ``distribution``.
    distribution: Any = None

    @property
    def value_float(self) -> float:
        return float(self.value)

    @property
    def extra(self) -> dict[str, Any]:
        """The engine's own facts, as the JSON output writes them (keys in their order)."""
        facts: dict[str, Any] = {}
        if self.method is not None:
            facts["method"] = self.method
        if self.max_guesses:
            facts["max_guesses"] = self.max_guesses
        if self.wins is not None:
            facts.update(
                wins=self.wins, secrets=self.secrets, unreduced=f"{self.wins}/{self.secrets}"
            )
        if self.after:
            facts["after"] = self.after
        if self.total is not None:
            facts.update(total=self.total, secrets=self.secrets, worst=self.worst)
        if self.total_cost is not None:
            facts.update(
                total_cost=self.total_cost,
                expected_cost=format_value(Fraction(self.total_cost, self.secrets)),
            )
        if self.histogram is not None:
            facts["histogram"] = {str(k): v for k, v in sorted(self.histogram.items())}
        if self.distribution is not None:
            facts["distribution"] = self.distribution.to_json()
        return facts

    def to_dict(self) -> dict[str, Any]:
        """The summary fields of the command line's ``--json`` output."""
        return {
            "game": self.game,
            "params": self.params,
            "objective": self.objective.name,
            **({"horizon": self.objective.horizon} if self.objective.horizon is not None else {}),
            **({"determine": True} if self.objective.determine else {}),
            "value": format_value(self.value),
            "value_float": self.value_float,
            "exact": self.exact,
            "proven": self.proven,
            "status": self.status,
            **self.extra,
            **self.stats,
        }

    def export(self, strategy: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole solution, strategy included, as a JSON-ready document (`strategy`
        in place of the strategy's own ``to_json``, where given)."""
        return {
            "format": "perfectplay-solution",
            "version": 1,
            **self.to_dict(),
            "strategy": self.strategy.to_json() if strategy is None else strategy,
        }

    def write(self, path: str | os.PathLike, option: str = "--out") -> None:
        """The document (``export``) written to `path` (``write_json_atomically``); a
        strategy whose text is large (a target's rows, ``TargetRows.json_chunks``: half
        a GB for Yahtzee's to 300) is written a chunk at a time, never held whole."""
        chunks = getattr(self.strategy, "json_chunks", None)
        if chunks is None:
            write_json_atomically(path, self.export(), option)
        else:
            document = self.export(self.strategy.to_json(columns=STREAMED))
            write_json_atomically(path, document, option, streamed=chunks())


#: What ``--out`` and ``--plot`` promise, in their help (``check_outputs``,
#: ``write_atomically``).
OUTPUT_RULES = (
    "written whole or not at all; a symbolic link is written through: the file it points "
    "to is replaced, the link kept; refused before the work: a name ending in /, a "
    "directory, a FIFO, socket or device, a file the command reads (the store, a word "
    "list), the other output's file"
)


def check_outputs(
    outputs: Mapping[str, str | os.PathLike | None], reads: Mapping[str, str | os.PathLike]
) -> None:
    """Refuse in one line, before any work, the output paths `outputs` (by option, None
    when not given, e.g. ``{"--out": "x.json", "--plot": None}``) that cannot or must not
    be written: each as ``check_writable`` says, none the same file as one the command
    reads (`reads`, by what names it, as ``files_read`` gives them), and no two the same
    file (one would keep only the other's contents)."""
    given = {option: path for option, path in outputs.items() if path is not None}
    for option, path in given.items():
        check_writable(path, option)
    for option, path in given.items():
        for name, read in reads.items():
            if _same_file(path, read):
                raise PerfectplayError(
                    f"{option} {path}: is {name}, which this command reads; give another path"
                )
    for (first, path), (second, other) in itertools.combinations(given.items(), 2):
        if _same_file(path, other):
            raise PerfectplayError(
                f"{first} {path} and {second} {other} are the same file; give each its own"
            )


def files_read(game: Game, store_path: str | os.PathLike | None, no_store: bool) -> dict[str, str]:
    """The files a solve of `game` reads, by what names them, that its outputs must not
    replace: the files its parameters name (``answers=PATH``) and, unless `no_store`, the
    result store (`store_path`, else the default) with SQLite's files beside it."""
    from .params import param_specs

    files = {
        f"the file {spec.name}= names": os.fspath(getattr(game, spec.attribute))
        for spec in param_specs(type(game))
        if spec.path and getattr(game, spec.attribute)
    }
    if not no_store:
        from .store import COMPANIONS, chosen_path

        store = os.fspath(chosen_path(store_path))
        files["the result store (--store)"] = store
        for suffix in COMPANIONS:
            files[f"the result store's SQLite {suffix[1:]} file"] = store + suffix
    return files


def _same_file(path: str | os.PathLike, other: str | os.PathLike) -> bool:
    """Whether `path` and `other` name one file: the same path once links are followed,
    or (both existing) the same file on disk (a hard link, another mount)."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:  # one of them does not exist (yet)
        return False


def check_writable(path: str | os.PathLike, option: str = "--out") -> None:
    """Refuse, before any work, an output path that cannot be written (the message names
    `path`): one ending in ``/``, a directory, anything but a regular file (a FIFO, a
    socket, a device), a directory that is missing or not writable. A symbolic link is
    written through: the file it points to is checked (and later replaced, the link
    kept; ``write_atomically``)."""
    target = _regular_target(path, option)
    parent = target.parent
    if not parent.is_dir():
        raise PerfectplayError(f"{option} {path}: there is no directory {parent}")
    if target.exists() and not os.access(target, os.W_OK):
        raise PerfectplayError(f"{option} {path}: permission denied")
    try:  # the one reliable test (permissions, read-only or special file systems)
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", dir=parent)
    except OSError as err:
        raise PerfectplayError(f"{option} {path}: {err.strerror or err}") from None
    os.close(fd)
    os.unlink(probe)


def _regular_target(path: str | os.PathLike, option: str) -> Path:
    """The file `path` writes to, symbolic links followed: refused (naming `option` and
    `path`) when `path` names a directory (ending in ``/`` or being one) or anything but
    a regular file."""
    text = os.fspath(path)
    if not text:  # (else no file, and nothing said)
        raise PerfectplayError(f"{option}: empty path; name a file")
    if text.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        raise PerfectplayError(f"{option} {path}: names a directory (it ends in /), not a file")
    target = Path(os.path.realpath(text))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as err:  # a loop of links, a name too long
        raise PerfectplayError(f"{option} {path}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise PerfectplayError(f"{option} {path}: is a directory")
    if not stat.S_ISREG(mode):
        raise PerfectplayError(f"{option} {path}: is {_kind(mode)}, not a regular file")
    return target


def _kind(mode: int) -> str:
    """What a file that is not a regular file or a directory is, for a message."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def write_atomically(
    path: str | os.PathLike, write: Callable[[str], None], option: str = "--out"
) -> None:
    """Call ``write(tmp)`` on a temporary file beside the file `path` writes to, then
    rename it into place, so that an interruption never leaves a half-written file and
    a failure leaves what was there. A symbolic link is written through (the file it
    points to replaced, the link kept); a path that is not, or no longer, a regular file
    or a place for one is refused (``check_writable``, naming `option`). A failure is
    reported against `path`, the name the user gave, not the temporary file."""
    target = _regular_target(path, option)
    if not target.parent.is_dir():
        raise PerfectplayError(f"cannot write {path}: there is no directory {target.parent}")
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent
        )
    except OSError as err:
        raise PerfectplayError(f"cannot write {path}: {err.strerror or err}") from None
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        write(tmp)
        os.replace(tmp, target)
    except BaseException as err:
        os.unlink(tmp)
        if isinstance(err, OSError):
            raise PerfectplayError(f"cannot write {path}: {err.strerror or err}") from None
        raise


#: The string a document holds where ``write_json_atomically`` writes a streamed one (no
#: base64 text holds an "@").
STREAMED = "@streamed@"


def write_json_atomically(
    path: str | os.PathLike, document: Any, option: str = "--out",
    streamed: Iterable[str] | None = None,
) -> None:  # fmt: skip
    """Write `document` as JSON to `path`, atomically (``write_atomically``); with
    `streamed`, its last string equal to STREAMED written from those chunks (text that
    needs no escaping: base64), so that it is never held whole."""

    def write(tmp: str) -> None:
        with open(tmp, "w") as handle:
            if streamed is None:
                json.dump(document, handle, separators=(",", ":"))
            else:
                text = json.dumps(document, separators=(",", ":"))
                head, tail = text.rsplit(json.dumps(STREAMED), 1)
                handle.write(head + '"')
                handle.writelines(streamed)
                handle.write('"' + tail)
            handle.write("\n")

    write_atomically(path, write, option)


#: The deepest nesting of arrays and objects a document may have. A strategy tree takes two
#: levels a guess (a node, its branches): 400 levels hold trees of nearly 200 guesses, far
#: deeper than any game's. Python's JSON reader recurses, and stops near 1,000 levels
#: with a RecursionError; what reads the document after it must not meet that limit
#: either.
MAX_NESTING = 400
#: The longest integer a document may write (Python's own limit for reading one); exact
#: values longer than that are written as text (``format_value``).
MAX_INT_DIGITS = 4300

#: A JSON string, escapes included (what ``nesting`` skips); one left open runs to the
#: end of the text. Possessive, and matching wherever a quote starts, so that the text
#: is read once: a string that never closed used to be sought again from each escaped
#: quote inside it, and 40,000 of them (80 KB) took a minute.
_STRING = re.compile(r'"(?:[^"\\]++|\\.?)*+(?:"|\Z)', re.S)


def read_document(path: str | os.PathLike) -> Any:
    """The JSON document in `path`; a one-line PerfectplayError if it is not one that
    perfectplay reads: not JSON, nested deeper than `MAX_NESTING`, a number that is not
    finite (``NaN``, ``Infinity``: Python's reader takes them, JSON has none) or an
    integer longer than `MAX_INT_DIGITS` digits; a FIFO, device, socket or directory,
    or a file too large for the memory available, refused before it is read
    (``reading.read_text``)."""
    from .reading import json_memory, read_text

    try:
        text = read_text(path, json_memory, "the document")
    except (OSError, UnicodeDecodeError) as err:
        raise PerfectplayError(f"{path}: not a JSON document ({err.__class__.__name__})") from None
    depth = nesting(text)
    if depth > MAX_NESTING:
        raise PerfectplayError(
            f"{path}: nested {depth:,} levels deep, more than a perfectplay document "
            f"can be ({MAX_NESTING})"
        )
    try:
        return json.loads(text, parse_constant=_not_finite, parse_int=_integer)
    except _Unreadable as err:
        raise PerfectplayError(f"{path}: {err}") from None
    except ValueError as err:  # json.JSONDecodeError included
        raise PerfectplayError(f"{path}: not a JSON document ({err.__class__.__name__})") from None


def nesting(text: str) -> int:
    """How deep arrays and objects nest in the JSON `text` (brackets inside strings do
    not count), without parsing it: read before the parser, whose recursion it bounds."""
    import numpy as np

    bare = np.frombuffer(_STRING.sub("", text).encode("utf-8", "replace"), dtype=np.uint8)
    step = np.isin(bare, (ord("["), ord("{"))).astype(np.int8) - np.isin(
        bare, (ord("]"), ord("}"))
    ).astype(np.int8)
    return int(np.cumsum(step, dtype=np.int64).max(initial=0))


class _Unreadable(ValueError):
    """A number in a document that perfectplay does not read (the message says which)."""


def _not_finite(constant: str) -> Any:
    raise _Unreadable(f"{constant} is not a number perfectplay reads (a JSON number is finite)")


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Unreadable(
            f"an integer of {len(digits.lstrip('-')):,} digits (at most {MAX_INT_DIGITS:,})"
        )
    return int(digits)
