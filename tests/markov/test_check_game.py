"""Every Markov game in the catalogue keeps the rules protocol (checked on small instances)."""

import pytest

from perfectplay import load_game
from perfectplay.catalogue import game_class, game_names
from perfectplay.markov.check import check_game

MARKOV = [n for n in game_names() if game_class(n).kind == "markov"]


@pytest.mark.parametrize("name", MARKOV)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_catalogue_markov_games_pass_check_game(name, n):
    check_game(load_game(name, [f"n={n}"]))


def test_check_game_catches_a_broken_game():
    from perfectplay.markov.table import TableGame

    with pytest.raises(Exception, match="offers no choice"):
        check_game(TableGame({0: [(1, [])]}, terminal=frozenset({1})))
