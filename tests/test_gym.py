"""Every catalogue game as a Gymnasium environment; the optimum as an agent."""

import numpy as np
import pytest

gymnasium = pytest.importorskip(
    "gymnasium", reason="gymnasium not installed (pip install '.[test]')"
)

from gymnasium.utils.env_checker import check_env  # noqa: E402

from perfectplay.catalogue import game_names  # noqa: E402
from perfectplay.gym import OptimalAgent, env_id  # noqa: E402

#: Small parameters per game, so that the whole registry is checked in seconds.
SMALL = {
    "mastermind": {"pegs": 2, "colors": 3},
    "bulls-and-cows": {"digits": 2, "symbols": 4},
    "permutation": {"n": 3},
    "item-matching": {"slots": 2, "items": 3, "turns": 2},
    "wordle": {},
    "dice-cards": {"n": 2},
    "tricky-trios": {"n": 2},
    "yahtzee": {"card": 4096},
    "yatzy": {"card": 1},
}


@pytest.mark.parametrize("name", game_names())
def test_check_env_passes_on_every_game(name):
    env = gymnasium.make(env_id(name), params=SMALL.get(name, {}))
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def _episodes(name, params, n, **kw):
    env = gymnasium.make(env_id(name), params=params, **kw)
    agent = OptimalAgent(env)
    returns = []
    for seed in range(n):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(agent.act())
            total += reward
            done = terminated or truncated
        returns.append(total)
    return agent, returns


def test_the_optimal_agent_finds_every_mastermind_secret_within_the_solved_worst_case():
    agent, returns = _episodes("mastermind", {"pegs": 2, "colors": 3}, 60)
    assert min(returns) >= -agent.solution.worst and max(returns) <= -1
    assert -sum(returns) / len(returns) == pytest.approx(agent.solution.value_float, abs=0.35)


def test_seeding_repeats_an_episode():
    env = gymnasium.make(env_id("dice-cards"), params={"n": 3})
    first = env.reset(seed=7)[0]
    again = env.reset(seed=7)[0]
    assert first == again


def test_the_optimal_agent_on_dice_cards_averages_its_value():
    agent, returns = _episodes("dice-cards", {"n": 2}, 400)
    mean = -sum(returns) / len(returns)
    assert mean == pytest.approx(agent.solution.value_float, rel=0.1)


def test_probability_objective_rewards_a_win_within_the_horizon():
    agent, returns = _episodes(
        "item-matching", {"slots": 2, "items": 3, "turns": 2}, 100, objective="probability"
    )
    assert set(returns) <= {0.0, 1.0}
    assert sum(returns) / len(returns) == pytest.approx(agent.solution.value_float, abs=0.15)


def test_an_episode_that_ends_in_the_forced_moves_of_reset_is_played_and_paid(monkeypatch):
    """A coin from 2 (heads: the game ends, the one way on; tails: step or stay), then
    from 1 a coin whose every side is one move: a reset can end the game by itself. The
    optimal agent raised "left the optimal strategy's positions" there; now any action
    ends that episode, and every episode's rewards add up to its whole cost (the forced
    moves' included)."""
    from dataclasses import dataclass

    import numpy as np

    from perfectplay import catalogue
    from perfectplay.gym import register_all
    from perfectplay.markov.model import Expansion, MarkovGame

    @dataclass(frozen=True)
    class Bust(MarkovGame):
        name = "bust-at-reset"
        summary = "a coin that may end the game before any choice"

        def initial_state(self):
            return 2

        def is_terminal(self, states):
            return states == 0

        def expand(self, states):
            B = len(states)
            nxt = np.full((B, 2, 2), -1, dtype=np.int64)
            nxt[:, 0, 0] = 0
            nxt[:, 1, 0] = states - 1
            nxt[:, 1, 1] = np.where(states == 2, 2, -1)
            return Expansion(np.ones((B, 2), dtype=np.int64), nxt, np.ones_like(nxt))

    monkeypatch.setitem(catalogue._REGISTERED, Bust.name, Bust)
    register_all()
    env = gymnasium.make(env_id(Bust.name))
    agent = OptimalAgent(env)
    ended_at_reset, returns = 0, []
    for seed in range(60):
        _, info = env.reset(seed=seed)
        ended_at_reset += env.unwrapped.over
        total, done = 0.0, False
        while not done:
            action = agent.act()
            assert info["action_mask"][action] == 1
            _, reward, done, truncated, info = env.step(action)
            total += reward
            assert not truncated
        assert total == -env.unwrapped.paid
        returns.append(total)
    assert ended_at_reset > 0 and min(returns) < -1
    assert -sum(returns) / len(returns) == pytest.approx(agent.solution.value_float, rel=0.2)


def test_the_optimal_agent_guesses_as_the_advisor_suggests():
    """Its guess is the one every screen suggests (``perfectplay.advise``), at each turn."""
    from perfectplay import advise

    env = gymnasium.make(env_id("permutation"), params={"n": 4})
    agent = OptimalAgent(env)
    game = env.unwrapped.game
    for seed in range(6):
        env.reset(seed=seed)
        done = False
        while not done:
            action = agent.act()
            assert action == advise(game, env.unwrapped.position).suggestion.action
            _, _, done, truncated, _ = env.step(action)
            done = done or truncated
        assert env.unwrapped._turn <= advise(game).worst


def test_a_staged_game_is_played_from_its_rules_without_a_graph():
    """Yahtzee (a small card) is a `StagedEnv`: no graph built, its observation the
    game's own state code; the optimal agent's episodes score the solved value on
    average, every reward a box's points, whole and not negative."""
    from perfectplay.gym import StagedEnv

    agent, returns = _episodes("yahtzee", {"card": 6208}, 300)
    env = agent.env
    assert isinstance(env, StagedEnv) and not hasattr(env, "graph")
    assert all(r >= 0 and r == int(r) for r in returns)
    mean, std = sum(returns) / len(returns), float(np.std(returns))
    assert abs(mean - agent.solution.value_float) <= 5 * std / len(returns) ** 0.5


def test_a_staged_game_is_played_for_a_target_by_its_rows():
    """Yahtzee's small card played for at least 60 points: the observation's budget the
    points still needed, the optimal agent's choices the target strategy's (its rows),
    a reward of 1 at the end of a game that reached 60; the share of such games the
    solved chance (0.131826) within sampling error."""
    agent, returns = _episodes("yahtzee", {"card": 6208}, 600, objective="probability", horizon=60)
    assert type(agent.strategy).__name__ == "TargetStrategy"
    assert set(returns) <= {0.0, 1.0}
    chance = agent.solution.value_float
    assert chance == pytest.approx(0.131826, abs=1e-6)
    share = sum(returns) / len(returns)
    assert abs(share - chance) <= 4 * (chance * (1 - chance) / len(returns)) ** 0.5


@pytest.mark.slow
def test_the_optimal_agent_plays_whole_yahtzee_games_within_a_gigabyte():
    """The whole card in a process of its own (its peak memory its own): the optimal
    agent's games from the stage values, with no graph (as a graph, the environment was
    killed at 11.8 GB)."""
    import subprocess
    import sys

    script = (
        "import resource, gymnasium, perfectplay.gym\n"
        "from perfectplay.gym import OptimalAgent, env_id\n"
        "env = gymnasium.make(env_id('yahtzee'))\n"
        "agent = OptimalAgent(env)\n"
        "for seed in range(3):\n"
        "    env.reset(seed=seed); total, done = 0.0, False\n"
        "    while not done:\n"
        "        _, r, term, trunc, _ = env.step(agent.act()); total += r; done = term or trunc\n"
        "    print(int(total))\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    *scores, peak_mib = map(int, run.stdout.split())
    assert len(scores) == 3 and all(0 < s <= 1575 for s in scores)
    assert peak_mib < 1024


def test_a_game_too_large_for_its_graph_is_refused_in_one_line_before_it_is_built(monkeypatch):
    """A game whose states cannot fit (its bound: 10^15 states) is refused by the
    environment at once, in one line, before any state is explored."""
    from dataclasses import dataclass

    from perfectplay import catalogue
    from perfectplay.errors import Unsupported
    from perfectplay.gym import register_all
    from perfectplay.markov.model import Expansion, MarkovGame

    explored = []

    @dataclass(frozen=True)
    class Huge(MarkovGame):
        name = "huge-walk"
        summary = "a walk of 10^15 states"

        def initial_state(self):
            return 0

        def state_bound(self):
            return 10**15

        def is_terminal(self, states):
            return states >= 10**15 - 1

        def expand(self, states):
            explored.append(len(states))
            B = len(states)
            nxt = (states + 1)[:, None, None]
            return Expansion(np.ones((B, 1), dtype=np.int64), nxt, np.ones_like(nxt))

    monkeypatch.setitem(catalogue._REGISTERED, Huge.name, Huge)
    register_all()
    with pytest.raises(Unsupported) as err:
        gymnasium.make(env_id(Huge.name))
    assert "huge-walk is too large: up to 1,000,000,000,000,000 states" in str(err.value)
    assert "\n" not in str(err.value) and len(explored) <= 1
