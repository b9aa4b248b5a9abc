"""A result's pictures in Chromium, at a desktop's 1280x900 and a phone's 390x844: the
histogram of a deduction result, the value-by-state picture and the policy of a Markov
result, and each strategy's tree opened two levels and closed one ("up one level"); a
board's suggestion with what backs it and its value from the options listed. The pages
scroll not sideways; screenshots of each go to the test run's temporary folder."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from .test_play_by_clicks import _check_page, _wait

#: The results solved: (game, the form's fields, what the result's picture is).
RESULTS = [
    ("mastermind", {"pegs": "3", "colors": "4"}, "#histogram rect"),
    ("dice-cards", {"n": "3"}, "#plot svg"),
]


def _solve(browser, server: str, game: str, fields: dict) -> None:
    """Solve `game` with `fields` from the catalogue's form; wait for the result."""
    browser.get(server + "/")
    form = browser.find_element(By.CSS_SELECTOR, f"#game-{game} form")
    for name, value in fields.items():
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button.solve").click()
    _wait(browser, "#result")


def _title(browser) -> str:
    return _wait(browser, "#title").text


@pytest.mark.parametrize("game, fields, picture", RESULTS)
def test_a_result_shows_its_picture_and_its_tree_opens_two_levels_and_closes_one(
    server, browser, screen, tmp_path, game, fields, picture
):
    _solve(browser, server, game, fields)
    shown = browser.find_element(By.CSS_SELECTOR, picture)
    assert shown.is_displayed() and shown.size["width"] > 0
    if game == "dice-cards":
        assert "face down: none" in browser.find_element(By.ID, "policy").text
    assert browser.find_element(By.ID, "download").get_attribute("download").endswith(".json")
    _check_page(browser, game)
    browser.save_screenshot(str(tmp_path / f"{screen}-{game}-result.png"))
    browser.find_element(By.ID, "explore").click()
    titles = [_title(browser)]
    for _ in range(2):  # two levels down, by the first branch's strategy's own option
        browser.find_element(By.CSS_SELECTOR, "table.branches .option.chosen a").click()
        titles.append(_title(browser))
    trail = browser.find_elements(By.CSS_SELECTOR, "#trail li")
    assert [li.find_element(By.TAG_NAME, "a").text for li in trail] == titles[:2]
    assert all(" → " in li.text for li in trail)  # the branch followed and what is played
    _check_page(browser, game)
    browser.save_screenshot(str(tmp_path / f"{screen}-{game}-tree.png"))
    browser.find_element(By.ID, "up").click()
    assert _title(browser) == titles[1]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#trail li")) == 1


def test_a_boards_suggestion_says_what_backs_it_and_its_value(server, browser, screen, tmp_path):
    browser.get(server + "/play/mastermind?pegs=3&colors=4&seed=1")
    _wait(browser, "#suggestion-note")
    advice = browser.find_element(By.ID, "advice")  # (the table's first row, once placed)
    WebDriverWait(browser, 30).until(lambda b: advice.text.endswith("worst case 4)"))
    assert advice.text == (
        "suggested guess: 112 (proven optimal; 3.2188 (103/32) guesses, worst case 4)"
    )
    _check_page(browser, "mastermind")
    browser.save_screenshot(str(tmp_path / f"{screen}-mastermind-suggestion.png"))
