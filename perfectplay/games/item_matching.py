"""Seed 000: item matching. A secret assigns one of `items` items to each of `slots` slots.

Each guess is an assignment too, answered slot by slot (shown as ``CWIIC``):

* C, Correct: the slot holds the guessed item;
* I, Incorrect: every slot of the secret holding the guessed item is a Correct slot of
  this guess (in particular when the item is absent);
* W, Wrong slot: otherwise.

So F(12345, 12345) = CCCCC, F(12345, 34567) = IIWWW, F(11234, 51155) = WCIII and
F(11234, 44444) = IIIIC. Two restrictions bind later guesses (both on by default):

1. ``items``: an item answered Incorrect may not be used again;
2. ``slots``: a slot answered Correct keeps its item.

With both, an item answered Correct in one slot and Incorrect in another (guess 11,
secret 12 gives CI) stays in its locked slot and is barred from the others. The game is
won by guessing the secret within `turns` guesses. Permuting the slots (with the
feedback) and relabelling the items preserve the rules. Items are written 1..9, then
A, B, ... for the tenth and later.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Sequence

import numpy as np

from ..deduction.model import BadCode, DeductionGame, History, Symmetry
from ..deduction.restriction import Restriction
from ..params import choice, param, text, whole_numbers
from ..ranges import MOST

_SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTERS = "IWC"  # feedback digit 0, 1, 2 of a slot
RESTRICTIONS = ("both", "items", "slots", "none")


@dataclass(frozen=True)
class ItemMatching(DeductionGame):
    """Item matching (seed 000): find the items of the slots from per-slot C/W/I feedback."""

    name = "item-matching"
    summary = "find the item of every slot from Correct / Wrong slot / Incorrect feedback"
    default_objective: ClassVar[str] = "probability"

    slots: int = param(5, low=1, high=6, help="slots (S)")
    items: int = param(7, low=1, high=12, help="items (I)")
    turns: int = param(4, low=1, high=12, help="guesses allowed (T): the probability horizon")
    restrict: str = choice(
        "both",
        choices=RESTRICTIONS,
        help="which restrictions apply (items: Incorrect bars an item; "
        "slots: Correct locks a slot)",
    )
    costs: str = text(
        help="cost of each item, like 10,40,... (default 1 each): for "
        "--objective probability-then-cost and --frontier"
    )
    locked: str = choice(
        "filled",
        choices=("filled", "empty"),
        help="empty: a slot whose item is forced (answered Correct) is left "
        "empty and costs nothing (seed 000, Note 2)",
        omit_default=True,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.symbol_costs()  # a bad list of costs is a one-line error now

    def symbol_costs(self) -> np.ndarray:
        """The items' costs (``costs``), 1 each by default."""
        if not self.costs:
            return np.ones(self.items, dtype=np.int64)
        return np.array(whole_numbers("costs", self.costs, self.items, 0, MOST), dtype=np.int64)

    def forced_free(self) -> bool:
        return self.locked == "empty"

    def length(self) -> int:
        return self.slots

    def n_symbols(self) -> int:
        return self.items

    def guesses(self) -> np.ndarray:
        return _codes(self.slots, self.items)

    def n_guesses(self) -> int:
        return self.items**self.slots

    def n_feedbacks(self) -> int:
        return 3**self.slots

    def solved_feedback(self) -> int:
        return 3**self.slots - 1

    def feedback(self, guess: Sequence[int], secret: Sequence[int]) -> int:
        guess = [int(x) for x in guess]
        secret = [int(x) for x in secret]
        open_items = {a for g, a in zip(guess, secret) if g != a}
        digits = [2 if g == a else (1 if g in open_items else 0) for g, a in zip(guess, secret)]
        return sum(d * 3**p for p, d in enumerate(digits))

    def feedback_kernel(self):
        from .item_matching_kernel import item_matching

        return item_matching

    def blind_to_absent_symbols(self) -> bool:
        return True

    def symmetry(self) -> Symmetry:
        """Every permutation of the slots; every relabelling of the items unless their
        costs differ."""
        return Symmetry.full(self.slots, symbols=len(set(self.symbol_costs().tolist())) == 1)

    def feedback_action(self, perms: np.ndarray) -> np.ndarray:
        perms = np.asarray(perms, dtype=np.int64)
        return _action(self.slots, perms.tobytes(), len(perms))

    def default_horizon(self) -> int:
        return self.turns

    def rules_restriction(self) -> Restriction | None:
        """Correct (digit 2) locks a slot; Incorrect (digit 0) bars an item, except from the
        slots where the same guess had it Correct (with both rules on)."""
        if self.restrict == "none":
            return None
        items, slots = self.restrict in ("both", "items"), self.restrict in ("both", "slots")
        return Restriction(
            radix=3, lock=(2,) if slots else (), bar=(0,) if items else (), bar_spares_locked=slots
        )

    def feedback_help(self) -> str:
        return (
            f"type one letter per slot ({self.slots} in all, like {'C' * self.slots}): "
            "C = the slot holds the guessed item; I = Incorrect, every slot holding "
            "that item was guessed right (or it is absent); W = Wrong slot, otherwise"
        )

    def refusal(self, history: History, code: np.ndarray) -> str:
        allowed = self.restriction_state(history)[0]
        for slot, item in enumerate(int(x) for x in code):
            if allowed[slot, item]:
                continue
            shown = _SYMBOLS[item]
            if allowed[slot].sum() == 1:
                kept = _SYMBOLS[int(np.flatnonzero(allowed[slot])[0])]
                return (
                    f"slot {slot + 1} was answered Correct with item {kept}, so it keeps that item"
                )
            return f"item {shown} was answered Incorrect, so it may not be used again"
        return super().refusal(history, code)

    def _digits(self, feedbacks: np.ndarray) -> np.ndarray:
        """(n, slots) array of per-slot digits 0 I, 1 W, 2 C of each feedback."""
        return _digit_table(self.slots)[np.asarray(feedbacks)]

    # --- reading and writing ---------------------------------------------------------
    def format_code(self, code: Sequence[int]) -> str:
        return "".join(_SYMBOLS[int(c)] for c in code)

    def parse_code(self, text: str) -> np.ndarray:
        text = text.strip().upper()
        symbols = _SYMBOLS[: self.items]
        if len(text) != self.slots or any(ch not in symbols for ch in text):
            raise BadCode(
                f"{self.name}: cannot read code {text!r} (expected {self.slots} "
                f"items out of {symbols}, like {symbols[0] * self.slots})"
            )
        return np.array([symbols.index(ch) for ch in text], dtype=np.int8)

    def format_feedback(self, feedback: int) -> str:
        return "".join(_LETTERS[d] for d in self._digits(np.array([feedback]))[0])

    def parse_feedback(self, text: str) -> int:
        text = text.strip().upper()
        if len(text) != self.slots or any(ch not in _LETTERS for ch in text):
            raise BadCode(
                f"{self.name}: cannot read feedback {text!r} "
                f"(expected {self.slots} letters out of C, W, I, like {'C' * self.slots})"
            )
        return sum(_LETTERS.index(ch) * 3**p for p, ch in enumerate(text))


@lru_cache(maxsize=16)
def _codes(slots: int, items: int) -> np.ndarray:
    """Every assignment of items to slots, in lexicographic order (read-only, built once)."""
    codes = np.array(list(itertools.product(range(items), repeat=slots)), dtype=np.int8).reshape(
        -1, slots
    )
    codes.flags.writeable = False
    return codes


@lru_cache(maxsize=16)
def _digit_table(slots: int) -> np.ndarray:
    """digits[f, p]: the digit (0 I, 1 W, 2 C) of slot p in feedback f."""
    table = (np.arange(3**slots)[:, None] // 3 ** np.arange(slots)) % 3
    table.flags.writeable = False
    return table


@lru_cache(maxsize=16)
def _action(slots: int, perms: bytes, k: int) -> np.ndarray:
    """act[e, f]: feedback f with its slot digits permuted like the codes by perms[e]."""
    perm_rows = np.frombuffer(perms, dtype=np.int64).reshape(k, slots)
    feedbacks = np.arange(3**slots)
    digits = (feedbacks[:, None] // 3 ** np.arange(slots)) % 3
    weights = 3 ** np.arange(slots)
    act = np.stack([digits[:, perm] @ weights for perm in perm_rows])
    act.flags.writeable = False
    return act
