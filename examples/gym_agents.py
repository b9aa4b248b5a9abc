"""Compare a random agent, a heuristic and the exact optimum over seeded episodes.

    python examples/gym_agents.py                 # Mastermind 4x6 and dice-cards n=3
    python examples/gym_agents.py --episodes 200 --only dice-cards

Every game is a Gymnasium environment (``perfectplay.gym``); the optimum is
``OptimalAgent``, the solved strategy read through perfectplay's Strategy interface.
The heuristics: for a deduction game, guess a secret still consistent with every
feedback (drawn at random); for a Markov game, take the choice that costs least now,
then the one whose next state has the lowest ``state_family`` (episodes stop after
10,000 decisions: a greedy policy may never finish).
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np

from perfectplay.deduction.feedback import compute_feedback
from perfectplay.gym import DeductionEnv, OptimalAgent, env_id


#: The games compared, with their parameters.
GAMES = {"mastermind": {"pegs": 4, "colors": 6}, "dice-cards": {"n": 3}}


def random_agent(env, rng):
    """A legal action drawn uniformly."""
    return int(rng.choice(np.flatnonzero(env.unwrapped._mask())))


def heuristic_agent(env, rng):
    """A consistent secret as the guess (deduction); the cheapest choice now, then the
    one leading to the lowest state family (dice-cards: fewest cards left face up)."""
    e = env.unwrapped
    if isinstance(e, DeductionEnv):
        secrets, guesses = e.game.secrets(), e.game.guesses()
        left = np.arange(len(secrets))
        for g, f in e.history:
            left = left[compute_feedback(e.game, guesses[[g]], secrets[left])[0] == f]
        pick = secrets[int(rng.choice(left))]
        return int(np.flatnonzero((guesses == pick).all(axis=1))[0])
    g = e.graph
    score = {
        x: (int(g.cost[x]), e.game.state_family(int(g.codes[g.target[x]]))) for x in e._edges()
    }
    best = min(score.values())
    return int(g.choice_c[rng.choice([x for x, s in score.items() if s == best])])


def run(env, act, episodes: int) -> tuple[float, float]:
    """Mean and standard error of the return over `episodes` seeded episodes."""
    rng = np.random.default_rng(12345)
    returns = []
    for seed in range(episodes):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(act(env, rng))
            total += reward
            done = terminated or truncated
        returns.append(total)
    r = np.array(returns)
    return float(r.mean()), float(r.std(ddof=1) / np.sqrt(len(r)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--only", choices=GAMES, help="run one of the games")
    args = parser.parse_args()
    for name, params in GAMES.items():
        if args.only not in (None, name):
            continue
        env = gymnasium.make(env_id(name), params=params)
        optimal = OptimalAgent(env)
        print(
            f"{optimal.env.game}: exact optimum {optimal.solution.value_float:.6f} "
            f"({optimal.solution.status}); mean return over {args.episodes} seeded episodes:"
        )
        for label, act in (
            ("random", random_agent),
            ("heuristic", heuristic_agent),
            ("optimal", lambda env, rng, agent=optimal: agent.act()),
        ):
            mean, se = run(env, act, args.episodes)
            print(f"  {label:10s} {mean:10.4f}  (standard error {se:.4f})")


if __name__ == "__main__":
    main()
