"""Wordle: find the hidden word from green, yellow and grey letters.

The answer is one of a list of words (the original game's 2,315); any word of a longer
list (its 12,972) may be guessed. Each guess is answered letter by letter, shown as
``GYBBG``:

* G, green: the answer has this letter at this position;
* Y, yellow: otherwise, reading left to right, while the answer still has copies of the
  letter not matched by a green or by an earlier yellow;
* B, grey (black): otherwise.

So F(speed, abide) = BBYBY (one yellow E: ABIDE has one E) and F(lolly, hello) =
BYGGB (both Ls of HELLO are matched by greens, so the first L is grey). The game is won by guessing the answer; the real game allows six guesses.
Hard mode (``mode=hard``, the published rule): every green letter stays in place and
every revealed letter (green or yellow) is used in later guesses at least as many times
as one guess revealed it. There is no symmetry to use: the lists are not closed under
moving positions or renaming letters.

Words are codes of letters a..z (symbols 0..25); the feedback digit of position p
(0 grey, 1 yellow, 2 green) has weight 3**p. Feedback is also read with ``.`` or ``-``
for grey and from pasted squares (🟩🟨⬛⬜, and the high-contrast 🟧🟦); in a terminal it
is shown as squares. The word lists are data (``data/``, see its SOURCE.txt), chosen by
name with ``lists=``: ``original`` (the game as first published: 2,315 answers, 12,972
guesses), ``nyt-2022`` (the New York Times lists of 30 August 2022: 2,309 answers, 14,855
guesses) and ``nyt-2023`` (its extended answers of July 2023: 3,158, with the same
guesses). The parameters ``answers=PATH`` and ``guesses=PATH`` replace the chosen lists
by files of one word a line, of any common length up to ten letters (3**10 feedbacks fit
the engine's two-byte feedbacks). Every answer is a guess: answers missing from the
guess list are added to it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

from ..deduction.model import BadCode, DeductionGame
from ..deduction.restriction import Restriction
from ..errors import BadParameter
from ..params import choice, param, path
from ..reading import read_text

#: Longest words handled: 3**letters feedbacks must fit the engine's two-byte feedbacks.
MAX_LETTERS = 10
#: Memory a word list takes for each byte of its file: a Python string for each word of
#: five or six bytes, its place in the lists and sets of words, its code.
WORDS_BYTES_PER_BYTE = 40
#: The letter shown for feedback digit 0, 1, 2 of a position.
_LETTERS = "BYG"
#: What parse_feedback reads (lower-cased) as digit 0, 1, 2: the letters, ``.`` and ``-`` for
#: grey, and the squares pasted from the game (light, dark and high-contrast themes).
_READ = {
    "b": 0,
    ".": 0,
    "-": 0,
    "⬛": 0,
    "⬜": 0,
    "y": 1,
    "🟨": 1,
    "🟦": 1,
    "g": 2,
    "🟩": 2,
    "🟧": 2,
}
_SQUARES = "⬛🟨🟩"
#: The lists a person chooses by name (``lists=``): its answers and guesses, as files of
#: ``data/`` (see its SOURCE.txt), each named ``data:FILE``.
LISTS = {
    "original": ("data:answers.txt", "data:allowed.txt"),
    "nyt-2022": ("data:nyt-answers-2022-08-30.txt", "data:nyt-allowed-2022-08-30.txt"),
    "nyt-2023": ("data:nyt-answers-2023-07-01.txt", "data:nyt-allowed-2022-08-30.txt"),
}


@dataclass(frozen=True)
class WordLists:
    """The words of a game as codes: guesses and answers, each sorted, of one length."""

    length: int
    guesses: np.ndarray  # (G, length) int8, read-only
    secrets: np.ndarray  # (S, length) int8, read-only


@dataclass(frozen=True)
class Wordle(DeductionGame):
    """Wordle: guess the answer word from per-letter green / yellow / grey feedback."""

    name = "wordle"
    summary = "find the hidden word from green / yellow / grey letters"
    lists: str = choice(
        "original",
        choices=tuple(LISTS),
        help="the word lists: original (2,315 answers, 12,972 guesses), "
        "nyt-2022 (2,309; 14,855), nyt-2023 (3,158; 14,855)",
    )
    answers: str = path(
        help="file of possible answers, one word a line (replaces the lists' answers)"
    )
    allowed: str = path(
        key="guesses",
        help="file of allowed guesses, one word a line "
        "(replaces the lists' guesses); answers are added",
    )
    mode: str = choice(
        "normal",
        choices=("normal", "hard"),
        help="hard: greens stay in place, revealed letters are used again",
    )
    turns: int = param(
        6,
        low=1,
        high=50,
        help="guesses allowed (the real game's 6): no strategy uses more; the probability horizon",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        for attr in ("answers", "allowed"):  # an absolute path names the list from anywhere
            given = getattr(self, attr)
            if given:
                object.__setattr__(self, attr, os.path.abspath(os.path.expanduser(given)))
        self._lists()  # read and check the files now: a bad list is a one-line error

    def _lists(self) -> WordLists:
        answers, guesses = LISTS[self.lists]
        return load_lists(self.answers or answers, self.allowed or guesses)

    def length(self) -> int:
        return self._lists().length

    def n_symbols(self) -> int:
        return 26

    def guesses(self) -> np.ndarray:
        return self._lists().guesses

    def secrets(self) -> np.ndarray:
        return self._lists().secrets

    def n_feedbacks(self) -> int:
        return 3 ** self.length()

    def solved_feedback(self) -> int:
        return 3 ** self.length() - 1

    def feedback(self, guess: Sequence[int], secret: Sequence[int]) -> int:
        guess = [int(x) for x in guess]
        secret = [int(x) for x in secret]
        unmatched: dict[int, int] = {}
        for g, a in zip(guess, secret):
            if g != a:
                unmatched[a] = unmatched.get(a, 0) + 1
        code = 0
        for p, (g, a) in enumerate(zip(guess, secret)):
            if g == a:
                code += 2 * 3**p
            elif unmatched.get(g, 0) > 0:
                unmatched[g] -= 1
                code += 3**p
        return code

    def feedback_kernel(self):
        from .wordle_kernel import wordle

        return wordle

    def opening_book(self) -> Path:
        """The strategy shipped for these lists and mode (``data/book/``, see its SOURCE.txt),
        used where its parameters are exactly these."""
        return Path(__file__).parent / "data" / "book" / f"wordle-{self.lists}-{self.mode}.json"

    def blind_to_absent_symbols(self) -> bool:
        """A letter the answer lacks is grey wherever it stands and takes no copy from others."""
        return True

    def default_horizon(self) -> int:
        return self.turns

    def guess_limit(self) -> int:
        """The game is lost after `turns` guesses (six in the real game)."""
        return self.turns

    def rules_restriction(self) -> Restriction | None:
        """Hard mode: a green (digit 2) locks its position; greens and yellows (1, 2) count."""
        return Restriction(radix=3, lock=(2,), count=(1, 2)) if self.mode == "hard" else None

    # --- reading and writing ---------------------------------------------------------
    def format_code(self, code: Sequence[int]) -> str:
        return "".join(chr(ord("a") + int(c)) for c in code)

    def parse_code(self, text: str) -> np.ndarray:
        word = text.strip().lower()
        if len(word) != self.length() or not re.fullmatch(r"[a-z]+", word):
            raise BadCode(
                f"{self.name}: cannot read word {text.strip()!r} "
                f"(expected {self.length()} letters a-z)"
            )
        return np.array([ord(ch) - ord("a") for ch in word], dtype=np.int8)

    def format_feedback(self, feedback: int) -> str:
        return "".join(_LETTERS[d] for d in self._digits(feedback))

    def display_feedback(self, feedback: int, terminal: bool) -> str:
        """In a terminal, the game's coloured squares before the letters one types."""
        text = self.format_feedback(feedback)
        return (
            f"{''.join(_SQUARES[d] for d in self._digits(feedback))} {text}" if terminal else text
        )

    def parse_feedback(self, text: str) -> int:
        marks = [ch for ch in text.lower() if not ch.isspace() and ch != "\ufe0f"]
        if len(marks) != self.length() or any(ch not in _READ for ch in marks):
            L = self.length()
            raise BadCode(
                f"{self.name}: cannot read feedback {text.strip()!r} (expected {L} of "
                f"G green, Y yellow, B grey, from {'B' * L!r} to {'G' * L!r})"
            )
        return sum(_READ[ch] * 3**p for p, ch in enumerate(marks))

    def _digits(self, feedback: int) -> list[int]:
        """The digits (0 grey, 1 yellow, 2 green) of `feedback`, position by position."""
        return [(int(feedback) // 3**p) % 3 for p in range(self.length())]


@lru_cache(maxsize=8)
def load_lists(answers: str, guesses: str) -> WordLists:
    """The word lists of the files `answers` and `guesses` (``data:NAME``: a shipped list), checked.

    Answers missing from the guesses are added to them; BadParameter names the first
    problem (unreadable file, no words, not letters a-z, lengths that differ).
    """
    secrets = _read_words(answers, "answers")
    allowed = _read_words(guesses, "guesses")
    length = len(secrets[0])
    if len(allowed[0]) != length:
        raise BadParameter(
            f"wordle: the answers have {length} letters but the guesses {len(allowed[0])}"
        )
    if length > MAX_LETTERS:
        raise BadParameter(
            f"wordle: words of {length} letters have {3**length} feedbacks; "
            f"at most {MAX_LETTERS} letters are supported"
        )
    return WordLists(
        length,
        _codes(sorted(set(allowed) | set(secrets)), length),
        _codes(sorted(set(secrets)), length),
    )


def _read_words(file: str, what: str) -> list[str]:
    """The words of `file` (``data:NAME``: the shipped list NAME), lower-cased, in file order."""
    shipped = file.removeprefix("data:") if file.startswith("data:") else ""
    where = f"shipped {what} list {shipped}" if shipped else f"{what} file {file}"
    try:
        if shipped:
            text = (resources.files(__package__) / "data" / shipped).read_text(encoding="utf-8-sig")
        else:
            text = read_text(file, WORDS_BYTES_PER_BYTE, f"wordle: the {what} file", "utf-8-sig")
    except OSError as err:
        raise BadParameter(f"wordle: cannot read {where}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise BadParameter(f"wordle: {where} is not UTF-8 text") from None
    words: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        word = line.strip().lower()
        if not word:
            continue
        if not (word.isascii() and word.isalpha()):  # a-z only (a tenth of a regex's time)
            raise BadParameter(
                f"wordle: {where}, line {number}: {line.strip()!r} is not a word of letters a-z"
            )
        if words and len(word) != len(words[0]):
            raise BadParameter(
                f"wordle: {where}, line {number}: {word!r} has {len(word)} letters, "
                f"the first word {words[0]!r} {len(words[0])}"
            )
        words.append(word)
    if not words:
        raise BadParameter(f"wordle: {where} holds no words")
    return words


def _codes(words: list[str], length: int) -> np.ndarray:
    """Words as an int8 array of letters 0..25, one row each (read-only)."""
    raw = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).reshape(-1, length)
    codes = (raw - ord("a")).astype(np.int8)
    codes.flags.writeable = False
    return codes
