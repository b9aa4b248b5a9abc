"""Numbers a person gives (an option, a game's parameter, a setting in the environment,
an answer at a prompt), read and held to a range where they are read, by one function
(`within`): text that is no such number (``nan``, ``inf``, ``1e300`` seconds, 5,000
digits), or a number outside the range, is one line naming it and the range. So no
number too large for what reads it (an int64 kernel, a timer's wait) or too large to
mean anything gets past the first place it is read."""

from __future__ import annotations

import math
import numbers
import re

from .errors import BadParameter

#: The most of anything counted on the command line (guesses or moves in a horizon or a
#: guess limit, guesses or openings to list, a game's item costs): more than any game
#: enumerates, and small enough that sums and products of such counts stay within the
#: int64 kernels' range.
MOST = 10**9
#: The most lanes a search is split over (threads of this process, or local Dask worker
#: processes): more than any machine has cores.
MOST_LANES = 1024
#: The longest wait a person can ask for, a day, in seconds (a longer one can overflow:
#: the wait for a search's answer is a poll whose timeout is a 32-bit number of
#: milliseconds, about 24 days).
LONGEST_WAIT = 86_400.0
#: The largest seed: one that fits in 64 bits, signed (every generator takes it).
LARGEST_SEED = 2**63 - 1

#: Text that is a whole number written in digits (a sign allowed), however long.
_WHOLE = re.compile(r"[+-]?[0-9]+")
#: Text longer than this is shortened where a message repeats it.
_SHOWN = 24


def within(
    value: str | int | float,
    low: int | float,
    high: int | float,
    *,
    integer: bool = True,
    what: str = "",
    unit: str = "",
) -> int | float:
    """`value` (text as typed, or a number) as an integer (`integer`) or a finite number,
    from `low` to `high` inclusive; else BadParameter, one line naming `what` (the
    option or setting, if given), what is wanted (a number of `unit`, if given) and the
    range."""
    number = _read(value, integer)
    if number is None or not low <= number <= high:  # (nan fails both comparisons)
        kind = f"a number of {unit}" if unit else "an integer" if integer else "a number"
        raise BadParameter(
            f"{what + ' ' if what else ''}must be {kind} from {_number(low)} to "
            f"{_number(high)}, got {shown(value)}"
        )
    return number


def _read(value: str | int | float, integer: bool) -> int | float | None:
    """`value` as an int (`integer`) or a finite float; None if it is neither. A whole
    number too long for ``int`` (past Python's 4,300 digits) is read as infinite: out of
    any range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if integer:
            return int(value) if value.is_integer() else None
        return value if math.isfinite(value) else None
    text = str(value).strip()
    if _WHOLE.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # (too many digits to convert)
            return -math.inf if text.startswith("-") else math.inf
    if integer:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _number(bound: int | float) -> str:
    """A range's end as a message writes it: ``1,000,000``, ``86400``, ``0.5``."""
    if isinstance(bound, int) and abs(bound) >= 10**6:
        return f"{bound:,}"
    return f"{bound:g}" if isinstance(bound, float) else str(bound)


def shown(value: object) -> str:
    """`value` as a message repeats it: as typed, or shortened, with its length, when too
    long for one line (a number of 5,000 digits)."""
    text = str(value)
    if len(text) <= _SHOWN:
        return text
    return f"{text[:12]}... ({len(text):,} characters)"


def integer(value: object) -> bool:
    """Whether `value` is an integer as the rules' protocols mean it: a Python or numpy
    integer, not a bool (numpy's bool is no ``Integral``)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
