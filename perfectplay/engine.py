"""The Engine interface: everything that varies with the kind of game, owned by one
object per kind.

A game's engine is ``engine_of(game)``: the engine installed for its ``kind``. The command
line, the web page and the Gymnasium wrapper ask the engine instead of testing the
game's kind: how to solve (``solve``), which of the command line's engine options it
takes and what they become (``solve_options``), what it ranks or trades off (``rank``,
``trade_off``), what a position given as ``--after`` text is (``position``) and how
large a request is (``size``).

This module is vocabulary: it imports no engine. The engines themselves
(``deduction/engine.py``, ``markov/engine.py``) subclass `Engine`, and the registry
(``engines.py``, which the package imports first) installs them here with `install`, so
that a game's engine is found by its kind without the rules importing an engine.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import Unsupported
from .objectives import Objective

if TYPE_CHECKING:
    from .game import Game
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
    #: The solution is written in full (--json, --out, --plot): what only a document or
    #: a picture shows is made too (a staged game's score distribution).
    written: bool = _flag("--json/--out/--plot", False)

    def without_names(self) -> tuple[str, ...]:
        """The speed-ups named by ``--without`` (comma-separated; blanks ignored)."""
        return tuple(n.strip() for n in self.without.split(",") if n.strip())


@dataclass(frozen=True)
class PlayArgs:
    """The engine options of ``perfectplay play`` as given (None: not given)."""

    secret: str | None = _flag("--secret")
    budget: float | None = _flag("--budget")
    enter_chance: bool = _flag("--enter-chance", False)
    position: str | None = _flag("--position")
    objective: Objective | None = _flag("--objective")  # (None: the game's own)


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

    def rank(self, game: Game, objective: Objective, after: str, progress: Silent) -> Ranking:
        """Every useful choice at the position `after`, with its exact value."""
        raise Unsupported(f"{game.name} has no guesses to rank ({_owners('rank')} games only)")

    def trade_off(self, game: Game, objective: Objective, after: str) -> TradeOff:
        """P(win within the horizon) against expected cost (``solve --frontier``)."""
        raise Unsupported(
            f"--frontier and --cost-weight need a {_owners('trade_off')} game "
            "and a horizon (--objective probability or probability-then-cost)"
        )

    def player(
        self, game: Game, progress: Silent, kept: Any, objective: Objective = Objective()
    ) -> tuple[float, Any]:
        """`game`'s optimal strategy for `objective`, ready to play (``simulation
        .simulate``): the value its solve gives, and ``play(games, seed, done)``: each
        game's final number in the game's terms (a float array), `done` told the games
        played so far. `kept` is ``kept.strategy_for`` (a staged game's strategy kept,
        else solved and kept: the registry's, passed down)."""
        raise Unsupported(f"{game.name}: simulate plays {_owners('player')} games")

    def position(self, game: Game, after: str, needed_for: str) -> Any:
        """The position the command line's ``--after`` text names, for a command that
        needs one (`needed_for`, as its refusal says: "openings to value")."""
        raise Unsupported(f"{game.name} has no {needed_for} ({_owners('position')} games only)")

    def size(self, game: Game) -> Size | None:
        """The work a solve of `game` is, where the engine can say it before solving."""
        return None

    def check_size(self, game: Game) -> None:
        """Refuse, in one line, a game whose rules alone would not fit in memory (a
        deduction game's codes, listed by every command), before anything allocates
        them: asked when a game is loaded (``catalogue.load_game``). Nothing by default:
        a Markov game holds nothing until it is solved (the solve estimates its states)."""
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
                    for e in installed()
                    for f in refused
                    if f.name in (e.solve_flags | e.play_flags)
                }
            )
            flags = [f.metadata["flag"] for f in refused]
            listed = ", ".join(flags[:-1]) + " or " + flags[-1] if len(flags) > 1 else flags[0]
            raise Unsupported(f"{game.name} takes no {listed} ({' or '.join(owners)} games only)")


def _owners(method: str) -> str:
    """The labels of the engines that do `method` (for "... games only" messages)."""
    return " or ".join(
        e.label for e in installed() if getattr(type(e), method) is not getattr(Engine, method)
    )


_INSTALLED: dict[str, Engine] = {}


def install(*engines: Engine) -> None:
    """Make `engines` the engines of their kinds (the registry, ``engines.py``, does)."""
    _INSTALLED.update({e.kind: e for e in engines})


def installed() -> tuple[Engine, ...]:
    """Every installed engine."""
    return tuple(_INSTALLED.values())


def engine_of(game: Game | type[Game]) -> Engine:
    """The engine of `game` (a game or its class): the one installed for its ``kind``;
    Unsupported if there is none."""
    kind = getattr(game, "kind", None)
    engine = _INSTALLED.get(kind) if isinstance(kind, str) else None
    if engine is None:
        name = getattr(game, "name", type(game).__name__)
        raise Unsupported(
            f"game {name!r} has no engine (its kind {kind!r}; subclass MarkovGame or DeductionGame)"
        )
    return engine


def require_supported(game: Game, objective: Objective) -> None:
    """Raise Unsupported unless `game` declares support for `objective`."""
    if objective.determine and not engine_of(game).determines:
        raise Unsupported(
            f"{game.name} has no secret to determine (--determine is for deduction games)"
        )
    if objective.name not in game.objectives:
        raise Unsupported(
            f"{game.name} does not support objective {objective.name!r} "
            f"(supported: {', '.join(game.objectives)})"
        )


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
    return engine_of(game).solve(game, objective, **options)
