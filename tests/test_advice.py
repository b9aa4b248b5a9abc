"""The one advisor (``perfectplay.advice``): the suggestion is the first option, ties go
in the order of strength, the whole objective holds the game's limit on guesses, and
following the suggestions keeps the worst case the first one promised."""

from fractions import Fraction

import pytest

from perfectplay import Advice, advise, load_game
from perfectplay.advice import PROVEN, stages, whole_objective
from perfectplay.engine import engine_of
from perfectplay.objectives import Objective


def _follow(game, secret: int) -> int:
    """The guesses the advisor's suggestions take to find `secret` (a secret's index)."""
    engine, guesses, secrets = engine_of(game), game.guesses(), game.secrets()
    history = ()
    while True:
        advice = advise(game, history)
        assert advice.final and advice.proven
        g = advice.suggestion.action
        f = int(engine.feedback(game, guesses[[g]], secrets[[secret]])[0, 0])
        history += ((g, f),)
        if f == game.solved_feedback():
            return len(history)


@pytest.mark.parametrize("spec", ["permutation(n=4)", "mastermind(pegs=3,colors=4)"])
def test_following_the_suggestions_never_exceeds_the_promised_worst_case(spec):
    """Every secret: the suggestions find it within the opening's worst case, and some
    secret needs all of it (the promise is the strategy's own)."""
    game = load_game(spec)
    promised = advise(game).worst
    taken = [_follow(game, s) for s in range(len(game.secrets()))]
    assert max(taken) == promised


def test_ties_go_to_the_smaller_worst_case_then_a_possible_secret_then_the_lowest_code():
    game = load_game("permutation", ["n=4"])
    advice = advise(game)
    keys = [(o.value, o.worst, not o.may_be_secret, o.action) for o in advice.options if o.value]
    assert keys == sorted(keys)
    assert advice.suggestion is advice.options[0] and advice.label == PROVEN
    assert isinstance(advice, Advice) and advice.options[0].optimal


def test_a_wordle_limit_is_the_lexicographic_objective_and_its_last_guess_may_be_the_secret():
    """Wordle turns=2 after SALET (BBGBB): the last guess is one that may be the secret,
    ranked by the chance to win, none with a worst case beyond the limit."""
    game = load_game("wordle", ["turns=2"])
    assert whole_objective(game) == Objective("probability-then-cost", 2)
    history = engine_of(game).parse_position(game, "salet:BBGBB")
    advice = advise(game, history)
    assert advice.chance and advice.left == 1
    first = advice.suggestion
    assert first.may_be_secret and first.value == Fraction(1, 27)
    assert all(o.worst is None or o.worst <= 1 for o in advice.options)
    assert all(not o.may_be_secret for o in advice.options if o.value == 0)
    over = advise(game, history + ((first.action, 0),))
    assert over.over and over.suggestion is None


def test_every_stage_puts_its_suggestion_first_under_one_label():
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    seen = list(stages(game, (), whole_objective(game)))
    assert [s.final for s in seen][-1] and not any(s.final for s in seen[:-1])
    for s in seen:
        assert s.suggestion is s.options[0] and s.label
        assert s.proven == (s.label == PROVEN)
