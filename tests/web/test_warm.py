"""The server's warm-up loads every Markov game's kernels on its smallest game (a full
Yatzy's seconds of solving are the board's to spend, not the warm-up's)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from perfectplay import engine  # noqa: E402
from perfectplay.params import param_specs  # noqa: E402
from perfectplay.web import warm  # noqa: E402


def test_the_markov_games_are_warmed_at_their_least_parameters(monkeypatch):
    solved = []
    real = engine.solve
    monkeypatch.setattr(
        engine, "solve", lambda game, *a, **k: solved.append(game) or real(game, *a, **k)
    )
    warm.workers()
    names = {g.name for g in solved}
    assert {"yahtzee", "yatzy", "dice-cards", "tricky-trios"} <= names
    first = {}
    for game in solved:  # (then a probe of its own: dice-cards n=2)
        first.setdefault(game.name, game)
    for game in first.values():
        for p in param_specs(type(game)):
            if not (p.choices or p.path or p.text):
                assert getattr(game, p.attribute) == p.low, (game, p.name)
