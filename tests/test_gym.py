"""Every catalogue game as a Gymnasium environment; the optimum as an agent."""

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
