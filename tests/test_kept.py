"""Strategies of staged games kept in the user's cache (``perfectplay.kept``): solved once,
then read back by the terminal's ``play`` and by a server started again."""

from __future__ import annotations

import pytest

from perfectplay import engine
from perfectplay.catalogue import load_game
from perfectplay.kept import kept_path, kept_strategy, strategy_for
from perfectplay.markov import contract
from perfectplay.objectives import Objective

SMALL = ["card=4160"]  # Yahtzee's three of a kind and chance: two turns


def test_a_staged_games_strategy_is_solved_once_then_read_back(monkeypatch):
    game = load_game("yahtzee", SMALL)
    assert kept_strategy(game, Objective()) is None
    value = strategy_for(game).value(contract.start(game))
    assert kept_path(game, Objective()).is_file()

    def no_solve(*args, **kwargs):
        raise AssertionError("solved again")

    monkeypatch.setattr(engine, "solve", no_solve)
    assert strategy_for(load_game("yahtzee", SMALL)).value(contract.start(game)) == value


def test_a_kept_file_that_does_not_read_as_the_strategy_is_solved_again():
    game = load_game("yahtzee", SMALL)
    strategy_for(game)
    path = kept_path(game, Objective())
    path.write_text(path.read_text()[: path.stat().st_size // 2])  # (cut short: not JSON)
    assert kept_strategy(game, Objective()) is None
    assert strategy_for(game).value(contract.start(game)) == pytest.approx(
        strategy_for(game).value(contract.start(game))
    )
    assert kept_strategy(game, Objective()) is not None  # (kept again, whole)


def test_each_card_and_rule_is_kept_apart_and_only_staged_games_are_kept():
    paths = {
        kept_path(load_game("yahtzee", params), Objective())
        for params in (SMALL, ["card=4161"], ["card=4160", "joker=none"])
    }
    assert len(paths) == 3
    assert kept_path(load_game("yatzy", ["card=1"]), Objective()) not in paths
    assert kept_path(load_game("dice-cards", ["n=3"]), Objective()) is None
    targets = {kept_path(load_game("yahtzee", SMALL), Objective("probability", h)) for h in (9, 10)}
    assert len(targets | paths) == 5  # (each target apart: its rows are its own)


def test_the_kept_folder_is_held_to_its_room_the_least_recently_read_removed(monkeypatch):
    """Targets kept one after another (a web page may ask for any up to 300: Yahtzee's
    to 300 take 580 MB): beyond KEPT_BYTES the strategy read least recently goes, never
    the one just kept; one read again stays."""
    import os
    import time

    from perfectplay import kept

    game = load_game("yahtzee", SMALL)
    paths = []
    for h in (20, 30):
        strategy_for(game, Objective("probability", h))
        paths.append(kept_path(game, Objective("probability", h)))
    room = sum(p.stat().st_size for p in paths) + 1
    monkeypatch.setattr(kept, "KEPT_BYTES", room)
    past = time.time() - 60
    for age, path in enumerate(paths):  # (the first kept read longest ago)
        os.utime(path, (past + age, past + age))
    assert kept_strategy(game, Objective("probability", 20)) is not None  # (read: now the newest)
    strategy_for(game, Objective("probability", 10))  # (smaller than the one it replaces)
    assert paths[0].is_file() and not paths[1].is_file()
    assert kept_path(game, Objective("probability", 10)).is_file()
