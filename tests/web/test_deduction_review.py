"""A deduction game's review under the board's objective, against a plain brute force on
Mastermind 2x3 (9 secrets): every value the review shows is the best chance to win within
the horizon (or the fewest guesses in the worst case) worked out by trying every guess,
and the review accounts for the game's end: the chance at the start, less the losses,
plus the luck, is 1 once won and 0 once lost; the worst case's accounts for every guess."""

from __future__ import annotations

import html
import re
import time
from fractions import Fraction
from functools import cache

import pytest

from perfectplay import load_game
from perfectplay.objectives import Objective

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay.web import play  # noqa: E402
from perfectplay.web.review import deduction_review, position_values  # noqa: E402

GAME = load_game("mastermind", ["pegs=2", "colors=3"])
CODES = [tuple(c) for c in GAME.guesses().tolist()]
SOLVED = GAME.solved_feedback()


def _cells(guess: int, left: frozenset[int]) -> dict[int, frozenset[int]]:
    cells: dict[int, set[int]] = {}
    for s in left:
        cells.setdefault(GAME.feedback(CODES[guess], CODES[s]), set()).add(s)
    return {f: frozenset(c) for f, c in cells.items()}


@cache
def chance(left: frozenset[int], turns: int) -> Fraction:
    """The best chance to find the secret of `left` within `turns` guesses."""
    return max((chance_after(g, left, turns) for g in range(len(CODES))), default=Fraction(0))


def chance_after(guess: int, left: frozenset[int], turns: int) -> Fraction:
    """The chance to win within `turns` guesses playing `guess` first, then the best."""
    if turns == 0:
        return Fraction(0)
    won = sum(
        len(c) if f == SOLVED else len(c) * chance(c, turns - 1)
        for f, c in _cells(guess, left).items()
    )
    return Fraction(won) / len(left)


@cache
def worst(left: frozenset[int]) -> int:
    """The fewest guesses that find every secret of `left`."""
    return min(
        worst_after(g, left) for g in range(len(CODES)) if len(_cells(g, left)) > 1 or g in left
    )


def worst_after(guess: int, left: frozenset[int]) -> int:
    return 1 + max((0 if f == SOLVED else worst(c)) for f, c in _cells(guess, left).items())


def _left(history) -> frozenset[int]:
    return frozenset(
        s
        for s in range(len(CODES))
        if all(GAME.feedback(CODES[g], CODES[s]) == f for g, f in history)
    )


def _played(secret: int, guesses: list[int]):
    history = []
    for g in guesses:
        history.append((g, GAME.feedback(CODES[g], CODES[secret])))
        if history[-1][1] == SOLVED:
            break
    return tuple(history)


def _values(history, objective):
    return {
        i: position_values(
            GAME, history[:i], history[i][0] if i < len(history) else None, objective
        )
        for i in range(len(history) + 1)
        if i < len(history) or history[-1][1] != SOLVED
    }


@pytest.mark.parametrize(
    "secret, guesses",
    [(8, [0, 4, 8]), (8, [0, 1]), (5, [4, 5]), (7, [1, 2, 3])],  # won, lost, won at once, lost
)
def test_a_review_for_the_chance_to_win_matches_the_brute_force(secret, guesses):
    horizon = 2 if len(guesses) < 3 else 3
    history = _played(secret, guesses[:horizon])
    solved = history[-1][1] == SOLVED
    review = deduction_review(
        GAME, history, _values(history, Objective("probability", horizon)), solved, True
    )
    assert len(review.moves) == len(history)
    for turn, move in enumerate(review.moves):
        left, turns = _left(history[:turn]), horizon - turn
        g, f = history[turn]
        after = Fraction(1) if f == SOLVED else chance(_left(history[: turn + 1]), turns - 1)
        assert move.best_cost == pytest.approx(float(chance(left, turns)))
        assert move.played_cost == pytest.approx(float(chance_after(g, left, turns)))
        assert move.loss == pytest.approx(float(chance(left, turns) - chance_after(g, left, turns)))
        assert move.loss >= 0
        assert move.luck == pytest.approx(float(after - chance_after(g, left, turns)))
    assert review.start == pytest.approx(float(chance(_left(()), horizon)))
    assert review.reached == pytest.approx(1.0 if solved else 0.0)  # the game's end, accounted


def test_a_review_for_the_worst_case_matches_the_brute_force_and_counts_every_guess():
    history = _played(8, [0, 1, 8])
    review = deduction_review(GAME, history, _values(history, Objective("worst")), True)
    for turn, move in enumerate(review.moves):
        left = _left(history[:turn])
        assert move.best_cost == worst(left)
        assert move.played_cost == worst_after(history[turn][0], left)
    assert review.loss > 0  # (guessing 00 then 01 is not the quickest in the worst case)
    assert review.accounted == pytest.approx(len(history))


def test_the_review_page_reviews_the_boards_chance_to_win(client):
    query = "pegs=2&colors=3&objective=probability&horizon=2&secret=yours&seed=1"
    history = _played(7, [1, 2])  # lost: no guess left
    moves = ",".join(f"{GAME.format_code(CODES[g])}:{GAME.format_feedback(f)}" for g, f in history)
    for _ in range(20):  # (values worked out within the page's budget; kept for the next ask)
        page = html.unescape(client.get(f"/play/mastermind/review?{query}&moves={moves}").text)
        if "every guess beside the optimal one" in page:
            break
    assert "counted in chance to win within 2 guesses" in page
    said = re.sub(r"<[^>]+>", "", re.search(r'id="review-sum">(.*?)</p>', page, re.S).group(1))
    start = float(chance(_left(()), 2))
    assert said.startswith(f"The chance to win within 2 guesses at the start: {start:.4f}")
    assert ": 0.0000, the chance as the game stands (lost: no guess left)" in said
    board = client.get(f"/play/mastermind?{query}&moves=")
    assert "play for the best chance to win within the guesses allowed" in board.text


def test_a_review_values_wordles_start_from_its_proven_opening_book():
    """The search from Wordle's start takes hours; its book, which a proof over every
    opening backs, gives the start's value (7,920 guesses over 2,315 secrets) at once."""
    wordle = load_game("wordle")
    salet = next(i for i, c in enumerate(wordle.guesses()) if wordle.format_code(c) == "salet")
    found = position_values(wordle, (), salet)
    assert (found.best, found.best_guess, found.played) == (Fraction(7920, 2315), salet, found.best)


def test_a_wordle_game_opened_off_the_book_is_reviewed_whole_by_asking_again(client, monkeypatch):
    """Pricing an opening other than the book's takes seconds, past the page's 1.5 s: the
    values' worker goes on after the page answered, and the page asked again (as the
    board's script asks, a second apart) reviews every guess."""
    wordle = load_game("wordle")
    codes = [wordle.format_code(c) for c in wordle.guesses()]
    secret = wordle.guesses()[codes.index("cigar")]
    moves = ",".join(
        f"{w}:{wordle.format_feedback(int(wordle.feedback(wordle.guesses()[codes.index(w)], secret)))}"
        for w in ("crane", "pilot", "cigar")
    )
    monkeypatch.setattr(play, "OPTIONS_BUDGET", 0.2)  # (a page's wait, short of crane's price)
    states = []
    for _ in range(30):
        page = html.unescape(
            client.get(f"/play/wordle/review?secret=yours&seed=1&moves={moves}").text
        )
        states.append(re.search(r'id="review-state">([^<]*)<', page).group(1))
        if 'class="final"' in page:
            break
        time.sleep(1)
    assert states[-1].startswith("review of the game: every guess"), states
    assert " of 3 guesses reviewed" in states[0], states  # (the page did not wait for crane)
    rows = re.findall(r"<tr(?: class=\"lossy\")?><td>(\d)\.", page)
    assert rows == ["1", "2", "3"]
    said = re.sub(r"<[^>]+>", "", re.search(r'id="review-sum">(.*?)</p>', page, re.S).group(1))
    assert (
        said.startswith("Expected at the start: 3.4212 expected guesses")
        and ": 3.0000, what was paid (3)" in said
    )


def test_moves_past_the_horizon_are_refused_in_one_line_on_every_page(client):
    query = "pegs=2&colors=3&objective=probability&horizon=2&secret=yours&seed=1"
    history = _played(7, [1, 2, 3, 4])  # four guesses, two allowed
    moves = ",".join(f"{GAME.format_code(CODES[g])}:{GAME.format_feedback(f)}" for g, f in history)
    for page in ("/review", "/options", ""):
        response = client.get(f"/play/mastermind{page}?{query}&moves={moves}")
        assert response.status_code == 400, (page, response.status_code)
        assert "is past the 2 guesses the rules allow" in html.unescape(response.text)
