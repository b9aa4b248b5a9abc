"""The catalogue: game names mapped to their rule classes, loaded by name and parameters,
and solution documents read back into their game and strategy (`load_strategy`).

Three sources, later ones winning on a name clash: the games shipped here; games of
installed packages, declared as entry points in the group ``perfectplay.games``
(``hilo = my_games:HiLo`` in ``[project.entry-points."perfectplay.games"]``); and games
registered at run time with `register`. Every game of the catalogue can be named on the
command line (``list``, ``solve``, ``verify``, ``show``, ``play``) and in ``load_game``.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from . import engines as _installs_the_engines  # noqa: F401 (engine_of finds them)
from .engine import engine_of, installed
from .errors import BadFile, PerfectplayError, Unsupported, UnknownGame, in_rule
from .game import Game
from .params import parse_assignments
from .strategy import Strategy

if TYPE_CHECKING:
    from .solution import Solution

#: Entry-point group of game plug-ins.
PLUGIN_GROUP = "perfectplay.games"

# Rule modules, imported only when the catalogue is read (they import nothing heavy).
_ENTRIES = {
    "dice-cards": "perfectplay.games.dice_cards:DiceCards",
    "tricky-trios": "perfectplay.games.tricky_trios:TrickyTrios",
    "mastermind": "perfectplay.games.mastermind:Mastermind",
    "permutation": "perfectplay.games.permutation:Permutation",
    "bulls-and-cows": "perfectplay.games.bulls_and_cows:BullsAndCows",
    "item-matching": "perfectplay.games.item_matching:ItemMatching",
    "wordle": "perfectplay.games.wordle:Wordle",
    "yahtzee": "perfectplay.games.yahtzee:Yahtzee",
    "yatzy": "perfectplay.games.yahtzee:Yatzy",
}
_REGISTERED: dict[str, type[Game]] = {}


class BadGame(PerfectplayError):
    """A game class that cannot join the catalogue (not a Game, no name, no engine)."""


def register(cls: type[Game]) -> type[Game]:
    """Add the game class `cls` to the catalogue under ``cls.name``; usable as a decorator.

    Examples
    --------
    >>> from perfectplay.markov.table import TableGame
    >>> class Coin(TableGame):
    ...     name = "coin"
    ...     summary = "flip a fair coin until heads"
    >>> _ = register(Coin)
    >>> "coin" in game_names()
    True
    """
    _check_class(cls, getattr(cls, "name", None))
    _REGISTERED[cls.name] = cls
    return cls


@cache
def _plugins() -> dict[str, str]:
    """Games of installed packages: entry-point name -> "module:Class". (Read only when
    asked for a game the package does not ship: reading every installed package's entry
    points costs a twentieth of a second at each start.)"""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=PLUGIN_GROUP)}


def _check_class(cls: object, name: str | None) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise BadGame(
            f"game {name!r}: {cls!r} is not a perfectplay Game class "
            "(subclass MarkovGame or DeductionGame)"
        )
    missing = [a for a in ("name", "kind", "summary", "objectives") if not hasattr(cls, a)]
    if missing:
        raise BadGame(f"game class {cls.__name__} does not set {', '.join(missing)}")
    if name is not None and cls.name != name:
        raise BadGame(f"game {name!r}: its class {cls.__name__} is named {cls.name!r}")
    try:
        engine_of(cls)
    except Unsupported as err:
        raise BadGame(str(err)) from None


def game_class(name: str) -> type[Game]:
    """The class implementing the game called `name`; UnknownGame if there is none. A
    registered class first, then the package's own games, then the plug-ins' (a plug-in
    cannot replace a game the package ships)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    target = _ENTRIES.get(name) or _plugins().get(name)
    if target is None:
        raise UnknownGame(f"unknown game {name!r} (known games: {', '.join(game_names())})")
    return _import(name, target)


@cache
def _import(name: str, target: str) -> type[Game]:
    module, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise BadGame(
            f"game {name!r} ({target}) cannot be loaded: {err.__class__.__name__}: {err}"
        ) from None
    _check_class(cls, name)
    return cls


def shipped_names() -> list[str]:
    """The games the package ships (and no registered class replaces): the rules the
    package vouches for, which a server may run before anyone asks (``web.warm``)."""
    return sorted(set(_ENTRIES) - set(_REGISTERED))


def game_names() -> list[str]:
    """Every game the catalogue knows: shipped, plug-ins and registered."""
    return sorted({*_ENTRIES, *_plugins(), *_REGISTERED})


def load_game(spec: str, words: list[str] | None = None) -> Game:
    """Build a game from ``"name"`` plus ``["key=value", ...]`` or from ``"name(k=v,...)"``;
    a game whose rules alone would not fit in memory is refused (``Engine.check_size``),
    and one whose construction raises (its ``__post_init__``: a ``BadParameter`` as it
    is, any other exception as ``BadRules``) in one line.

    Examples
    --------
    >>> load_game("dice-cards", ["n=3"]).n
    3
    >>> str(load_game("tricky-trios(n=4)"))
    'tricky-trios(n=4)'
    """
    words = list(words or [])
    match = re.fullmatch(r"\s*([\w-]+)\s*(?:\((.*)\))?\s*", spec)
    if not match:
        raise UnknownGame(f"cannot read game {spec!r} (expected name or name(key=value,...))")
    name, inner = match.groups()
    if inner:
        pieces: list[str] = []
        for piece in (w for w in inner.split(",") if w.strip()):
            if "=" not in piece and pieces:  # a list value's next item (costs=1,2,3)
                pieces[-1] += "," + piece.strip()
            else:
                pieces.append(piece)
        words = pieces + words
    cls = game_class(name)
    values = parse_assignments(name, cls.param_specs(), words)
    with in_rule(name, "__post_init__"):  # (a game's own check of its parameters)
        game = cls(**values)
    engine_of(game).check_size(game)
    return game


def game_of_document(doc: object) -> Game:
    """The game an exported solution document was solved for (its name and parameters),
    once the fields the checks read are each of their kind (``verdict.check_fields``)."""
    from .verdict import check_fields, short

    if not isinstance(doc, dict) or doc.get("format") != "perfectplay-solution":
        raise PerfectplayError("not a perfectplay solution file")
    check_fields(doc)
    if not re.fullmatch(r"[\w-]{1,64}", doc.get("game", "")):
        raise BadFile(f"the file's game {short(doc.get('game', ''))} is not a game's name")
    params = doc.get("params", {})
    return load_game(doc["game"], [f"{k}={v}" for k, v in params.items()])


def strategy_of(game: Game, solution: Solution) -> Strategy:
    """The strategy of `solution`, just solved for `game`: read from its document as
    ``load_strategy`` reads a file's, save that a target's rows (Yahtzee's to 300: 1.2 GB)
    are taken as they are, not encoded and read back."""
    from .markov.stage_target import TargetRows
    from .markov.target_document import TargetStrategy

    if isinstance(solution.strategy, TargetRows):
        return TargetStrategy.of_solution(game, solution)
    return load_strategy(solution.export())


def load_strategy(document: Any) -> Strategy:
    """The strategy of a solution document (``Solution.export()``, a file's JSON), read
    by the class of its kind; PerfectplayError (one line) if there is none.

    This is the one place that looks at which engine wrote a document; the classes are
    imported when a document is read (they bring the engines' kernels).
    """
    from .deduction.document import TreeStrategy
    from .markov.document import PolicyStrategy
    from .markov.staged_document import StagedStrategy
    from .markov.target_document import TargetStrategy

    game = game_of_document(document)
    raw = document.get("strategy")
    kinds = {
        cls.kind: cls for cls in (TreeStrategy, PolicyStrategy, StagedStrategy, TargetStrategy)
    }
    kind = raw.get("kind") if isinstance(raw, dict) else None
    cls = kinds.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadFile(f"the file holds no strategy for {game.name}")
    if cls.game_kind != game.kind:
        label = next(e.label for e in installed() if e.kind == cls.game_kind)
        raise BadFile(f"{game.name} is not a {label} game")
    return cls(game, document)
