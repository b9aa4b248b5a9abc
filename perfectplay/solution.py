"""The result of a solve: an exact (or float) value, what it is, and the strategy achieving it."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from .objectives import Objective

#: Status labels, from strongest to weakest (DESIGN guideline 4).
PROVEN = "proven optimal"
CONVERGED = "optimal to tolerance"
FLOATING = "optimal in floating point"
HEURISTIC = "heuristic (upper bound)"


def format_value(value: Fraction | float) -> str:
    """Exact values as ``p/q`` (or ``p``), floats as a round-trippable decimal string."""
    if isinstance(value, Fraction):
        return str(value)
    return repr(float(value))


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
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def value_float(self) -> float:
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        """The summary fields of the command line's ``--json`` output."""
        return {
            "game": self.game,
            "params": self.params,
            "objective": self.objective.name,
            **({"horizon": self.objective.horizon} if self.objective.horizon is not None else {}),
            "value": format_value(self.value),
            "value_float": self.value_float,
            "exact": self.exact,
            "proven": self.proven,
            "status": self.status,
            **self.extra,
            **self.stats,
        }

    def export(self) -> dict[str, Any]:
        """The whole solution, strategy included, as a JSON-ready document."""
        return {"format": "perfectplay-solution", "version": 1, **self.to_dict(),
                "strategy": self.strategy.to_json()}


def write_json_atomically(path: str | os.PathLike, document: Any) -> None:
    """Write JSON so that an interruption never leaves a half-written file at `path`."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(document, handle, separators=(",", ":"))
            handle.write("\n")
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
