"""What every game in the catalogue has in common, whatever engine solves it."""

from __future__ import annotations

from typing import Any, ClassVar

from .measure import Measure
from .params import check_params, param_specs, ParamSpec


class Game:
    """Base of every game: a frozen dataclass whose fields are its parameters.

    Subclasses set ``name`` (the catalogue name), ``summary`` (one line) and
    ``objectives`` (the objective names it supports); ``kind`` (the kind of game,
    written in documents) comes with `MarkovGame` or `DeductionGame`, and the engine
    that solves games of that kind is ``engine.engine_of(game)``.
    """

    name: ClassVar[str]
    kind: ClassVar[str]
    summary: ClassVar[str]
    objectives: ClassVar[tuple[str, ...]]
    #: The objective solved when none is named (the command line's --objective default).
    default_objective: ClassVar[str] = "expected"
    #: What one unit of the game's numbers is called, in the plural ("moves", "points").
    cost_unit: ClassVar[str] = "moves"
    #: Whether the game pays its numbers as a score to maximize instead of charging them as
    #: costs to minimize. For a Markov game, ``Expansion.cost`` then holds the points a
    #: choice pays: the expected objective maximizes the expected total score, the
    #: probability objective the chance of scoring at least the horizon; the engine negates
    #: the points into costs where they enter it (``markov.compile``), and a cycle of
    #: choices that pays is refused (the score could grow without end).
    pays: ClassVar[bool] = False

    def __post_init__(self) -> None:
        check_params(self)

    def default_horizon(self) -> int | None:
        """The horizon of the ``probability`` objective when none is given (None: must be given)."""
        return None

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        return param_specs(cls)

    @property
    def params(self) -> dict[str, Any]:
        """The declared parameters (``param``/``choice`` fields) and their values: what
        names this game on the command line and in exported files."""
        values = {s.name: getattr(self, s.attribute) for s in self.param_specs()}
        return {
            k: v
            for (k, v), s in zip(values.items(), self.param_specs())
            if not (s.omit_default and v == s.default)
        }

    @property
    def measure(self) -> Measure:
        """The game's unit and direction, and the words its values are read in."""
        return Measure(self.cost_unit, self.pays)

    @property
    def spec(self) -> str:
        """``name(k=v,...)`` naming every parameter (``params``; a path left at the game's
        own data, "", aside): the game's name where it must not change with what titles
        show (the store's rows)."""
        return _spec(self.name, {k: v for k, v in self.params.items() if v != ""})

    def __str__(self) -> str:
        """The game as titles and messages show it: its name, with ``(k=v,...)`` naming
        the parameters set away from their defaults (a parameter at its default, such as
        Yahtzee's full card ``card=8191`` or a path left at the game's own data, tells a
        person nothing); read back (``load_game``) it is the same game."""
        changed = {
            s.name: getattr(self, s.attribute)
            for s in self.param_specs()
            if getattr(self, s.attribute) != s.default
        }
        return _spec(self.name, changed) if changed else self.name


def _spec(name: str, params: dict[str, Any]) -> str:
    """``name(k=v,...)``: a game as the catalogue reads it (``load_game``)."""
    return f"{name}({','.join(f'{k}={v}' for k, v in params.items())})"
