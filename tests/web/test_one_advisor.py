"""One advisor behind every screen (issue 49): the web board's suggestion line is the
Api's advice (``perfectplay.advise``) at every position, in the same words the terminal
says it; following it on the web never needs more guesses than the opening promised; and
the review of a game that followed it charges nothing to the page's own suggestions and
adds up to the guesses played."""

from __future__ import annotations

import html
import random
import re
import time
from fractions import Fraction
from urllib.parse import parse_qs, urlencode

import numpy as np
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


@pytest.mark.parametrize("name", ["permutation", "mastermind"])
def test_following_the_web_suggestions_never_exceeds_the_promised_worst_case(client, name):
    """Every secret of permutation n=4 and Mastermind 3x4, each position's line the
    Api's, word for word: no game takes more guesses than the opening's worst case."""
    game = load_game(name, GAMES[name].split("&"))
    engine, n = engine_of(game), len(game.secrets())
    promised = advise(game).worst
    seeds: dict[int, int] = {}  # a seed holding each secret (the board draws it so)
    seed = 0
    while len(seeds) < n:
        seeds.setdefault(random.Random(seed).randrange(n), seed)
        seed += 1
    found: dict[int, int] = {}
    said: dict[str, str] = {}  # (each position's line, checked against the Api once)
    for secret, seed in sorted(seeds.items()):
        seen, moves = _play_on_the_web(client, name, GAMES[name], seed)
        for at, (code, note) in seen:
            if at not in said:
                said[at] = advice_line(game, advise(game, engine.parse_position(game, at)))
            assert f"{code} ({note})" == said[at], at
        found[secret] = len(moves.split(","))
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
    _reviewed_without_loss(page, moves)


def _reviewed_without_loss(page: str, moves: str) -> None:
    """The review of a game played by the suggestions: every guess's loss 0, and its
    sum the guesses paid."""
    played = len(moves.split(","))
    losses = re.findall(r'<td class="num">([+-]\d+\.\d{4})</td><td class="num">[+-]', page)
    assert losses == ["+0.0000"] * played
    said = re.sub(r"<[^>]+>", "", re.search(r'id="review-sum">(.*?)</p>', page, re.S)[1])
    assert f": {played:.4f}, what was paid ({played})" in said


def _solved(client, form: dict) -> str:
    """The address of a finished solve of the catalogue's `form`."""
    job = client.post("/solve", data=form, follow_redirects=False).headers["location"]
    for _ in range(600):
        if client.get("/api" + job).json()["state"] == "done":
            return job
        time.sleep(0.1)
    pytest.fail(f"{form}: the solve did not finish")


def _explored(client, job: str, trail: list[str]) -> str:
    """The explorer's page at the last position of `trail`, once its advice is final."""
    query = urlencode([("path", p) for p in trail])
    for _ in range(40):  # (a busy machine: the exact ranking comes on a later ask)
        page = client.get(f"{job}/explore?{query}")
        assert page.status_code == 200, page.text
        if f'id="options-label">{PROVEN}<' in page.text:
            return html.unescape(page.text)
    pytest.fail(f"{trail}: the explorer's advice never became final")


@pytest.mark.parametrize(
    "form, spec, positions",
    [
        (  # the tie: after 1234:1 and 1342:1, 1243 (worst 3) before 1423 (worst 4)
            {"game": "permutation", "n": "4"},
            "permutation(n=4)",
            ["", "1234:1", "1234:1,1342:1", "1234:0", "1234:1,1342:0"],
        ),
        (
            {"game": "mastermind", "pegs": "3", "colors": "4"},
            "mastermind(pegs=3,colors=4)",
            ["", "112:1B1W", "112:0B0W", "112:1B1W,123:1B1W"],
        ),
    ],
)
def test_the_explorer_shows_the_advisors_suggestion_options_and_numbers(
    client, form, spec, positions
):
    """At each node the explorer explores the advisor's suggestion, says its line, and
    lists its options in its order with its numbers; its branches lead to the positions
    after the suggestion."""
    game = load_game(spec)
    engine = engine_of(game)
    job = _solved(client, form)
    for moves in positions:
        history = engine.parse_position(game, moves)
        trail = [engine.format_position(game, history[:i]) for i in range(len(history) + 1)]
        page = _explored(client, job, trail)
        advice = advise(game, history)
        first = advice.suggestion
        assert re.search(r'id="title">guess (\w+)<', page)[1] == first.label
        assert f"suggested: {advice_line(game, advice)}" in page
        rows = re.findall(
            r'<tr(?: class="best")? data-guess="(\w+)"><td>.*?</td>'
            r'<td class="num">([^<]*)</td><td class="num">(\d*)</td>',
            page,
        )
        listed = advice.listed()
        assert [r[0] for r in rows] == [o.label for o in listed], moves
        for (_, value, worst), o in zip(rows, listed):
            assert value.split(" (")[0] == (
                str(o.value) if o.value.denominator == 1 else f"{float(o.value):.4f}"
            )
            assert worst == str(o.worst)
        after = {
            parse_qs(q)["path"][-1]
            for q in re.findall(r'<span class="option chosen">\s*<a href="\?([^"]*)"', page)
        }
        assert all(a.startswith(f"{moves},{first.label}:".lstrip(",")) for a in after)
        assert after or re.search(r"<li>1 secret still possible", page), moves
    tie = [o for o in advise(game, engine.parse_position(game, positions[2])).options]
    if game.name == "permutation":  # (the issue's: equal values, the smaller worst case first)
        assert tie[0].value == Fraction(5, 2) and tie[0].worst == 3
        later = next(o for o in tie if o.label == "1423")
        assert later.value == tie[0].value and later.worst == 4
        page = _explored(client, job, ["", "1234:1", "1234:1,1342:1"])
        assert page.index('data-guess="1243"') < page.index('data-guess="1423"')


def test_a_markov_explorer_orders_the_choices_as_the_advisor_does(client):
    """dice-cards n=3: after each roll, the choices in the advisor's order, its
    suggestion the one marked, each with the advisor's value."""
    from perfectplay.advice import markov_advice
    from perfectplay.catalogue import load_strategy
    from perfectplay.strategy import Decision

    job = _solved(client, {"game": "dice-cards", "n": "3"})
    page = html.unescape(client.get(job + "/explore").text)
    strategy = load_strategy(client.get(job + "/strategy.json").json())
    game = strategy.game
    state = int(strategy.root_path)
    rows = re.findall(r'<tr><th class="fb">([^<]*)</th>.*?</tr>', page, re.S)
    assert rows
    for k, row in enumerate(re.findall(r'<tr><th class="fb">.*?</tr>', page, re.S)):
        shown = re.findall(
            r'<span class="option( chosen)?">\s*<a [^>]*>([^<]*)</a>\s*'
            r'<span class="cost">([0-9.]+) ',
            row,
        )
        advice = markov_advice(game, Decision(state, k), strategy=strategy)
        assert [s[1] for s in shown] == [o.label for o in advice.options]
        assert [bool(s[0]) for s in shown] == [i == 0 for i in range(len(shown))]
        assert [s[2] for s in shown] == [f"{o.value:.6f}" for o in advice.options]


#: Wordle (its own lists and rules, six turns) at a position deep enough that its exact
#: ranking takes seconds: after SALET and CAIRN against the secret CIGAR, three secrets
#: are left (chair, cigar, circa); the opening is the book's (``test_the_book_...``).
WORDLE_POSITION = ("cigar", ["salet", "cairn"], "salet:BYBBB,cairn:GYYYB")


@pytest.mark.parametrize("screen", ["web", pytest.param("terminal", marks=pytest.mark.slow)])
def test_wordle_gives_one_suggestion_through_the_api_the_web_and_the_terminal(client, screen):
    """The same suggestion and numbers through the Api and the web board (advising a
    game played elsewhere, the position's moves typed) or the terminal (the guesses
    typed against the secret; its first two turns' advice searches for 20 s each)."""
    secret, typed, moves = WORDLE_POSITION
    game = load_game("wordle")
    line = advice_line(game, advise(game, engine_of(game).parse_position(game, moves)))
    assert line.startswith("chair (proven optimal;")
    if screen == "web":
        url = f"/play/wordle?secret=yours&seed=1&moves={moves}"
        for _ in range(40):  # (the exact ranking comes on a later ask)
            said = _line(client.get(url).text)
            if said is not None and said[1].startswith(PROVEN):
                break
        assert f"{said[0]} ({said[1]})" == line
    else:
        script = "\n".join(typed) + "\nquit\n"
        out = perfectplay("play", "wordle", "--secret", secret, "--budget", "20", input=script)
        assert f"suggested guess: {line}" in " ".join(out.stdout.split())


def test_a_bulls_and_cows_game_has_every_guess_reviewed_the_first_included(client):
    """Bulls and Cows 4x10 (the issue's seed 8, suggestions followed): the book's
    strategy, the whole game solved, answers at every position it reaches, so the review
    values every guess, the first included, at once (its search alone takes minutes)."""
    _, moves = _play_on_the_web(client, "bulls-and-cows", "digits=4&symbols=10", seed=8)
    url = f"/play/bulls-and-cows/review?digits=4&symbols=10&seed=8&moves={moves}"
    page = html.unescape(client.get(url).text)
    assert "review of the game: every guess" in page
    _reviewed_without_loss(page, moves)


#: Every Markov game of the catalogue, at small parameters (the address's query).
MARKOV = {
    "dice-cards": "n=3",
    "tricky-trios": "n=2",
    "yahtzee": "card=4160",
    "yatzy": "card=4160",
}


def _first_decision_on_the_web(client, name: str, query: str) -> tuple[str, str, int, list]:
    """The board's first decision (seed 1): its state and outcome in words, what was paid
    or scored before it, and each choice's label and value as the page shows them."""
    for _ in range(600):  # (the strategy's solve, the first time)
        page = client.get(f"/play/{name}?{query}&seed=1").text
        if 'id="choices"' in page:
            break
        time.sleep(0.2)
    state = html.unescape(re.search(r'id="state">([^<]*)<', page)[1])
    outcome = html.unescape(re.search(r'id="outcome">([^<]*)<', page)[1])
    choices = re.findall(
        r'<li class="option[^"]*"><a [^>]*>([^<]*)</a> <span class="cost">([\d.]+) ', page
    )
    paid = int(re.search(r'id="paid">(\d+)<', page)[1])
    return state, outcome, paid, [(html.unescape(label), value) for label, value in choices]


@pytest.mark.parametrize("name", list(MARKOV))
def test_a_markov_game_gives_one_advice_through_the_api_the_web_and_the_terminal(client, name):
    """The first decision of a game (seed 1) on the web board and at the terminal: each
    screen's choices, in their order, with their expected final totals, are the Api's
    (``markov_advice``) at that decision."""
    from perfectplay.advice import markov_advice
    from perfectplay.kept import strategy_for
    from perfectplay.positions import expansion, start
    from perfectplay.strategy import Decision

    params = MARKOV[name].split("&")
    game = load_game(name, params)
    strategy = strategy_for(game)

    def near(text: str) -> int:
        """The state written `text` among the first reached from the start."""
        seen, todo = set(), [int(start(game))]
        while todo:
            here = todo.pop(0)
            if game.describe_state(here) == text:
                return here
            nxt = expansion(game, np.array([here], dtype=np.int64)).next
            for s in {int(t) for t in nxt.ravel() if t >= 0} - seen:
                seen.add(s)
                todo.append(s)
            assert len(seen) < 5000, text
        raise AssertionError(text)

    def api(state_text: str, outcome: str, paid: int) -> list[tuple[str, str]]:
        here = near(state_text)
        weights = expansion(game, np.array([here], dtype=np.int64)).weight[0]
        ks = np.flatnonzero(weights > 0).tolist()
        k = next(k for k in ks if game.describe_outcome(here, k) == outcome)
        options = markov_advice(game, Decision(here, k), strategy=strategy).options
        return [(o.label, f"{paid + o.value:.4f}") for o in options]

    state, outcome, paid, web = _first_decision_on_the_web(client, name, MARKOV[name])
    assert web and web == api(state, outcome, paid)
    said = perfectplay("play", name, *params, "--seed", "1", input="quit\n").stdout
    lines = said.split("\n")
    first = next(i for i, line in enumerate(lines) if re.match(r" +1\. ", line))
    block = "\n".join(lines[first:])
    final = re.escape(game.measure.expected_final)
    terminal = re.findall(rf"^ +\d+\. (.+?) +{final} ([\d.]+)", block, re.M)
    state_line = next(line for line in reversed(lines[: first - 1]) if "  (" in line)
    state_text, so_far = state_line.split("  (")
    paid = int(re.search(r"\d+", so_far)[0])
    assert terminal == api(state_text, lines[first - 1], paid)
