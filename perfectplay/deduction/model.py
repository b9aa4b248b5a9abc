"""The rules protocol of a deduction game: what a game module writes, and nothing else.

A secret is drawn uniformly from a finite set of codes; the player guesses codes and
each guess returns a feedback, a small integer computed by the rules from the guess and
the secret. The game is won when the feedback says so (``solved_feedback``). Codes are
rows of small integers (one symbol per position), listed in lexicographic order.

A game also declares the symmetries its rules preserve: a group of position
permutations and whether every relabelling of the symbols is one. A pair (pi, tau)
acts on a code ``c`` as ``tau[c[pi]]``; the rules must satisfy
``feedback(tau[g[pi]], tau[s[pi]]) == act(pi, feedback(g, s))`` and map the codes onto
themselves, where ``act`` is the identity unless the feedback is itself per position
(``feedback_action``: a permutation of the positions then permutes the feedback). ``deduction.check.check_game`` checks all of this on any game.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Sequence

import numpy as np

from ..errors import BadParameter, BadRules, PerfectplayError, call_rule, missing_rule
from ..game import Game
from ..ranges import integer, shown, within
from .restriction import Restriction

#: What a deduction game must define (named in the error when one is missing).
NEEDS = (
    "a deduction game defines length, n_symbols, guesses, n_feedbacks, solved_feedback and feedback"
)

#: The most feedbacks a game may have (its table then holds two bytes per entry).
MAX_FEEDBACKS = 65536

#: The most symbols a game may have: codes are int8, so symbols run 0 .. 127 (a symbol
#: past 127 would wrap to a negative number, silently another code).
MAX_SYMBOLS = int(np.iinfo(np.int8).max) + 1

#: A history: the (guess index, feedback) pairs played so far.
History = tuple[tuple[int, int], ...]


class BadCode(PerfectplayError):
    """A code or feedback string that the game cannot read."""


def too_many_symbols(game: "DeductionGame") -> str | None:
    """Why `game`'s codes cannot hold its symbols, in one line (None: they can). Asked
    before its codes are listed: a game of more than MAX_SYMBOLS symbols cannot list
    them in int8 without wrapping."""
    if game.n_symbols() <= MAX_SYMBOLS:
        return None
    return (
        f"{game}: {game.n_symbols():,} symbols are more than int8 codes hold "
        f"(at most {MAX_SYMBOLS}: symbols 0 to {MAX_SYMBOLS - 1})"
    )


@dataclass(frozen=True)
class Symmetry:
    """The symmetry group of a game's rules.

    positions  (k, length) array: a group of position permutations (identity included).
    symbols    True if every relabelling of the symbols preserves the rules.
    """

    positions: np.ndarray
    symbols: bool

    @staticmethod
    def full(length: int, symbols: bool = True) -> "Symmetry":
        """Every permutation of the positions (and of the symbols if `symbols`)."""
        perms = np.array(list(itertools.permutations(range(length))), dtype=np.int8)
        return Symmetry(perms, symbols)

    @staticmethod
    def trivial(length: int) -> "Symmetry":
        return Symmetry(np.arange(length, dtype=np.int8)[None, :], False)


@dataclass(frozen=True)
class DeductionGame(Game):
    """Base class of deduction games (seeds 000, 002, 004).

    Every deduction game has the parameter ``possible_only`` (command line
    ``--possible-only`` or ``possible_only=1``): each guess must be a secret still
    consistent with every feedback so far (Mastermind's usual hard rule, mmstrat's
    ``-po``), on top of the game's own restriction (``rules_restriction``).
    """

    kind: ClassVar[str] = "deduction"
    objectives: ClassVar[tuple[str, ...]] = (
        "expected",
        "worst",
        "probability",
        "probability-then-cost",
    )
    cost_unit: ClassVar[str] = "guesses"

    possible_only: int = dataclasses.field(
        default=0,
        metadata={
            "low": 0,
            "high": 1,
            "omit_default": True,
            "help": "1: guess only secrets still possible (composed with the game's own rules)",
        },
    )

    # --- what every game must say ------------------------------------------------------
    def length(self) -> int:
        """Number of positions of a code."""
        raise missing_rule(self, "length", NEEDS)

    def n_symbols(self) -> int:
        """Symbols are 0 .. n_symbols-1."""
        raise missing_rule(self, "n_symbols", NEEDS)

    def guesses(self) -> np.ndarray:
        """All allowed guesses, an int8 array (G, length) in lexicographic order."""
        raise missing_rule(self, "guesses", NEEDS)

    def secrets(self) -> np.ndarray:
        """All possible secrets, an int8 array (S, length) in lexicographic order; each is a guess."""
        return self.guesses()

    def n_guesses(self) -> int:
        """How many guesses there are (``len(guesses())``). A game whose count follows from
        its parameters says it without listing the codes, so that the size of a solve is
        known before any table is built (``Engine.size``: the web page refuses a game too
        large by this arithmetic alone)."""
        return len(self.guesses())

    def n_secrets(self) -> int:
        """How many secrets there are (``len(secrets())``): the number of guesses where the
        secrets are the guesses (the default ``secrets``)."""
        if type(self).secrets is DeductionGame.secrets:
            return self.n_guesses()
        return len(self.secrets())

    def n_feedbacks(self) -> int:
        """Feedbacks are integers 0 .. n_feedbacks-1 (at most MAX_FEEDBACKS; up to 256 the
        engine's table holds one byte per entry, above two)."""
        raise missing_rule(self, "n_feedbacks", NEEDS)

    def solved_feedback(self) -> int:
        """The feedback that says the guess is the secret."""
        raise missing_rule(self, "solved_feedback", NEEDS)

    def feedback(self, guess: np.ndarray, secret: np.ndarray) -> int:
        """The feedback of one guess against one secret: the scalar reference of the rules.

        `guess` and `secret` are rows of ``guesses()`` and ``secrets()``: one-dimensional
        int8 arrays, wherever the package calls it (the default kernel, verify, play, the
        web board, Gymnasium, ``check_game``), so array operations mean the same
        everywhere. Returns an integer 0 .. n_feedbacks-1."""
        raise missing_rule(self, "feedback", NEEDS)

    def feedback_kernel(self) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None]:
        """A compiled ``kernel(guesses, secrets, out)`` filling out[i, j] = feedback(g_i, s_j).

        Imported lazily by the implementation (numba must not load with the catalogue).
        Without one, the scalar ``feedback`` is called for every pair: exact and fine for
        small games, slow for large ones; each row's feedbacks checked integers in range
        (``scalar_row``) before they are written.
        """

        def kernel(guesses: np.ndarray, secrets: np.ndarray, out: np.ndarray) -> None:
            for i, g in enumerate(guesses):
                out[i] = scalar_row(self, g, secrets)

        return kernel

    def symmetry(self) -> Symmetry:
        """The symmetry group of the rules; the trivial group unless a game says more."""
        return Symmetry.trivial(self.length())

    def feedback_action(self, perms: np.ndarray) -> np.ndarray | None:
        """How position permutations act on feedbacks: act[k, f] is the image of f under perms[k].

        None (the default) when every feedback is invariant (counts like black/white pegs);
        a game whose feedback is given per position (``CWIIC``) permutes it with the codes.
        """
        return None

    def rules_restriction(self) -> Restriction | None:
        """The game's own hard mode as data (``deduction/restriction.py``), or None (the
        default). The search evaluates it compiled and keys its memo on the state it
        leaves; it must be preserved by the symmetries.
        """
        return None

    def guess_limit(self) -> int | None:
        """The most guesses the game's own rules allow (Wordle's six), or None for no limit.

        Every solve keeps within it (``--max-guesses`` may lower it further).
        """
        return None

    def symbol_costs(self) -> np.ndarray:
        """The cost of each symbol placed in a guess (seed 000's item costs): an int64 array
        of ``n_symbols()`` entries, 1 each unless a game says otherwise. Objectives that
        count costs add a guess's cost for every secret still possible when it is played."""
        return np.ones(self.n_symbols(), dtype=np.int64)

    def forced_free(self) -> bool:
        """True if a position whose symbol the restriction forces is left empty and costs
        nothing (seed 000's Note 2 variant); False (the default) if it costs like any."""
        return False

    def guess_cost(self, code: Sequence[int], history: History) -> int:
        """The cost of playing `code` after `history`: its symbols' costs, less those of the
        positions the restriction forces when they are left empty (``forced_free``)."""
        costs = self.symbol_costs()
        free = np.zeros(self.length(), dtype=bool)
        rule = self.restriction()
        if self.forced_free() and rule is not None and rule.per_position:
            free = self.restriction_state(history)[0].sum(axis=1) == 1
        return int(sum(costs[int(s)] for s, f in zip(code, free) if not f))

    def restriction(self) -> Restriction | None:
        """The restriction in force: the game's own (``rules_restriction``), with only
        possible guesses allowed on top when ``possible_only`` is set."""
        rule = self.rules_restriction()
        if self.possible_only:
            return dataclasses.replace(rule or Restriction(), possible_only=True)
        return rule

    def restricts_guesses(self) -> bool:
        """True if some history can forbid a guess (a hard mode)."""
        return self.restriction() is not None

    def consistent_secrets_allowed(self) -> bool:
        """True if every secret consistent with a history is a guess the rules still allow."""
        rule = self.restriction()
        return rule is None or rule.keeps_secrets()

    def blind_to_absent_symbols(self) -> bool:
        """True if a guess's feedback ignores which absent symbol fills a position.

        That is: replacing, at any one position of a guess, a symbol the secret does not
        contain by another such symbol never changes the feedback (Mastermind's pegs,
        item matching's slots). The last-but-one guess can then be chosen among guesses
        that use at most one symbol absent from the consistent set.
        """
        return False

    def restriction_state(self, history: History) -> tuple[np.ndarray, np.ndarray]:
        """(allowed[position, symbol], least[symbol]): what `history` leaves of the restriction."""
        from .restriction import fresh_state

        allowed, least = fresh_state(self.length(), self.n_symbols())
        rule = self.restriction()
        if rule is not None and rule.per_position and history:
            from .restriction_kernels import update

            codes, rules = self.guesses(), rule.digit_rules()
            for g, f in history:
                update(allowed, least, codes[g], int(f), rule.radix, rules, rule.bar_spares_locked)
        return allowed, least

    def allowed_symbols(self, history: History) -> np.ndarray | None:
        """The allowed guesses after `history` as a product of per-position symbol sets.

        A (length, n_symbols) boolean array when the rules allow exactly the codes whose
        symbol at each position p is in row p; None when the restriction is not of that
        form (counts, or only possible guesses).
        """
        rule = self.restriction()
        if rule is None or rule.possible_only or rule.count:
            return None if rule is not None else np.ones((self.length(), self.n_symbols()), bool)
        return self.restriction_state(history)[0]

    def restrict_guesses(self, history: History, guesses: np.ndarray) -> np.ndarray | None:
        """Which of the codes `guesses` (any rows of codes) the rules allow after `history`,
        as a boolean mask, or None for all. The history's guess numbers index the full
        ``guesses()`` list. Derived from ``restriction()``: games do not override it.
        """
        rule = self.restriction()
        if rule is None or not history:
            return None
        guesses = np.ascontiguousarray(guesses, dtype=np.int8)
        mask = np.ones(len(guesses), dtype=bool)
        if rule.per_position:
            from .restriction_kernels import allowed_mask

            allowed, least = self.restriction_state(history)
            mask = allowed_mask(allowed, least, guesses)
        if rule.possible_only:
            codes = self.guesses()
            out = np.empty(
                (1, len(guesses)), dtype=np.uint16 if self.n_feedbacks() > 256 else np.uint8
            )
            kernel = self.feedback_kernel()
            for g, f in history:
                kernel(codes[g][None, :], guesses, out)
                mask &= out[0] == f
        return mask

    # --- how people read and write codes and feedbacks -----------------------------------
    def format_code(self, code: Sequence[int]) -> str:
        """Symbols as the numbers 1 to ``n_symbols()``, one digit each (``1123``); with
        more than nine symbols, apart (``3 12``), so that every code reads back."""
        words = [str(int(c) + 1) for c in code]
        return "".join(words) if self.n_symbols() <= 9 else " ".join(words)

    def parse_code(self, text: str) -> np.ndarray:
        text = text.strip()
        words = list(text) if self.n_symbols() <= 9 else text.replace(",", " ").split()
        if len(words) != self.length() or not all(w.isascii() and w.isdigit() for w in words):
            many = self.length()
            raise BadCode(
                f"{self.name}: cannot read code {shown(text)!r} (expected {many} "
                f"symbol{'s' if many != 1 else ''} like {self.format_code(self.guesses()[0])})"
            )
        try:
            symbols = [int(within(w, 1, self.n_symbols())) - 1 for w in words]
        except BadParameter:
            raise BadCode(f"{self.name}: code {shown(text)!r} uses a symbol out of range") from None
        return np.array(symbols, dtype=np.int8)

    def format_feedback(self, feedback: int) -> str:
        return str(int(feedback))

    def display_feedback(self, feedback: int, terminal: bool) -> str:
        """The feedback as shown to a person: ``format_feedback``, unless a game has a richer
        form for a terminal (Wordle's coloured squares)."""
        return self.format_feedback(feedback)

    def parse_feedback(self, text: str) -> int:
        try:
            return int(within(text, 0, self.n_feedbacks() - 1))
        except BadParameter:
            raise BadCode(
                f"{self.name}: cannot read feedback {shown(text.strip())!r} "
                f"(expected a number from 0 to {self.n_feedbacks() - 1})"
            ) from None

    def feedback_help(self) -> str:
        """What a feedback means and how to type it, for the advisor's help."""
        return f"type the feedback you got, like {self.format_feedback(0)!r}"

    def opening_book(self) -> Path | None:
        """A solution document the game ships for its parameters, whose first guess the
        advisor plays at once (``book.py``): for games whose search from the start
        takes longer than a person waits. None: no book."""
        return None

    def refusal(self, history: History, code: np.ndarray) -> str:
        """Why `code` may not be guessed after `history`: the rule of ``restriction()`` that
        bars it (games may word it in their own terms)."""
        rule = self.restriction()
        if rule is None:
            return "the rules do not allow it here"
        allowed, least = self.restriction_state(history)
        code = [int(x) for x in code]
        for p, s in enumerate(code):
            if not allowed[p, s]:
                if allowed[p].sum() == 1:
                    kept = self.format_code([int(np.flatnonzero(allowed[p])[0])])
                    return f"position {p + 1} must keep {kept}"
                return f"{self.format_code([s])} may not stand at position {p + 1} any more"
        for s, times in enumerate(least.tolist()):
            if code.count(s) < times:
                return (
                    f"{self.format_code([s])} was revealed {times} time{'s' if times > 1 else ''}"
                    f" and must be used at least as often"
                )
        if rule.possible_only:
            return "only a secret still possible may be guessed"
        return "the rules do not allow it here"


def keys_of(codes: np.ndarray) -> list[tuple[int, ...]]:
    """Codes as tuples of Python ints (hashable, comparable)."""
    return [tuple(c) for c in codes.tolist()]


def code_text(game: "DeductionGame", code: np.ndarray) -> str:
    """A code as the game writes it, for a message (its symbols as numbers where the
    game's own writing fails)."""
    try:
        return str(game.format_code(code))
    except Exception:  # noqa: BLE001 - a message must not fail on a broken rule
        return str([int(x) for x in code])


def pair_text(game: "DeductionGame", guess: np.ndarray, secret: np.ndarray) -> str:
    """A guess and a secret, as a message names the pair."""
    return f"the feedback of guess {code_text(game, guess)} to secret {code_text(game, secret)}"


def scalar_row(game: "DeductionGame", guess: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """The scalar ``feedback`` of `guess` against each of `secrets` (the default kernel's
    row), each checked to be an integer in range before it is written into a table of
    one or two bytes an entry, where a larger number would wrap; the solved feedback is
    checked on the whole block the kernel fills."""
    n_feedbacks = game.n_feedbacks()
    values = [call_rule(game, "feedback", guess, s) for s in secrets]
    row = np.array(values) if values else np.zeros(0, np.int64)
    if row.dtype.kind in "iu" and row.ndim == 1:
        bad = np.flatnonzero((row < 0) | (row >= n_feedbacks))
    else:
        bad = [j for j, v in enumerate(values) if not integer(v) or not 0 <= v < n_feedbacks]
    if len(bad):
        j = int(bad[0])
        what = "not an integer" if not integer(values[j]) else f"outside 0 to {n_feedbacks - 1}"
        raise BadRules(
            f"{game}: feedback(): {pair_text(game, guess, secrets[j])} is {values[j]!r}, {what}"
        )
    return row
