"""Win probability against item cost: every Pareto-optimal strategy of a small game.

Seed 000's Note 2 asks for "the minimum combination of win probability and item cost".
No single number answers it: a strategy is a pair (P(win within T), expected total cost
of its guesses), and the answer is the Pareto frontier, every pair that no other
strategy beats on both at once, each with a strategy reaching it. A strategy may also
stop guessing (costing nothing more, winning nothing more): that is what makes cheap,
unlikely strategies points of the frontier.

This is a plain dynamic programme over (consistent set, restriction state, guesses
left): the frontier of a position is the Pareto-filtered sum over the cells of each
guess of the cells' frontiers, plus stopping. Sums of sets grow fast, so it is for
small instances (``MAX_SECRETS``); the search core handles the lexicographic objective
(``probability-then-cost``) at full size. Any trade-off "maximise P(win) minus w times
the expected cost" is attained on the frontier (``Frontier.weighted``), exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import Unsupported
from .feedback import build_table
from .model import DeductionGame, History
from .partition import cells
from .position import position_secrets
from .tree import Node

#: The most secrets a frontier is computed for (the sums of frontiers grow fast).
MAX_SECRETS = 300


@dataclass(frozen=True)
class Point:
    """A strategy's secrets won and total cost over the secrets (None: stop guessing)."""

    wins: int
    cost: int
    tree: Node | None


@dataclass(frozen=True)
class Frontier:
    """The Pareto-optimal strategies of a position, fewest wins (and least cost) first."""

    secrets: int
    horizon: int
    points: tuple[Point, ...]

    def probability(self, point: Point) -> Fraction:
        return Fraction(point.wins, self.secrets)

    def expected_cost(self, point: Point) -> Fraction:
        return Fraction(point.cost, self.secrets)

    def weighted(self, weight: Fraction) -> tuple[Fraction, Point]:
        """The most P(win) - `weight` * E[cost] any strategy reaches, and a point reaching it
        (the most probable of the ties)."""
        if weight < 0:
            raise Unsupported(f"--cost-weight must be at least 0, got {weight}")

        def worth(p: Point) -> Fraction:
            return self.probability(p) - weight * self.expected_cost(p)

        point = max(self.points, key=lambda p: (worth(p), p.wins))
        return worth(point), point


def _pareto(points: list[tuple[int, int, dict]]) -> list[tuple[int, int, dict]]:
    """The points no other beats on both (more wins, less cost); one per pair."""
    points.sort(key=lambda p: (-p[0], p[1]))
    kept: list[tuple[int, int, dict]] = []
    for p in points:
        if not kept or p[1] < kept[-1][1]:
            kept.append(p)
    return kept


def frontier(
    game: DeductionGame, horizon: int, position: History = (), determine: bool = False
) -> Frontier:
    """Every Pareto-optimal (secrets won within `horizon` guesses from the start, total
    cost) pair after `position`, each with a strategy (see the module's docstring)."""
    table = build_table(game)
    start = position_secrets(table, position)
    if len(start) > MAX_SECRETS:
        raise Unsupported(
            f"{game}: the frontier is for at most {MAX_SECRETS} secrets, here "
            f"{len(start)} (use --objective probability-then-cost)"
        )
    if horizon <= len(position):
        raise Unsupported(f"{game.name}: no guess left within the horizon {horizon}")
    memo: dict[tuple, list[tuple[int, int, dict]]] = {}

    def state_key(history: History) -> bytes:
        allowed, least = game.restriction_state(history)
        return allowed.tobytes() + least.tobytes()

    def solve(part: np.ndarray, history: History, left: int) -> list[tuple[int, int, dict]]:
        """[(wins, cost, {"tree": Node or None})] Pareto-optimal for `part`."""
        if determine and len(part) == 1:
            return [(1, 0, {"tree": None})]
        if left == 0 or len(part) == 0:
            return [(0, 0, {"tree": None})]
        key = (part.tobytes(), state_key(history), left)
        if key in memo:
            return memo[key]
        options = [(0, 0, {"tree": None})]  # stop guessing
        mask = game.restrict_guesses(history, table.guesses)
        allowed = range(len(table.guesses)) if mask is None else np.flatnonzero(mask)
        for g in allowed:
            g = int(g)
            split = cells(table, g, part)
            if len(split) == 1 and split[0][0] != table.solved:
                continue  # learns nothing, wins nothing
            price = game.guess_cost(table.guesses[g], history) * len(part)
            combos = [(0, price, {})]
            for f, c in split:
                if f == table.solved:
                    combos = [(w + 1, k, ch) for w, k, ch in combos]
                    continue
                sub = solve(c, history + ((g, f),), left - 1)
                combos = _pareto(
                    [
                        (w + sw, k + sk, {**ch, f: st["tree"]})
                        for w, k, ch in combos
                        for sw, sk, st in sub
                    ]
                )
            for w, k, ch in combos:
                node = Node(g, {f: t for f, t in ch.items() if t is not None})
                options.append((w, k, {"tree": node}))
        memo[key] = _pareto(options)
        return memo[key]

    points = [
        Point(w, k, st["tree"]) for w, k, st in solve(start, position, horizon - len(position))
    ]
    return Frontier(len(start), horizon, tuple(sorted(points, key=lambda p: (p.wins, p.cost))))
