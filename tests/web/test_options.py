"""The options at a deduction board's turn (the advisor's stages) where the exact ranking
is out of reach: each guess's value between proven bounds (a strategy playing it, then
the most-parts rule; the search's own bound of the parts it leaves), held against the
exact ranking; the table the page renders is the advice the board's line says."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from perfectplay import load_game
from perfectplay.engine import engine_of
from perfectplay.errors import Unsupported
from perfectplay.objectives import Objective
from perfectplay.advice import TOP, consistent_secrets

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")


GAMES = (
    "mastermind(pegs=3,colors=3)",
    "mastermind(pegs=2,colors=5)",
    "bulls-and-cows(digits=3,symbols=5)",
    "permutation(n=4)",
    "item-matching(slots=3,items=4,turns=3,restrict=items)",  # a secret may be barred
    "mastermind(pegs=3,colors=3,possible_only=1)",  # hard mode
)


@st.composite
def positions(draw):
    """A small game, a position reached by playing guesses against a secret (none left
    found or determined), and an objective valued from there."""
    game = load_game(draw(st.sampled_from(GAMES)))
    engine = engine_of(game)
    guesses, secrets = game.guesses(), game.secrets()
    secret = draw(st.integers(0, len(secrets) - 1))
    history: tuple = ()
    for _ in range(draw(st.integers(0, 2))):
        mask = game.restrict_guesses(history, guesses)  # (the rules' own guesses only)
        allowed = np.arange(len(guesses)) if mask is None else np.flatnonzero(mask)
        g = int(allowed[draw(st.integers(0, len(allowed) - 1))])
        f = int(engine.feedback(game, guesses[[g]], secrets[[secret]])[0, 0])
        after = history + ((g, f),)
        if len(consistent_secrets(game, after)) < 3:
            break
        history = after
    name = draw(st.sampled_from(["expected", "worst", "probability"]))
    horizon = len(history) + draw(st.integers(1, 3)) if name == "probability" else None
    return game, history, Objective(name, horizon, determine=draw(st.booleans()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_bound_holds_the_exact_value(case):
    game, history, objective = case
    engine = engine_of(game)
    picks = engine.rule_of_thumb(game, objective, history, "most-parts")[:TOP]
    known = list(engine.bounds(game, objective, history, picks))
    side = "low" if objective.name == "probability" else "high"
    assert all(getattr(b, side) is None for b in known[0])  # the search's side comes first
    assert len(known) == len(known[0]) + 1  # then one more strategy at a time
    try:
        exact = engine.ranking(game, objective, history)
        worst = engine.ranking(game, Objective("worst", determine=objective.determine), history)
    except Unsupported:  # (no allowed guess helps here: the rules leave none)
        assume(False)
    for b in known[-1]:
        priced = exact.price(b.guess)
        if b.stuck:  # the rules leave the rule of thumb no useful guess somewhere after it
            assert getattr(b, side) is None and b.worst is None
            if priced is not None:  # (a guess rank leaves out may be listed only so)
                assert (b.low or 0) <= priced.value <= (b.high or priced.value)
            continue
        assert priced is not None  # a guess left out by rank has no strategy's side
        assert b.low <= priced.value <= b.high
        assert b.worst >= worst.price(b.guess).value
    priced = {int(g) for g in picks if exact.price(int(g)) is not None}
    assert priced <= {b.guess for b in known[-1]}  # every guess rank prices is bounded


def test_the_table_is_the_advice_the_line_says(monkeypatch):
    """The options page renders the board's advice (``Jobs.advise``): its first row the
    suggestion, its label, bounds written as numbers between, the worst case "at most"
    where the value is bounded; the board's line reads the same first row."""
    from starlette.testclient import TestClient

    from perfectplay.advice import BEST_FOUND, Advice, Bound, Option
    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs

    rows = (
        Option(
            1, "112", None, Bound(Fraction(49, 16), Fraction(103, 32)), 4, True, parts=8, largest=17
        ),
        Option(0, "111", None, Bound(Fraction(3), None), None, True, parts=4, largest=27),
    )
    shown = Advice(Objective(), rows, BEST_FOUND)
    monkeypatch.setattr(Jobs, "advise", lambda self, *args: shown)
    jobs = Jobs()
    try:
        with TestClient(create_app(jobs)) as client:
            page = client.get("/play/mastermind/options?pegs=3&colors=4&seed=1").text
            board = client.get("/play/mastermind?pegs=3&colors=4&seed=1").text
    finally:
        jobs.close()
    assert "<th>expected guesses, between</th><th>worst case</th>" in page
    assert '<td class="num">3.0625 – 3.2188</td><td class="num">at most 4</td>' in page
    assert '<td class="num">at least 3</td><td class="num"></td>' in page
    assert (
        'data-suggestion="112" data-note="best found, not proven; at most 3.2188 guesses, worst case 4"'
        in page
    )
    assert (
        '<strong id="suggestion">112</strong> (<span id="suggestion-note">best found, not '
        "proven; at most 3.2188 guesses, worst case 4</span>)"
    ) in board
