"""Every catalogue game as a Gymnasium environment, and the exact optimum as an agent.

``import perfectplay.gym`` registers ``perfectplay/NAME-v0`` for every game of the
catalogue (shipped, plug-ins, registered), so that

    >>> import gymnasium, perfectplay.gym
    >>> env = gymnasium.make("perfectplay/mastermind-v0", params={"pegs": 3, "colors": 3})

(or ``gymnasium.make("perfectplay.gym:perfectplay/mastermind-v0", ...)`` without the
import). Gymnasium is an optional extra: ``pip install 'perfectplay[gym]'``.

Deduction games: the secret is drawn uniformly in ``reset(seed=...)``; an action is a
guess (an index into ``game.guesses()``); the observation is the guesses and feedbacks
so far (``guesses[t]`` = guess index + 1, ``feedbacks[t]`` = feedback + 1, 0 before turn
t; a guess the rules forbid, as in a hard mode, is a turn lost, its feedback recorded as
``n_feedbacks + 1``). ``info["action_mask"]`` marks the guesses allowed.

Markov games: the observation is the state (its index in the compiled game), the chance
outcome just drawn, and the budget left (horizon objective); an action is the game's
choice number; steps with a single choice are played by themselves. A game solved by
stages (Yahtzee) builds no graph (``StagedEnv``): its observation's state is the game's
own state code, its turns read from the rules state by state; played for a target, its
budget is the points still needed.

Rewards: -1 per guess, or minus the cost of a move, or the points it pays in a game that
pays a score (objective ``expected``); for the objective ``probability``, 1 for finishing
within the horizon (or with at least the horizon's points) and 0 otherwise (the episode
is truncated when the horizon is spent). Deduction episodes without a horizon
are truncated after ``max_guesses`` guesses, Markov episodes after ``max_steps``
decisions (a policy that never finishes, such as always taking a free move).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # pragma: no cover - the message is the point
    from .errors import PerfectplayError

    raise PerfectplayError(
        "perfectplay.gym needs gymnasium: pip install 'perfectplay[gym]'"
    ) from None

from .deduction.contract import codes, feedback, sizes
from .advice import advise
from .catalogue import game_class, game_names, load_game, strategy_of
from .engine import solve
from .game import Game
from .objectives import Objective
from .markov.stage_model import CHANCE
from .strategy import Decision, Strategy

#: Deduction episodes without a horizon stop after this many guesses by default.
MAX_GUESSES = 10
#: Markov episodes stop after this many decisions by default (a policy may never finish).
MAX_STEPS = 10_000


def _game(name: str, params: Mapping[str, Any] | None) -> Game:
    return load_game(name, [f"{k}={v}" for k, v in (params or {}).items()])


def _objective(game: Game, objective: str | None, horizon: int | None) -> Objective:
    name = objective or game.default_objective
    if name == "probability" and horizon is None:
        horizon = game.default_horizon()
    return Objective(name, horizon)


class DeductionEnv(gymnasium.Env):
    """A deduction game (Wordle, Mastermind, ...): guess the secret the environment drew."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        params: Mapping[str, Any] | None = None,
        objective: str | None = None,
        horizon: int | None = None,
        max_guesses: int = MAX_GUESSES,
        render_mode: str | None = None,
    ):
        self.game = _game(game, params)
        self.objective = _objective(self.game, objective, horizon)
        self.limit = self.objective.horizon if self.objective.horizon is not None else max_guesses
        self.render_mode = render_mode
        self._guesses, self._secrets = codes(self.game)[:2]  # checked, as the engine reads them
        self._sizes = sizes(self.game)
        n, nf = len(self._guesses), self._sizes.n_feedbacks
        self.action_space = spaces.Discrete(n)
        self.observation_space = spaces.Dict(
            {
                "guesses": spaces.MultiDiscrete(np.full(self.limit, n + 1)),
                "feedbacks": spaces.MultiDiscrete(np.full(self.limit, nf + 2)),
            }
        )
        self.history: tuple[tuple[int, int], ...] = ()
        self._obs = self._empty()
        self._secret = 0
        self._turn = 0

    def _empty(self) -> dict[str, np.ndarray]:
        return {
            "guesses": np.zeros(self.limit, dtype=np.int64),
            "feedbacks": np.zeros(self.limit, dtype=np.int64),
        }

    @property
    def position(self) -> tuple[tuple[int, int], ...]:
        """The current position as a strategy reads it: the guesses and feedbacks so far."""
        return self.history

    @property
    def over(self) -> bool:
        """Whether the game has ended: the secret found, or no guess left."""
        solved = bool(self.history) and self.history[-1][1] == self._sizes.solved
        return solved or self._turn >= self.limit

    def _mask(self) -> np.ndarray:
        mask = self.game.restrict_guesses(self.history, self._guesses)
        return np.ones(len(self._guesses), dtype=np.int8) if mask is None else mask.astype(np.int8)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._secret = int(self.np_random.integers(len(self._secrets)))
        self.history, self._turn, self._obs = (), 0, self._empty()
        return self._observation(), {"action_mask": self._mask()}

    def _observation(self) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in self._obs.items()}

    def step(self, action):
        g = int(action)
        allowed = bool(self._mask()[g])
        self._obs["guesses"][self._turn] = g + 1
        solved = False
        if allowed:
            f = feedback(self.game, self._guesses[g], self._secrets[self._secret])
            self._obs["feedbacks"][self._turn] = f + 1
            self.history = self.history + ((g, f),)
            solved = f == self._sizes.solved
        else:
            self._obs["feedbacks"][self._turn] = self._sizes.n_feedbacks + 1
        self._turn += 1
        if self.objective.name == "probability":
            reward = 1.0 if solved else 0.0
        else:
            reward = -1.0
        truncated = not solved and self._turn >= self.limit
        return (
            self._observation(),
            reward,
            solved,
            truncated,
            {"action_mask": self._mask(), "allowed": allowed},
        )

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        fmt = self.game
        return "\n".join(
            f"{fmt.format_code(self._guesses[g])} {fmt.format_feedback(f)}" for g, f in self.history
        )


class MarkovEnv(gymnasium.Env):
    """A Markov game (dice-cards, Tricky Trios, ...): chance draws, the agent chooses.
    The game's graph is built first (``compile.compile_game``: a game too large for it
    is refused in one line before it is allocated); a game solved by stages is played
    by `StagedEnv` instead, from its rules state by state, with no graph."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        params: Mapping[str, Any] | None = None,
        objective: str | None = None,
        horizon: int | None = None,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
    ):
        self.game = _game(game, params)
        self.objective = _objective(self.game, objective, horizon)
        self.render_mode = render_mode
        self._setup()
        budget = (self.objective.horizon or 0) + 1
        self.action_space = spaces.Discrete(self._width)
        self.observation_space = spaces.Dict(
            {
                "state": spaces.Discrete(self._states),
                "outcome": spaces.Discrete(self._outcomes),
                "budget": spaces.Discrete(budget),
            }
        )
        self.max_steps = max_steps
        self.state, self.o, self.paid, self.steps = self._start, 0, 0, 0
        self._owed = 0.0  # what the forced moves of reset earned, paid by the next step

    def _setup(self) -> None:
        """The game's graph; the sizes of the spaces and the start."""
        from .engine import engine_of

        self.graph = g = engine_of(self.game).graph(self.game)
        self._width = int(g.choice_c.max()) + 1 if g.n_edges else 1
        self._states = g.n_states
        self._outcomes = int(g.outcome_k.max()) + 1 if len(g.outcome_k) else 1
        self._start = g.start

    @property
    def budget(self) -> int | None:
        """Cost units left within the horizon, -1 once it is overspent, or points still
        needed for a game that pays (``Measure.next_budget``); None for the expected
        objective. (``paid`` is in the engine's costs: a game's points negated.)"""
        h = self.objective.horizon
        if h is None:
            return None
        measure = self.game.measure
        left = measure.next_budget(h, measure.sign * self.paid)
        return -1 if left is None else left

    @property
    def position(self) -> Decision:
        """The current position as a strategy reads it."""
        return Decision(self._code(), self._outcome(), self.budget)

    def _code(self) -> int:
        """The game's code of the current state."""
        return int(self.graph.codes[self.state])

    def _outcome(self) -> int:
        """The game's number of the current chance outcome."""
        return int(self.graph.outcome_k[self.o])

    @property
    def over(self) -> bool:
        """Whether the game has ended (possibly in the forced moves ``reset`` played)."""
        return bool(self.graph.terminal[self.state])

    def _choices(self) -> list[tuple[int, int, int]]:
        """The choices after the current outcome: (choice number, next state, cost)."""
        g = self.graph
        edges = range(int(g.choice_ptr[self.o]), int(g.choice_ptr[self.o + 1]))
        return [(int(g.choice_c[e]), int(g.target[e]), int(g.cost[e])) for e in edges]

    def _mask(self) -> np.ndarray:
        """The choices legal here; once the game is over, action 0 alone (``step`` ends
        the episode whatever the action)."""
        mask = np.zeros(self._width, dtype=np.int8)
        if self.over:
            mask[0] = 1
        else:
            mask[[c for c, _, _ in self._choices()]] = 1
        return mask

    def _draw(self) -> None:
        g = self.graph
        lo, hi = int(g.out_ptr[self.state]), int(g.out_ptr[self.state + 1])
        w = g.weight[lo:hi].astype(float)
        self.o = lo + int(self.np_random.choice(hi - lo, p=w / w.sum()))

    def _advance(self, choice: tuple[int, int, int]) -> float:
        """Play `choice` and every forced step after it; the reward earned."""
        paid = 0
        while True:
            _, self.state, cost = choice
            paid += cost
            if self.over:
                break
            self._draw()
            choices = self._choices()
            if len(choices) != 1:
                break
            choice = choices[0]
        self.paid += paid
        return -float(paid) if self.objective.name != "probability" else 0.0

    def _observation(self) -> dict[str, int]:
        budget = self.budget
        return {
            "state": int(self.state),
            "outcome": self._outcome(),
            "budget": 0 if budget is None else max(budget, 0),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.state, self.paid, self.steps, self._owed = self._start, 0, 0, 0.0
        if not self.over:
            self._draw()
            choices = self._choices()
            if len(choices) == 1:  # forced moves first: the agent is asked only to choose
                self._owed = self._advance(choices[0])
        return self._observation(), {"action_mask": self._mask()}

    def step(self, action):
        """Play `action`; the reward includes what the forced moves ``reset`` played
        earned (so an episode's rewards add up to its whole cost or score). Where those
        moves ended the game, any action ends the episode."""
        chosen = [x for x in self._choices() if x[0] == int(action)] if not self.over else []
        if self.over:
            reward, done = 0.0, True
        elif not chosen:  # not a legal choice here: a move lost, nothing changes
            reward = -1.0 if self.objective.name != "probability" else 0.0
            self.paid += 1
            done = False
        else:
            reward = self._advance(chosen[0])
            done = self.over
        reward, self._owed = reward + self._owed, 0.0
        self.steps += 1
        truncated = not done and self.steps >= self.max_steps
        if self.objective.name == "probability":
            left = self.budget
            reward = 1.0 if done and self.game.measure.met(left) else 0.0
            truncated = truncated or (not done and left < 0)
        return self._observation(), reward, done, truncated, {"action_mask": self._mask()}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        code = self._code()
        return (
            f"{self.game.describe_state(code)}; {self.game.describe_outcome(code, self._outcome())}"
        )


class StagedEnv(MarkovEnv):
    """A Markov game solved by stages (Yahtzee, Yatzy): played from its rules state by
    state (``contract.expansion``: a turn's template read as a person sees it), with no
    graph (Yahtzee's 857M states took more than 11.8 GB); the observation's state is
    the game's own state code, its outcome the game's outcome number."""

    def _setup(self) -> None:
        from .markov import contract
        from .markov.stage_model import game_over

        st = self.game.stages()
        t = st.template
        chance = [i for i in range(t.nodes) if t.kind[i] == CHANCE]
        decided = [len(t.flat[i]) for i in range(t.nodes) if t.kind[i] != CHANCE]
        self._contract = contract
        self._end = game_over(st)
        self._width = max([1, st.options, *decided])
        self._states = self._end + 1
        self._outcomes = max([1, *(len(t.flat[i]) for i in chance)])
        self._start = int(contract.start(self.game))
        self._here: tuple[int, Any] = (-1, None)

    def _expansion(self):
        """The current state's outcomes and choices (``contract.expansion``), kept for
        the state."""
        if self._here[0] != self.state:
            exp = self._contract.expansion(self.game, np.array([self.state], dtype=np.int64))
            self._here = (self.state, exp)
        return self._here[1]

    def _code(self) -> int:
        return int(self.state)

    def _outcome(self) -> int:
        return int(self.o)

    @property
    def over(self) -> bool:
        return self.state == self._end

    def _choices(self) -> list[tuple[int, int, int]]:
        """As `MarkovEnv`'s, the costs the engine's (a game's points negated)."""
        exp = self._expansion()
        nxt = exp.next[0, self.o]
        cost = self.game.measure.sign * np.broadcast_to(exp.cost, exp.next.shape)[0, self.o]
        return [(c, int(nxt[c]), int(cost[c])) for c in np.flatnonzero(nxt >= 0).tolist()]

    def _draw(self) -> None:
        w = self._expansion().weight[0].astype(float)
        self.o = int(self.np_random.choice(len(w), p=w / w.sum()))


class OptimalAgent:
    """The exact optimum of an environment's game and objective: a deduction game's guess
    the advisor's suggestion (``perfectplay.advise``, as every screen's: ties in the
    order of strength, so that its worst case is the opening's), a Markov game's choice
    read through `Strategy` (the solution exported and read back as any strategy file
    is); `solution` holds the optimum's numbers."""

    def __init__(self, env: gymnasium.Env):
        self.env = env.unwrapped
        self.solution = solve(self.env.game, self.env.objective)
        self.strategy: Strategy = strategy_of(self.env.game, self.solution)

    def act(self, observation: Any = None) -> int:
        """The optimal action at the environment's current position."""
        if self.env.over:  # (a game that ended in the forced moves of reset: any action)
            return 0
        if self.env.game.kind == "deduction":
            first = advise(self.env.game, self.env.position, self.env.objective).suggestion
            action = None if first is None else first.action
        else:
            action = self.strategy.action(self.env.position)
        if action is None:
            raise ValueError("the environment left the optimal strategy's positions")
        return action


def markov_env(game: str, **kwargs: Any) -> MarkovEnv:
    """The environment of the Markov game `game`: `StagedEnv` for a game solved by
    stages, else `MarkovEnv` (its graph)."""
    params = kwargs.get("params")
    staged = _game(game, params).stages() is not None
    return (StagedEnv if staged else MarkovEnv)(game, **kwargs)


#: The environment (class, or function making one) of each kind of game.
ENVS: dict[str, Any] = {"deduction": DeductionEnv, "markov": markov_env}


def env_id(name: str) -> str:
    """The Gymnasium id of the catalogue game `name`."""
    return f"perfectplay/{name}-v0"


def register_all() -> list[str]:
    """Register every catalogue game not registered yet (at import, and again for games
    added since: ``catalogue.register``); the ids registered."""
    ids = []
    for name in game_names():
        if env_id(name) in gymnasium.registry:
            continue
        try:
            entry = ENVS.get(game_class(name).kind)
        except Exception:  # noqa: BLE001 - a plug-in that cannot load is left out
            continue
        if entry is None:
            continue
        gymnasium.register(
            id=env_id(name), entry_point=entry, kwargs={"game": name}, disable_env_checker=False
        )
        ids.append(env_id(name))
    return ids


register_all()
