"""Memory guarded before it is spent: each request's memory is estimated before it is
allocated and refused in one line when it exceeds what is available (``memory``).

The large requests run in a process of their own whose address space is capped
(``RLIMIT_AS``): without the estimate they would fail on the cap (a MemoryError, a
traceback) or, uncapped, take the machine."""

from __future__ import annotations

import os
import resource
import textwrap

import pytest

from perfectplay.errors import Unsupported
from perfectplay.memory import available, refuse_beyond, size_text

from .cli_runner import assert_one_line_error, in_process_of_its_own

#: The address space a capped run may map: the command maps about 0.2 GiB before it
#: explores, so about 0.55 GiB is left for the request (a small one: the exploration
#: refused within it takes seconds through its set of states).
CAP = 3 << 28

#: Games of a plug-in too large for any machine, or for the cap.
GAMES = textwrap.dedent(
    '''
    from dataclasses import dataclass

    import numpy as np

    from perfectplay.deduction.model import DeductionGame
    from perfectplay.markov.model import Expansion, MarkovGame


    @dataclass(frozen=True)
    class BillionCodes(DeductionGame):
        """A billion codes, counted without listing them."""

        name = "billion-codes"
        summary = "a billion codes"

        def length(self):
            return 4

        def n_symbols(self):
            return 100

        def n_guesses(self):
            return 10**9

        def guesses(self):
            return np.ones((10**9, 4), dtype=np.int8)

        def n_feedbacks(self):
            return 2

        def solved_feedback(self):
            return 1

        def feedback(self, guess, secret):
            return int((guess == secret).all())


    @dataclass(frozen=True)
    class WideTree(MarkovGame):
        """A binary tree of states that only grows wider: no bound on its states."""

        name = "wide-tree"
        summary = "a tree that only grows"

        def initial_state(self):
            return 0

        def is_terminal(self, states):
            return states >= 1 << 40

        def expand(self, states):
            nxt = np.stack([2 * states + 1, 2 * states + 2], axis=1)[:, None, :]
            return Expansion(np.ones((len(states), 1), dtype=np.int64), nxt, np.ones_like(nxt))
    '''
)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """An installed package of the games above (a module and its entry points)."""
    root = tmp_path_factory.mktemp("site")
    (root / "large_games.py").write_text(GAMES)
    info = root / "large_games-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: large-games\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[perfectplay.games]\nbillion-codes = large_games:BillionCodes\n"
        "wide-tree = large_games:WideTree\n"
    )
    return root


def _capped(plugin, *args):
    path = os.pathsep.join([str(plugin), *filter(None, [os.environ.get("PYTHONPATH")])])
    return in_process_of_its_own(
        *args, env=dict(os.environ, PYTHONPATH=path), cwd=plugin, address_space=CAP
    )


def test_the_memory_available_is_what_the_address_space_limit_leaves():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (1 << 30), hard))
    try:
        free = available()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert 0.9 * 2**30 < free <= 2**30
    assert available() > free or soft != resource.RLIM_INFINITY


def test_a_request_beyond_the_memory_is_refused_naming_the_estimate_and_the_way_out():
    refuse_beyond(10, "ten bytes", "never said", free=10)
    with pytest.raises(Unsupported) as refused:
        refuse_beyond(3 << 30, "the thing", "try less", free=1 << 30)
    assert str(refused.value) == (
        "the thing would take about 3.0 GiB of memory, more than the 1.0 GiB available; try less"
    )
    assert [size_text(n) for n in (5, 3 << 10, 150 << 20, 5 << 40)] == [
        "5 bytes",
        "3.0 kiB",
        "150 MiB",
        "5.0 TiB",
    ]


def test_a_billion_codes_are_refused_before_they_are_listed(plugin):
    # the codes alone are 4 GB, beyond the cap: listing them would be a MemoryError
    needle = "billion-codes: listing its 1,000,000,000 guesses and 1,000,000,000 secrets would take"
    for command in (["solve", "billion-codes"], ["play", "billion-codes"]):
        res = _capped(plugin, *command)
        assert_one_line_error(res, needle)
        assert "try smaller parameters (fewer codes)" in res.stderr


def test_yahtzee_as_a_graph_is_refused_up_front(plugin):
    # it climbed to 10 GB before anything was said
    res = _capped(plugin, "solve", "yahtzee", "--without", "stages")
    assert_one_line_error(res, "yahtzee is too large: up to 1,674,575,873 states")
    assert "solved by stages (without --without stages)" in res.stderr


def test_an_exploration_is_refused_before_its_states_outgrow_the_memory(plugin):
    # no bound declared: the states found so far are held to the memory as they grow
    res = _capped(plugin, "solve", "wide-tree", "--float", "--quiet")
    assert_one_line_error(res, "wide-tree is too large: the ")
    assert "states found so far" in res.stderr


def test_the_gymnasium_environment_of_yahtzee_builds_no_graph():
    """Yahtzee's environment plays from its rules state by state (``gym.StagedEnv``):
    it was refused, its 1,674,575,873 states too many for a graph (a game too large for
    its graph is still refused: tests/test_gym.py)."""
    gymnasium = pytest.importorskip("gymnasium")
    from perfectplay.gym import StagedEnv

    env = gymnasium.make("perfectplay/yahtzee-v0").unwrapped
    assert isinstance(env, StagedEnv) and not hasattr(env, "graph")
    assert env.observation_space["state"].n == 1_674_575_873
