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
* else what the strategy itself is: "optimal after this first guess, which no proof
  over all openings backs yet" (``solve --first GUESS``), or "best found by --top 10:
  an upper bound".

The document is used only when its game and parameters are the game's own, so a book
never answers for other word lists or rules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from .deduction.model import DeductionGame
from .objectives import Objective
from .solution import PROVEN_GIVEN_FIRST


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


def book_opening(game: DeductionGame) -> Opening | None:
    """The first guess the game's book plays, or None where it ships none for these
    parameters."""
    return _opening(game)


def opening_at(game: DeductionGame, history, objective: Objective) -> Opening | None:
    """The game's book opening where the book answers: at the start of a game played for
    the fewest expected guesses, each secret guessed (the book's objective); None
    elsewhere or without a book."""
    return None if history or objective != Objective() else book_opening(game)


def proven_opening(game: DeductionGame, history, objective: Objective) -> Opening | None:
    """The book's opening where it answers exactly (``opening_at``, a proof over every
    opening backing it: its total is then the game's optimum, and no other opening does
    better); None elsewhere."""
    opening = opening_at(game, history, objective)
    return opening if opening is not None and opening.proven else None


@lru_cache(maxsize=16)
def _opening(game: DeductionGame) -> Opening | None:
    source = game.opening_book()
    if source is None or not source.is_file():
        return None
    document = json.loads(source.read_text(encoding="utf-8"))
    if document.get("game") != game.name or document.get("params") != game.params:
        return None
    from .catalogue import load_strategy

    guess = load_strategy(document).action(())
    if guess is None:
        return None
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
    if backed and proof.get("complete"):
        label = f"proven optimal over all {proof['openings']:,} openings"
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
    proven = backed and bool(proof.get("complete"))
    worst = document.get("worst")
    return Opening(
        guess,
        total,
        f"{label}, {total:,} guesses in total",
        proven,
        worst if isinstance(worst, int) else None,
    )
