"""The web page in a real browser: the catalogue, a solve of Mastermind 3x4 to its
result, three levels of its tree, a long solve cancelled with its button, a Wordle game played to the end with the suggestions
(one undo), feedback no secret fits refused without losing the game, and the drawn
tables of dice-cards and Tricky Trios. Screenshots of the explorer, the Wordle game and
the dice-cards table go to docs/img/ (the README shows them) when PERFECTPLAY_SCREENSHOTS
is set."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"
#: Set (to anything) to have the tests take the docs' pictures again (docs/img/).
SCREENSHOTS = "PERFECTPLAY_SCREENSHOTS"


def _picture(browser, name: str) -> None:
    """The page as the docs show it, saved as docs/img/`name` when SCREENSHOTS is set (a
    run of the tests leaves the sources as they were)."""
    if os.environ.get(SCREENSHOTS):
        IMAGES.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(IMAGES / name))


def _text(browser) -> str:
    return browser.find_element(By.TAG_NAME, "main").text


def _wait(browser, css: str, seconds: float = 120):
    return WebDriverWait(browser, seconds).until(
        ready.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def _click(browser, element_id: str, seconds: float = 120) -> None:
    """Click the element, found afresh: a page that re-renders between the find and the
    click leaves a stale reference, and the click is tried again."""
    WebDriverWait(browser, seconds, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: b.find_element(By.ID, element_id).click() or True
    )


def _rows(browser) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, "#board .row"))


def test_solve_mastermind_and_open_three_levels_of_its_tree(server, browser):
    browser.get(server + "/")
    text = _text(browser)
    assert "mastermind" in text and "wordle" in text and "dice-cards" in text
    form = browser.find_element(By.CSS_SELECTOR, "#game-mastermind form")
    for name, value in (("pegs", "3"), ("colors", "4")):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button.solve").click()
    _wait(browser, "#result")
    assert browser.find_element(By.ID, "status").text == "proven optimal"
    assert browser.find_element(By.ID, "value").text == "3.218750000"
    assert browser.find_element(By.ID, "exact").text == "103/32"
    assert browser.find_elements(By.CSS_SELECTOR, "#histogram rect")
    _click(browser, "explore")
    titles = []
    for level in range(3):
        node = _wait(browser, "#node")
        titles.append(browser.find_element(By.ID, "title").text)
        assert "secrets still possible" in node.text or "secret still possible" in node.text
        assert f"suggested: {titles[-1].removeprefix('guess ')} (" in node.text  # the advisor's
        if level == 0:
            assert titles[0] == "guess 112" and "64 secrets still possible" in node.text
            assert "3.2188 (103/32) guesses, worst case 4" in node.text
        if level == 2:
            break
        links = node.find_elements(By.CSS_SELECTOR, "table.branches a")
        # the branch with the most secrets, so that the third level has branches too
        links.sort(
            key=lambda a: (
                -int(
                    a.find_element(By.XPATH, "../../..")
                    .find_element(By.CSS_SELECTOR, "td.detail")
                    .text.split()[0]
                )
            )
        )
        links[0].click()
    assert len(set(titles)) == 3 and all(t.startswith("guess ") for t in titles)
    _click(browser, "up")
    assert browser.find_element(By.ID, "title").text == titles[1]
    _picture(browser, "explorer.png")


def test_a_long_solve_is_cancelled_with_its_button(server, browser):
    browser.get(server + "/")
    form = browser.find_element(By.CSS_SELECTOR, "#game-mastermind form")
    for name, value in (("pegs", "4"), ("colors", "7")):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button.solve").click()
    _click(browser, "cancel")  # (the page's own form: same origin, the visitor's cookie)
    assert _wait(browser, "#error").text == "cancelled from this browser; nothing more is computed"


def test_play_wordle_to_the_end_with_the_suggestions_and_one_undo(server, browser):
    browser.get(server + "/play/wordle?seed=5")
    _wait(browser, "#suggestion", 300)
    assert "2,315 secrets still possible" in _text(browser)
    first = browser.find_element(By.ID, "suggestion").text
    _click(browser, "play")
    _wait(browser, "#board .row")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .row")) == 1
    left_after_one = browser.find_element(By.ID, "possible").text
    _click(browser, "undo")
    _wait(browser, "#suggestion")
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .row")
    assert browser.find_element(By.ID, "suggestion").text == first
    assert "2,315 secrets still possible" in _text(browser)
    played = 0
    while not browser.find_elements(By.ID, "outcome"):
        rows = _rows(browser)
        _click(browser, "play")
        played += 1
        WebDriverWait(browser, 120).until(lambda b, before=rows: _rows(b) > before)  # on the board
        _wait(browser, "#outcome, #suggestion")
        if played == 1:
            assert browser.find_element(By.ID, "possible").text == left_after_one
        assert played <= 6
    assert browser.find_element(By.ID, "outcome").text == f"solved in {played} guesses"
    tiles = browser.find_elements(By.CSS_SELECTOR, "#board .row:last-child .tile.mark-G")
    assert len(tiles) == 5
    _picture(browser, "wordle.png")


def test_wordles_first_options_are_asked_for_again_until_each_has_both_bounds(server, browser):
    """The exact ranking of Wordle's 12,972 openings never ends within a page's 1.5 s; the
    board places the bounded list and asks again, each time the server going further,
    until every guess listed is valued between two proven bounds (salet exactly: the
    opening book's proof over every opening)."""
    browser.get(server + "/play/wordle?seed=7&secret=yours")
    _wait(browser, "#options-table tr[data-guess]", 60)

    def values(b) -> list[str]:
        try:
            rows = b.find_elements(By.CSS_SELECTOR, "#options-table tr[data-guess]")
            return [r.find_elements(By.CSS_SELECTOR, "td.num")[0].text for r in rows]
        except StaleElementReferenceException:  # (the list placed again meanwhile)
            return []

    WebDriverWait(browser, 60).until(  # (salet's exact: the book's proof, first)
        lambda b: (
            values(b)[:1] == ["3.4212 (1584/463)"]
            and len(values(b)) == 10
            and all(" – " in v for v in values(b)[1:])
        )
    )
    label = browser.find_element(By.ID, "options-label").text
    assert label.startswith("proven optimal over all 12,972 openings"), label


def test_feedback_no_secret_fits_is_refused_and_the_game_goes_on(server, browser):
    browser.get(server + "/play/mastermind?pegs=3&colors=4&secret=yours")
    _wait(browser, "#suggestion")
    browser.find_element(By.ID, "feedback").send_keys("0B0W")
    _click(browser, "play")
    _wait(browser, "#board .row")
    assert "8 secrets still possible" in _text(browser)
    guess = browser.find_element(By.ID, "guess")
    guess.clear()
    guess.send_keys("112")
    browser.find_element(By.ID, "feedback").send_keys("1B0W")
    _click(browser, "play")
    refused = _wait(browser, "#refused")
    assert "feedback refused" in refused.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .row")) == 1
    assert "8 secrets still possible" in _text(browser)


def test_dice_cards_board_draws_the_dice_and_the_cards(server, browser):
    browser.get(server + "/play/dice-cards?n=3&seed=2")
    _wait(browser, "#drawn", 300)
    dice = browser.find_elements(By.CSS_SELECTOR, "#drawn svg.die")
    values = [int(d.get_attribute("data-value")) for d in dice]
    assert len(values) == 2 and all(1 <= v <= 3 for v in values)
    for die, value in zip(dice, values):  # a die shows as many pips as its value
        assert len(die.find_elements(By.CSS_SELECTOR, "circle.pip")) == value
    x, y = sorted(values)
    assert browser.find_element(By.ID, "outcome").text == f"rolled {x} and {y}"
    cards = browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card")
    assert [c.text for c in cards] == ["1", "2", "3", "4", "5", "6"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card.face-up")) == 6
    hinted = {c.text for c in browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card.hint")}
    assert hinted == {str(x), str(y), str(x + y)}
    browser.find_element(By.CSS_SELECTOR, "#choices li.chosen a").click()
    _wait(browser, "#undo")
    down = browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card.face-down")
    assert len(down) == 1 and down[0].get_attribute("aria-label").startswith("card ")
    assert (
        f"face down: {down[0].get_attribute('aria-label').split()[1]}"
        in browser.find_element(By.ID, "state").text
    )
    _picture(browser, "dice-cards-board.png")


def test_tricky_trios_board_draws_the_cards_face_down_then_one_face_up(server, browser):
    # seed 1: the forced first flips are played; a round starts with one card of each
    # trio seen (face down, remembered)
    browser.get(server + "/play/tricky-trios?n=2&seed=1")
    _wait(browser, "#drawn", 300)
    assert browser.find_element(By.ID, "state").text.startswith(
        "trios with 0/1/2/3 cards known: 0/2/0/0; start of a round"
    )
    groups = browser.find_elements(By.CSS_SELECTOR, "#drawn .group")
    assert len(groups) == 2
    for group in groups:
        assert len(group.find_elements(By.CSS_SELECTOR, "svg.card.face-down")) == 3
        assert len(group.find_elements(By.CSS_SELECTOR, "svg.card.known")) == 1
    assert not browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card.face-up")
    flip = [
        a
        for a in browser.find_elements(By.CSS_SELECTOR, "#choices a")
        if a.text == "flip a known card of a trio with 1 known"
    ]
    flip[0].click()
    _wait(browser, "#undo")
    up = browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card.face-up")
    assert len(up) == 1 and "one card face up" in browser.find_element(By.ID, "state").text
    assert browser.find_element(By.ID, "caption").text == "0 of 2 trios removed; 1 card face up"


def test_yahtzee_dice_are_kept_by_clicking_them(server, browser, screen):
    """Five dice drawn; clicking those of a keep (the fourth listed, not the suggestion)
    and "roll the others" plays that keep, as a click on it would; the score card shows
    the upper total and its bonus. At 1280 and 390 px."""
    browser.get(server + "/play/yahtzee?card=4161&seed=3")
    _wait(browser, "#roll-kept", 300)
    dice = browser.find_elements(By.CSS_SELECTOR, "#drawn svg.die")
    assert len(dice) == 5
    keep = browser.find_elements(By.CSS_SELECTOR, "#choices a[data-keep]")[3]
    wanted, href = keep.get_attribute("data-keep"), keep.get_attribute("href")
    left = wanted.split()
    for die in dice:
        if die.get_attribute("data-value") in left:
            left.remove(die.get_attribute("data-value"))
            die.click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#drawn svg.die.held")) == len(wanted.split())
    browser.find_element(By.ID, "roll-kept").click()
    _wait(browser, "#undo")
    moves = parse_qs(urlsplit(href).query)["moves"]
    assert parse_qs(urlsplit(browser.current_url).query)["moves"] == moves
    assert browser.find_element(By.ID, "upper").text == "0"
    assert browser.find_element(By.ID, "bonus").text == "63 to go"
    _picture(browser, f"yahtzee-board-{screen}.png")
