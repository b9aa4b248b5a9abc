"""The catalogue: game names mapped to their rule modules, loaded by name and parameters."""

from __future__ import annotations

import importlib
import re
from functools import cache

from .errors import PerfectplayError, UnknownGame
from .game import Game
from .params import parse_assignments

# Rule modules, imported only when the catalogue is read (they import nothing heavy).
_ENTRIES = {
    "dice-cards": "perfectplay.games.dice_cards:DiceCards",
    "tricky-trios": "perfectplay.games.tricky_trios:TrickyTrios",
    "mastermind": "perfectplay.games.mastermind:Mastermind",
    "permutation": "perfectplay.games.permutation:Permutation",
    "bulls-and-cows": "perfectplay.games.bulls_and_cows:BullsAndCows",
    "item-matching": "perfectplay.games.item_matching:ItemMatching",
    "wordle": "perfectplay.games.wordle:Wordle",
}


@cache
def game_class(name: str) -> type[Game]:
    """The class implementing the game called `name`; UnknownGame if there is none."""
    try:
        target = _ENTRIES[name]
    except KeyError:
        known = ", ".join(sorted(_ENTRIES))
        raise UnknownGame(f"unknown game {name!r} (known games: {known})") from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def game_names() -> list[str]:
    return sorted(_ENTRIES)


def load_game(spec: str, words: list[str] | None = None) -> Game:
    """Build a game from ``"name"`` plus ``["key=value", ...]`` or from ``"name(k=v,...)"``.

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
        words = [w for w in inner.split(",") if w.strip()] + words
    cls = game_class(name)
    return cls(**parse_assignments(name, cls.param_specs(), words))


def game_of_document(doc: object) -> Game:
    """The game an exported solution document was solved for (its name and parameters)."""
    if not isinstance(doc, dict) or doc.get("format") != "perfectplay-solution":
        raise PerfectplayError("not a perfectplay solution file")
    params = doc.get("params") if isinstance(doc.get("params"), dict) else {}
    return load_game(str(doc.get("game")), [f"{k}={v}" for k, v in params.items()])
