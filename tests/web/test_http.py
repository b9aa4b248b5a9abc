"""The web application without a browser: safe by default, clear 4xx messages, the
command line's validation, and `perfectplay serve` on loopback."""

from __future__ import annotations

import html
import http.client
import json
import re
import socket
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from perfectplay.objectives import Objective

from perfectplay.web.app import create_app

from ..cli_runner import perfectplay
from .served import HUNG, serve_in_thread


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from perfectplay.web.jobs import Jobs

    jobs = Jobs()
    jobs.warm_up()  # as ``perfectplay serve`` does before it serves
    with TestClient(create_app(jobs), raise_server_exceptions=False) as c:
        yield c


def _line(response) -> str:
    return _line_of(response.text)


def _line_of(page: str) -> str:
    """The error page's one line."""
    return html.unescape(re.search(r'id="error">([^<]*)<', page).group(1))


@pytest.mark.parametrize(
    "form, status, message",
    [
        (
            {"game": "mastermind", "pegs": "30"},
            400,
            "pegs=30 is out of range for mastermind (allowed 1..6)",
        ),
        ({"game": "mastermind", "pegs": "x"}, 400, "pegs must be an integer from 1 to 6, got x"),
        ({"game": "chess"}, 400, "unknown game 'chess'"),
        (
            {"game": "mastermind", "objective": "probability"},
            400,
            "objective 'probability' needs a horizon: the guesses or moves to finish within",
        ),
        (
            {"game": "mastermind", "objective": "expected", "horizon": "3"},
            400,
            "a horizon goes with the objective probability (or probability-then-cost), not "
            "'expected': leave it empty or pick one of those",
        ),
        ({"game": "wordle", "answers": "/etc/passwd"}, 400, "answers names a file"),
        (
            {"game": "mastermind", "pegs": "6", "colors": "9"},
            413,
            "guess-secret pairs, more than the web page solves",
        ),
        ({"game": "dice-cards", "n": "12"}, 413, "n=12 is more than the web page solves"),
    ],
)
def test_bad_requests_answer_one_clear_line_and_a_4xx_status(client, form, status, message):
    response = client.post("/solve", data=form, follow_redirects=False)
    assert response.status_code == status
    assert message in _line(response) and "Traceback" not in response.text


def test_unknown_pages_and_paths_are_4xx(client):
    assert client.get("/jobs/999").status_code == 404
    assert client.get("/api/jobs/999").status_code == 404
    assert client.get("/play/mastermind?pegs=3&colors=3&moves=999:0B0W").status_code == 400
    assert (
        client.post(
            "/solve",
            content=b"x" * 100_000,
            headers={"content-type": "application/x-www-form-urlencoded"},
        ).status_code
        == 413
    )


def test_a_solve_is_cancelled_by_its_visitor_alone(client):
    from starlette.testclient import TestClient

    client.cookies.clear()  # a new visitor (another test of the module may have solved)
    response = client.post(
        "/solve", data={"game": "mastermind", "pegs": "4", "colors": "7"}, follow_redirects=False
    )
    job = response.headers["location"]
    cookie = response.headers["set-cookie"]
    assert "perfectplay_visitor=" in cookie and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert client.post("/solve", data={"game": "dice-cards"}).status_code == 429  # one at a time
    assert 'id="cancel"' in client.get(job).text
    other = TestClient(client.app, raise_server_exceptions=False)  # another browser
    assert 'id="cancel"' not in other.get(job).text
    for cookies in ({}, {"perfectplay_visitor": "A" * 22}):
        other.cookies.clear()
        other.cookies.update(cookies)
        page = other.post(job + "/cancel")
        assert page.status_code == 403
        assert "only whoever started it can cancel it; nothing was changed" in _line(page)
    assert client.get("/api" + job).json()["state"] == "running"
    time.sleep(0.5)
    page = client.post(job + "/cancel")
    assert page.status_code == 200 and "cancelled" in _line(page)
    assert client.get("/api" + job).json()["state"] == "cancelled"


def test_a_host_not_served_is_refused(client):
    response = client.get("/", headers={"host": "rebound.example"})
    assert response.status_code == 400
    assert response.text == (
        "host 'rebound.example' is not the address this server serves; nothing was done"
    )
    assert client.get("/").status_code == 200  # (the test client's own host)


def test_the_hosts_served_are_the_address_bound():
    from perfectplay.web.guards import served_hosts

    loopback = served_hosts("127.0.0.1", 8765)
    assert all(loopback.serve(h) for h in ("127.0.0.1:8765", "LOCALHOST:8765", "[::1]:8765"))
    refused = ("127.0.0.1:8766", "127.0.0.1", "rebound.example:8765", "10.0.0.1:8765", "")
    assert not any(loopback.serve(h) for h in refused)
    everywhere = served_hosts("0.0.0.0", 8765)
    assert everywhere.serve("192.168.1.5:8765") and everywhere.serve("[fe80::1]:8765")
    assert everywhere.serve("localhost:8765")
    assert not everywhere.serve("rebound.example:8765")
    assert not everywhere.serve("192.168.1.5:8766")
    assert served_hosts("::1", 80).serve("[::1]") and served_hosts("::1", 80).serve("localhost")
    assert served_hosts("::", 80).serve("10.0.0.1") and not served_hosts("::", 80).serve("x:80")


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://elsewhere.example"},
        {"origin": "null"},
        {"origin": "http://testserver:8080"},
        {"referer": "http://elsewhere.example/page"},
    ],
)
def test_a_form_posted_from_another_site_is_refused(client, headers):
    oversized = {"game": "mastermind", "pegs": "6", "colors": "9"}  # 413 if it got through
    for path, form in (("/solve", oversized), ("/jobs/1/cancel", {})):
        response = client.post(path, data=form, headers=headers)
        assert response.status_code == 403, path
        assert response.text.startswith("a form posted from ")
        assert "only this server's own pages (http://testserver) post here" in response.text


@pytest.mark.parametrize(
    "headers", [{}, {"origin": "http://testserver"}, {"referer": "http://testserver/"}]
)
def test_a_form_posted_from_the_servers_own_pages_goes_through(client, headers):
    form = {"game": "mastermind", "pegs": "6", "colors": "9"}
    assert client.post("/solve", data=form, headers=headers).status_code == 413


@pytest.fixture
def uvicorn_port():
    """A fresh application (its workers never warmed: nothing here may start a solve)
    served by uvicorn on loopback; its workers and its port."""
    from perfectplay.web.jobs import Jobs

    jobs = Jobs()
    for port in serve_in_thread(jobs):
        yield jobs, port


def _post_chunked(port: int, body: bytes) -> tuple[int, str]:
    """The status and text answering `body` posted to /solve with ``Transfer-Encoding:
    chunked`` (no length declared), sent in 4 KB chunks while the server reads them."""
    with socket.create_connection(("127.0.0.1", port), timeout=HUNG) as conn:
        conn.sendall(
            b"POST /solve HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" % port
        )
        try:
            for at in range(0, len(body), 4096):
                piece = body[at : at + 4096]
                conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            conn.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed before the body's end
            pass
        response = http.client.HTTPResponse(conn)
        response.begin()
        return response.status, response.read().decode()


@pytest.mark.parametrize("size", [80_000, 1_000_000])
def test_a_chunked_body_over_the_cap_is_refused_and_starts_no_solve(uvicorn_port, size):
    jobs, port = uvicorn_port
    form = b"game=mastermind&pegs=2&colors=2&padding="  # a solve, were it read
    status, page = _post_chunked(port, form + b"x" * (size - len(form)))
    assert status == 413 and "request too large: at most 16 KB" in _line_of(page)
    assert jobs.get("1") is None


def test_a_chunked_body_within_the_cap_is_read(uvicorn_port):
    _, port = uvicorn_port
    form = b"game=mastermind&pegs=6&colors=9&padding="  # refused by its size, once read
    status, page = _post_chunked(port, form + b"x" * 10_000)
    assert status == 413 and "guess-secret pairs, more than the web page solves" in page
    status, page = _post_chunked(port, b"game=chess")
    assert status == 400 and "unknown game 'chess'" in html.unescape(page)


def test_a_port_in_use_is_one_line_and_exit_2_before_serving():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = perfectplay("serve", "--port", str(port))
    assert result.returncode == 2 and result.stdout == ""  # (not even warming up)
    assert result.stderr == (
        f"perfectplay: error: cannot serve on 127.0.0.1:{port}: Address already in use "
        "(--port picks another; --port 0 any free one)\n"
    )


def test_a_markov_game_is_played_with_every_choice_and_its_cost(client):
    page = client.get("/play/dice-cards?n=2&seed=3").text
    assert "optimal play needs" in page and "moves on average" in page
    assert page.count('class="option') >= 1 and "<strong>optimal</strong>" in page


def test_serve_listens_on_loopback_by_default():
    from click.testing import CliRunner

    from perfectplay.cli import cli

    calls = []
    import perfectplay.web.app as app

    real, app.serve = app.serve, lambda host, port, say: calls.append((host, port))
    try:
        CliRunner().invoke(cli, ["serve"])
    finally:
        app.serve = real
    assert calls == [("127.0.0.1", 8765)]


def _said(page: str, element: str) -> str:
    """The text of the board's element `element` (its id), or "" if it has none."""
    found = re.search(rf'id="{element}">(.*?)</p>', page, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))) if found else ""


def test_a_new_board_draws_a_fresh_secret_and_a_seed_only_when_asked(client):
    seeds = set()
    for _ in range(2):
        response = client.get("/play/mastermind?pegs=2&colors=3", follow_redirects=False)
        assert response.status_code == 303
        seeds.add(re.search(r"seed=(\d+)", response.headers["location"]).group(1))
    assert len(seeds) == 2
    page = client.get("/play/mastermind?pegs=2&colors=3&seed=7", follow_redirects=False)
    assert page.status_code == 200 and "seed 7" in page.text
    assert (
        'id="mode-yours" href="/play/mastermind?pegs=2&amp;colors=3&amp;seed=7&amp;secret=yours"'
        in (page.text)
    )


def test_a_board_ends_when_the_games_turns_are_used(client):
    page = client.get("/play/wordle?turns=2&seed=5&guess=fuzzy").text
    page = client.get(
        "/play/wordle?turns=2&seed=5&secret=page&guess=jazzy&moves="
        + re.search(r'name="moves" value="([^"]*)"', page).group(1)
    ).text
    assert _said(page, "outcome").startswith("no guesses left (2 allowed): the secret was ")
    assert 'id="move"' not in page and "2 guesses allowed" in _said(page, "rules")


def test_the_catalogues_objective_and_horizon_rule_the_board(client):
    query = "pegs=2&colors=3&objective=probability&horizon=1&seed=1"
    page = client.get(f"/play/mastermind?{query}").text
    assert "1 guess allowed" in _said(page, "rules") and "best chance to win" in _said(
        page, "rules"
    )
    page = client.get(f"/play/mastermind?{query}&guess=11").text
    assert _said(page, "outcome").startswith(("no guesses left (1 allowed)", "solved in 1 guess"))
    assert "objective=probability" in page and "horizon=1" in page  # (kept by its links)

    url = "/play/dice-cards?n=3&seed=2&objective=probability&horizon=6"
    for _ in range(40):  # the chosen choice each turn (the strategy's solve: a moment)
        page = client.get(url).text
        chosen = re.search(r'<li class="option chosen"><a href="([^"]+)"', page)
        if chosen is None and 'id="waiting"' in page:
            time.sleep(0.2)
        elif chosen is None:
            break
        else:
            url = html.unescape(chosen.group(1))
    assert _said(page, "aim").startswith(
        "optimal play finishes within 6 moves with probability 0.2"
    )
    assert _said(page, "finished") in (
        "not finished within 6 moves: the budget is spent",
        f"finished in {_said(page, 'aim').split()[-1]} moves, within 6",
    )


def test_moves_the_pages_secret_does_not_answer_are_refused_on_the_board(client):
    page = client.get("/play/mastermind?seed=1&moves=1122:3B0W,1123:2B0W")
    assert page.status_code == 400 and 'id="board"' in page.text
    assert _said(page.text, "refused") == (
        "move 1 (1122 answered 3B0W) is not what this board's secret answers: the board "
        "shows the moves before it"
    )
    assert "solved" not in page.text and "1,296 secrets still possible" in page.text


def test_moves_after_the_secret_is_found_are_refused_on_the_board(client):
    page = client.get("/play/mastermind?seed=1&moves=1122:4B0W,1122:4B0W")
    assert page.status_code == 400 and 'id="board"' in page.text
    assert "1122:4B0W already finds the secret: no guess can follow it" in page.text
    assert "solved in 2" not in page.text


def test_an_invalid_guess_is_refused_on_the_board(client):
    page = client.get("/play/mastermind?pegs=3&colors=4&seed=1&guess=99x")
    assert page.status_code == 422 and 'id="board"' in page.text and 'id="move"' in page.text
    assert _said(page.text, "refused") == (
        "cannot read code '99x' (expected 3 symbols like 111): nothing changed"
    )
    assert 'value="99x"' in page.text  # (what was typed stays, to be corrected)


def test_the_forms_limits_are_the_servers(client):
    page = client.get("/").text
    dice = page[page.index('id="game-dice-cards"') :]
    assert re.search(r'name="n" value="5" min="1" max="8"', dice)
    matching = page[page.index('id="game-item-matching"') :]
    assert re.search(r'name="slots" value="5" min="1" max="5"', matching)
    assert '<input type="text" name="costs"' in matching
    assert 'name="horizon" min="1" max="40"' in page
    response = client.post("/solve", data={"game": "mastermind", "horizon": "x"})
    assert _line(response) == "horizon must be a whole number, got 'x'"


@pytest.mark.parametrize(
    "method, path, status, line",
    [
        ("GET", "/no-such-page", 404, "there is no page at this address"),
        ("GET", "/solve", 405, "this page is not reached that way (method GET)"),
    ],
)
def test_http_errors_are_the_sites_own_pages(client, method, path, status, line):
    response = client.request(method, path)
    assert response.status_code == status and _line(response) == line
    assert '<link rel="stylesheet" href="/static/style.css">' in response.text


@pytest.mark.parametrize(
    "path, title",
    [
        ("/", "perfectplay: games"),
        ("/play/wordle?seed=1", "wordle: play · perfectplay"),
        ("/play/item-matching?seed=1&secret=yours", "item-matching: your game, advised"),
        ("/play/dice-cards?n=2&seed=1", "dice-cards: play · perfectplay"),
    ],
)
def test_every_page_is_titled_with_its_game(client, path, title):
    assert title in re.search(r"<title>(.*?)</title>", client.get(path).text).group(1)


def test_a_solve_starts_from_the_first_guess_asked(client):
    page = client.get("/").text
    wordle = page[page.index('id="game-wordle"') :]
    assert "A full proof of Wordle's best play over all 12,972 first guesses took 2.2 hours" in (
        html.unescape(wordle)
    )
    assert 'name="first"' in wordle
    refused = client.post("/solve", data={"game": "mastermind", "first": "9999"})
    assert refused.status_code == 400 and "9999" in _line(refused)
    response = client.post(
        "/solve",
        data={"game": "mastermind", "pegs": "2", "colors": "3", "first": "11"},
        follow_redirects=False,
    )
    job = response.headers["location"]
    for _ in range(600):
        if client.get("/api" + job).json()["state"] != "running":
            break
        time.sleep(0.1)
    page = client.get(job).text
    assert ": expected, first guess 11</h1>" in page
    assert 'download="mastermind-pegs2-colors3-expected-first-11.json"' in page
    assert 'id="status">' in page and 'id="value">2.' in page  # (7/3 from 12; more from 11)


def test_an_objective_the_board_cannot_play_is_refused_on_the_board(client):
    page = client.get("/play/mastermind?pegs=2&colors=3&seed=1&objective=probability")
    assert page.status_code == 400 and 'id="move"' in page.text
    assert _said(page.text, "refused") == (
        "objective 'probability' needs a horizon: the guesses or moves to finish within: "
        "the board plays the game's own objective"
    )
    assert "objective=" not in page.text  # (its links play the game's own)
    page = client.get("/play/dice-cards?n=2&seed=1&horizon=x")
    assert page.status_code == 400 and 'id="choices"' in page.text
    assert _said(page.text, "refused") == (
        "horizon must be a whole number, got 'x': the board plays the game's own objective"
    )


def test_a_guess_the_rules_bar_is_refused_on_the_board_saying_which_rule(client):
    page = client.get(
        "/play/wordle?mode=hard&secret=yours&seed=1&moves=salet:BBBBG&guess=crane&feedback=BBBBB"
    )
    assert page.status_code == 422 and 'id="move"' in page.text
    assert _said(page.text, "refused") == (
        "crane is not allowed here: position 5 must keep t; nothing changed"
    )
    page = client.get(
        "/play/item-matching?slots=3&items=3&secret=yours&seed=1&moves=111:IIC&guess=121&feedback=III"
    )
    assert page.status_code == 422
    assert _said(page.text, "refused") == (
        "121 is not allowed here: item 1 was answered Incorrect, so it may not be used "
        "again; nothing changed"
    )


def test_the_secrets_still_possible_are_listed_on_a_click(client):
    page = client.get("/play/mastermind?pegs=3&colors=4&seed=1").text
    listed = re.search(r'<details id="all-secrets">.*?<p class="secrets">(.*?)</p>', page, re.S)
    codes = listed.group(1).split()
    assert len(codes) == len(set(codes)) == 64 and codes[0] == "111" and codes[-1] == "444"
    page = client.get("/play/mastermind?pegs=2&colors=3&seed=1").text  # 9: shown at once
    assert 'id="all-secrets"' not in page and "11 12 13 21 22 23 31 32 33" in page


def _final_options(client, url: str, tries: int = 10) -> str:
    """The options page at `url` once its advice is final (asked again, as the board's
    script asks, while the search goes on)."""
    for _ in range(tries):
        page = client.get(url).text
        if "final" in page.split('id="options-label"')[0].rsplit("<p", 1)[-1]:
            return page
    pytest.fail(f"the options at {url} never final")


def test_the_best_guesses_are_listed_with_their_numbers(client):
    page = _final_options(client, "/play/mastermind/options?pegs=3&colors=4&seed=1&secret=yours")
    assert _said(page, "options-label") == "proven optimal"
    rows = re.findall(r"<tr( class=\"best\")?[^>]*><td>(.*?)</tr>", page, re.S)
    cells = [re.sub(r"<[^>]+>", "|", row).split("|") for _, row in rows]
    first = [c.strip() for c in cells[0] if c.strip()]
    # rank's 103/32, then its worst case (rank --objective worst: 4), parts, largest
    assert first == ["112", "optimal", "3.2188 (103/32)", "4", "8", "17", "yes"]
    # one of each kind alike under the symmetry (rank's 112, 123, 111): 112 optimal
    assert [bool(best) for best, _ in rows] == [True, False, False]
    assert (
        'href="/play/mastermind?pegs=3&amp;colors=4&amp;seed=1&amp;secret=yours&amp;guess=112"'
        in page
    )
    # advising, a guess picked without the other game's answer is entered, not played
    board = client.get("/play/mastermind?pegs=3&colors=4&seed=1&secret=yours&guess=112")
    assert board.status_code == 200 and 'id="guess" value="112"' in board.text
    assert 'class="row"' not in board.text and "64 secrets still possible" in board.text
    assert client.get("/play/dice-cards/options?n=2&seed=1").status_code == 400


def _review(page: str) -> tuple[float, float, float, int]:
    """The review's total loss and luck, what it accounts for and what was paid."""
    loss = float(re.search(r'id="total-loss">([^<]*)<', page).group(1))
    luck = float(re.search(r'id="total-luck">([^<]*)<', page).group(1))
    accounted, paid = re.search(
        r"(?:=|:) ([\d.]+)(?::|,) what was (?:paid|scored) \((\d+)\)", _said(page, "review-sum")
    ).groups()
    return loss, luck, float(accounted), int(paid)


@pytest.mark.parametrize("astray", [0, 3])
def test_a_markov_games_review_accounts_for_every_move(client, astray):
    url, turn = "/play/dice-cards?n=3&seed=2", 0
    for _ in range(200):  # `astray` turns with the last choice listed, then the optimal
        page = client.get(url).text
        choices = re.findall(r'<li class="option( chosen)?"><a href="([^"]+)"', page)
        if not choices and 'id="waiting"' in page:
            time.sleep(0.2)
            continue
        if not choices:
            break
        turn += 1
        url = html.unescape(choices[-1][1] if turn <= astray else next(h for c, h in choices if c))
        if turn == astray:  # on demand, mid-game: it accounts for what is still expected
            loss, luck, accounted, paid = _review(client.get(url).text)
            assert abs(accounted - paid) < 1e-3
    assert _said(page, "finished").startswith("finished in ")
    assert '<details class="review" id="review" open>' in page
    loss, luck, accounted, paid = _review(page)
    assert abs(accounted - paid) < 1e-3  # the expected cost, plus the losses, less the luck
    assert (loss > 0.01) == ('class="lossy"' in page) == (astray > 0)  # (seed 2: a loss)
    assert loss >= 0 and (astray or loss == 0)


def test_a_deduction_games_review_accounts_for_every_guess(client):
    moves = "111:0B0W,222:1B0W"  # two guesses of Mastermind 3x4, neither optimal
    page = client.get(f"/play/mastermind/review?pegs=3&colors=4&secret=yours&seed=1&moves={moves}")
    assert _said(page.text, "review-state").startswith("review of the game: every guess")
    rows = [
        [c.strip() for c in re.sub(r"<[^>]+>", "|", row).split("|") if c.strip()]
        for row in re.findall(r"<tr(?: class=\"lossy\")?><td>(.*?)</tr>", page.text, re.S)
    ]
    # 111 against the optimal 112 (103/32 = 3.21875, rank's), answered 0B0W
    assert rows[0] == ["1.", "111", "3.6406", "112", "3.2188", "0B0W", "+0.4219", "-0.0631"]
    assert rows[1][:5] == ["2.", "222", "3.1852", "223", "2.7037"]
    loss, luck, accounted, paid = _review(page.text)
    assert paid == 2 and abs(accounted - paid) < 1e-3 and loss > 0.9
    assert "less the 2.3333 still expected" in _said(page.text, "review-sum")
    board = client.get(f"/play/mastermind?pegs=3&colors=4&secret=yours&seed=1&moves={moves}")
    assert 'id="review-link"' in board.text and "review of the game so far" in board.text
    assert client.get("/play/dice-cards/review?n=2&seed=1").status_code == 400


def _solved(client, form: dict) -> str:
    """The address of the finished solve of `form` (waited for)."""
    job = client.post("/solve", data=form, follow_redirects=False).headers["location"]
    for _ in range(600):
        if client.get("/api" + job).json()["state"] != "running":
            break
        time.sleep(0.1)
    assert client.get("/api" + job).json()["state"] == "done"
    return job


@pytest.mark.parametrize(
    "form, name",
    [
        ({"game": "mastermind", "pegs": "3", "colors": "4"}, "mastermind-pegs3-colors4-expected"),
        ({"game": "dice-cards", "n": "3"}, "dice-cards-n3-expected"),
    ],
)
def test_a_result_downloads_as_the_file_verify_accepts_and_links_its_board(
    client, tmp_path, form, name
):
    job = _solved(client, form)
    page = client.get(job).text
    assert f'id="download" href="{job}/strategy.json" download="{name}.json"' in page
    board = html.unescape(re.search(r'id="board" href="([^"]*)"', page).group(1))
    assert board.startswith(f"/play/{form['game']}?") and "objective=expected" in board
    assert client.get(board).status_code == 200  # (a fresh secret: the board draws it)
    assert f'id="explore" href="{job}/explore?path=' in page
    download = client.get(job + "/strategy.json")
    assert download.headers["content-type"] == "application/json"
    assert download.headers["content-disposition"] == f'attachment; filename="{name}.json"'
    path = tmp_path / f"{name}.json"
    path.write_bytes(download.content)
    verified = perfectplay("verify", "--json", str(path))  # (its claim solved again too)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["game"] == form["game"]
    assert client.get("/jobs/999999/strategy.json").status_code == 404


def test_a_finished_result_stays_reachable_after_many_newer_solves(client):
    from perfectplay.web.jobs import KEEP

    first = _solved(client, {"game": "mastermind", "pegs": "2", "colors": "3"})
    for _ in range(KEEP + 1):
        _solved(client, {"game": "mastermind", "pegs": "2", "colors": "2"})
    page = client.get(first)
    assert page.status_code == 200 and 'id="value">2.' in page.text
    assert client.get(first + "/explore?path=").status_code == 200
    assert client.get(first + "/strategy.json").json()["params"] == {"pegs": 2, "colors": 3}


def _links(page: str) -> list[str]:
    """The explorer's links one level down (their queries), in the page's order."""
    return [
        html.unescape(q)
        for q in re.findall(r'<td>\s*<span class="option[^"]*">\s*<a href="\?([^"]*)"', page)
    ]


def test_the_explorer_opens_a_markov_policy_two_levels_in_words_and_goes_up_one(client):
    job = _solved(client, {"game": "dice-cards", "n": "3"})
    root = client.get(job + "/explore").text
    assert 'id="up"' not in root and "face down: none" in root
    level_2 = client.get(job + "/explore?" + _links(root)[0]).text
    level_3 = client.get(job + "/explore?" + _links(level_2)[-1]).text
    title_2 = re.search(r'id="title">([^<]*)<', level_2).group(1)
    steps = re.findall(
        r"<li [^>]*><a [^>]*>([^<]*)</a>: <span class=\"step\">([^<]*)</span> → <b>([^<]*)</b>",
        level_3,
    )
    assert [s[0] for s in steps] == ["face down: none", title_2]  # states in words
    assert all(s[1].startswith("rolled ") for s in steps)
    assert "path 4628" not in level_3 and "level 3" in level_3
    up = html.unescape(re.search(r'id="up" href="\?([^"]*)"', level_3).group(1))
    assert (
        re.search(r'id="title">([^<]*)<', client.get(job + "/explore?" + up).text).group(1)
        == title_2
    )
    assert re.search(r'class="cost">[0-9.]+ moves<', level_3)  # every choice with its value
    wrong = client.get(job + "/explore?path=0&path=7")  # a state not reached from the start
    assert wrong.status_code == 400 and "is not reached from 'face down: none'" in _line(wrong)


def test_a_deduction_explorer_shows_the_advice_and_its_guesses_written_out(client):
    """The explorer's node is the advisor's: its guess the suggestion, its table the
    options with their values; a branch leads to the position after it, whose trail says
    the guess, the feedback and the next guess with its value."""
    job = _solved(client, {"game": "mastermind", "pegs": "3", "colors": "4"})
    for _ in range(40):  # (the exact ranking may come on a later ask)
        root = client.get(job + "/explore").text
        if 'id="options-label">proven optimal<' in root:
            break
    values = re.findall(r'<td class="num">([0-9.]+)[^<]*</td><td class="num">(\d)</td>', root)
    assert len(values) == 3 and all(2 <= float(a) <= int(w) for a, w in values)
    assert 'id="title">guess 112<' in root
    below = client.get(job + "/explore?" + _links(root)[0]).text
    step = re.search(
        r'<a href="\?path=&amp;guess=112">guess 112</a>: <span class="step">(\w+)</span> → '
        r"<b>guess (\d+)</b>",
        below,
    )
    assert step and step.group(2) == re.search(r'id="title">guess (\d+)<', below).group(1)
    picked = re.search(r'class="pick" data-guess="(\d+)" href="\?([^"]*)"', below)
    other = client.get(job + "/explore?" + html.unescape(picked.group(2))).text
    assert f'id="title">guess {picked.group(1)}<' in other


def test_a_markov_result_shows_the_value_by_state_and_the_policy(client):
    page = client.get(_solved(client, {"game": "dice-cards", "n": "4"})).text
    plot = page[page.index('id="plot"') : page.index("</figure>", page.index('id="plot"'))]
    assert "<svg" in plot and "cards still face up" in plot  # (matplotlib names its texts)
    policy = html.unescape(page[page.index('id="policy"') :])
    assert "dice-cards(n=4): expected moves = 22.043937735" in policy
    assert "face down: none" in policy and "rolled 1 and 1 -> turn card 1 down" in policy


def test_the_best_guesses_carry_their_worst_case_as_rank_gives_it(client):
    query = "pegs=3&colors=4&seed=1&secret=yours&moves=123:0B1W"
    page = _final_options(client, f"/play/mastermind/options?{query}")
    assert "<th>expected guesses</th><th>worst case</th>" in page
    rows = re.findall(
        r'data-guess="(\d+)".*?</td><td class="num">[^<]*</td><td class="num">(\d*)<', page
    )
    assert 1 < len(rows) <= 10  # (one of each kind alike under the symmetry)
    ranked = perfectplay(
        "rank",
        "mastermind",
        "pegs=3",
        "colors=4",
        "--objective",
        "worst",
        "--after",
        "123:0B1W",
        "--top",
        "100",
        "--json",
    )
    worst = {r["guess"]: int(r["value"]) - 1 for r in json.loads(ranked.stdout)["top"]}
    assert {guess: int(w) for guess, w in rows} == {guess: worst[guess] for guess, _ in rows}


def test_a_list_not_proven_says_so_and_shows_bounds(client):
    page = client.get("/play/wordle/options?seed=1&secret=yours").text  # (rank takes hours)
    label = _said(page, "options-label")
    # the book's opening first, as the board's line says it, then bounds found so far
    assert label.startswith("proven optimal over all 12,972 openings") or label.startswith(
        "best found, not proven; salet: proven optimal over all 12,972 openings"
    )
    assert '<tr class="best" data-guess="salet">' in page
    assert 'data-suggestion="salet"' in page
    board = client.get("/play/wordle?seed=1&secret=yours").text
    assert '<strong id="suggestion">salet</strong>' in board
    values = re.findall(r'<tr data-guess="[a-z]+">.*?<td class="num">([^<]*)</td>', page)
    assert len(values) == 9
    for value in values:  # each no better than the book's proven opening
        low = float(re.search(r"\d\.\d{4}", value).group())
        assert low >= 7920 / 2315 - 5e-5 or "–" in value or value.startswith("at most")


def test_asking_again_finds_the_same_advice_or_better(client):
    """The board's line and the table ask for one advice: a second ask returns the first's
    (kept) or a later stage of it, never another ranking."""
    jobs = client.app.state.jobs
    aim = Objective()  # (the board's: its limit of 6 folded in by the advisor)
    first = jobs.advise("wordle", "", aim, 1.0)
    again = jobs.advise("wordle", "", aim, 1.5)
    assert first is not None and again is not None
    assert again.suggestion.label == first.suggestion.label == "salet"


def test_a_markov_result_without_matplotlib_says_so_in_one_line(monkeypatch):
    from perfectplay import load_game, solve
    from perfectplay.web.pictures import policy_pictures

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # (its import fails)
    game = load_game("dice-cards(n=2)")
    solution = solve(game)
    pictures = policy_pictures(game, solution, solution.export())
    assert pictures.svg is None
    assert pictures.note == (
        "no picture of the value by state: needs matplotlib: pip install 'perfectplay[plot]'"
    )
    assert "face down: none" in pictures.summary


def test_a_policy_is_shown_two_levels_deep_unless_that_is_too_many_lines():
    from perfectplay import load_game, solve
    from perfectplay.web.pictures import SUMMARY_LINES, policy_pictures

    two_down = re.compile(r"face down: \d+ \d+ ")  # (a state two moves from the start)
    small, large = (load_game(f"dice-cards(n={n})") for n in (4, 5))
    solved = {game: solve(game) for game in (small, large)}
    pictured = {game: policy_pictures(game, s, s.export()) for game, s in solved.items()}
    assert two_down.search(pictured[small].summary)
    summary = pictured[large].summary
    assert not two_down.search(summary) and summary.count("\n") < SUMMARY_LINES
    assert "rolled 5 and 5 -> " in summary  # (its first level whole)


def test_a_staged_game_is_played_on_its_board_and_explored_to_the_end(client):
    """Yahtzee (its chance box alone: one turn) on the board: every keep and the box with
    the expected final score, the optimal choice followed to the end, the review
    accounting for the points; its solve's explorer opens the start and goes down."""
    url, turns = "/play/yahtzee?card=4096&seed=3", 0
    for _ in range(100):
        page = client.get(url).text
        chosen = re.search(r'<li class="option chosen"><a href="([^"]+)"', page)
        if chosen is None and 'id="waiting"' in page:
            time.sleep(0.2)
            continue
        if chosen is None:
            break
        turns += 1
        url = html.unescape(chosen.group(1))
    assert turns == 2  # two keeps (the one box open then takes the roll)
    assert _said(page, "finished").startswith("finished with ")
    loss, luck, accounted, paid = _review(page)
    assert loss == 0 and abs(accounted - paid) < 1e-6

    job = client.post("/solve", data={"game": "yahtzee", "card": "4096"}, follow_redirects=False)
    where = job.headers["location"]
    for _ in range(100):
        if client.get("/api" + where).json()["state"] == "done":
            break
        time.sleep(0.2)
    start = client.get(where + "/explore")
    assert start.status_code == 200 and "23.333333" in start.text  # 70/3, the start's value
    down = re.search(r'href="(\?path=0&amp;path=\d+)"', start.text)  # a keep, one level down
    assert down is not None
    level = client.get(where + "/explore" + html.unescape(down.group(1)))
    assert level.status_code == 200 and "points" in level.text


def _play_board(client, url: str, astray: set[int]) -> str:
    """The board's last page once the game is played from `url` by clicks: the last
    choice listed at the decisions numbered in `astray` (from 0), the optimal elsewhere."""
    page, turn = "", 0
    for _ in range(300):
        page = client.get(url).text
        choices = re.findall(r'<li class="option( chosen)?"><a href="([^"]+)"', page)
        if not choices and 'id="waiting"' in page:
            time.sleep(0.2)
            continue
        if not choices:
            return page
        url = html.unescape(choices[-1][1] if turn in astray else next(h for c, h in choices if c))
        turn += 1
    raise AssertionError("the game did not end")


def _rows(page: str) -> list[list[str]]:
    """The review table's rows (the header and the totals left out), cell by cell."""
    table = re.search(r'<table class="review-table" id="review-table">(.*?)</table>', page, re.S)
    rows = re.findall(r"<tr(?: class=\"lossy\")?>(.*?)</tr>", table.group(1), re.S)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S) for row in rows]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells[1:]]


def test_a_yahtzee_review_has_a_row_per_decision_numbered_by_turn_and_adds_up_the_score(client):
    """Two boxes of Yahtzee, some choices not the optimal: the rolls are luck, not moves
    (no "rolled ... -> keep all five" row), each decision a row numbered by its turn (1
    or 2, never the step), no "-0.0000", and the sum's signs those of a score: the
    start, less the loss, plus the luck, is what was scored."""
    page = _play_board(client, "/play/yahtzee?card=4160&seed=3", astray={1, 3})
    assert _said(page, "finished").startswith("finished with ")
    rows = _rows(page)
    assert rows and all(len(r) == 6 for r in rows)
    assert {r[0] for r in rows} == {"1", "2"}, rows  # the turns, as Yahtzee numbers them
    assert all(r[1].startswith(("roll ", "final roll")) for r in rows), rows
    assert not any("keep all five" in r[2] or "rolled" in r[1] for r in rows), rows
    assert "-0.0000" not in page
    assert all(r[4] == "+0.0000" for r in rows if r[3] == "the move played")
    loss, luck, accounted, scored = _review(page)
    assert loss > 0 and abs(accounted - scored) < 1e-6
    said = _said(page, "review-sum")
    assert f"− the moves' loss {loss:.4f}" in said, said
    assert ("+ the luck" if luck >= 0 else "− the bad luck") in said, said
    assert f"what was scored ({scored})" in said


def test_a_tricky_trios_review_numbers_its_rows_by_round(client):
    """Tricky Trios: the flips reviewed, the draws luck; each row numbered by its round
    (never past the rounds paid, where numbering the steps went far past them)."""
    page = _play_board(client, "/play/tricky-trios?n=3&seed=4", astray={0})
    paid = int(re.search(r"finished in (\d+) rounds?", _said(page, "finished")).group(1))
    rows = _rows(page)
    turns = [int(r[0]) for r in rows]
    assert turns == sorted(turns) and 1 <= turns[0] < turns[-1] <= paid, rows
    assert not any(r[2] == "reveal" for r in rows), rows  # (a draw is chance: no row)
    loss, luck, accounted, paid_said = _review(page)
    assert paid_said == paid and abs(accounted - paid) < 1e-6
    assert f"+ the moves' loss {loss:.4f}" in _said(page, "review-sum")


def test_a_staged_games_board_is_played_at_once_by_a_server_started_again():
    """Yahtzee solved by one server is kept (``perfectplay.kept``): a server started
    again shows its board at the first visit, with no solve of its own."""
    from starlette.testclient import TestClient

    from perfectplay.web.jobs import KEPT, Jobs

    url = "/play/yahtzee?card=4161&seed=5"
    first = Jobs()
    with TestClient(create_app(first)) as one:
        for _ in range(300):
            if 'id="choices"' in one.get(url).text:
                break
            time.sleep(0.2)
        (job,) = first._jobs.values()  # (its strategy kept in a file, not sent back whole)
        assert job.kept_file is not None and job.document["strategy"] == KEPT
        download = one.get(f"/jobs/{job.id}/strategy.json")
        assert download.content == Path(job.kept_file).read_bytes()
    again = Jobs()
    with TestClient(create_app(again)) as two:
        page = two.get(url).text
        assert [job.process for job in again._jobs.values()] == [None]  # (read, not solved)
    assert 'id="choices"' in page and 'id="waiting"' not in page


def test_a_yahtzee_board_lists_its_choices_best_first_by_expected_final_score(client):
    """Every keep of the roll, best first, each with the final score it is expected to
    bring and its loss against the best (the order was the rules' own: the best at #3,
    #4 or #9), and the same after a box is scored (the points scored included)."""
    url = "/play/yahtzee?card=4160&seed=3"
    for turn in range(4):
        for _ in range(300):
            page = client.get(url).text
            if 'id="waiting"' not in page:
                break
            time.sleep(0.2)
        rows = re.findall(
            r'<li class="option( chosen)?"><a href="([^"]+)"[^>]*>[^<]*</a> <span class="cost">'
            r"([\d.]+) points \(sd [\d.]+\)</span> (?:<strong>optimal</strong>|<span "
            r"class=\"loss\">loss ([\d.]+)</span>)",
            page,
        )  # (each with the standard deviation of its final score: ``advice.Option.spread``)
        finals = [float(r[2]) for r in rows]
        assert len(rows) > 1 and finals == sorted(finals, reverse=True), page
        assert page.count('class="die"') == 5  # (the five dice drawn)
        assert rows[0][0] and not any(r[0] for r in rows[1:])
        assert all(abs(float(r[3]) - (finals[0] - f)) < 2e-4 for r, f in zip(rows[1:], finals[1:]))
        if turn == 3:  # (the first box is scored: its points count in the final score)
            assert finals[0] > float(re.search(r'id="paid">(\d+)<', page).group(1)) > 0
        url = html.unescape(rows[0][1])


def test_a_yahtzee_board_keeps_the_score_card_with_its_upper_total_and_bonus(client):
    """Aces, three of a kind and chance played to the end: the card shows each box's
    score, the upper total and what the bonus still needs, and the total scored."""
    page = _play_board(client, "/play/yahtzee?card=4161&seed=7", astray=set())
    card = re.search(r'<table class="scorecard" id="scorecard">(.*?)</table>', page, re.S).group(1)
    cells = dict(re.findall(r"<th>([^<]+)</th><td[^>]*>([^<]*)</td>", card))
    assert set(cells) == {
        "aces",
        "upper total",
        "bonus (35 at 63)",
        "three of a kind",
        "chance",
        "total",
    }
    aces = int(cells["aces"])
    assert int(cells["upper total"]) == aces and cells["bonus (35 at 63)"] == f"{63 - aces} to go"
    scored = int(re.search(r"finished with (\d+) points", _said(page, "finished")).group(1))
    assert (
        int(cells["total"]) == scored == aces + int(cells["three of a kind"]) + int(cells["chance"])
    )
    assert page.count('class="die"') == 0  # (the game over: no dice showing)


def _advised(client, position: str, card: str = "4161"):
    """The board advising the Yahtzee position `position` (once its strategy is solved)."""
    for _ in range(300):
        page = client.get("/play/yahtzee", params={"card": card, "seed": "1", "position": position})
        if 'id="waiting"' not in page.text:
            return page
        time.sleep(0.2)
    raise AssertionError("no strategy")


def test_a_yahtzee_game_played_elsewhere_is_advised_from_its_card_and_dice(client):
    """The board links to the advice of a game played elsewhere; a card and dice typed
    give every choice best first, the points scored counted in the final score; a bad
    entry is one line on the page, which keeps what was typed; a game that reads no
    position says so."""
    board = client.get("/play/yahtzee?card=4161&seed=1").text
    assert (
        'id="mode-yours" href="/play/yahtzee?joker=free&amp;card=4161&amp;seed=1&amp;position=+"'
        in board
    )
    assert 'id="position"' in _advised(client, " ").text
    page = _advised(client, "chance 20; roll 3: 1 1 3 4 5")
    assert page.status_code == 200
    assert _said(page.text, "choices-note").startswith("scored so far: 20.")
    rows = re.findall(
        r'<li class="option[^"]*"><a href="([^"]*)">([^<]+)</a> <span class="cost">([\d.]+) points',
        page.text,
    )
    assert [label for _, label, _ in rows] == ["aces: 2 points", "three of a kind: 0 points"]
    assert float(rows[0][2]) > float(rows[1][2]) > 20
    # the score card of the position, and each choice opening the position after it
    card = re.search(r'<table class="scorecard".*?</table>', page.text, re.S)[0]
    assert re.search(r"<th>chance</th><td>20</td>", card) and 'id="total">20<' in card
    after = parse_qs(urlsplit(html.unescape(rows[0][0])).query)["position"][0]
    assert after == "aces 2, chance 20; roll 1: "
    kept = _advised(client, "aces 3; roll 2: 1 3 3 5 6").text
    assert 'id="upper">3<' in kept and 'id="total">3<' in kept and "<th>aces</th><td>3<" in kept
    first = re.search(r'<li class="option chosen"><a href="([^"]*)">keep ([\d ]+)</a>', kept)
    typed = parse_qs(urlsplit(html.unescape(first[1])).query)["position"][0]
    assert typed == f"aces 3; roll 3: {first[2]}"
    for typed, said in [
        ("chance 20, chance 21; roll 1: 1 2 3 4 5", "chance is written twice"),
        ("aces 7; roll 1: 1 2 3 4 5", "aces cannot score 7"),
        ("chance 20; roll 2: 1 2 3 4", "write the 5 dice, faces 1 to 6"),
    ]:
        bad = _advised(client, typed)
        assert bad.status_code == 400 and said in _said(bad.text, "refused")
        assert f'value="{html.escape(typed)}"' in bad.text
    other = client.get("/play/dice-cards?n=3&seed=1&position=x")
    assert other.status_code == 400 and "reads no position" in other.text
