"""The engines: everything that varies with the kind of game, owned by one object per kind.

A game names its engine (``game.engine``, a class attribute of `MarkovGame` and
`DeductionGame`). The command line, the web page and the Gymnasium wrapper ask the
engine instead of testing the game's kind: how to solve (``solve``), which of the
command line's engine options it takes and what they become (``solve_options``,
``play``), what it ranks or trades off (``rank``, ``trade_off``), what a position
given as ``--after`` text is (``position``), how large a request is (``size``), and
which class or page stands for its games in each front end (``gym_env``,
``web_board``, named as ``"module:attribute"`` and imported only when used: the engine
modules import nothing heavy, since every game class names its engine).

The engines themselves: ``deduction/engine.py`` and ``markov/engine.py``.
"""

from __future__ import annotations

import dataclasses
import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import Unsupported
from .objectives import Objective, require_supported

if TYPE_CHECKING:
    from .game import Game
    from .play.console import Console
    from .progress import Silent
    from .solution import Solution


def _flag(spelling: str, default: Any = None) -> Any:
    """A field of an options record, with its command-line spelling (for messages)."""
    return dataclasses.field(default=default, metadata={"flag": spelling})


@dataclass(frozen=True)
class SolveArgs:
    """The engine options of ``perfectplay solve`` as given (a field at its default: not
    given).

    Each engine takes some of them (`Engine.solve_flags`); the others are refused."""

    exact: bool | None = _flag("--exact/--float")
    tol: float | None = _flag("--tol")
    strategy: str | None = _flag("--strategy")
    max_guesses: int | None = _flag("--max-guesses")
    top: int | None = _flag("--top")
    workers: int | None = _flag("--workers")
    without: str = _flag("--without", "")
    first: str | None = _flag("--first")
    after: str = _flag("--after", "")
    store: str | None = _flag("--store")
    no_store: bool = _flag("--no-store", False)
    cluster: str | None = _flag("--cluster")

    def without_names(self) -> tuple[str, ...]:
        """The speed-ups named by ``--without`` (comma-separated; blanks ignored)."""
        return tuple(n.strip() for n in self.without.split(",") if n.strip())


@dataclass(frozen=True)
class PlayArgs:
    """The engine options of ``perfectplay play`` as given (None: not given)."""

    secret: str | None = _flag("--secret")
    budget: float | None = _flag("--budget")


@dataclass(frozen=True)
class Ranked:
    """One choice at a position (a guess) and its exact value."""

    label: str
    value: Fraction


@dataclass(frozen=True)
class Ranking:
    """Every useful choice at a position, best first, and how many are optimal."""

    objective: Objective
    position: str  # the position as the command line writes it ("" at the start)
    secrets: int  # still possible there
    choices: tuple[Ranked, ...]
    optimal: int  # how many choices are optimal
    classes: int  # choices up to symmetry
    optimal_classes: int  # optimal choices up to symmetry

    @property
    def best(self) -> Fraction:
        return self.choices[0].value


@dataclass(frozen=True)
class TradeOff:
    """The Pareto frontier of P(win within the horizon) against expected cost
    (``deduction.frontier.Frontier``) and the first move of each of its strategies."""

    front: Any
    first: tuple[str, ...]  # aligned with front.points ("(stop)": no move)

    def first_of(self, point: Any) -> str:
        return self.first[self.front.points.index(point)]


@dataclass(frozen=True)
class Size:
    """How much work a game is, for front ends that cap requests."""

    count: int
    unit: str


class Engine(ABC):
    """What perfectplay does differently for one kind of game."""

    #: The games' ``kind`` (also written in documents).
    kind: ClassVar[str]
    #: The kind as a message names it ("deduction", "Markov").
    label: ClassVar[str]
    #: The fields of `SolveArgs` and `PlayArgs` this engine takes.
    solve_flags: ClassVar[frozenset[str]]
    play_flags: ClassVar[frozenset[str]] = frozenset()
    #: The Gymnasium environment class of its games ("module:Class").
    gym_env: ClassVar[str]
    #: The web page's play handler of its games ("module:function").
    web_board: ClassVar[str]
    #: Whether the objectives' ``determine`` variant applies (a secret to determine).
    determines: ClassVar[bool] = False

    def __repr__(self) -> str:
        return f"<{self.label} engine>"

    @abstractmethod
    def solve(self, game: Game, objective: Objective, **options: Any) -> Solution:
        """Solve `game` for `objective` with this engine's `options`."""

    @abstractmethod
    def solve_options(self, game: Game, args: SolveArgs, note=print) -> dict[str, Any]:
        """The keyword options of `solve` that the command line's `args` ask for
        (already checked by `check`); `note` prints a remark to the person."""

    def play(self, game: Game, console: Console, seed: int | None, args: PlayArgs) -> None:
        """An advised game at the terminal (``perfectplay play``)."""
        raise Unsupported(f"{game.name} cannot be played at the terminal")

    def rank(self, game: Game, objective: Objective, after: str, progress: Silent) -> Ranking:
        """Every useful choice at the position `after`, with its exact value."""
        raise Unsupported(f"{game.name} has no guesses to rank ({_owners('rank')} games only)")

    def trade_off(self, game: Game, objective: Objective, after: str) -> TradeOff:
        """P(win within the horizon) against expected cost (``solve --frontier``)."""
        raise Unsupported(
            f"--frontier and --cost-weight need a {_owners('trade_off')} game "
            "and a horizon (--objective probability or probability-then-cost)"
        )

    def position(self, game: Game, after: str, needed_for: str) -> Any:
        """The position the command line's ``--after`` text names, for a command that
        needs one (`needed_for`, as its refusal says: "openings to value")."""
        raise Unsupported(f"{game.name} has no {needed_for} ({_owners('position')} games only)")

    def size(self, game: Game) -> Size | None:
        """The work a solve of `game` is, where the engine can say it before solving."""
        return None

    def check(self, game: Game, args: SolveArgs | PlayArgs) -> None:
        """Refuse, in one line naming them, the options of `args` this engine does not take."""
        taken = self.solve_flags if isinstance(args, SolveArgs) else self.play_flags
        refused = [
            f
            for f in dataclasses.fields(args)
            if f.name not in taken and getattr(args, f.name) != f.default
        ]
        if refused:
            owners = sorted(
                {
                    e.label
                    for e in all_engines()
                    for f in refused
                    if f.name in (e.solve_flags | e.play_flags)
                }
            )
            flags = [f.metadata["flag"] for f in refused]
            listed = ", ".join(flags[:-1]) + " or " + flags[-1] if len(flags) > 1 else flags[0]
            raise Unsupported(f"{game.name} takes no {listed} ({' or '.join(owners)} games only)")


def load(target: str) -> Any:
    """Import what an engine names for a front end (``engine.gym_env``, ``engine.web_board``):
    the attribute a ``"module:attribute"`` string names."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _owners(method: str) -> str:
    """The labels of the engines that do `method` (for "... games only" messages)."""
    return " or ".join(
        e.label for e in all_engines() if getattr(type(e), method) is not getattr(Engine, method)
    )


def all_engines() -> tuple[Engine, ...]:
    """Every engine perfectplay has (imported when asked for: the engine modules import
    their base class from here)."""
    from .deduction.engine import DEDUCTION
    from .markov.engine import MARKOV

    return (DEDUCTION, MARKOV)


def solve(game: Game, objective: Objective | str = "expected", **options: Any) -> Solution:
    """Solve `game` for `objective` with its engine.

    Examples
    --------
    >>> from perfectplay import load_game
    >>> solve(load_game("tricky-trios", ["n=2"])).value
    Fraction(17, 5)
    """
    if isinstance(objective, str):
        horizon = game.default_horizon() if objective == "probability" else None
        objective = Objective(objective, horizon)
    require_supported(game, objective)
    return game.engine.solve(game, objective, **options)
