"""Every Markov game in the catalogue keeps the rules protocol (checked on small instances)."""

import pytest

from perfectplay import load_game
from perfectplay.catalogue import game_class, game_names
from perfectplay.markov.check import check_game

MARKOV = [n for n in game_names() if game_class(n).kind == "markov"]
#: Those sized by a parameter n (Yahtzee and Yatzy are checked on small cards instead).
SIZED = [n for n in MARKOV if any(s.name == "n" for s in game_class(n).param_specs())]


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_catalogue_markov_games_pass_check_game(name, n):
    check_game(load_game(name, [f"n={n}"]))


@pytest.mark.parametrize("spec", ["yahtzee(card=4096)", "yahtzee(card=2049)", "yatzy(card=3)"])
def test_staged_games_pass_check_game(spec):
    check_game(load_game(spec))


def test_check_game_catches_a_broken_game():
    from perfectplay.markov.table import TableGame

    with pytest.raises(Exception, match="offers no choice"):
        check_game(TableGame({0: [(1, [])]}, terminal=frozenset({1})))


def test_tricky_trios_estimates_its_memory_up_front():
    # n=100 peaks near 5.1 GiB; with 4 GiB allowed it is refused before exploring, the
    # figure in the message (it used to start and grow without an estimate)
    import pytest

    from perfectplay import load_game
    from perfectplay.errors import Unsupported
    from perfectplay.markov.compile import compile_game

    with pytest.raises(
        Unsupported,
        match=r"110,355,024 states at 50 bytes each \(measured\) "
        r"would take about 5.1 GiB of memory, more than the 4.0 GiB available",
    ):
        compile_game(load_game("tricky-trios", ["n=100"]), memory_bytes=4 * 2**30)


def test_check_game_takes_what_the_docs_allow_and_calls_the_rules_as_the_engine_does():
    # numpy integers where the docs say "an integer": the start's code and state_family
    # (numpy code gives them: ``states.sum()``); a cost given once for every choice,
    # which the engine broadcasts; the rules called with int64 arrays only
    import numpy as np

    from perfectplay.markov.model import Expansion
    from perfectplay.markov.table import TableGame

    class Numpy(TableGame):
        def is_terminal(self, states):
            assert isinstance(states, np.ndarray) and states.dtype == np.int64, states
            return super().is_terminal(states)

        def expand(self, states):
            assert isinstance(states, np.ndarray) and states.dtype == np.int64, states
            e = super().expand(states)
            return Expansion(e.weight, e.next, np.ones((1, 1, 1), dtype=np.int64))

        def state_family(self, state):
            return np.int64(state) * 2

    coin = {0: [(1, [(1, 1)]), (1, [(0, 1)])]}
    check_game(Numpy(coin, terminal=frozenset({1}), start=np.int64(0)))


def test_check_game_names_labels_of_the_wrong_shape():
    import numpy as np

    from perfectplay.markov.table import TableGame

    class Labelled(TableGame):
        choice_kind_names = ("heads", "tails")

        def choice_kinds(self, states, expansion):
            return np.zeros(len(states), dtype=np.int8)  # one per state, not per choice

    with pytest.raises(AssertionError, match="choice_kinds must have next's shape"):
        check_game(Labelled({0: [(1, [(1, 1)]), (1, [(0, 1)])]}, terminal=frozenset({1})))
