"""Games played by a game's optimal strategy (``perfectplay simulate``): the sampled mean
of the final score (or cost) with its standard error, beside the exact value the solve
gives, and the scores' histogram. The games are played by the game's engine
(``Engine.simulate``: a Markov game's from its graph or its stage values); a seeded run
gives the same games again."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .engine import engine_of
from .game import Game
from .kept import strategy_for
from .objectives import Objective
from .progress import Silent
from .ranges import LARGEST_SEED, within

#: The most games one run plays (their scores held: 80 MB; at Yahtzee's 20,000 a second,
#: about 8 minutes).
MOST_GAMES = 10**7


@dataclass(frozen=True)
class Simulation:
    """`scores[i]`: the final number of game i (the game's terms), played with `seed`;
    `value`: the strategy's exact (solved) expectation, or, played for a `target`, its
    exact chance of at least that many points."""

    game: str
    unit: str
    seed: int
    scores: np.ndarray
    value: float
    #: The time the games took (the strategy solved or loaded before).
    seconds: float = 0.0
    #: The points the games were played to reach at least (None: the expected score).
    target: int | None = None

    @property
    def reached(self) -> float:
        """The share of games that scored at least the target."""
        return float(np.mean(self.scores >= self.target))

    @property
    def reached_stderr(self) -> float:
        """The share's standard error."""
        p = self.reached
        return math.sqrt(p * (1 - p) / self.games)

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def std(self) -> float:
        """The scores' sample standard deviation (0 for one game)."""
        return float(self.scores.std(ddof=1)) if self.games > 1 else 0.0

    @property
    def stderr(self) -> float:
        """The mean's standard error."""
        return self.std / math.sqrt(self.games)

    def mean_text(self) -> str:
        """``254.61 ± 0.19``: the mean to the standard error's first digits (two decimals
        at least)."""
        se = self.stderr
        digits = 2 if se >= 0.005 or se == 0 else 1 - math.floor(math.log10(se))
        return f"{self.mean:.{digits}f} ± {self.stderr:.{digits}f}"

    def histogram(self, bins: int = 20) -> list[tuple[float, float, int]]:
        """The scores in at most `bins` bins of equal width (a whole number of units
        where the scores are whole) over the lowest 99.5 %, the rest in the last bin
        (its high the highest score, plus one where whole): (low, high, games) each,
        high excluded."""
        scores = self.scores
        low, top = float(scores.min()), float(scores.max())
        high = min(top, float(np.quantile(scores, 0.995)))
        if bool(np.all(scores == np.round(scores))):
            width = max(1, math.ceil((high - low + 1) / bins))
            edges = low + width * np.arange(math.ceil((high - low + 1) / width) + 1)
            edges[-1] = max(edges[-1], top + 1)
        else:
            edges = np.linspace(low, max(high, low + 1), bins + 1)
            edges[-1] = max(edges[-1], np.nextafter(top, np.inf))
        counts, edges = np.histogram(scores, bins=edges)
        return [(float(a), float(b), int(c)) for a, b, c in zip(edges[:-1], edges[1:], counts)]

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "mean": self.mean,
            "stderr": self.stderr,
            "std": self.std,
            "value": self.value,
            "seconds": self.seconds,
            "min": float(self.scores.min()),
            "max": float(self.scores.max()),
            "histogram": [{"low": a, "high": b, "games": c} for a, b, c in self.histogram()],
            **(
                {
                    "target": self.target,
                    "reached": self.reached,
                    "reached_stderr": self.reached_stderr,
                }
                if self.target is not None
                else {}
            ),
        }


def simulate(
    game: Game,
    games: int,
    seed: int | None = None,
    progress: Silent | None = None,
    objective: Objective = Objective(),
) -> Simulation:
    """`games` games of `game` played by its optimal strategy for `objective` (the
    expected one; or a target score: a scored game solved by stages), with `seed` (None:
    one drawn, and said in the result)."""
    games = int(within(games, 1, MOST_GAMES, what="--games"))
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (LARGEST_SEED + 1))
    seed = int(within(seed, 0, LARGEST_SEED, what="--seed"))
    progress = progress or Silent()
    value, play = engine_of(game).player(game, progress, strategy_for, objective)
    progress.stage("playing", total=games, unit="games")
    t0 = time.perf_counter()
    scores = np.asarray(play(games, seed, progress.update), dtype=float)
    seconds = time.perf_counter() - t0
    target = objective.horizon if objective.name == "probability" else None
    return Simulation(game.name, game.measure.unit, seed, scores, value, seconds, target)
