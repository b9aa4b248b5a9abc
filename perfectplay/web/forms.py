"""Requests read as the command line reads its arguments: the same games, parameters,
objectives and one-line messages, plus the web's own limits (no file parameters, sizes
capped)."""

from __future__ import annotations

from functools import lru_cache

from typing import Any, Mapping

from ..catalogue import game_class, load_game
from ..errors import BadParameter, PerfectplayError
from ..game import Game
from ..engine import engine_of, require_supported
from ..objectives import OBJECTIVES, WITHIN, Objective

#: At most this much work, in the unit the game's engine measures it (``Engine.size``:
#: deduction games count guess-secret pairs: Wordle on its original lists is 30 million,
#: on the New York Times lists of 2023 47 million).
MAX_SIZE = 47_000_000
#: Parameters capped below their command-line range on the web ("game": {"param": max}).
WEB_LIMITS: dict[str, dict[str, int]] = {
    "dice-cards": {"n": 8},
    "tricky-trios": {"n": 9},
    "item-matching": {"slots": 5, "items": 8},
}
#: The web page's defaults where the command line's are more than it solves ("game":
#: {"param": value}): item matching's 7 items over 5 slots are 282 million pairs.
WEB_DEFAULTS: dict[str, dict[str, int]] = {"item-matching": {"items": 4}}
#: What a game's form says before a solve is started ("game": text): how long the
#: solve the form asks for takes, where that is more than the page waits.
SOLVE_NOTES: dict[str, str] = {
    "wordle": (
        "A full proof of Wordle's best play over all 12,972 first guesses took 2.2 hours "
        "on a 2-core machine (about 4.2 core-hours; measured 2026 on the original lists, "
        "docs/cluster.md), and this page stops a solve after 300 s: give a first guess "
        "(salet is the proven best) and the solve proves the best play after it."
    )
}
#: Longest game played on the web (turns).
MAX_TURNS = 40
#: The highest target score a board of a scored game plays for (Yahtzee's to 300: 5 min
#: and 1.3 GB once, then kept).
MAX_TARGET = 300


class TooLarge(PerfectplayError):
    """A request for more than the web page computes."""


def web_default(game: str, param: str) -> int | None:
    """The web page's own default of `param` of `game`, where it has one."""
    return WEB_DEFAULTS.get(game, {}).get(param)


def web_high(game: str, spec) -> int:
    """The most the web page takes of the integer parameter `spec` of `game`: the game's
    own bound, or the web's lower one (``WEB_LIMITS``)."""
    return min(spec.high, WEB_LIMITS.get(game, {}).get(spec.name, spec.high))


@lru_cache(maxsize=64)
def _markov_games(name: str, words: tuple[str, ...]) -> Game:
    """A Markov game read once for all the requests that name it: what it builds for
    itself is built once (Yatzy's stages: 0.16 s, which every page of its board paid)."""
    return load_game(name, list(words))


def read_game(name: str, fields: Mapping[str, Any]) -> Game:
    """The game `name` with the parameters in `fields` (those it declares; others are
    ignored; those missing take the web page's default, else the game's), checked as the
    command line checks them, then against the web's limits."""
    cls = game_class(name)
    words = []
    for spec in cls.param_specs():
        raw = fields.get(spec.name)
        if raw is None or str(raw).strip() == "":
            raw = web_default(name, spec.name)
            if raw is None:
                continue
        if spec.path:
            raise BadParameter(f"{spec.name} names a file; the web page uses the game's own data")
        words.append(f"{spec.name}={str(raw).strip()}")
    game = _markov_games(name, tuple(words)) if cls.kind == "markov" else load_game(name, words)
    for param, high in WEB_LIMITS.get(name, {}).items():
        if game.params[param] > high:
            raise TooLarge(
                f"{param}={game.params[param]} is more than the web page solves "
                f"(at most {high}; the command line goes further)"
            )
    size = engine_of(game).size(game)
    if size is not None and size.count > MAX_SIZE:
        raise TooLarge(
            f"{game} has {size.count:,} {size.unit}, more than the web page "
            f"solves (at most {MAX_SIZE:,}; the command line goes further)"
        )
    return game


def read_first(game: Game, fields: Mapping[str, Any]) -> str | None:
    """The first guess the form asks a deduction solve to play (None: the solver's own
    choice), checked as the game reads a guess."""
    text = str(fields.get("first") or "").strip()
    if not text:
        return None
    if game.kind != "deduction":
        raise BadParameter(f"{game.name} has no guesses: a first guess is for deduction games")
    engine_of(game).guess_index(game, text)
    return text


def read_objective(game: Game, fields: Mapping[str, Any]) -> Objective:
    """The objective (and horizon) in `fields`, the game's own by default, in the page's
    words where the command line's name its options."""
    name = str(fields.get("objective") or game.default_objective)
    raw = str(fields.get("horizon") or "").strip()
    most = MAX_TARGET if game.pays else MAX_TURNS  # (a target score, or guesses or moves)
    horizon = _horizon(raw, most) if raw else game.default_horizon() if name in WITHIN else None
    if raw and name in OBJECTIVES and name not in WITHIN:
        raise BadParameter(
            f"a horizon goes with the objective probability (or probability-then-cost), "
            f"not {name!r}: leave it empty or pick one of those"
        )
    if name in WITHIN and horizon is None:
        raise BadParameter(
            f"objective {name!r} needs a horizon: the guesses or moves to finish within"
        )
    objective = Objective(name, horizon)
    require_supported(game, objective)
    return objective


def _horizon(raw: str, most: int) -> int:
    """The horizon typed in the form, checked against the web's limit `most`."""
    try:
        horizon = int(raw)
    except ValueError:
        raise BadParameter(f"horizon must be a whole number, got {raw!r}") from None
    if horizon < 1:
        raise BadParameter(f"horizon must be at least 1, got {horizon}")
    if horizon > most:
        raise TooLarge(f"horizon {horizon} is more than the web page solves (at most {most})")
    return horizon
