"""The final score's distribution of a game solved by stages (``markov/stage_distribution``):
against an exact brute force written here, against games played by the strategy (the
choices play makes, ``StagedStrategy``), and as the command line writes and reads it."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from perfectplay import solve
from perfectplay.catalogue import load_game, load_strategy
from perfectplay.errors import BadFile
from perfectplay.markov.stage_model import CHANCE, END, NONE
from perfectplay.markov.staged_document import StagedStrategy

from ..cli_runner import perfectplay
from .test_stages import Doubling


def brute_distribution(turns: int, fee: int) -> dict[int, Fraction]:
    """The final score's exact distribution in `Doubling` under its best strategy (the
    first of equal choices: keep before a reroll, the face before its double)."""
    first = [Fraction(1, 8)] * 5 + [Fraction(3, 8)]
    fair = [Fraction(1, 6)] * 6

    @cache
    def value(left: int, double: bool) -> Fraction:
        if left == 0:
            return Fraction(0)
        again = -fee + sum(p * _end(value, left, double, f) for p, f in zip(fair, range(1, 7)))
        return sum(p * max(_end(value, left, double, f), again) for p, f in zip(first, range(1, 7)))

    @cache
    def scores(left: int, double: bool) -> dict[int, Fraction]:
        if left == 0:
            return {0: Fraction(1)}
        out: dict[int, Fraction] = {}

        def add(chance: Fraction, paid: int, face: int) -> None:
            keep = face + value(left - 1, double)
            twice = double and 2 * face + value(left - 1, False) > keep
            rest = scores(left - 1, False) if twice else scores(left - 1, double)
            for s, p in rest.items():
                got = s + paid + (2 if twice else 1) * face
                out[got] = out.get(got, 0) + chance * p

        again = -fee + sum(p * _end(value, left, double, f) for p, f in zip(fair, range(1, 7)))
        for p, f in zip(first, range(1, 7)):
            if _end(value, left, double, f) >= again:
                add(p, 0, f)
            else:
                for q, g in zip(fair, range(1, 7)):
                    add(p * q, -fee, g)
        return out

    return scores(turns, True)


def _end(value, left: int, double: bool, face: int) -> Fraction:
    """The value of keeping `face`: the best of its options at the exit slot."""
    keep = face + value(left - 1, double)
    return max(keep, 2 * face + value(left - 1, False)) if double else keep


@pytest.mark.parametrize("turns,fee", [(1, 0), (3, 1), (7, 2)])
def test_the_distribution_equals_brute_force(turns, fee):
    """Every score's chance, the turn's own points (a reroll's fee) included."""
    sol = solve(Doubling(turns=turns, fee=fee), distribution=True)
    d = sol.distribution
    exact = brute_distribution(turns, fee)
    assert set(int(s) for s in d.scores[d.probability > 0]) == set(exact)
    for s, p in exact.items():
        assert d.probability[s - d.low] == pytest.approx(float(p), rel=1e-12)
    assert d.mean == pytest.approx(sol.value, rel=1e-12)


@pytest.mark.parametrize(
    "name,params",
    [
        ("yahtzee", ["card=6208"]),
        ("yahtzee", ["card=6208", "joker=forced"]),
        ("yahtzee", ["card=2063", "joker=none"]),
        ("yatzy", ["card=16399"]),
    ],
)
def test_a_small_card_sums_to_one_with_the_value_as_its_mean(name, params):
    sol = solve(load_game(name, params), distribution=True)
    d = sol.distribution
    assert abs(d.probability.sum() - 1) <= 1e-12
    assert abs(d.mean - sol.value) <= 1e-9
    assert (d.probability >= 0).all() and d.probability[0] > 0 and d.probability[-1] > 0


def play_games(game, solution, games: int, seed: int) -> np.ndarray:
    """The final scores of `games` games played by `solution`'s strategy, all at once
    (numpy): each turn's choices those of play (``StagedStrategy.turn``: the turn's values
    from the stored stage values, the first of the best), its chances drawn."""
    strategy = StagedStrategy(game, solution.export())
    st = game.stages()
    t = st.template
    n = t.nodes
    chances = t.chances()
    cumulative = np.cumsum(chances)  # (within a node: less the node's first edge's start)
    rng = np.random.default_rng(seed)
    stage = np.full(games, st.start)
    score = np.zeros(games, dtype=np.int64)
    live = np.ones(games, dtype=bool)
    while live.any():
        for code in np.unique(stage[live]):
            mine = np.flatnonzero(live & (stage == code))
            value = strategy.turn(int(code))
            gain = t.points + value[t.target]
            node = np.zeros(len(mine), dtype=np.int64)
            paid = np.zeros(len(mine), dtype=np.int64)
            while (node < n).any():
                for i in np.unique(node[node < n]):
                    at = np.flatnonzero(node == i)
                    e0, e1 = t.start[i], t.start[i + 1]
                    if t.kind[i] == CHANCE:
                        below = cumulative[e0 - 1] if e0 else 0.0
                        u = below + rng.random(len(at)) * (cumulative[e1 - 1] - below)
                        e = np.minimum(e0 + np.searchsorted(cumulative[e0:e1], u), e1 - 1)
                    else:
                        e = np.full(len(at), e0 + int(np.argmax(gain[e0:e1])))
                    node[at] = t.target[e]
                    paid[at] += np.rint(t.points[e]).astype(np.int64)
            points, nxt = st.exits(np.array([code]))
            slot = node - n
            later = np.where(nxt[0] >= 0, strategy.values[np.maximum(nxt[0], 0)], 0.0)
            total = np.where(nxt[0] == NONE, -np.inf, points[0] + later)
            choice = np.argmax(total, axis=1)[slot]
            score[mine] += paid + np.rint(points[0][slot, choice]).astype(np.int64)
            after = nxt[0][slot, choice]
            live[mine] = after != END
            stage[mine] = np.where(after == END, stage[mine], after)
    return score


@pytest.mark.parametrize(
    "game", [load_game("yahtzee", ["card=6208"]), Doubling(turns=4, fee=1)], ids=str
)
def test_games_played_by_the_strategy_score_as_the_distribution_says(game):
    """100,000 games: each score's share, and the share of at least each score, within
    five standard errors of the distribution's chance (a chi-square over the scores of
    chance 1/1000 or more, too)."""
    sol = solve(game, distribution=True)
    assert_drawn_from(play_games(game, sol, 100_000, seed=50), sol.distribution)


def assert_drawn_from(scores: np.ndarray, d, per_score: bool = True) -> None:
    """`scores` look drawn from the distribution `d`: each score's share and the share of
    at least each score within five standard errors of its chance (`per_score`; else,
    for a long tail of scores too rare to be drawn, the scores in bins of chance 1/1000
    or more, and the largest gap between the shares of at most each score and their
    chances within Kolmogorov's bound at 1/1000), a chi-square over the scores (bins)
    of chance 1/1000 or more, and the mean within five standard errors."""
    games = len(scores)
    scores = np.rint(scores).astype(np.int64)
    assert scores.min() >= d.low and scores.max() < d.low + len(d.probability)
    counts = np.bincount(scores - d.low, minlength=len(d.probability)) / games
    p = d.probability
    assert abs(scores.mean() - d.mean) <= 5 * d.std / np.sqrt(games)
    if per_score:
        error = np.sqrt(p * (1 - p) / games)
        assert (np.abs(counts - p) <= 5 * error + 1e-12).all()
        at_least = np.cumsum(counts[::-1])[::-1]
        c = d.at_least()
        assert (np.abs(at_least - c) <= 5 * np.sqrt(c * (1 - c) / games) + 1e-12).all()
    else:
        assert np.abs(np.cumsum(counts) - np.cumsum(p)).max() <= 1.95 / np.sqrt(games)
        cuts = np.flatnonzero(np.diff(np.floor(np.cumsum(p) / 1e-3), prepend=-1) > 0)
        p, counts = np.add.reduceat(p, cuts), np.add.reduceat(counts, cuts)
        error = np.sqrt(p * (1 - p) / games)
        assert (np.abs(counts - p) <= 5 * error + 1e-12).all()
    common = p >= 1e-3
    chi2 = games * ((counts[common] - p[common]) ** 2 / p[common]).sum()
    assert chi2 < common.sum() + 6 * np.sqrt(2 * common.sum())


def test_the_solution_document_carries_the_distribution_and_show_prints_it(tmp_path):
    out = tmp_path / "y.json"
    result = perfectplay("solve", "yahtzee", "card=6208", "--quiet", "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    d = summary["distribution"]
    chances = {int(s): p for s, p in d["probability"].items()}
    assert abs(sum(chances.values()) - 1) <= 1e-12
    assert abs(d["mean"] - summary["value_float"]) <= 1e-9
    assert abs(sum(s * p for s, p in chances.items()) - d["mean"]) <= 1e-9
    low = min(chances)
    assert d["at_least"][str(low)] == pytest.approx(1.0, abs=1e-12)
    assert list(d["quantiles"]) == ["0.05", "0.25", "0.5", "0.75", "0.95"]
    shown = perfectplay("show", str(out))
    assert shown.returncode == 0, shown.stderr
    assert f"mean {d['mean']:.6f} points, standard deviation {d['std']:.6f}" in shown.stdout
    assert f"50% {d['quantiles']['0.5']}" in shown.stdout and "at least" in shown.stdout
    checked = perfectplay("verify", str(out), "--no-solve")
    assert checked.returncode == 0 and "its score distribution sums to one" in checked.stdout


def test_a_distribution_that_does_not_sum_to_one_is_refused(tmp_path):
    document = solve(load_game("yahtzee", ["card=6208"]), distribution=True).export()
    first = next(iter(document["distribution"]["probability"]))
    document["distribution"]["probability"][first] += 0.01
    with pytest.raises(BadFile, match="the distribution's chances sum to"):
        load_strategy(document).verify(resolve=False)
    document["distribution"] = {"probability": {"x": 1}}
    with pytest.raises(BadFile, match="^the distribution is not a mapping"):
        load_strategy(document)


def test_the_distribution_is_made_where_it_is_written():
    """A solve alone keeps its time (the forward pass takes several times the solve's):
    the distribution is made for --json, --out and --plot, not for the summary."""
    game = load_game("yahtzee", ["card=6208"])
    assert solve(game).distribution is None
    assert "distribution_seconds" not in solve(game).stats
    assert solve(game, distribution=True).distribution is not None
