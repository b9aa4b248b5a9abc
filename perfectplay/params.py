"""Game parameters: declared once on a game's dataclass, validated and parsed generically."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .errors import BadParameter


@dataclass(frozen=True)
class ParamSpec:
    """What a parameter is: its name, default, inclusive range and meaning."""

    name: str
    default: int
    low: int
    high: int
    help: str

    def describe(self) -> str:
        return f"{self.name}={self.default} ({self.low}..{self.high})"


def param(default: int, *, low: int, high: int, help: str) -> Any:
    """Declare an integer game parameter as a dataclass field with its range and meaning."""
    return dataclasses.field(default=default, metadata={"low": low, "high": high, "help": help})


def param_specs(game_cls: type) -> tuple[ParamSpec, ...]:
    """The parameters a game class declares, in declaration order."""
    return tuple(
        ParamSpec(f.name, f.default, f.metadata["low"], f.metadata["high"], f.metadata["help"])
        for f in dataclasses.fields(game_cls)
        if "low" in f.metadata
    )


def check_params(game: Any) -> None:
    """Raise BadParameter unless every declared parameter of `game` is an int in range."""
    for spec in param_specs(type(game)):
        value = getattr(game, spec.name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadParameter(f"{spec.name} must be an integer, got {value!r}")
        if not spec.low <= value <= spec.high:
            raise BadParameter(
                f"{spec.name}={value} is out of range for {game.name} "
                f"(allowed {spec.low}..{spec.high})"
            )


def parse_assignments(game_name: str, specs: tuple[ParamSpec, ...], words: list[str]) -> dict[str, int]:
    """Turn command-line words like ``n=5`` into keyword arguments, naming any bad word."""
    known = {s.name: s for s in specs}
    values: dict[str, int] = {}
    for word in words:
        key, sep, raw = word.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise BadParameter(f"expected key=value, got {word!r}")
        if key not in known:
            names = ", ".join(known) or "none"
            raise BadParameter(f"{game_name} has no parameter {key!r} (parameters: {names})")
        try:
            values[key] = int(raw)
        except ValueError:
            raise BadParameter(f"{key} must be an integer, got {raw!r}") from None
    return values
