"""A board of a scored game played for a target score (``--objective probability
--horizon S`` of Yahtzee): the advisor's chances, the same as ``play`` shows them."""

from __future__ import annotations

import re
import time

import pytest

from tests.cli_runner import perfectplay

SMALL = ["card=6208"]  # three of a kind, Yahtzee, chance
URL = "/play/yahtzee?card=6208&seed=3&objective=probability&horizon=60"
CHOICE = r"(keep [\d ]+?|keep all five|roll all five again)"


def _solved_page(client, url: str) -> str:
    """The board once its strategy is solved (a worker solves it at the first visit)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        page = client.get(url).text
        if "solving the optimal strategy" not in page:
            return " ".join(re.sub(r"<[^>]+>", " ", page).split())
        time.sleep(0.5)
    raise AssertionError("the target's strategy was not solved in 300 s")


def test_the_board_and_play_list_the_same_chances_best_first(client):
    text = _solved_page(client, URL)
    assert "optimal play scores at least 60 points with probability 0.131826" in text
    assert "its best chance of finishing with at least 60 points" in text
    board = re.findall(CHOICE + r" chance (0\.\d{4})", text)
    args = ["play", "yahtzee", *SMALL, "--objective", "probability", "--horizon", "60"]
    played = perfectplay(*args, "--seed", "3", input="q\n")
    assert played.returncode == 0, played.stderr
    terminal = re.findall(
        r"\d+\. " + CHOICE + r"\s+chance of at least 60 points (0\.\d{4})", played.stdout
    )
    assert board == terminal and len(board) > 10
    assert board[0] == ("keep 4 4", "0.1164")  # (seed 3 rolls 2 3 4 4 6)
    chances = [float(v) for _, v in board]
    assert chances == sorted(chances, reverse=True)


def test_the_explorer_of_a_target_lists_the_advisors_chances():
    """A node ``code@needed`` of a target's strategy: each roll's choices in the
    advisor's order, with their chances, the suggestion marked."""
    from types import SimpleNamespace

    from perfectplay import load_game, load_strategy, solve
    from perfectplay.advice import markov_advice
    from perfectplay.objectives import Objective
    from perfectplay.strategy import Decision
    from perfectplay.web.explorer import markov_view

    game = load_game("yahtzee", SMALL)
    aim = Objective("probability", 60)
    strategy = load_strategy(solve(game, aim).export())
    job = SimpleNamespace(strategy=strategy, objective="probability", horizon=60)
    roll = next(  # (a state after the first roll: its keeps)
        o.path for b in strategy.explore(strategy.root_path).branches for o in b.options
    )
    view = markov_view(job, strategy.explore(roll))
    state, needed = (int(x) for x in roll.split("@"))
    for branch in view.branches[:5]:
        advice = markov_advice(game, Decision(state, branch.number, needed), aim, strategy)
        assert [o.action for o in branch.options] == [o.action for o in advice.options]
        assert branch.options[0].chosen and not any(o.chosen for o in branch.options[1:])
        assert branch.options[0].value == f"probability {advice.options[0].value:.6f}"


def test_a_server_lets_go_of_the_strategies_asked_for_least_recently(monkeypatch):
    """Strategies of finished solves held within STRATEGY_BYTES (a target of 300 holds
    1.2 GB of rows, and a page may ask for any target): the one a board asks for is
    kept, those asked for least recently let go (read again from the kept file when
    asked), never the one asked for now."""
    from perfectplay import load_game
    from perfectplay.web import jobs as module

    spec = str(load_game("yahtzee", SMALL))
    jobs = module.Jobs()
    try:
        held = {}
        for target in (20, 30):
            job = jobs.strategy(spec, "probability", target)
            deadline = time.monotonic() + 120
            while job.state == "running" and time.monotonic() < deadline:
                time.sleep(0.2)
                job.poll()
            held[target] = job
            assert job.state == "done" and job.strategy.held_bytes > 0
        monkeypatch.setattr(module, "STRATEGY_BYTES", held[20].strategy.held_bytes - 1)
        assert jobs.strategy(spec, "probability", 30) is held[30]  # (asked again: the newest)
        assert held[20]._strategy is None and held[30]._strategy is not None
        chance = held[20].strategy.value(0)  # (read again from its kept file)
        assert chance == pytest.approx(held[20].document["value_float"], rel=1e-12)
    finally:
        jobs.close()
