"""Opening books: the first guess of a strategy the project computed and ships.

From the start of a game such as Wordle the exact search takes hours, so no time budget
brings the advisor an optimal first guess. A game may ship a solution document for its
parameters instead (``DeductionGame.opening_book``: written by ``perfectplay solve ...
--out``, replayed by ``perfectplay verify``); the advisor then plays that document's
first guess at once, labelled with what backs it:

* a proof over every opening (the ``perfectplay openings combine --json`` verdict shipped
  beside the document as ``NAME.proof.json``, complete, its best total the strategy's and
  the strategy's first guess among its optimal ones): "proven optimal over all N openings";
* a proof over some of the openings (the same verdict, not complete yet, the strategy's
  first guess the best of those valued): "the best of the N openings valued so far, of
  M: an upper bound";
* a solve of the whole game from its start (status "proven optimal", its first guess not
  imposed: ``perfectplay solve GAME --out``), itself a proof over every opening: "proven
  optimal: the whole game solved";
* else what the strategy itself is: "optimal after this first guess, which no proof
  over all openings backs yet" (``solve --first GUESS``), or "best found by --top 10:
  an upper bound".

The document is used only when its game and parameters are the game's own, so a book
never answers for other word lists or rules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .deduction.model import DeductionGame
from .objectives import Objective
from .solution import PROVEN, PROVEN_GIVEN_FIRST


@dataclass(frozen=True)
class Opening:
    """The book's first guess for a game (a guess index), its strategy's total over all
    secrets, and what backs it, for a person (and whether that is a complete proof)."""

    guess: int
    total: int
    label: str
    #: Whether a proof over every opening backs it: its total is the game's optimum.
    proven: bool = False
    #: The most guesses its strategy needs (None: the document does not say).
    worst: int | None = None
    #: The secrets `total` is over (None: every secret of the game).
    secrets: int | None = None

    def value(self, game: DeductionGame) -> Fraction:
        """The strategy's expected guesses, counted from the start of the game."""
        return Fraction(self.total, self.secrets or len(game.secrets()))


def book_opening(game: DeductionGame) -> Opening | None:
    """The first guess the game's book plays, or None where it ships none for these
    parameters."""
    return _opening(game)[0]


def book_at(game: DeductionGame, history) -> Opening | None:
    """The book's guess at the position `history` of its strategy (at the start: its
    opening), its total the strategy's over the secrets still possible (each counted
    from the start of the game) and its worst case the most guesses one needs; None off
    the book's strategy, or without a book. Every part of an optimal strategy is optimal
    for its own secrets (the parts add up, each independent of the others), so a
    position after the first guess of a strategy optimal given it is played optimally,
    and every position of one optimal over every opening: proven there."""
    opening = book_opening(game)
    if not history or opening is None:
        return opening
    strategy, document = _strategy(game)
    found = strategy.at(history)
    if found is None:
        return None
    guess, total, worst, left = found
    exact = document.get("status") in (PROVEN, PROVEN_GIVEN_FIRST) or opening.proven
    label = (
        "proven optimal: the book's strategy, optimal at every position after its first guess"
        if exact
        else "the book's strategy from here: an upper bound"
    )
    return Opening(guess, total, label, exact, worst, left)


def opening_at(game: DeductionGame, history, objective: Objective) -> Opening | None:
    """The game's book where the book answers: at a position of its strategy in a game
    played for the fewest expected guesses, each secret guessed (the book's objective);
    None elsewhere or without a book."""
    return None if objective != Objective() else book_at(game, history)


def proven_opening(game: DeductionGame, history, objective: Objective) -> Opening | None:
    """The book's guess where it answers exactly (``opening_at``, proven optimal there:
    ``book_at``; its total is then the position's optimum); None elsewhere."""
    opening = opening_at(game, history, objective)
    return opening if opening is not None and opening.proven else None


def _strategy(game: DeductionGame):
    """The book's strategy for `game` and its document, or (None, None) where it ships
    none for these parameters (read once: ``_opening``)."""
    return _opening(game)[1:]


def _read(game: DeductionGame):
    """The book's strategy for `game` and its document, read from its file."""
    source = game.opening_book()
    if source is None or not source.is_file():
        return None, None
    document = json.loads(source.read_text(encoding="utf-8"))
    if document.get("game") != game.name or document.get("params") != game.params:
        return None, None
    from .catalogue import load_strategy

    return load_strategy(document), document


@lru_cache(maxsize=16)
def _opening(game: DeductionGame) -> tuple[Opening | None, Any, dict | None]:
    """The book's opening for `game`, its strategy and its document (None each where it
    ships none for these parameters; no opening where its strategy has no first guess)."""
    strategy, document = _read(game)
    if strategy is None:
        return None, None, None
    source = game.opening_book()
    guess = strategy.action(())
    if guess is None:
        return None, strategy, document
    total = int(document["total"])
    proof_file = source.with_name(source.name.removesuffix(".json") + ".proof.json")
    proof = json.loads(proof_file.read_text(encoding="utf-8")) if proof_file.is_file() else None
    word = game.format_code(game.guesses()[guess])
    backed = (
        proof is not None
        and proof.get("params") == game.params
        and proof.get("best") == total
        and word in proof.get("optimal", ())
    )
    whole = document.get("status") == PROVEN and document.get("method") == "optimal"
    if backed and proof.get("complete"):
        label = f"proven optimal over all {proof['openings']:,} openings"
    elif whole:
        label = "proven optimal: the whole game solved"
    elif backed:
        valued = proof["valued"]
        which = f"the best of the {valued:,} openings" if valued > 1 else "the only opening"
        label = f"{which} valued so far, of {proof['openings']:,}: an upper bound"
    elif str(document.get("method", "")).startswith("top "):
        label = f"best found by --{document['method']}: an upper bound"
    elif document.get("status") == PROVEN_GIVEN_FIRST:
        label = "optimal after this first guess, which no proof over all openings backs yet"
    else:
        label = str(document.get("status", "from the book"))
    proven = whole or (backed and bool(proof.get("complete")))
    worst = document.get("worst")
    opening = Opening(
        guess,
        total,
        f"{label}, {total:,} guesses in total",
        proven,
        worst if isinstance(worst, int) else None,
    )
    return opening, strategy, document
