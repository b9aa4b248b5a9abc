"""Objectives as the search core reads them: data, not separate searches.

The core (``core.py``) minimises V(S, cap) = node_cost * |S| + the sum of V over the
non-solved cells, with V(S, 0) = exhausted(|S|). Each objective of the engine is one
choice of that data, and of the lower bound of a set of n secrets within cap guesses:

* ``EXPECTED``: the least total number of guesses (node cost 1, no guess left is INF);
* ``WORST``: whether the set can be solved within cap guesses at all (node cost 0:
  V is 0 or INF); the least cap with V = 0 is the worst case;
* ``LOSSES``: the fewest secrets left unrevealed within cap guesses (node cost 0, no
  guess left loses every secret): |S| - V is the most secrets won (seed 000's count).

Every bound rests on one fact: a guess reveals at most one secret and answers at most
b non-solved feedbacks, so at most b^(d-1) secrets are revealed by the d-th guess.

Each comes in a ``determine`` form too (seed 004's "determine" rather than "reveal"): a
secret is found once the feedback leaves it alone, so a set of one secret costs no more
guesses and is never lost. Then the d-th guess finds at most (b + 1) b^(d-1) secrets
(itself and b singleton cells), which is what the bounds count.

``costed``: guesses also cost their symbols (a game's ``symbol_costs``, seed 000's Note
2), added per secret still possible like the node cost; with ``loss_value`` M above any
total cost, ``LOSSES`` then ranks strategies by secrets lost, then by total cost (one
integer: losses * M + cost, ``probability_then_cost``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

#: "Impossible within the cap" (the core's INF).
INF = 1 << 40


def capacity(cap: int, branching: int, determine: bool = False) -> int:
    """Most secrets any strategy can reveal within `cap` guesses: 1 + b + ... + b^(cap-1);
    or determine: 1 + (b + 1)(1 + b + ... + b^(cap-1))."""
    per_node = branching + 1 if determine else 1
    total, width = (1 if determine else 0), 1
    for _ in range(max(cap, 0)):
        total += per_node * width
        width *= max(branching, 1)
        if total > INF:
            break
    return total


@dataclass(frozen=True)
class SearchObjective:
    """One objective in the core's terms (see the module's docstring)."""

    name: str
    node_cost: int  # added per secret still unknown at each guess
    exhaust_inf: bool  # no guess left with secrets unknown: INF (else one per secret)
    order_by_largest: bool  # try guesses with the smallest largest cell first (feasibility)
    determine: bool = False  # a set of one secret is found already: costs 0, never lost
    costed: bool = False  # guesses cost their symbols too (the game's symbol_costs)
    loss_value: int = 1  # the value of one secret lost (when not exhaust_inf)
    smallest_first: bool = True  # a guess's cells searched smallest first (else largest)
    lanes: int | None = None  # lanes a solve takes by default (None: every core)

    def exhausted(self, n: int) -> int:
        if n == 0 or (self.determine and n == 1):
            return 0
        return INF if self.exhaust_inf else n * self.loss_value

    def determined(self) -> "SearchObjective":
        """This objective with secrets found once determined (named ``NAME-determine``)."""
        return dataclasses.replace(self, name=f"{self.name}-determine", determine=True)

    def lower_row(self, cap: int, n_max: int, branching: int, bounds: bool = True) -> np.ndarray:
        """LB[n]: a lower bound of V for n secrets within `cap` guesses (n = 0..n_max)."""
        row = np.zeros(n_max + 1, dtype=np.int64)
        first = 2 if self.determine else 1  # the smallest set that costs something
        if cap <= 0:
            row[first:] = INF if self.exhaust_inf else np.arange(first, n_max + 1) * self.loss_value
            return row
        if not bounds:
            return row
        if self.node_cost == 0:
            n = np.arange(n_max + 1)
            room = capacity(cap, branching, self.determine)
            lost = (n - room) * self.loss_value
            return np.where(n <= room, 0, INF if self.exhaust_inf else lost).astype(np.int64)
        # the cheapest conceivable tree: 1 secret at depth 1, b at depth 2, b^2 at depth 3...
        # (determining: b + 1 at depth 1, (b + 1) b at depth 2...); one secret costs nothing
        row[first:] = INF
        n, total, level, width = 0, 0, 1, (branching + 1 if self.determine else 1)
        while n < n_max and level <= cap:
            take = min(width, n_max - n)
            row[n + 1 : n + take + 1] = total + level * np.arange(1, take + 1)
            n += take
            total += level * take
            level += 1
            width *= branching
        row[1:first] = 0
        return row

    def lower_rows(self, n_max: int, branching: int, bounds: bool = True) -> np.ndarray:
        """lower_row for cap = 0, 1, ... up to the first cap whose row no longer changes."""
        last = 1
        if bounds:
            last = 0
            while last < n_max and capacity(last, branching, self.determine) < n_max:
                last += 1
            last = max(last, 1)
        return np.vstack([self.lower_row(c, n_max, branching, bounds) for c in range(last + 1)])


EXPECTED = SearchObjective("expected", node_cost=1, exhaust_inf=True, order_by_largest=False)
WORST = SearchObjective("worst", node_cost=0, exhaust_inf=True, order_by_largest=True)
#: The losses objective searches a guess's cells largest first: smallest first (the
#: other objectives' order) searched far more states. It takes one lane by default: the
#: split searches cells of one guess side by side, each with the budget known when it
#: starts, and this objective's weak cell bounds make those budgets loose, so two lanes
#: searched more states and took longer than one (both measured: docs/measurements.md).
LOSSES = SearchObjective(
    "losses", node_cost=0, exhaust_inf=False, order_by_largest=False, smallest_first=False, lanes=1
)


def probability_then_cost(
    secrets: int, horizon: int, costliest_guess: int, determine: bool = False
) -> SearchObjective:
    """``LOSSES`` with guess costs, a lost secret worth more than any strategy's total cost
    (`secrets` * `horizon` * `costliest_guess` + 1): fewest losses first, then least cost."""
    base = LOSSES.determined() if determine else LOSSES
    m = secrets * horizon * costliest_guess + 1
    if m * (secrets + 1) >= INF:
        from ..errors import Unsupported

        raise Unsupported(
            "the costs are too large for exact search at this size "
            f"({secrets} secrets, {horizon} guesses)"
        )
    return dataclasses.replace(base, name=f"{base.name}-cost-{m}", costed=True, loss_value=m)


OBJECTIVES = {o.name: o for base in (EXPECTED, WORST, LOSSES) for o in (base, base.determined())}


def search_objective(objective: str | SearchObjective) -> SearchObjective:
    """An objective given by name (``OBJECTIVES``) or, when it carries data of its own
    (costs), as a value: its data."""
    return OBJECTIVES[objective] if isinstance(objective, str) else objective
