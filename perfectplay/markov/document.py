"""A Markov policy read from its solution document, through `Strategy`.

A position is a `Decision` (state, chance outcome, budget left for horizon policies),
answered with the game's choice number. An explorer path is a state's code, followed
by ``@BUDGET`` for horizon policies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..strategy import BadPath, Branch, Decision, Option, Strategy, View
from .policy_file import BadPolicy, Limits, PolicyColumns, decode_policy
from . import contract


class PolicyStrategy(Strategy):
    """A Markov policy (expected cost, or by budget left for a horizon) from its document."""

    kind = "markov-policy"
    game_kind = "markov"

    def __init__(self, game, document: dict[str, Any]):
        super().__init__(game, document)
        self.columns: PolicyColumns = decode_policy(document["strategy"], limits(game, document))
        self.horizon: int | None = document.get("horizon") if self.columns.by_budget else None
        self._order = np.argsort(self.columns.code, kind="stable")
        self._sorted = self.columns.code[self._order]

    @property
    def root_path(self) -> str:
        start = int(self.columns.code[0])
        return str(start) if self.horizon is None else f"{start}@{self.horizon}"

    def row(self, code: int) -> int | None:
        """The policy's row of the state `code`; None if it lists no such state."""
        pos = min(int(np.searchsorted(self._sorted, code)), len(self._order) - 1)
        return int(self._order[pos]) if self._sorted[pos] == code else None

    def value(self, code: int) -> float | None:
        """The recorded value of state `code` (float), None if not listed."""
        i = self.row(code)
        return None if i is None else float(self.columns.value[i])

    def action(self, position: Decision) -> int | None:
        """The choice number after outcome ``position.outcome`` in ``position.state``."""
        cols = self.columns
        i = self.row(position.state)
        if i is None:
            return None
        budget = position.budget if cols.by_budget else 0
        if budget is None or not 0 <= budget < len(cols.choose):
            return None
        ptr = cols.out_ptr
        for o in range(int(ptr[i]), int(ptr[i + 1])):
            if cols.outcome[o] == position.outcome:
                return int(cols.choose[budget, o])
        return None

    def verify(self, resolve: bool = True):
        from .document_check import verify_policy_document

        return verify_policy_document(self, resolve)

    def render(self, tree, depth: int) -> None:
        """The policy from the start, following each outcome's chosen choice; for a
        horizon policy, each level uses the choices for the budget left there."""
        game, cols = self.game, self.columns
        ptr = cols.out_ptr
        horizon = self.horizon
        measure = game.measure

        def add(branch, code: int, level: int, budget: int | None, scored: int) -> None:
            i = self.row(code)
            if i is None:
                raise BadPolicy(f"the policy does not list state {code}")
            shown = [f"value {cols.value[i]:.6f}"] if budget in (None, horizon) else []
            if budget is None:  # (values by budget left are chances, not scores)
                shown.append(measure.final_score(scored, cols.value[i]))
            said = "; ".join(filter(None, shown))
            node = branch.add(
                f"{game.describe_state(code)}{f'  [dim]{said}[/dim]' if said else ''}"
            )
            if level >= depth or cols.n_out[i] == 0:
                return
            row = budget if budget is not None else 0
            if not 0 <= row < len(cols.choose):
                raise BadPolicy(f"state {code}: no choices for a budget of {budget}")
            exp = contract.expansion(game, np.array([code], dtype=np.int64))
            cost = np.broadcast_to(exp.cost, exp.next.shape)
            for o in range(ptr[i], ptr[i + 1]):
                k, c = int(cols.outcome[o]), int(cols.choose[row, o])
                if not (
                    0 <= k < exp.next.shape[1]
                    and 0 <= c < exp.next.shape[2]
                    and exp.next[0, k, c] >= 0
                ):
                    raise BadPolicy(f"state {code}: choice {c} after outcome {k} is not legal")
                number = int(cost[0, k, c])
                label = f"[cyan]{game.describe_outcome(code, k)}[/cyan] -> {game.describe_choice(code, k, c)}"
                if measure.paid_by(number):
                    label += f" [green]({measure.paid_by(number)})[/green]"
                left = None if budget is None else measure.next_budget(budget, number)
                add(node.add(label), int(exp.next[0, k, c]), level + 1, left, scored + number)

        add(tree, int(cols.code[0]), 0, horizon if cols.by_budget else None, 0)

    def explore(self, path: str) -> View:
        """A state with, after each chance outcome, every legal choice and its expected
        cost or score (its own plus the value of the state it leads to; for a horizon
        policy, the recorded value of the state at the budget is shown only at the
        start)."""
        game, cols = self.game, self.columns
        code, budget = _read_path(path, self.horizon is not None)
        i = self.row(code)
        if i is None:
            raise BadPath(f"the policy lists no state {code}")
        branches = choices_at(self, game, code, bool(cols.n_out[i]), budget)
        measure = game.measure
        unit = measure.unit
        facts = []
        if budget is None:
            facts.append(f"value: {cols.value[i]:.9f} {unit} expected")
        else:  # the policy records values for the whole horizon only
            if budget == self.horizon:
                facts.append(
                    f"value: probability {cols.value[i]:.9f} {measure.chance_text(budget)}"
                )
            facts.append(measure.budget_text(budget))
        if cols.n_out[i] == 0:
            facts.append("finished")
        return View(
            path=path,
            title=game.describe_state(code),
            facts=tuple(facts),
            branches=tuple(branches),
            parent=None if path == self.root_path else self.root_path,
        )

    def learned(self):
        """What the policy learned, by kind of choice (``markov/learned.py``), for an
        expected-cost policy of a game that labels its choices."""
        if (
            not self.game.choice_kind_names
            or self.columns.by_budget
            or self.document.get("objective") != "expected"
        ):
            return None
        from rich.table import Table

        from .learned import TOLERANCE, summarise_by_kind

        counts, decisions, exact = summarise_by_kind(self.game, self.columns)
        how = "exact comparisons" if exact else f"float comparisons, tolerance {TOLERANCE:g}"
        table = Table(title=f"choices by kind over {decisions:,} decisions ({how})")
        for col in ("kind of choice", "available", "chosen", "strictly best", "tied for best"):
            table.add_column(col, justify="left" if col == "kind of choice" else "right")
        for c in counts:
            table.add_row(
                c.name,
                f"{c.available:,}",
                f"{c.chosen:,}",
                f"{c.strictly_best:,}",
                f"{c.tied_best:,}",
            )
        return table


def limits(game, document: dict[str, Any]) -> Limits:
    """What `game` and `document` allow its policy's columns (``policy_file.Limits``):
    the game's bound on its states, the outcomes its compiled rules pad a state to, one
    row of choices for each budget up to the horizon, and exact values of at most four
    times the characters of the start's value the file states, and 64 more (the longest
    of any state measured: 1.04 times the start's, dice-cards n=4 to 6 and Tricky Trios
    n=4 to 12, 2026-11-27); BadPolicy if a policy by budget left has no horizon."""
    rules = game.compiled_rules()
    by_budget = document["strategy"].get("by_budget") is True
    horizon = document.get("horizon")
    if by_budget and horizon is None:
        raise BadPolicy("the file's policy by budget left has no horizon")
    value = document.get("value")
    return Limits(
        states=game.state_bound(),
        outcomes=None if rules is None else rules.outcomes,
        budgets=horizon + 1 if by_budget else 1,
        value_chars=4 * (len(value) if isinstance(value, str) else 0) + 64,
    )


def _expansion(game, code: int, live: bool):
    """The expansion of state `code`: the rules', asked only of a state that is not
    terminal (as everywhere: a game's ``expand`` need not answer for one); none for a
    finished state."""
    from .model import Expansion

    if live:
        return contract.expansion(game, np.array([code], dtype=np.int64))
    return Expansion(np.zeros((1, 1), np.int64), np.full((1, 1, 1), -1), np.zeros((1, 1, 1)))


def best_choice(game, position: Decision, worth, highest: bool) -> int | None:
    """The first best choice after outcome ``position.outcome`` of ``position.state``
    (None where there is none), each legal choice worth ``worth(state, paid)``: what a
    strategy makes of the state it leads to, with what it pays on the way; the highest
    first (points, a chance) or the lowest (a cost). The one walk of a state's choices
    behind a staged strategy's play, for the expected score and for a target."""
    exp = contract.expansion(game, np.array([position.state], dtype=np.int64))
    nxt = exp.next[0, position.outcome]
    choices = np.flatnonzero(nxt >= 0)
    if not len(choices):
        return None
    paid = np.broadcast_to(exp.cost, exp.next.shape)[0, position.outcome]
    worths = [worth(int(nxt[c]), int(paid[c])) for c in choices]
    return int(choices[int(np.argmax(worths) if highest else np.argmin(worths))])


def choices_at(strategy: Strategy, game, code: int, live: bool, budget: int | None = None):
    """The branches of the explorer at state `code` (``live``: not finished): after each
    chance outcome, every legal choice with its expected cost or score (its own plus the
    `strategy`'s value of the state it leads to; none shown for a horizon policy, whose
    values are recorded for the whole horizon only) and the path of that state."""
    exp = _expansion(game, code, live)
    cost = np.broadcast_to(exp.cost, exp.next.shape)
    weights = exp.weight[0]
    total = int(weights.sum())
    measure = game.measure
    unit = measure.unit
    branches = []
    for k in np.flatnonzero(weights > 0).tolist():
        chosen = strategy.action(Decision(code, k, budget))
        options = []
        for c in np.flatnonzero(exp.next[0, k] >= 0).tolist():
            target, paid = int(exp.next[0, k, c]), int(cost[0, k, c])
            after = strategy.value(target)
            value = "" if after is None or budget is not None else f"{paid + after:.6f} {unit}"
            left = None if budget is None else measure.next_budget(budget, paid)
            if budget is not None and left is None:
                target_path = None
            else:
                target_path = (
                    None if after is None else str(target) if left is None else f"{target}@{left}"
                )
            options.append(
                Option(game.describe_choice(code, k, c), value, c == chosen, target_path, c)
            )
        branches.append(
            Branch(
                game.describe_outcome(code, k),
                f"probability {int(weights[k])}/{total}",
                tuple(options),
                k,
            )
        )
    return tuple(branches)


def _read_path(path: str, by_budget: bool) -> tuple[int, int | None]:
    code, at, budget = path.partition("@")
    if not code.isdigit() or (by_budget and not budget.isdigit()) or (at and not by_budget):
        raise BadPath(f"not a state of this policy: {path!r}")
    return int(code), int(budget) if by_budget else None
