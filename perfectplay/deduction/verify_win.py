"""Re-check an exported strategy for the probability objective by the rules alone.

Every secret is replayed down the tree with the game's scalar ``feedback``; each guess
must be allowed by ``restrict_guesses`` after the history that led to it, the tree may
not be deeper than the horizon, and every branch must be taken by some secret. A secret
is won when a guess equals it; one whose feedback has no branch (or that runs out of
guesses) is lost. The count of won secrets is the strategy's value.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .model import DeductionGame


def replay_within(game: DeductionGame, root: dict[str, Any], horizon: int) -> tuple[int, int, dict[int, int]]:
    """(won secrets, all secrets, wins by guess number) of the tree `root` within `horizon`."""
    from .verify import BadStrategy, checked_guess

    guesses = game.guesses()
    index = {tuple(c): i for i, c in enumerate(guesses.tolist())}
    solved = game.solved_feedback()
    secrets = [tuple(int(x) for x in s) for s in game.secrets().tolist()]
    wins: Counter[int] = Counter()
    stack: list[tuple[dict, list, tuple, list[str]]] = [(root, secrets, (), [])]
    while stack:
        node, group, history, path = stack.pop()
        where = "at the start" if not path else "after " + ", ".join(path)
        if len(path) >= horizon and isinstance(node, dict) and isinstance(node.get("guess"), str):
            raise BadStrategy(f"the tree guesses {where}, beyond the horizon of {horizon} guesses")
        code, g = checked_guess(game, node, where, history, index)
        cells: dict[int, list] = {}
        for secret in group:
            cells.setdefault(game.feedback(code, secret), []).append(secret)
        wins[len(path) + 1] += len(cells.pop(solved, []))
        branches = node.get("next") or {}
        if not isinstance(branches, dict):
            raise BadStrategy(f"the branches {where} are not a mapping")
        labels = {game.format_feedback(f): f for f in cells}
        for label, child in branches.items():
            if label not in labels:
                raise BadStrategy(f"wrong feedback edge: no secret answers {node['guess']} with "
                                  f"{label!r} {where}")
            f = labels[label]
            stack.append((child, cells[f], history + ((g, f),),
                          path + [f"{node['guess']}={label}"]))
    return sum(wins.values()), len(secrets), dict(wins)
