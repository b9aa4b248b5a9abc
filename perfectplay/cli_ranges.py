"""The command line's type for a number option: the value held to its range as it is read
(``ranges.within``), so that every number option refuses, in click's one line naming
the option, a value past its range, however many digits, and ``nan`` or ``inf``."""

from __future__ import annotations

import click

from .errors import BadParameter
from .ranges import within


class Within(click.ParamType):
    """An integer (or, `integer` False, a finite number of `unit`) from `low` to `high`."""

    def __init__(
        self, low: int | float, high: int | float, *, integer: bool = True, unit: str = ""
    ) -> None:
        self.low, self.high, self.integer, self.unit = low, high, integer, unit
        self.name = "integer" if integer else "number"

    def convert(self, value, param, ctx) -> int | float:
        try:
            return within(value, self.low, self.high, integer=self.integer, unit=self.unit)
        except BadParameter as err:
            self.fail(str(err), param, ctx)

    def __repr__(self) -> str:
        return f"Within({self.low}, {self.high})"
