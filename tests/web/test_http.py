"""The web application without a browser: safe by default, clear 4xx messages, the
command line's validation, and `perfectplay serve` on loopback."""

from __future__ import annotations

import html
import re
import time

import pytest

from perfectplay.web.app import create_app


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from perfectplay.web.jobs import Jobs

    jobs = Jobs()
    jobs.warm_up()  # as ``perfectplay serve`` does before it serves
    with TestClient(create_app(jobs), raise_server_exceptions=False) as c:
        yield c


def _line(response) -> str:
    return html.unescape(re.search(r'id="error">([^<]*)<', response.text).group(1))


@pytest.mark.parametrize(
    "form, status, message",
    [
        (
            {"game": "mastermind", "pegs": "30"},
            400,
            "pegs=30 is out of range for mastermind (allowed 1..6)",
        ),
        ({"game": "mastermind", "pegs": "x"}, 400, "pegs must be an integer, got 'x'"),
        ({"game": "chess"}, 400, "unknown game 'chess'"),
        (
            {"game": "mastermind", "objective": "probability"},
            400,
            "objective 'probability' needs a horizon (--horizon H)",
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


def test_a_solve_can_be_cancelled(client):
    response = client.post(
        "/solve", data={"game": "mastermind", "pegs": "4", "colors": "7"}, follow_redirects=False
    )
    job = response.headers["location"]
    assert client.post("/solve", data={"game": "dice-cards"}).status_code == 429  # one at a time
    time.sleep(0.5)
    page = client.post(job + "/cancel")
    assert page.status_code == 200 and "cancelled" in _line(page)
    assert client.get("/api" + job).json()["state"] == "cancelled"


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
