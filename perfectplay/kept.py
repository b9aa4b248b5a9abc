"""Solved strategies of staged games (Yahtzee, Yatzy), kept in the user's cache so that a
game solved once on this machine is played at once after: by ``play`` at the terminal, by
a server started again, by a second visitor.

A staged game's document holds one value a stage (Yahtzee's 4 MB, Yatzy's 11 MB of
JSON), read back in a tenth to a half of a second where solving takes 10 to 90 s. The
file is named by a digest of all that decides the values: the game as written with its
parameters, the objective, the package's sources and library versions
(``kernel_cache.package_digest``) and the source files of the game's classes (a plug-in's
too), so that a changed rule or engine solves afresh. It is written under another name
and renamed (``solution.write_json_atomically``); a file that cannot be read as the
game's strategy is ignored (and solved again), and a cache that cannot be written is
left alone. Other Markov games are not kept: their documents list every state (millions
for the large ones), and they solve in a few seconds.

Beside a staged game's document, its stages' second moments of the score to come
(``StagedStrategy.moments``: the spread ``play`` shows beside each option's mean) are
kept as a NumPy file (``.moments.npy``, 8 bytes a stage code) once first worked out.

The folder is held to KEPT_BYTES: a target's strategy is large (Yahtzee's to 300: 580
MB), and a web page may ask for any target; the strategies read least recently are
removed first as another is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import os
from pathlib import Path

from .errors import PerfectplayError
from .game import Game
from .objectives import Objective
from .solution import Solution
from .strategy import Strategy

#: Environment variable naming the folder of kept strategies (tests point it elsewhere;
#: by default the ``strategies`` folder of the user's perfectplay cache).
FOLDER_ENV = "PERFECTPLAY_STRATEGIES"
#: The most the kept strategies take on disk: beyond it, those read least recently are
#: removed as another is kept (a target's are large: Yahtzee's to 300, 580 MB; a web
#: page may ask for any target up to 300).
KEPT_BYTES = 4 << 30


def kept_path(game: Game, objective: Objective) -> Path | None:
    """Where `game`'s strategy for `objective` is kept (None: a game whose strategies are
    not kept: not staged)."""
    if game.kind != "markov" or game.stages() is None:
        return None
    from .kernel_cache import cache_home, package_digest

    digest = hashlib.sha256(f"{game}\0{objective}\0{package_digest()}".encode())
    for source in sorted({_source(cls) for cls in type(game).__mro__} - {None}):
        digest.update(Path(source).read_bytes())
    folder = Path(os.environ.get(FOLDER_ENV) or cache_home() / "strategies")
    return folder / f"{game.name}-{digest.hexdigest()[:32]}.json"


def _source(cls: type) -> str | None:
    """The file defining `cls`, where it has one."""
    try:
        return inspect.getsourcefile(cls)
    except TypeError:  # (a built-in class: object)
        return None


def kept_strategy(game: Game, objective: Objective) -> Strategy | None:
    """`game`'s strategy for `objective` as kept (its document: ``Strategy.document``),
    if one is kept and reads as the game's strategy (``catalogue.load_strategy``); else
    None."""
    path = kept_path(game, objective)
    return None if path is None else read_kept(path)


def read_kept(path: Path) -> Strategy | None:
    """The strategy kept in `path`, if it is there and reads as a strategy; else None."""
    from .catalogue import load_strategy

    if not path.is_file():
        return None
    try:
        with open(path) as handle:
            strategy = load_strategy(json.load(handle))
        os.utime(path)  # (read now: the last to be removed, ``_within_room``)
    except (OSError, ValueError, PerfectplayError):
        return None
    _keep_moments_beside(strategy, path)
    return strategy


def _keep_moments_beside(strategy: Strategy, path: Path | None) -> None:
    """Have a staged strategy keep its stages' second moments (the spread ``play``
    shows beside each option's mean) beside its kept document, worked out once."""
    if path is not None and hasattr(strategy, "moments_file"):
        strategy.moments_file = path.with_suffix(".moments.npy")


def keep_solution(path: Path | None, solution: Solution) -> bool:
    """Keep `solution`'s document (``Solution.write``) in `path` (``kept_path``: None, a
    game not kept); False where it is not kept (also a cache that cannot be written)."""
    if path is None:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        solution.write(path)
    except (OSError, PerfectplayError):
        return False
    with contextlib.suppress(OSError):  # (another process removing files meanwhile)
        _within_room(path)
    return True


def _within_room(kept: Path) -> None:
    """The kept strategies held to KEPT_BYTES on disk: those read or kept least recently
    removed first (each with the files beside it: its second moments), never `kept`'s."""
    groups: dict[str, list[Path]] = {}
    for file in kept.parent.iterdir():
        if file.is_file() and not file.name.startswith("."):  # (not a file being written)
            groups.setdefault(file.name.split(".")[0], []).append(file)
    sizes = {name: sum(f.stat().st_size for f in files) for name, files in groups.items()}
    total = sum(sizes.values())
    mine = kept.name.split(".")[0]
    oldest = sorted(groups, key=lambda name: max(f.stat().st_mtime for f in groups[name]))
    for name in oldest:
        if total <= KEPT_BYTES:
            return
        if name != mine:
            for file in groups[name]:
                file.unlink(missing_ok=True)
            total -= sizes[name]


def strategy_for(game: Game, objective: Objective = Objective(), progress=None) -> Strategy:
    """The strategy a Markov game is played with (floating point): the kept one, else
    solved (with `progress`) and kept."""
    from .catalogue import strategy_of
    from .engine import solve

    kept = kept_strategy(game, objective)
    if kept is not None:
        return kept
    solution = solve(game, objective, progress=progress, exact=False)
    strategy = strategy_of(game, solution)
    path = kept_path(game, objective)
    if keep_solution(path, solution):
        _keep_moments_beside(strategy, path)
    return strategy
