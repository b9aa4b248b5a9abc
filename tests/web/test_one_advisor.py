"""One advisor behind every screen (issue 49): the web board's suggestion line is the
Api's advice (``perfectplay.advise``) at every position, in the same words the terminal
says it; following it on the web never needs more guesses than the opening promised; and
the review of a game that followed it charges nothing to the page's own suggestions and
adds up to the guesses played."""

from __future__ import annotations

import html
import random
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay import advise, load_game  # noqa: E402
from perfectplay.advice import PROVEN, advice_line  # noqa: E402
from perfectplay.engine import engine_of  # noqa: E402

from ..cli_runner import perfectplay  # noqa: E402

#: Every deduction game of the catalogue, at small parameters (the address's query).
GAMES = {
    "mastermind": "pegs=3&colors=4",
    "bulls-and-cows": "digits=3&symbols=5",
    "permutation": "n=4",
    "item-matching": "slots=3&items=3",
}


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs

    jobs = Jobs()
    with TestClient(create_app(jobs), raise_server_exceptions=False) as c:
        yield c
    jobs.close()


def _line(page: str) -> tuple[str, str] | None:
    """The board's suggestion and what it says after it, or None without one."""
    found = re.search(
        r'<strong id="suggestion">(.*?)</strong> \(<span id="suggestion-note">(.*?)</span>\)', page
    )
    return None if found is None else (html.unescape(found[1]), html.unescape(found[2]))


def _play_on_the_web(client, name: str, query: str, seed: int) -> tuple[list, str]:
    """A board's game played by following its suggestions (the page holds the secret of
    `seed`): each position's (moves, suggestion line), and the moves at the end."""
    url = f"/play/{name}?{query}&seed={seed}"
    seen, moves = [], ""
    for _ in range(12):
        page = client.get(url + (f"&moves={moves}" if moves else "")).text
        if 'id="outcome"' in page:
            return seen, moves
        line = None
        for _ in range(20):  # (a busy machine: the page says to reload)
            line = _line(page)
            if line is not None and line[1].startswith(PROVEN):
                break
            page = client.get(url + (f"&moves={moves}" if moves else "")).text
        assert line is not None and line[1].startswith(PROVEN), (moves, line)
        seen.append((moves, line))
        played = client.get(
            url + (f"&moves={moves}" if moves else "") + f"&guess={line[0]}",
            follow_redirects=False,
        )
        assert played.status_code == 303
        moves = re.search(r"moves=([^&]*)", played.headers["location"])[1]
        moves = html.unescape(moves).replace("%3A", ":").replace("%2C", ",")
    pytest.fail(f"{name} seed {seed}: no end in 12 guesses")


def test_following_the_web_suggestions_never_exceeds_the_promised_worst_case(client):
    """Every secret of permutation n=4, each position's line the Api's, word for word."""
    game = load_game("permutation", ["n=4"])
    engine, n = engine_of(game), len(game.secrets())
    promised = advise(game).worst
    found: dict[int, int] = {}
    seed = 0
    while len(found) < n:
        secret = random.Random(seed).randrange(n)
        if secret not in found:
            seen, moves = _play_on_the_web(client, "permutation", "n=4", seed)
            for at, (code, note) in seen:
                api = advise(game, engine.parse_position(game, at))
                assert f"{code} ({note})" == advice_line(game, api), at
            found[secret] = len(moves.split(","))
        seed += 1
    assert max(found.values()) == promised


@pytest.mark.parametrize("name", ["mastermind", "bulls-and-cows", "permutation", "item-matching"])
def test_the_api_the_terminal_and_the_web_give_one_suggestion(client, name):
    """The first position and one after it: the same suggestion and numbers through the
    Api, the web page and the terminal's play."""
    query = GAMES[name]
    params = query.split("&")
    game = load_game(name, params)
    seen, _ = _play_on_the_web(client, name, query, seed=3)
    for at, (code, note) in seen[:2]:
        api = advise(game, engine_of(game).parse_position(game, at))
        assert f"{code} ({note})" == advice_line(game, api)
    first = advice_line(game, advise(game))
    said = perfectplay("play", name, *params, "--budget", "60", input="quit\n").stdout
    assert f"suggested guess: {first}" in " ".join(said.split())


@pytest.mark.parametrize("name", ["mastermind", "bulls-and-cows"])
def test_a_review_of_the_suggestions_followed_loses_nothing_and_adds_up(client, name):
    query = GAMES[name]
    _, moves = _play_on_the_web(client, name, query, seed=8)
    url = f"/play/{name}/review?{query}&seed=8&moves={moves}"
    for _ in range(30):  # (asked again, as the board's script asks)
        page = html.unescape(client.get(url).text)
        if "review of the game: every guess" in page:
            break
    assert "review of the game: every guess" in page
    played = len(moves.split(","))
    losses = re.findall(r'<td class="num">([+-]\d+\.\d{4})</td><td class="num">[+-]', page)
    assert losses == ["+0.0000"] * played
    said = re.sub(r"<[^>]+>", "", re.search(r'id="review-sum">(.*?)</p>', page, re.S)[1])
    assert f": {played:.4f}, what was paid ({played})" in said
