"""A position's value as the search finds it (``rank.value_position``: one search) is the
ranking's best (every guess priced), and a guess's price alone (``price_guess``) is the
ranking's price of it, under every objective, on random positions of small games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import load_game
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.position import position_secrets
from perfectplay.deduction.rank import price_guess, rank_guesses, value_position
from perfectplay.errors import Unsupported
from perfectplay.objectives import Objective

GAMES = [load_game("mastermind", ["pegs=3", "colors=3"]), load_game("permutation", ["n=4"])]
OBJECTIVES = [
    Objective(),
    Objective("worst"),
    Objective("probability", 3),
    Objective("probability", 2),
]


def _position(game, seed: int, moves: int):
    """`moves` random guesses answered by a random secret (stopping before it is found)."""
    rng, table = random.Random(seed), build_table(game)
    secret = rng.randrange(table.n_secrets)
    history = ()
    for _ in range(moves):
        g = rng.randrange(len(table.guesses))
        f = int(game.feedback(table.guesses[g], table.guesses[secret]))
        if f == game.solved_feedback():
            break
        history += ((g, f),)
    return history


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(GAMES),
    objective=st.sampled_from(OBJECTIVES),
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 2),
    pick=st.integers(0, 10**6),
)
def test_the_searchs_value_is_the_rankings_best(game, objective, seed, moves, pick):
    history = _position(game, seed, moves)
    try:
        ranking = rank_guesses(game, objective, history)
    except Unsupported:
        with pytest.raises(Unsupported):
            value_position(game, objective, history)
        return
    played = pick % len(game.guesses())
    found = value_position(game, objective, history, played)
    assert found.best == ranking.best
    assert ranking.price(found.guess).value == ranking.best  # an optimal guess
    priced = ranking.price(played)
    assert found.played == (None if priced is None else priced.value)
    assert price_guess(game, objective, history, played) == found.played
    assert len(position_secrets(build_table(game), history)) == ranking.secrets
