"""The options at a deduction board's turn where the exact ranking is out of reach: each
guess's value between proven bounds (a strategy playing it, then the most-parts rule; the
search's own bound of the parts it leaves), held against the exact ranking."""

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
from perfectplay.advice import consistent_secrets

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay.web.options import TOP, Bounds, options_at  # noqa: E402

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


def test_the_bounded_list_comes_between_the_rule_of_thumb_and_the_exact_one():
    game = load_game("mastermind(pegs=3,colors=4)")
    lists = list(options_at(game, (), Objective()))
    labels = [found.label.split(":")[0] for found in lists]
    assert labels == ["rule of thumb"] + ["best found, not proven"] * 4 + ["exact", "exact"]
    first, last = lists[1], lists[4]
    assert first.column == "expected guesses" and first.bounded and first.worst
    assert [o.bounds.high for o in first.rows] == [None] * 3
    assert first.label.endswith(
        "the exact ranking did not end in the time the page gives it; 3 of the 3 have no "
        '"at most" yet (the strategy not worked out in the time the page gives it)'
    )
    assert '; 1 of the 3 has no "at most" yet' in lists[3].label
    # ordered by the strategy found (112: 103/32 guesses, then 123, then 111), each
    # between the search's bound and the exact value's strategy, worst case at most 4, 4, 5
    exact = {o.guess: Fraction(o.value.split("(")[1].rstrip(")")) for o in lists[5].rows}
    assert [o.guess for o in last.rows] == ["112", "123", "111"]
    assert [o.worst_at_most for o in last.rows] == [4, 4, 5]
    for o in last.rows:
        assert o.bounds.low <= exact[o.guess] <= o.bounds.high
    assert last.rows[0].bounds == Bounds(Fraction(201, 64), Fraction(103, 32))  # (as rank's 112)
    assert "have no" not in last.label


def test_the_chance_to_win_is_bounded_from_below_by_the_strategy():
    game = load_game("mastermind(pegs=3,colors=4)")
    lists = list(options_at(game, (), Objective("probability", 3)))
    found = lists[4]
    assert found.column == "chance to win in 3"
    assert found.label.startswith(
        "best found, not proven: each guess's chance to win within 3 guesses lies between "
        "the two numbers shown (at least: a strategy playing it, then the most-parts rule "
        "to the end; at most: the search's bound on the secrets each part it leaves must lose)"
    )
    lows = [o.bounds.low for o in found.rows]
    assert lows == sorted(lows, reverse=True) and lows[0] == Fraction(43, 64)
    assert all(o.bounds.high <= 1 for o in found.rows)


def test_under_the_worst_case_the_values_are_the_worst_case_once():
    game = load_game("mastermind(pegs=3,colors=4)")
    lists = list(options_at(game, (), Objective("worst")))
    found, final = lists[4], lists[-1]
    assert found.column == "worst case" and not found.worst and found.worst_note == ""
    assert found.label.startswith(
        "best found, not proven: each guess's worst case to the end, this one included, "
        "lies between the two numbers shown"
    )
    # (rows by the strategy's worst case, ties as the rule of thumb orders them; no part
    # of 15 secrets or more fits within two more guesses, whatever they are)
    assert [(o.guess, o.bounds.low, o.bounds.high) for o in found.rows] == [
        ("123", 4, 4),
        ("112", 4, 4),
        ("111", 4, 5),
    ]
    assert final.final and final.column == "worst case" and not final.worst
    assert [(o.guess, o.value, o.best) for o in final.rows] == [
        ("112", "4", True),
        ("123", "4", True),
        ("111", "5", False),
    ]


def test_the_bounds_are_written_as_numbers_between(monkeypatch):
    from starlette.testclient import TestClient

    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs
    from perfectplay.web.options import Bounds, Option, Options

    rows = (
        Option("112", "", 8, 17, True, bounds=Bounds(Fraction(49, 16), Fraction(103, 32))),
        Option("111", "", 4, 27, True, bounds=Bounds(Fraction(3), None), worst_at_most=4),
    )
    shown = Options("best found", "expected guesses", rows, False, True, True)
    monkeypatch.setattr(Jobs, "options", lambda self, *args: shown)
    jobs = Jobs()
    try:
        with TestClient(create_app(jobs)) as client:
            page = client.get("/play/mastermind/options?pegs=3&colors=4&seed=1").text
    finally:
        jobs.close()
    assert "<th>expected guesses, between</th><th>worst case</th>" in page
    assert '<td class="num">3.0625 – 3.2188</td><td class="num"></td>' in page
    # what the board's script says after the column's name, for the suggested guess
    assert 'data-column="expected guesses"' in page
    assert 'data-value="between 3.0625 and 3.2188" data-worst=""' in page
    assert 'data-value="at least 3" data-worst="at most 4"' in page
    assert '<td class="num">at least 3</td><td class="num">at most 4</td>' in page


def test_bounds_found_before_are_not_worked_out_again():
    game = load_game("mastermind(pegs=3,colors=4)")
    lists = list(options_at(game, (), Objective()))
    partial = lists[2].known  # one strategy worked out, two to go
    again = list(options_at(game, (), Objective(), known=partial))
    assert [found.label.split(":")[0] for found in again].count("best found, not proven") == 3
    assert again[1].known[0] == partial[0]  # (the search's side may tighten: its memo grew)
    assert [(b.guess, b.high, b.worst) for b in again[-3].known] == [
        (b.guess, b.high, b.worst) for b in lists[4].known
    ]
