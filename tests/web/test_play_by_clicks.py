"""Every game's board played to the end by clicks alone, in Chromium at a desktop's
1280x900 and a phone's 390x844: the on-screen keys type the guess, the tiles, counts or
numbers give the feedback another game answered (advice mode), the Markov boards'
choices are clicked. On every page: no sideways scrolling, a title naming the game.
Screenshots of each finished game go to the test run's temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from perfectplay import load_game

#: Small games, each played against the page's secret on one screen and advised (the
#: secret the test holds, its feedback entered by clicks) on the other.
DEDUCTION = [
    ("mastermind", "pegs=2&colors=3", "31"),
    ("wordle", "", "cigar"),
    ("bulls-and-cows", "digits=3&symbols=5", "402"),
    ("permutation", "n=4", "3142"),
    ("item-matching", "slots=3&items=3&turns=4", "312"),
]
MARKOV = [("dice-cards", "n=3"), ("tricky-trios", "n=2")]
#: Seconds a page may take (a suggestion's budget is 1 s; a Markov board's first solve).
SLOW = 120


def _wait(browser, css: str, seconds: float = SLOW):
    return WebDriverWait(browser, seconds).until(
        ready.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def _check_page(browser, game: str) -> None:
    """The page scrolls not sideways and is titled with the game's name."""
    wide, inner = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert wide <= inner, f"{browser.current_url}: {wide} px wide in a {inner} px window"
    assert game in browser.title, browser.title


def _tap_targets_too_small(browser) -> list[str]:
    """The buttons and links of the page's main part smaller than 40 x 40 px."""
    return browser.execute_script(
        """return Array.from(document.querySelectorAll('main button, main a, main input, main select'))
        .filter(e => e.offsetParent !== null && e.type !== 'hidden')
        .map(e => [e, e.getBoundingClientRect()])
        .filter(([e, r]) => r.height < 40 || r.width < 30)
        .map(([e, r]) => e.outerHTML.slice(0, 80) + ' ' + r.width + 'x' + r.height)"""
    )


def _rows(browser) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, "#board .row"))


def _enter_guess(browser, code: str) -> None:
    """Empty the guess with the pad's delete key, then click the keys of `code`."""
    guess = browser.find_element(By.ID, "guess")
    for _ in range(len(guess.get_attribute("value"))):
        browser.find_element(By.ID, "back").click()
    assert guess.get_attribute("value") == ""
    for symbol in code:
        browser.find_element(By.CSS_SELECTOR, f'#keys .key[data-symbol="{symbol}"]').click()
    assert guess.get_attribute("value") == code
    shown = "".join(s.text for s in browser.find_elements(By.CSS_SELECTOR, "#entry .slot"))
    assert shown.lower() == code.lower()


def _enter_feedback(browser, game, guess: str, secret: str) -> None:
    """Click in the feedback `secret` gives `guess`: each tile cycled to its mark, or the
    counts' buttons, or the number's."""
    feedback = int(game.feedback(game.parse_code(guess), game.parse_code(secret)))
    text = game.format_feedback(feedback)
    tiles = browser.find_elements(By.CSS_SELECTOR, "#entry .slot.cycles")
    if tiles:
        for p, tile in enumerate(tiles):
            for _ in range((feedback // 3**p) % 3):
                tile.click()
    else:
        counts = [int(n) for n in "".join(c if c.isdigit() else " " for c in text).split()]
        rows = browser.find_elements(By.CSS_SELECTOR, "#counts .key-row")
        for row, n in zip(rows, counts):
            row.find_element(By.CSS_SELECTOR, f'.key[data-n="{n}"]').click()
    assert browser.find_element(By.ID, "feedback").get_attribute("value").upper() == text.upper()


def _play_deduction(browser, server, name: str, query: str, secret: str | None, shot: Path) -> int:
    """Play the board of `name` to its end by clicks, the suggested guess each turn;
    against the page's secret (None) or advising a game whose secret is `secret`; the
    second turn's pad, entered, saved to `shot` (the first turn's best guesses beside
    it). The number of guesses played."""
    mode = "page" if secret is None else "yours"
    browser.get(f"{server}/play/{name}?{query}")
    _wait(browser, "#suggestion, #advice")
    if mode == "yours":
        browser.find_element(By.ID, "mode-yours").click()
        _wait(browser, "#feedback")
    _check_page(browser, name)
    assert browser.switch_to.active_element.get_attribute("id") == "guess"
    # the best guesses with their numbers, placed on the board; a click enters one
    pick = _wait(browser, "#options-table a.pick", 30)
    _check_page(browser, name)
    pick.click()
    guess = browser.find_element(By.ID, "guess").get_attribute("value")
    assert guess == pick.get_attribute("data-guess") and _rows(browser) == 0
    browser.save_screenshot(str(shot.with_name(shot.name.replace("entered", "options"))))
    game = load_game(name, [w for w in query.split("&") if w])
    played = 0
    while not browser.find_elements(By.ID, "outcome"):
        suggestion = browser.find_element(By.ID, "suggestion").text
        _enter_guess(browser, suggestion)
        if mode == "yours":
            _enter_feedback(browser, game, suggestion, secret)
        if played == 1:
            browser.save_screenshot(str(shot))
        rows = _rows(browser)
        browser.find_element(By.ID, "play").click()
        WebDriverWait(browser, SLOW).until(lambda b, before=rows: _rows(b) > before)
        _wait(browser, "#outcome, #suggestion")
        _check_page(browser, name)
        played += 1
        assert played <= 8
    assert browser.find_element(By.ID, "outcome").text.startswith(f"solved in {played} guess")
    if mode == "page":
        return played
    # advising: the review of the game, placed on the board when it is worked out (at
    # least the last guesses: the first of a full Wordle take longer than the page gives)
    _wait(browser, "#review-state.final", 60)
    reviewed = browser.find_elements(By.CSS_SELECTOR, "#review table.review-table tr")
    assert len(reviewed) >= 3  # (the header, a guess, the totals)
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "review"))
    _check_page(browser, name)
    return played


@pytest.mark.parametrize("name, query, secret", DEDUCTION, ids=[g[0] for g in DEDUCTION])
def test_deduction_board_played_to_the_end_by_clicks(
    server, browser, screen, tmp_path, name, query, secret
):
    # against the page on a desktop, advising another game on a phone
    secret = None if screen == "desktop" else secret
    _play_deduction(browser, server, name, query, secret, tmp_path / f"{name}-{screen}-entered.png")
    assert "?" in browser.current_url and "seed=" in browser.current_url
    if screen == "phone":
        assert browser.find_element(By.ID, "possible").text.endswith(f"still possible: {secret}")
    assert _tap_targets_too_small(browser) == []
    browser.save_screenshot(str(tmp_path / f"{name}-{screen}.png"))


@pytest.mark.parametrize("name, query", MARKOV, ids=[g[0] for g in MARKOV])
def test_markov_board_played_to_the_end_by_clicks(server, browser, screen, tmp_path, name, query):
    browser.get(f"{server}/play/{name}?{query}")
    for _ in range(200):
        _wait(browser, "#finished, #choices")
        _check_page(browser, name)
        if browser.find_elements(By.ID, "finished"):
            break
        browser.find_element(By.CSS_SELECTOR, "#choices li.chosen a").click()
    assert browser.find_element(By.ID, "finished").text.startswith("finished in ")
    review = browser.find_element(By.ID, "review")  # open at the end, every move in it
    assert review.get_attribute("open") is not None
    assert browser.find_element(By.ID, "total-loss").text == "+0.0000"  # (optimal play)
    browser.execute_script("arguments[0].scrollIntoView()", review)
    assert _tap_targets_too_small(browser) == []
    browser.save_screenshot(str(tmp_path / f"{name}-{screen}.png"))


def test_the_catalogue_and_a_wide_table_fit_a_phone(server, browser, tmp_path):
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        for path, name in (
            ("/", "games"),
            ("/play/dice-cards?n=5&seed=3", "dice-cards"),
            ("/play/item-matching?seed=2", "item-matching"),
            ("/no-such-page", "perfectplay"),
        ):
            browser.get(server + path)
            _wait(browser, "main")
            if "item-matching" in path:  # 1,024 secrets still possible, listed on a click
                browser.find_element(By.CSS_SELECTOR, "#all-secrets summary").click()
                assert (
                    len(browser.find_element(By.CSS_SELECTOR, "#all-secrets p").text.split())
                    == 1024
                )
            if "dice-cards" in path:
                _wait(browser, "#drawn", 300)
                assert len(browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card")) == 10
                for card in browser.find_elements(By.CSS_SELECTOR, "#drawn svg.card"):
                    box = card.rect
                    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, card.text
            _check_page(browser, name)
            browser.save_screenshot(str(tmp_path / f"phone{path.replace('/', '_')}.png"))
        # a solve from the catalogue's form, its result and its explorer
        browser.get(server + "/")
        form = browser.find_element(By.CSS_SELECTOR, "#game-mastermind form")
        for field, value in (("pegs", "2"), ("colors", "3")):
            form.find_element(By.NAME, field).clear()
            form.find_element(By.NAME, field).send_keys(value)
        assert _tap_targets_too_small(browser) == []
        form.find_element(By.CSS_SELECTOR, "button.solve").click()
        _wait(browser, "#result")
        _check_page(browser, "mastermind")
        browser.save_screenshot(str(tmp_path / "phone-result.png"))
        browser.find_element(By.ID, "explore").click()
        _wait(browser, "#node")
        _check_page(browser, "mastermind")
        browser.save_screenshot(str(tmp_path / "phone-explorer.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
