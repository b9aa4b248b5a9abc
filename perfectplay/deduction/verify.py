"""Re-check an exported strategy tree without the solver: replay every secret by the rules.

The replay reads only the game's scalar rules (``feedback``, ``parse_code``,
``restrict_guesses``): a tree is accepted when every guess is one the rules allow,
every secret reaches a node that guesses it, and every branch is taken by some secret.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..errors import PerfectplayError
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
    game: DeductionGame, node: Any, where: str, history: tuple, index: dict[tuple[int, ...], int]
) -> tuple[np.ndarray, int]:
    """The guess of a tree node and its index, checked against the rules after `history`;
    BadStrategy naming the place (`where`) if the node has no guess or a forbidden one."""
    if not isinstance(node, dict) or not isinstance(node.get("guess"), str):
        raise BadStrategy(f"a node {where} has no guess")
    try:
        code = game.parse_code(node["guess"])
    except PerfectplayError as err:
        raise BadStrategy(f"bad guess {where}: {err}") from None
    key = tuple(int(x) for x in code)
    mask = game.restrict_guesses(history, code[None, :])
    if key not in index or (mask is not None and not mask[0]):
        raise BadStrategy(f"guess {node['guess']} {where} is not allowed by the rules")
    return code, index[key]


def _where(path: list[str]) -> str:
    return "at the start" if not path else "after " + ", ".join(path)


def start(game: DeductionGame, after: Any) -> tuple[tuple, list]:
    """(history, secrets) of the position a tree was solved from (its ``after`` field,
    checked by the rules: every guess allowed, some secret answering it all)."""
    from .position import parse_position

    if after in (None, ""):
        return (), list(game.secrets())
    if not isinstance(after, str):
        raise BadStrategy("the tree's position ('after') is not text")
    try:
        history = parse_position(game, after)
    except PerfectplayError as err:
        raise BadStrategy(f"bad position {after!r}: {err}") from None
    guesses = game.guesses()
    for turn, (g, _) in enumerate(history):
        mask = game.restrict_guesses(history[:turn], guesses[g][None, :])
        if mask is not None and not mask[0]:
            raise BadStrategy(f"the position {after!r} plays a guess the rules forbid")
    left = [s for s in game.secrets() if all(game.feedback(guesses[g], s) == f for g, f in history)]
    if not left:
        raise BadStrategy(f"no secret answers the position {after!r}")
    return history, left


def position_path(game: DeductionGame, played: tuple) -> list[str]:
    """The guesses of a position as the steps of a path (``salet=BBYBB``), for messages."""
    guesses = game.guesses()
    return [f"{game.format_code(guesses[g])}={game.format_feedback(f)}" for g, f in played]


def replay(
    game: DeductionGame, root: dict[str, Any], after: str | None = None, determine: bool = False
) -> Stats:
    """Replay every secret down the tree `root` (nodes ``{"guess": CODE, "next": {FB: node}}``),
    from the position `after` (``GUESS:FEEDBACK,...``; the guesses played count). With
    `determine`, a feedback with no branch is fine when it leaves one secret alone (found
    with the guesses played): the secrets that reach it are all the secrets it leaves."""
    guesses = game.guesses()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    solved = game.solved_feedback()
    limit = len(game.secrets()) + 1
    depths: Counter[int] = Counter()
    taken: set[tuple[int, str]] = set()
    ends: dict[tuple[int, str], list] = {}  # (node, feedback) with no branch -> secrets there
    played, secrets = start(game, after)
    for secret in secrets:
        node, path, history = root, position_path(game, played), played
        while True:
            code, g = checked_guess(game, node, _where(path), history, index)
            f = game.feedback(code, secret)
            if f == solved:
                depths[len(path) + 1] += 1
                break
            label = game.format_feedback(f)
            branches = node.get("next", {})
            if determine and isinstance(branches, dict) and label not in branches:
                ends.setdefault((id(node), label), []).append(secret)
                if len(ends[id(node), label]) > 1:
                    twins = " and ".join(game.format_code(s) for s in ends[id(node), label])
                    raise BadStrategy(
                        f"secrets {twins} are never told apart: no branch "
                        f"{label!r} {_where(path + [node['guess']])}"
                    )
                depths[len(path) + 1] += 1
                break
            if not isinstance(branches, dict) or label not in branches:
                raise BadStrategy(
                    f"secret {game.format_code(secret)} is never solved: no branch "
                    f"{label!r} {_where(path + [node['guess']])}"
                )
            taken.add((id(node), label))
            path = path + [f"{node['guess']}={label}"]
            history = history + ((g, f),)
            node = branches[label]
            if len(path) > limit:
                raise BadStrategy(
                    f"secret {game.format_code(secret)} is never solved (the tree loops)"
                )
    _check_every_branch_taken(root, taken)
    total = sum(d * k for d, k in depths.items())
    return Stats(total, sum(depths.values()), max(depths), dict(depths))


def _check_every_branch_taken(root: dict[str, Any], taken: set[tuple[int, str]]) -> None:
    stack = [(root, [])]
    while stack:
        node, path = stack.pop()
        for label, child in (node.get("next") or {}).items():
            if (id(node), label) not in taken:
                raise BadStrategy(
                    f"wrong feedback edge: no secret answers {node['guess']} with "
                    f"{label!r} {_where(path)}"
                )
            stack.append((child, path + [f"{node['guess']}={label}"]))


def verify_document(game: DeductionGame, doc: Any) -> tuple[Stats, str]:
    """Replay the tree of an exported solution; also reject totals that disagree with it.

    A tree for the probability objective (one with a ``horizon``) is replayed by
    ``verify_win.replay_within``; its Stats then count the won secrets only.
    """
    strategy = tree_document(doc)
    if strategy.get("horizon") is not None:
        from .verify_win import replay_within

        wins, _, histogram, _ = replay_within(
            game,
            strategy["root"],
            int(strategy["horizon"]),
            strategy.get("after"),
            bool(strategy.get("determine")),
        )
        if strategy.get("wins", wins) != wins:
            raise BadStrategy(
                f"the file says {strategy['wins']} secrets won but the replay wins {wins}"
            )
        return (
            Stats(
                sum(d * k for d, k in histogram.items()), wins, max(histogram, default=0), histogram
            ),
            str(strategy.get("label", "unlabelled")),
        )
    stats = replay(game, strategy["root"], strategy.get("after"), bool(strategy.get("determine")))
    for field in ("total", "worst"):
        if field in strategy and strategy[field] != getattr(stats, field):
            raise BadStrategy(
                f"the file says {field} {strategy[field]} but the replay gives "
                f"{getattr(stats, field)}"
            )
    return stats, str(strategy.get("label", "unlabelled"))
