"""Speed-ups as data: each engine's switches, all on by default, off changing only the time.

Each engine has a frozen dataclass of booleans, one field per speed-up
(``deduction.search.SpeedUps``, ``markov.speedups.SpeedUps``); ``perfectplay solve
--without NAME[,NAME]`` switches the named ones off, and the tests solve with each one
off and require the same value (the way mmstrat keeps a no-op beside each of its
speed-ups).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TypeVar

from .errors import Unsupported

S = TypeVar("S")


def switch_names(speedups) -> list[str]:
    """The names of an engine's switches (its ``SpeedUps`` class or an instance of it)."""
    return [f.name for f in dataclasses.fields(speedups)]


def switched_off(speedups: S, names: Sequence[str]) -> S:
    """`speedups` with the named switches off; an unknown name is a one-line error."""
    known = switch_names(speedups)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise Unsupported(f"unknown speed-up {unknown[0]!r} (known: {', '.join(known)})")
    return dataclasses.replace(speedups, **{n: False for n in names})
