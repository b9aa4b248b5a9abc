"""Every game's board played to the end by clicks alone, in Chromium at a desktop's
1280x900 and a phone's 390x844: the on-screen keys type the guess, the tiles, counts or
numbers give the feedback another game answered (advice mode), the Markov boards'
choices are clicked. At each game's end its review is opened from the board (every move
a row, the accounting adding up to what the test paid) and the tree of the game's solve
(started from the catalogue, one solve for both screens) is opened two levels down by
clicks and one level back up. On every page: no sideways scrolling, a title naming the
game. Screenshots of each finished game, its review and its tree go to the test run's
temporary folder."""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
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
#: The first guess a solve from the catalogue is given, where the game's full proof takes
#: hours (the catalogue's form says so): the solve then proves the best play after it.
FIRST_GUESS = {"wordle": "salet"}
#: Times a review page is asked again (a second apart) while its values are being worked out.
RELOADS = 10


@pytest.fixture(scope="module")
def solved() -> dict[str, str]:
    """The result page of each game's solve, by game: solved once, for both screens."""
    return {}


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


def _play_deduction(
    browser, server, name: str, query: str, secret: str | None, shot: Path
) -> list[str]:
    """Play the board of `name` to its end by clicks, the suggested guess each turn;
    against the page's secret (None) or advising a game whose secret is `secret`; the
    second turn's pad, entered, saved to `shot` (the first turn's best guesses beside
    it). The guesses played, in order."""
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
    played: list[str] = []
    while not browser.find_elements(By.ID, "outcome"):
        suggestion = browser.find_element(By.ID, "suggestion").text
        _enter_guess(browser, suggestion)
        if mode == "yours":
            _enter_feedback(browser, game, suggestion, secret)
        if len(played) == 1:
            browser.save_screenshot(str(shot))
        rows = _rows(browser)
        browser.find_element(By.ID, "play").click()
        WebDriverWait(browser, SLOW).until(lambda b, before=rows: _rows(b) > before)
        _wait(browser, "#outcome, #suggestion")
        _check_page(browser, name)
        played.append(suggestion)
        assert len(played) <= 8
    outcome = browser.find_element(By.ID, "outcome").text
    assert outcome.startswith(f"solved in {len(played)} guess")
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


def _text(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


@dataclass(frozen=True)
class Row:
    """A row of a review's table: the turn, the move played, its loss and its luck."""

    turn: int
    played: str
    loss: float
    luck: float


def _review_rows(browser, within: str, column: int = 1) -> list[Row]:
    """The move rows of the review table in `within` (the move played in its `column`:
    a Markov review's is after what chance gave), after checking that its totals row
    adds their losses and their lucks up (each shown to 4 decimals)."""
    table = browser.find_element(By.CSS_SELECTOR, f"{within} table.review-table")
    rows = []
    for tr in table.find_elements(By.CSS_SELECTOR, "tr:not(.totals):not(.after)")[1:]:
        cells = tr.find_elements(By.TAG_NAME, "td")
        cost = cells[column].find_element(By.CLASS_NAME, "cost").text
        played = cells[column].text.removesuffix(cost).strip()
        turn = int(cells[0].text.split(".")[0])
        rows.append(Row(turn, played, float(cells[-2].text), float(cells[-1].text)))
    assert len(table.find_elements(By.CSS_SELECTOR, "tr.totals")) == 1
    slack = 6e-5 * (len(rows) + 1)
    assert abs(float(_text(browser, "total-loss")) - sum(r.loss for r in rows)) <= slack
    assert abs(float(_text(browser, "total-luck")) - sum(r.luck for r in rows)) <= slack
    return rows


def _accounted(browser) -> tuple[float, str]:
    """What the review's accounting sentence says was paid: the total it works out from
    the start's expectation, the losses and the luck, and the amount it names."""
    said = re.search(
        r"(?:=|:) (-?[0-9.]+)(?::|,) what was (?:paid|scored) \(([^)]*)\)",
        _text(browser, "review-sum"),
    )
    assert said, _text(browser, "review-sum")
    return float(said.group(1)), said.group(2)


def _open_deduction_review(browser, name: str, guesses: list[str], shot: Path) -> None:
    """Open the review of the game just played from its board's link, asked again while
    its values are being worked out, and check it: a row for each guess played (the last
    ones where the first positions take longer to value than the page gives, as it says),
    each the guess played, and an accounting that comes to the guesses it reviews (under
    a horizon: to the chance as the game ended, 1 won or 0 lost)."""
    browser.find_element(By.ID, "review-page").click()
    # (the board holds a review of its own, with the same ids: wait for the page to change)
    WebDriverWait(browser, SLOW).until(lambda b: b.title.startswith(f"{name}: review"))
    for _ in range(RELOADS):
        state = _wait(browser, "#review-state")
        if "final" in state.get_attribute("class"):
            break
        said = state.text
        time.sleep(1)  # (as the board's script waits before it asks again)
        browser.refresh()
    else:
        pytest.fail(f"the review still says {said!r} after {RELOADS} reloads")
    _check_page(browser, name)
    assert browser.title.startswith(f"{name}: review") and _tap_targets_too_small(browser) == []
    rows = _review_rows(browser, "#review-list")
    if len(rows) < len(guesses):
        assert state.text.startswith(f"{len(rows)} of {len(guesses)} guesses reviewed; ")
    first = len(guesses) - len(rows) + 1
    assert [r.turn for r in rows] == list(range(first, len(guesses) + 1))
    assert [r.played.lower() for r in rows] == [g.lower() for g in guesses[first - 1 :]]
    said = _text(browser, "review-sum")
    if said.startswith("The chance to win"):  # (under a horizon: the chance as it ends)
        ended = re.search(r": ([0-9.]+), the chance as the game stands \(([^)]*)\)", said)
        assert ended and (float(ended.group(1)), ended.group(2)) in (
            (1.0, "won"),
            (0.0, "lost: no guess left"),
        ), said
    else:
        total, paid = _accounted(browser)
        assert round(total, 4) == len(rows) and paid == str(len(rows))
    browser.save_screenshot(str(shot))


def _deal(game, seed: int, clicks: list[int]) -> tuple[int, int]:
    """(moves, cost) of the Markov game a board deals from `seed` with the choices `clicks`
    made, worked out with the game's rules: chance drawn from the seed as the board draws
    it, a choice the rules force made without a click."""
    rng, state, left = random.Random(seed), game.initial_state(), iter(clicks)
    moves = paid = 0
    while not bool(np.asarray(game.is_terminal(np.array([state], dtype=np.int64)))[0]):
        exp = game.expand(np.array([state], dtype=np.int64))
        ks = np.flatnonzero(exp.weight[0] > 0)
        k = rng.choices(ks.tolist(), weights=[int(w) for w in exp.weight[0][ks]])[0]
        legal = np.flatnonzero(exp.next[0, k] >= 0)
        c = int(legal[0]) if len(legal) == 1 else next(left)
        paid += int(np.broadcast_to(exp.cost, exp.next.shape)[0, k, c])
        state, moves = int(exp.next[0, k, c]), moves + 1
    assert next(left, None) is None, "a click the game never asked for"
    return moves, paid


def _solve(browser, server, name: str, query: str, solved: dict[str, str]) -> None:
    """Open the result of a solve of the game: the first time, solved from the catalogue's
    form (its parameters typed in); then the same result again."""
    if name not in solved:
        browser.get(server + "/")
        form = browser.find_element(By.CSS_SELECTOR, f"#game-{name} form")
        fields = dict(w.split("=") for w in query.split("&") if w)
        if name in FIRST_GUESS:
            fields["first"] = FIRST_GUESS[name]
        for field, value in fields.items():
            form.find_element(By.NAME, field).clear()
            form.find_element(By.NAME, field).send_keys(value)
        form.find_element(By.CSS_SELECTOR, "button.solve").click()
        _wait(browser, "#result, #error", SLOW)
        assert not browser.find_elements(By.ID, "error"), _text(browser, "error")
        solved[name] = browser.current_url
    else:
        browser.get(solved[name])
        _wait(browser, "#result")
    _check_page(browser, name)


@dataclass(frozen=True)
class Step:
    """A level of the explorer's trail: the node, the branch followed and the option taken."""

    title: str
    branch: str
    option: str


def _down(browser, kind: str) -> Step:
    """Click one level down the explorer, after checking every option shown carries its
    value: a deduction node's branch with the most secrets (so that the level below has
    branches too; its values are in the table of the advisor's options), a Markov
    policy's first choice the strategy makes. What was clicked."""
    if kind == "deduction":
        cells = browser.find_elements(By.CSS_SELECTOR, "#options-table td.num")
        assert cells and any(re.search(r"\d", c.text) for c in cells)
    else:
        options = browser.find_elements(By.CSS_SELECTOR, "#node table.branches span.option")
        assert options and all(o.find_element(By.CLASS_NAME, "cost").text for o in options)
    rows = [
        r
        for r in browser.find_elements(By.CSS_SELECTOR, "#node table.branches tr")
        if r.find_elements(By.CSS_SELECTOR, "span.option.chosen a")
    ]
    if kind == "deduction":
        rows.sort(key=lambda r: -int(r.find_element(By.CLASS_NAME, "detail").text.split()[0]))
    link = rows[0].find_element(By.CSS_SELECTOR, "span.option.chosen a")
    step = Step(_text(browser, "title"), rows[0].find_element(By.TAG_NAME, "th").text, link.text)
    link.click()
    return step


def _trail(browser) -> list[Step]:
    """The explorer's trail, from the root."""
    return [
        Step(
            li.find_element(By.TAG_NAME, "a").text,
            li.find_element(By.CLASS_NAME, "step").text,
            li.find_element(By.TAG_NAME, "b").text,
        )
        for li in browser.find_elements(By.CSS_SELECTOR, "#trail li")
    ]


def _explore(browser, game, shot: Path) -> None:
    """From a solve's result, open its tree two levels down by clicks and check the trail
    names each node, branch and option as the game writes them (a deduction game's guesses
    and feedback, a Markov game's states in words), then go up exactly one level."""
    browser.find_element(By.ID, "explore").click()
    clicked, titles, paths = [], [], []
    for level in (1, 2, 3):
        _wait(browser, "#node")
        _check_page(browser, game.name)
        assert browser.find_element(By.CSS_SELECTOR, ".crumbs").text.endswith(f"level {level}")
        titles.append(_text(browser, "title"))
        paths.append(parse_qs(urlsplit(browser.current_url).query, True)["path"][-1])
        shown = _trail(browser)
        if game.kind == "deduction":  # (a branch opens the position after it: its guess
            # is the advisor's there, the trail's option)
            shown = [Step(t.title, t.branch, c.option) for t, c in zip(shown, clicked)]
        assert shown == clicked
        if level < 3:
            clicked.append(_down(browser, game.kind))
    assert [s.title for s in clicked] == titles[:2]
    values = browser.find_elements(By.CSS_SELECTOR, "#trail .cost")
    assert len(values) == 2 and all(re.search(r"\d", v.text) for v in values)
    if game.kind == "deduction":
        assert [s.option for s in _trail(browser)] == titles[1:]
        for s in clicked:
            game.parse_code(s.title.removeprefix("guess "))
            game.parse_feedback(s.branch)
    else:  # (the address's last path is the node's state)
        assert titles == [game.describe_state(int(path)) for path in paths]
    assert browser.find_element(By.TAG_NAME, "h1").text == game.name
    assert _tap_targets_too_small(browser) == []
    browser.save_screenshot(str(shot))
    browser.find_element(By.ID, "up").click()
    _wait(browser, "#node")
    assert _text(browser, "title") == titles[1] and len(_trail(browser)) == 1
    assert [(s.title, s.branch) for s in _trail(browser)] == [
        (s.title, s.branch) for s in clicked[:1]
    ]
    assert browser.find_element(By.CSS_SELECTOR, ".crumbs").text.endswith("level 2")


@pytest.mark.parametrize("name, query, secret", DEDUCTION, ids=[g[0] for g in DEDUCTION])
def test_deduction_board_played_to_the_end_by_clicks(
    server, browser, screen, tmp_path, solved, name, query, secret
):
    # against the page on a desktop, advising another game on a phone
    secret = None if screen == "desktop" else secret
    guesses = _play_deduction(
        browser, server, name, query, secret, tmp_path / f"{name}-{screen}-entered.png"
    )
    assert "?" in browser.current_url and "seed=" in browser.current_url
    if screen == "phone":
        assert browser.find_element(By.ID, "possible").text.endswith(f"still possible: {secret}")
    assert _tap_targets_too_small(browser) == []
    browser.save_screenshot(str(tmp_path / f"{name}-{screen}.png"))
    _open_deduction_review(browser, name, guesses, tmp_path / f"{name}-{screen}-review.png")
    _solve(browser, server, name, query, solved)
    game = load_game(name, [w for w in query.split("&") if w])
    _explore(browser, game, tmp_path / f"{name}-{screen}-tree.png")


@pytest.mark.parametrize("name, query", MARKOV, ids=[g[0] for g in MARKOV])
def test_markov_board_played_to_the_end_by_clicks(
    server, browser, screen, tmp_path, solved, name, query
):
    browser.get(f"{server}/play/{name}?{query}")
    clicks = []
    for _ in range(200):
        _wait(browser, "#finished, #choices")
        _check_page(browser, name)
        if browser.find_elements(By.ID, "finished"):
            break
        link = browser.find_element(By.CSS_SELECTOR, "#choices li.chosen a")
        moves = parse_qs(urlsplit(link.get_attribute("href")).query)["moves"][0]
        clicks.append(int(moves.split(",")[-1]))
        link.click()
    assert browser.find_element(By.ID, "finished").text.startswith("finished in ")
    game = load_game(name, [w for w in query.split("&") if w])
    if not clicks:  # (chance alone played the game, as Tricky Trios n=2 may: no review)
        assert not browser.find_elements(By.ID, "review")
    else:
        review = browser.find_element(By.ID, "review")  # open at the end, every move in it
        assert review.get_attribute("open") is not None
        assert _text(browser, "total-loss") == "+0.0000"  # (optimal play)
        browser.execute_script("arguments[0].scrollIntoView()", review)
        assert _tap_targets_too_small(browser) == []
        browser.save_screenshot(str(tmp_path / f"{name}-{screen}.png"))
        # the review: a row for every decision (chance alone, or a move the rules force, is
        # none), numbered by the game's turns, adding up to the cost
        seed = int(parse_qs(urlsplit(browser.current_url).query)["seed"][0])
        moves, paid = _deal(game, seed, clicks)
        rows = _review_rows(browser, "#review", column=2)
        turns = [r.turn for r in rows]
        assert len(rows) == len(clicks) and turns == sorted(turns) and turns[-1] <= paid
        total, said = _accounted(browser)
        assert round(total, 4) == paid and said == str(paid)
        assert f" {game.measure.unit} + the moves' loss" in _text(browser, "review-sum")
        browser.execute_script(
            "arguments[0].scrollIntoView()", browser.find_element(By.ID, "review-sum")
        )
        browser.save_screenshot(str(tmp_path / f"{name}-{screen}-review.png"))
    _solve(browser, server, name, query, solved)
    _explore(browser, game, tmp_path / f"{name}-{screen}-tree.png")


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
