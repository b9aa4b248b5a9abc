"""Hard modes as data: what a played guess and its feedback oblige later guesses to do.

A game's restriction of guesses (item matching's two rules, Wordle's hard mode, "only
guesses still possible") is described by a ``Restriction`` value rather than by code, so
that the compiled search can evaluate it at every node and key its memo on it. The
feedback must then be per position: digit p of feedback f is ``(f // radix**p) % radix``.

After a guess c answered f, for each position p with digit d = digit_p(f):

* ``d in lock``: position p must hold c[p] in every later guess;
* ``d in bar``: symbol c[p] may not be used again, at any position (with
  ``bar_spares_locked``: except where the same guess had c[p] answered by a lock digit);
* ``d in count``: later guesses must use symbol c[p] at least as many times as this guess
  had it answered by count digits (the most over the history counts).

``possible_only`` allows only guesses that are secrets still consistent with every
feedback so far (Mastermind's usual "hard" rule).

The state a history leaves is ``allowed[p, s]`` (symbol s may stand at position p) and
``least[s]`` (symbol s must be used at least that often); ``restriction_kernels`` updates
and tests it, compiled, for the search, the advisor and verify alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Restriction:
    """A hard mode in data form (see the module's docstring)."""

    radix: int = 0
    lock: tuple[int, ...] = ()
    bar: tuple[int, ...] = ()
    bar_spares_locked: bool = False
    count: tuple[int, ...] = ()
    possible_only: bool = False

    def digit_rules(self) -> np.ndarray:
        """rules[d] as bits: 1 lock, 2 bar, 4 count (the compiled form; at least one row)."""
        rules = np.zeros(max(self.radix, 1), dtype=np.int64)
        for bit, digits in ((1, self.lock), (2, self.bar), (4, self.count)):
            for d in digits:
                rules[d] |= bit
        return rules

    @property
    def per_position(self) -> bool:
        """True if some digit rule applies (beyond ``possible_only``)."""
        return bool(self.lock or self.bar or self.count)

    def keeps_secrets(self) -> bool:
        """True if every secret consistent with a history stays an allowed guess.

        Locks and counts only ask for what the secret has; a bar that spares the locked
        positions too; only a bar that strikes a symbol answered Correct elsewhere in the
        same guess can forbid the secret itself.
        """
        return not self.bar or self.bar_spares_locked


def fresh_state(length: int, n_symbols: int) -> tuple[np.ndarray, np.ndarray]:
    """The state of the empty history: every symbol allowed everywhere, no counts."""
    return np.ones((length, n_symbols), dtype=np.bool_), np.zeros(n_symbols, dtype=np.int64)
