"""The server runs a plug-in's rules only when a page asks for them: never at its warm-up
(a plug-in whose rules raise stopped the server), and a game whose rules fail on a page
is shown as broken on the catalogue, one line why, the server answering the rest."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")

from starlette.testclient import TestClient  # noqa: E402

from perfectplay import catalogue  # noqa: E402
from perfectplay.deduction.model import DeductionGame  # noqa: E402


@dataclass(frozen=True)
class RaisingRules(DeductionGame):
    """A plug-in whose codes cannot be listed: its rules raise."""

    name = "raising-rules"
    summary = "rules that raise"

    def length(self) -> int:
        return 1

    def n_symbols(self) -> int:
        return 3

    def guesses(self):
        raise RuntimeError("the plug-in's own bug")

    def n_feedbacks(self) -> int:
        return 2

    def solved_feedback(self) -> int:
        return 1

    def feedback(self, guess, secret) -> int:
        return 0


@pytest.fixture
def plugged(monkeypatch):
    """RaisingRules in the catalogue for the test alone."""
    monkeypatch.setitem(catalogue._REGISTERED, RaisingRules.name, RaisingRules)


def test_the_warm_up_runs_only_the_games_the_package_ships(plugged):
    from perfectplay.web import warm

    warmed = {game.name for game in warm._default_games()}  # raised before, at the start
    assert RaisingRules.name in catalogue.game_names()
    assert warmed <= set(catalogue.shipped_names()) and "mastermind" in warmed


def test_a_game_whose_rules_fail_is_shown_broken_and_the_server_goes_on(plugged):
    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs

    with TestClient(create_app(Jobs()), raise_server_exceptions=False) as client:
        page = client.get("/")
        assert page.status_code == 200 and "raising-rules" in page.text
        assert "broken" not in page.text  # its rules not run yet
        failed = client.get("/play/raising-rules")
        said = "raised RuntimeError: the plug-in&#39;s own bug"  # (n_guesses() lists guesses())
        assert failed.status_code == 400 and said in failed.text  # one line (``BadRules``)
        page = client.get("/")
        assert page.status_code == 200
        assert "broken: its rules failed (BadRules: raising-rules: " in page.text
        assert f"{said})" in page.text
        assert page.text.count('<p class="error">') == 1  # the others as before
        assert client.get("/play/mastermind?seed=1").status_code == 200
