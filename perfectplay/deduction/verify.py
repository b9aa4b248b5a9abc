"""Re-check an exported strategy tree without the solver: replay every secret by the rules.

The replay reads only the game's scalar rules (``feedback``, ``parse_code``,
``restrict_guesses``), each answer checked as the engine checks it (``contract``),
handing them what the engine hands them: codes as rows of
``guesses()`` and ``secrets()`` (one-dimensional int8 arrays), never tuples, so that rules
written with array operations mean the same here. A tree is accepted when every guess is one the rules allow,
every secret reaches a node that guesses it (within a horizon: the secrets won are
counted instead), and every branch is taken by some secret. One replayer serves every
objective (`replay`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import PerfectplayError
from .contract import codes, feedback, sizes
from .model import DeductionGame
from .tree import Stats


class BadStrategy(PerfectplayError):
    """A file that is not a valid strategy tree for its game."""


def tree_document(doc: Any) -> dict[str, Any]:
    """The strategy part of an exported solution, checked for shape."""
    if not isinstance(doc, dict) or doc.get("format") != "perfectplay-solution":
        raise BadStrategy("not a perfectplay solution file")
    strategy = doc.get("strategy")
    if not isinstance(strategy, dict) or strategy.get("kind") != "deduction-tree":
        raise BadStrategy("the file holds no deduction strategy tree")
    if not isinstance(strategy.get("root"), dict):
        raise BadStrategy("the strategy tree has no root node")
    return strategy


def checked_guess(
    game: DeductionGame,
    node: Any,
    where: str,
    history: tuple,
    guesses: np.ndarray,
    index: dict[tuple[int, ...], int],
) -> int:
    """The index in `guesses` (``game.guesses()``; `index` maps their codes to it) of a
    tree node's guess, checked against the rules after `history`; BadStrategy naming the
    place (`where`) if the node has no guess or a forbidden one."""
    if not isinstance(node, dict) or not isinstance(node.get("guess"), str):
        raise BadStrategy(f"a node {where} has no guess")
    try:
        code = game.parse_code(node["guess"])
    except PerfectplayError as err:
        raise BadStrategy(f"bad guess {where}: {err}") from None
    g = index.get(tuple(int(x) for x in code))
    mask = None if g is None else game.restrict_guesses(history, guesses[g][None, :])
    if g is None or (mask is not None and not mask[0]):
        raise BadStrategy(f"guess {node['guess']} {where} is not allowed by the rules")
    return g


def _where(path: list[str]) -> str:
    return "at the start" if not path else "after " + ", ".join(path)


def start(game: DeductionGame, after: Any) -> tuple[tuple, list]:
    """(history, secrets) of the position a tree was solved from (its ``after`` field,
    checked by the rules: every guess allowed, some secret answering it all)."""
    from .position import parse_position

    if after in (None, ""):
        return (), list(codes(game).secrets)
    if not isinstance(after, str):
        raise BadStrategy("the tree's position ('after') is not text")
    try:
        history = parse_position(game, after)
    except PerfectplayError as err:
        raise BadStrategy(f"bad position {after!r}: {err}") from None
    listed = codes(game)
    guesses = listed.guesses
    for turn, (g, _) in enumerate(history):
        mask = game.restrict_guesses(history[:turn], guesses[g][None, :])
        if mask is not None and not mask[0]:
            raise BadStrategy(f"the position {after!r} plays a guess the rules forbid")
    left = [
        s for s in listed.secrets if all(feedback(game, guesses[g], s) == f for g, f in history)
    ]
    if not left:
        raise BadStrategy(f"no secret answers the position {after!r}")
    return history, left


def position_path(game: DeductionGame, played: tuple) -> list[str]:
    """The guesses of a position as the steps of a path (``salet=BBYBB``), for messages."""
    guesses = game.guesses()
    return [f"{game.format_code(guesses[g])}={game.format_feedback(f)}" for g, f in played]


@dataclass(frozen=True)
class Replay:
    """What replaying a tree over every secret found."""

    won: int  # secrets solved (or determined); all of them without a horizon
    secrets: int  # secrets at the tree's start
    histogram: dict[int, int]  # guesses played (the position's included) -> secrets won so
    cost: int  # each guess's ``guess_cost``, summed over the secrets that reach it

    @property
    def stats(self) -> Stats:
        """The won secrets' Stats (total guesses, worst case, histogram)."""
        total = sum(d * k for d, k in self.histogram.items())
        return Stats(total, self.won, max(self.histogram, default=0), self.histogram)


def replay(
    game: DeductionGame,
    root: dict[str, Any],
    after: str | None = None,
    determine: bool = False,
    horizon: int | None = None,
) -> Replay:
    """Replay every secret down the tree `root` (nodes ``{"guess": CODE, "next": {FB: node}}``)
    from the position `after` (``GUESS:FEEDBACK,...``; its guesses count), by the rules.

    Every guess must be one the rules allow after the history that led to it, and every
    branch must be taken by some secret. Without a `horizon` every secret must be solved:
    a feedback with no branch is an error, unless with `determine` it leaves one secret
    alone (found with the guesses played). Within a `horizon`, the tree may not guess
    beyond it, a secret whose feedback has no branch is lost, and with `determine` a
    feedback that leaves one secret alone wins it at once.
    """
    guesses = codes(game).guesses
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    solved = sizes(game).solved
    played, left = start(game, after)
    secrets = list(left)
    limit = len(secrets) + len(played) + 1
    wins: Counter[int] = Counter()
    cost = 0
    untaken: str | None = None  # the first branch no secret takes (reported last)
    stack = [(root, secrets, played, position_path(game, played))]
    while stack:
        node, group, history, path = stack.pop()
        where = _where(path)
        if horizon is not None and len(path) >= horizon and isinstance(node, dict):
            if isinstance(node.get("guess"), str):
                raise BadStrategy(
                    f"the tree guesses {where}, beyond the horizon of {horizon} guesses"
                )
        if len(path) > limit:
            raise BadStrategy(
                f"secret {game.format_code(group[0])} is never solved (the tree loops)"
            )
        g = checked_guess(game, node, where, history, guesses, index)
        code = guesses[g]
        cost += game.guess_cost(code, history) * len(group)
        cells: dict[int, list] = {}
        for secret in group:
            cells.setdefault(feedback(game, code, secret), []).append(secret)
        won = len(cells.pop(solved, []))
        branches = node.get("next") or {}
        if not isinstance(branches, dict):
            raise BadStrategy(f"the branches {where} are not a mapping")
        labels = {game.format_feedback(f): f for f in cells}
        for f in list(cells):
            label = game.format_feedback(f)
            alone = determine and len(cells[f]) == 1
            if alone and (horizon is not None or label not in branches):
                won += 1
                del cells[f]
            elif label not in branches and horizon is None:
                step = _where(path + [node["guess"]])
                if determine:
                    twins = " and ".join(game.format_code(s) for s in cells[f])
                    raise BadStrategy(
                        f"secrets {twins} are never told apart: no branch {label!r} {step}"
                    )
                raise BadStrategy(
                    f"secret {game.format_code(cells[f][0])} is never solved: no branch "
                    f"{label!r} {step}"
                )
        if won:
            wins[len(path) + 1] += won
        for label, child in branches.items():
            f = labels.get(label)
            if f is None or f not in cells:
                untaken = untaken or (
                    f"wrong feedback edge: no secret answers {node['guess']} with {label!r} {where}"
                )
                continue
            stack.append(
                (child, cells[f], history + ((g, f),), path + [f"{node['guess']}={label}"])
            )
    if untaken is not None:
        raise BadStrategy(untaken)
    return Replay(sum(wins.values()), len(secrets), dict(wins), cost)


def verify_document(game: DeductionGame, doc: Any) -> tuple[Replay, str]:
    """Replay the tree of an exported solution; also reject totals that disagree with it.
    Returns the replay and the tree's label.

    A tree for the probability objective (one with a ``horizon``) is replayed within it;
    its Stats then count the won secrets only.
    """
    strategy = tree_document(doc)
    horizon = strategy.get("horizon")
    result = replay(
        game,
        strategy["root"],
        strategy.get("after"),
        bool(strategy.get("determine")),
        None if horizon is None else int(horizon),
    )
    if horizon is not None:
        if strategy.get("wins", result.won) != result.won:
            raise BadStrategy(
                f"the file says {strategy['wins']} secrets won but the replay wins {result.won}"
            )
        return result, str(strategy.get("label", "unlabelled"))
    stats = result.stats
    for field in ("total", "worst"):
        if field in strategy and strategy[field] != getattr(stats, field):
            raise BadStrategy(
                f"the file says {field} {strategy[field]} but the replay gives "
                f"{getattr(stats, field)}"
            )
    return result, str(strategy.get("label", "unlabelled"))
