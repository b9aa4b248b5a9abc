"""A deduction game's rules checked where the package reads them (the protocol of
``model.py``): the engine building its table, ``verify`` replaying a tree, ``play``, the
web board and Gymnasium answering a guess, and ``check_game`` (which adds sampled checks
of its own) all read the rules through these functions, so a rule that breaks the
protocol is refused in one line (``BadRules``: the game, the method, the first bad
value) before anything is computed from it, never solved as if it were true.

What is checked, vectorised over whatever the package reads at once: the sizes
(``length``, ``n_symbols``, ``n_feedbacks``, ``solved_feedback``) integers in range; the
code lists int8 arrays of the documented shape, symbols in range, in lexicographic
order without repeats, every secret a guess, counted by ``n_guesses`` and
``n_secrets``; every feedback an integer within ``0 .. n_feedbacks - 1``, and the solved
feedback given exactly where the guess is the secret; an exception raised by a rule
named as the rule's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import BadRules, call_rule
from ..ranges import integer
from .model import MAX_FEEDBACKS, DeductionGame, code_text, pair_text


class Sizes(NamedTuple):
    """A game's sizes as its rules state them, checked."""

    length: int
    n_symbols: int
    n_feedbacks: int
    solved: int


class Codes(NamedTuple):
    """A game's code lists, checked; ``guess_of_secret[j]``: the index among the guesses
    of secret j."""

    guesses: np.ndarray
    secrets: np.ndarray
    guess_of_secret: np.ndarray


def _number(game: DeductionGame, method: str, low: int, high: int) -> int:
    """``game.<method>()``, which must be an integer from `low` to `high`."""
    value = call_rule(game, method)
    if not integer(value) or not low <= value <= high:
        raise BadRules(f"{game}: {method}() gave {value!r}, not an integer from {low} to {high:,}")
    return int(value)


def count(game: DeductionGame, method: str) -> int:
    """``n_guesses()`` or ``n_secrets()``, which must be a positive integer (what a size is
    reckoned from before any code is listed; ``codes`` holds it to the list)."""
    return _number(game, method, 1, 2**62)


def sizes(game: DeductionGame) -> Sizes:
    """The game's sizes, each checked: ``length`` and ``n_symbols`` positive integers,
    ``n_feedbacks`` from 1 to MAX_FEEDBACKS, ``solved_feedback`` one of them. (More
    symbols than int8 codes hold is refused before, as ``too_many_symbols``.)"""
    length = _number(game, "length", 1, 2**31)
    n_symbols = _number(game, "n_symbols", 1, 2**31)
    n_feedbacks = _number(game, "n_feedbacks", 1, MAX_FEEDBACKS)
    solved = _number(game, "solved_feedback", 0, n_feedbacks - 1)
    return Sizes(length, n_symbols, n_feedbacks, solved)


def rows(codes: np.ndarray) -> np.ndarray:
    """Each code as one value that sorts, compares and searches as the code does (its
    bytes: int8 symbols 0 .. 127 order as unsigned bytes do)."""
    codes = np.ascontiguousarray(codes)
    return codes.view(np.dtype((np.void, codes.shape[1] * codes.itemsize))).ravel()


def _code_list(game: DeductionGame, method: str, size: Sizes) -> np.ndarray:
    """``game.<method>()`` (guesses or secrets), checked: an int8 array (n, length) of at
    least one code, symbols 0 .. n_symbols - 1, in lexicographic order, no code twice."""
    codes = call_rule(game, method)
    where = f"{game}: {method}()"
    if not isinstance(codes, np.ndarray):
        raise BadRules(f"{where} gave {type(codes).__name__}, not a numpy array of codes")
    if codes.ndim != 2 or codes.shape[1] != size.length or len(codes) == 0:
        raise BadRules(
            f"{where} gave an array of shape {codes.shape}, not (codes, {size.length}) "
            "with at least one code"
        )
    if codes.dtype != np.int8:
        raise BadRules(f"{where} gave {codes.dtype} codes, not int8")
    bad = (codes < 0) | (codes >= size.n_symbols)
    if bad.any():
        i, p = map(int, np.argwhere(bad)[0])
        raise BadRules(
            f"{where}: code {i} holds symbol {int(codes[i, p])} at position {p + 1}, "
            f"outside 0 to {size.n_symbols - 1}"
        )
    differ = codes[1:] != codes[:-1]
    first = differ.argmax(axis=1)
    order = np.arange(len(first))
    rising = differ.any(axis=1) & (codes[1:][order, first] > codes[:-1][order, first])
    if not rising.all():
        i = int(np.flatnonzero(~rising)[0])
        a, b = code_text(game, codes[i]), code_text(game, codes[i + 1])
        what = f"lists {a} twice" if a == b else f"lists {b} after {a}"
        raise BadRules(f"{where} {what} (codes in lexicographic order, each once)")
    return codes


def codes(game: DeductionGame, size: Sizes | None = None) -> Codes:
    """The game's guesses and secrets, checked (``_code_list``; every secret a guess;
    ``n_guesses`` and ``n_secrets`` counting them), and where each secret stands among
    the guesses."""
    size = size or sizes(game)
    guesses = _code_list(game, "guesses", size)
    secrets = guesses if type(game).secrets is DeductionGame.secrets else None
    secrets = _code_list(game, "secrets", size) if secrets is None else secrets
    if secrets is guesses:
        guess_of_secret = np.arange(len(guesses), dtype=np.int64)
    else:
        keys = rows(guesses)
        found = np.minimum(np.searchsorted(keys, rows(secrets)), len(keys) - 1)
        missing = keys[found] != rows(secrets)
        if missing.any():
            code = code_text(game, secrets[int(np.flatnonzero(missing)[0])])
            raise BadRules(f"{game}: secrets() lists {code}, which guesses() does not")
        guess_of_secret = found.astype(np.int64)
    for method, listed in (("n_guesses", guesses), ("n_secrets", secrets)):
        counted = count(game, method)
        if counted != len(listed):
            raise BadRules(
                f"{game}: {method}() gave {counted!r}, but the list holds {len(listed):,} codes"
            )
    return Codes(guesses, secrets, guess_of_secret)


def feedback_breach(
    game: DeductionGame, guesses: np.ndarray, secrets: np.ndarray, fb: np.ndarray
) -> str | None:
    """What is wrong with `fb`, the feedbacks of `guesses` (rows) against `secrets`
    (columns) as the rules gave them (None: nothing): the first feedback out of range,
    or the first pair where the solved feedback is given though the guess is not the
    secret, or withheld though it is. Vectorised: two passes over `fb` and a search of
    the codes."""
    size = sizes(game)
    if fb.size == 0:
        return None
    if fb.dtype.kind not in "iu":
        return f"the feedbacks are {fb.dtype}, not integers"
    if int(fb.min()) < 0 or int(fb.max()) >= size.n_feedbacks:
        i, j = map(int, np.argwhere((fb < 0) | (fb >= size.n_feedbacks))[0])
        return (
            f"{pair_text(game, guesses[i], secrets[j])} is {int(fb[i, j])}, "
            f"outside 0 to {size.n_feedbacks - 1}"
        )
    equal, cols = _alike(guesses, secrets)
    won = fb[equal, cols] == size.solved
    if not won.all():
        t = int(np.flatnonzero(~won)[0])
        g, s = guesses[equal[t]], secrets[cols[t]]
        return (
            f"{pair_text(game, g, s)} is {int(fb[equal[t], cols[t]])}, not the solved {size.solved}"
        )
    if np.count_nonzero(fb == size.solved) != len(cols):
        solved_at = np.argwhere(fb == size.solved)
        alike = set(zip(equal.tolist(), cols.tolist()))
        i, j = next((int(i), int(j)) for i, j in solved_at if (i, j) not in alike)
        return (
            f"{pair_text(game, guesses[i], secrets[j])} is the solved feedback {size.solved}, "
            "but the guess is not the secret"
        )
    return None


def _alike(guesses: np.ndarray, secrets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (guess row, secret column) pair of equal codes, as two arrays (a block of
    codes may repeat a code: each row counts)."""
    keys = rows(guesses)
    order = np.argsort(keys, kind="stable")
    wanted = rows(secrets)
    left = np.searchsorted(keys[order], wanted, "left")
    many = np.searchsorted(keys[order], wanted, "right") - left
    cols = np.repeat(np.arange(len(secrets)), many)
    start = np.repeat(np.cumsum(many) - many, many)
    return order[np.repeat(left, many) + np.arange(len(cols)) - start], cols


def kernel_rule(game: DeductionGame) -> str:
    """The rule that fills the game's tables, as messages name it: ``feedback_kernel``
    where the game gives one, else ``feedback`` (the default kernel calls it)."""
    own = type(game).feedback_kernel is not DeductionGame.feedback_kernel
    return "feedback_kernel" if own else "feedback"


def check_feedbacks(
    game: DeductionGame,
    guesses: np.ndarray,
    secrets: np.ndarray,
    fb: np.ndarray,
    method: str | None = None,
) -> None:
    """Refuse in one line feedbacks `fb` (of `guesses` against `secrets`, given by the
    rule `method`; by default the game's kernel, ``kernel_rule``) that break the
    protocol (``feedback_breach``)."""
    breach = feedback_breach(game, guesses, secrets, fb)
    if breach is not None:
        raise BadRules(f"{game}: {method or kernel_rule(game)}(): {breach}")


def feedback(game: DeductionGame, guess: np.ndarray, secret: np.ndarray) -> int:
    """The scalar ``feedback(guess, secret)``, checked: an integer in range, the solved
    feedback exactly when the guess is the secret. What every screen and ``verify`` read
    one pair at a time."""
    value = call_rule(game, "feedback", guess, secret)
    if not integer(value):
        raise BadRules(
            f"{game}: feedback(): {pair_text(game, guess, secret)} is {value!r}, not an integer"
        )
    value, size = int(value), sizes(game)
    if not 0 <= value < size.n_feedbacks or (value == size.solved) != np.array_equal(guess, secret):
        # (one pair is tested directly; the block's check names the breach)
        check_feedbacks(game, guess[None, :], secret[None, :], np.array([[value]]), "feedback")
    return value


def same_answer(
    game: DeductionGame, guess: np.ndarray, secret: np.ndarray, one: int, other: int
) -> None:
    """Refuse in one line a pair the rules answered two ways: `one` by the scalar
    ``feedback``, `other` by the table or block the game's kernel filled (rules that
    draw at random, or a kernel that is not the scalar rule)."""
    if int(one) == int(other):
        return
    rule = kernel_rule(game)
    twice = "then" if rule == "feedback" else f"while {rule}() gave"
    raise BadRules(
        f"{game}: feedback() gave {int(one)} for guess {code_text(game, guess)} against "
        f"secret {code_text(game, secret)} {twice} {int(other)} (the rules must answer "
        "the same question the same way)"
    )
