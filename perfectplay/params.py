"""Game parameters: declared once on a game's dataclass, validated and parsed generically."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .errors import BadParameter
from .ranges import shown, within


@dataclass(frozen=True)
class ParamSpec:
    """What a parameter is: its name, default, inclusive range and meaning.

    An integer parameter has a range ``low..high``; a choice parameter (``choices`` set)
    takes one of a few words instead; a path parameter (``path``) names a file, its
    default (``""``) meaning data the game ships; an ``omit_default`` one (every deduction
    game's ``possible_only``, a variant added later) is named in ``Game.params`` only when
    set, and listed last. ``field`` is the attribute holding the
    value when it differs from the command-line `name` (a name the class already uses).
    """

    name: str
    default: int | str
    low: int
    high: int
    help: str
    choices: tuple[str, ...] = ()
    path: bool = False
    field: str = ""
    text: bool = False  # free text the game itself checks (a list of numbers)
    omit_default: bool = False  # named (in params, in files) only when not the default

    @property
    def attribute(self) -> str:
        """The game attribute that holds this parameter's value."""
        return self.field or self.name

    def describe(self) -> str:
        if self.path:
            return f"{self.name}=PATH"
        if self.text:
            return f"{self.name}=TEXT"
        if self.choices:
            return f"{self.name}={self.default} ({'|'.join(self.choices)})"
        return f"{self.name}={self.default} ({self.low}..{self.high})"

    def parse(self, raw: str) -> int | str:
        """The value of the command-line text `raw` (checked against the range in check_params)."""
        if self.choices or self.path or self.text:
            return raw
        try:
            return int(raw)
        except ValueError:  # (not digits, or more digits than Python converts)
            return within(raw, self.low, self.high, what=self.name)  # (raises, one line)

    def check(self, game_name: str, value: Any) -> None:
        """Raise BadParameter unless `value` is of the right kind and in range."""
        if self.path or self.text:
            if not isinstance(value, str):
                raise BadParameter(f"{self.name} must be text, got {value!r}")
            return
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise BadParameter(
                    f"{self.name}={value} is not allowed for {game_name} "
                    f"(choose one of {', '.join(self.choices)})"
                )
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadParameter(f"{self.name} must be an integer, got {value!r}")
        if not self.low <= value <= self.high:
            raise BadParameter(
                f"{self.name}={value} is out of range for {game_name} "
                f"(allowed {self.low}..{self.high})"
            )


def param(default: int, *, low: int, high: int, help: str) -> Any:
    """Declare an integer game parameter as a dataclass field with its range and meaning."""
    return dataclasses.field(default=default, metadata={"low": low, "high": high, "help": help})


def choice(default: str, *, choices: tuple[str, ...], help: str, omit_default: bool = False) -> Any:
    """Declare a game parameter taking one of the words `choices` (e.g. a rule variant);
    with `omit_default`, named in ``Game.params`` only when not the default."""
    if default not in choices:
        raise ValueError(f"default {default!r} is not one of {choices}")
    return dataclasses.field(
        default=default,
        metadata={
            "low": 0,
            "high": len(choices) - 1,
            "help": help,
            "choices": tuple(choices),
            "omit_default": omit_default,
        },
    )


def text(*, help: str) -> Any:
    """Declare a game parameter holding text the game checks itself (``""`` by default,
    then not named in ``Game.params``)."""
    return dataclasses.field(
        default="", metadata={"help": help, "text": True, "omit_default": True}
    )


def path(*, help: str, key: str = "") -> Any:
    """Declare a game parameter naming a file; ``""`` (the default) means the game's own data.

    `key` is its command-line name when the attribute's name is taken (by a method).
    """
    return dataclasses.field(default="", metadata={"help": help, "path": True, "key": key})


def whole_numbers(name: str, raw: str, count: int, low: int, high: int) -> list[int]:
    """The `count` whole numbers, each from `low` to `high`, that the text parameter
    `name` lists separated by commas (``costs=10,40,...``); BadParameter, one line naming
    the parameter, otherwise."""
    words = [w.strip() for w in raw.split(",")]
    if len(words) != count:
        raise BadParameter(
            f"{name}={shown(raw)} must list {count} whole numbers separated by commas"
        )
    return [int(within(w, low, high, what=f"each number of {name}=")) for w in words]


def param_specs(game_cls: type) -> tuple[ParamSpec, ...]:
    """The parameters a game class declares, in declaration order."""
    declared = [f for f in dataclasses.fields(game_cls) if "help" in f.metadata]
    declared.sort(key=lambda f: bool(f.metadata.get("omit_default")))  # the omit_default ones last
    return tuple(
        ParamSpec(
            f.metadata.get("key") or f.name,
            f.default,
            f.metadata.get("low", 0),
            f.metadata.get("high", 0),
            f.metadata["help"],
            f.metadata.get("choices", ()),
            f.metadata.get("path", False),
            f.name if f.metadata.get("key") else "",
            bool(f.metadata.get("text")),
            bool(f.metadata.get("omit_default")),
        )
        for f in declared
    )


def check_params(game: Any) -> None:
    """Raise BadParameter unless every declared parameter of `game` is of its kind and in range."""
    for spec in param_specs(type(game)):
        spec.check(game.name, getattr(game, spec.attribute))


def parse_assignments(
    game_name: str, specs: tuple[ParamSpec, ...], words: list[str]
) -> dict[str, int | str]:
    """Turn command-line words like ``n=5`` into keyword arguments (by attribute), naming
    any bad word."""
    known = {s.name: s for s in specs}
    values: dict[str, int | str] = {}
    for word in words:
        key, sep, raw = word.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise BadParameter(f"expected key=value, got {word!r}")
        if key not in known:
            names = ", ".join(known) or "none"
            raise BadParameter(f"{game_name} has no parameter {key!r} (parameters: {names})")
        values[known[key].attribute] = known[key].parse(raw)
    return values
