"""Re-check an exported strategy for the probability objective by the rules alone.

Every secret is replayed down the tree with the game's scalar ``feedback``; each guess
must be allowed by ``restrict_guesses`` after the history that led to it, the tree may
not be deeper than the horizon, and every branch must be taken by some secret. A secret
is won when a guess equals it (or, with ``determine``, when a feedback leaves it alone);
one whose feedback has no branch (or that runs out of guesses) is lost otherwise. The
count of won secrets is the strategy's value.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .model import DeductionGame


def replay_within(
    game: DeductionGame,
    root: dict[str, Any],
    horizon: int,
    after: str | None = None,
    determine: bool = False,
) -> tuple[int, int, dict[int, int], int]:
    """(won secrets, all secrets, wins by guess number, total cost) of the tree `root`
    within `horizon` guesses from the start, played from the position `after`
    (``GUESS:FEEDBACK,...``); the total cost sums each guess's ``guess_cost`` over the
    secrets that reach it."""
    from .verify import BadStrategy, checked_guess, position_path, start

    guesses = game.guesses()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    solved = game.solved_feedback()
    played, left = start(game, after)
    secrets = [tuple(int(x) for x in s) for s in left]
    wins: Counter[int] = Counter()
    cost = 0
    stack: list[tuple[dict, list, tuple, list[str]]] = [
        (root, secrets, played, position_path(game, played))
    ]
    while stack:
        node, group, history, path = stack.pop()
        where = "at the start" if not path else "after " + ", ".join(path)
        if len(path) >= horizon and isinstance(node, dict) and isinstance(node.get("guess"), str):
            raise BadStrategy(f"the tree guesses {where}, beyond the horizon of {horizon} guesses")
        code, g = checked_guess(game, node, where, history, index)
        cost += game.guess_cost(code, history) * len(group)
        cells: dict[int, list] = {}
        for secret in group:
            cells.setdefault(game.feedback(code, secret), []).append(secret)
        won = len(cells.pop(solved, []))
        if determine:
            found = [f for f, group in cells.items() if len(group) == 1]
            won += len(found)
            for f in found:
                del cells[f]
        if won:
            wins[len(path) + 1] += won
        branches = node.get("next") or {}
        if not isinstance(branches, dict):
            raise BadStrategy(f"the branches {where} are not a mapping")
        labels = {game.format_feedback(f): f for f in cells}
        for label, child in branches.items():
            if label not in labels:
                raise BadStrategy(
                    f"wrong feedback edge: no secret answers {node['guess']} with {label!r} {where}"
                )
            f = labels[label]
            stack.append(
                (child, cells[f], history + ((g, f),), path + [f"{node['guess']}={label}"])
            )
    return sum(wins.values()), len(secrets), dict(wins), cost
