"""Games that pay a score (``MarkovGame.pays``): solved to the largest expected score and
the best chance of scoring at least a horizon, checked against a brute-force oracle over
the rules; a cycle that pays refused; every output reading as a score."""

import json
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from perfectplay import Objective, solve
from perfectplay.errors import PerfectplayError
from perfectplay.markov.model import Expansion, MarkovGame
from perfectplay.markov.table import TableGame

from ..cli_runner import perfectplay

ROLLS, SIDES = 3, 6
DONE = ROLLS  # the terminal state; state r < ROLLS: r rolls made, the next about to land


@dataclass(frozen=True)
class KeepTheLast(MarkovGame):
    """Roll a die up to three times and keep the last roll: stopping pays its face."""

    name = "keep-the-last"
    summary = "roll a die up to 3 times, the last roll's face paid"
    pays = True
    cost_unit = "points"

    def initial_state(self) -> int:
        return 0

    def is_terminal(self, states):
        return states == DONE

    def expand(self, states):
        B = len(states)
        weight = np.ones((B, SIDES), dtype=np.int64)
        nxt = np.full((B, SIDES, 2), -1, dtype=np.int64)
        points = np.zeros((B, SIDES, 2), dtype=np.int64)
        nxt[:, :, 0] = DONE  # stop: the face is paid
        points[:, :, 0] = np.arange(1, SIDES + 1)
        again = states + 1 < ROLLS
        nxt[again, :, 1] = (states[again] + 1)[:, None]  # roll again, nothing paid
        return Expansion(weight=weight, next=nxt, cost=points)

    def describe_choice(self, state, k, c):
        return f"keep {k + 1}" if c == 0 else "roll again"


def oracle(game: MarkovGame, need: int | None = None) -> Fraction:
    """The best expected total score (`need` None), or the best chance of scoring at least
    `need` points, by recursion over the rules themselves (no engine code)."""

    @lru_cache(maxsize=None)
    def best(state: int, still: int | None) -> Fraction:
        if game.is_terminal(np.array([state], dtype=np.int64))[0]:
            return Fraction(0) if still is None else Fraction(int(still <= 0))
        exp = game.expand(np.array([state], dtype=np.int64))
        weight = exp.weight[0]
        points = np.broadcast_to(exp.cost, exp.next.shape)[0]
        total = Fraction(0)
        for k in np.flatnonzero(weight > 0):
            options = []
            for c in np.flatnonzero(exp.next[0, k] >= 0):
                paid, target = int(points[k, c]), int(exp.next[0, k, c])
                options.append(
                    paid + best(target, None) if still is None else best(target, still - paid)
                )
            total += int(weight[k]) * max(options)
        return total / int(weight.sum())

    return best(game.initial_state(), need)


def test_a_scored_game_is_solved_to_its_largest_expected_score_proven():
    sol = solve(KeepTheLast())
    assert sol.value == Fraction(14, 3) == oracle(KeepTheLast())  # by hand: 3.5, 4.25, 14/3
    assert sol.exact and sol.proven and sol.status == "proven optimal"
    assert sol.strategy.value_of(2) == Fraction(7, 2)  # the last roll: its face
    assert sol.strategy.choice(0, 3) == 1 and sol.strategy.choice(0, 4) == 0  # 4: again; 5: keep


def test_the_float_stage_maximizes_too():
    sol = solve(KeepTheLast(), exact=False)
    assert not sol.exact and abs(sol.value_float - 14 / 3) < 1e-12


@pytest.mark.parametrize("horizon", [0, 1, 4, 5, 6, 7])
def test_the_probability_objective_is_the_chance_of_scoring_at_least_the_horizon(horizon):
    want = oracle(KeepTheLast(), horizon)
    exact = solve(KeepTheLast(), Objective("probability", horizon))
    floats = solve(KeepTheLast(), Objective("probability", horizon), exact=False)
    assert exact.value == want and exact.proven
    assert abs(floats.value_float - float(want)) < 1e-12
    if horizon == 5:  # at least 5: keep a 5 or 6, else roll again (1 - (4/6)^3)
        assert want == 1 - Fraction(4, 6) ** 3


def test_the_choice_graph_of_a_game_that_pays_is_split_into_components_once(monkeypatch):
    """The cycle check's strong components order the horizon solve too (they were
    computed again for it): the 30 choices of keep-the-last labelled once, the value as
    before."""
    from perfectplay.markov import structure

    labelled, components = [], structure.components
    monkeypatch.setattr(
        structure,
        "components",
        lambda rows, col: labelled.append(len(col)) or components(rows, col),
    )
    assert solve(KeepTheLast(), Objective("probability", 5)).value == Fraction(19, 27)
    assert labelled == [30, 12]  # (the 12 choices paying nothing: the free-cycle check's)


@dataclass(frozen=True, eq=False)
class ScoredTable(TableGame):
    """A table game that pays: from 0, take 2 points at once, or flip a coin for 5 or 0."""

    name = "scored-table"
    summary = "take 2 points, or flip a coin for 5"
    pays = True
    cost_unit = "points"
    table: dict = field(
        default_factory=lambda: {0: [(1, [(2, 2), (1, 0)])], 1: [(1, [(2, 5)]), (1, [(2, 0)])]}
    )
    terminal: frozenset = frozenset({2})


def test_a_table_game_pays_a_score():
    assert solve(ScoredTable()).value == Fraction(5, 2)  # the coin: 5/2 beats 2
    assert solve(ScoredTable(), Objective("probability", 2)).value == Fraction(1, 1)
    assert solve(ScoredTable(), Objective("probability", 3)).value == Fraction(1, 2)


def test_a_cycle_that_pays_is_refused_naming_a_state_on_it():
    looping = TableGame({0: [(1, [(1, 0), (3, 0)])], 3: [(1, [(0, 1)])]}, terminal={1})
    paying = type("Paying", (TableGame,), {"pays": True, "name": "paying"})
    game = paying(looping.table, terminal=looping.terminal)
    for objective in (Objective(), Objective("probability", 2)):
        with pytest.raises(PerfectplayError) as err:
            solve(game, objective)
        assert "lies on a cycle that pays (a score could grow without end)" in str(err.value)
        assert "state 0 " in str(err.value) or "state 3 " in str(err.value)
        assert "\n" not in str(err.value)
    assert solve(looping).value == 0  # as costs, the same table is a game like any


def test_a_cycle_that_pays_nothing_is_refused_as_one_that_costs_nothing():
    """A free reroll forever would score nothing more: the values would not prove
    anything (any score above the best satisfies the equations), as for costs."""
    reroll = ScoredTable(table={0: [(1, [(1, 6), (0, 0)]), (1, [(1, 1), (0, 0)])]}, terminal={1})
    for objective in (Objective(), Objective("probability", 2)):
        with pytest.raises(
            PerfectplayError, match=r"cycle of zero-cost choices \(that pay nothing"
        ):
            solve(reroll, objective)


def test_points_out_of_range_are_named_with_their_state():
    broken = ScoredTable(table={0: [(1, [(2, -1)])]}, terminal=frozenset({2}))
    with pytest.raises(PerfectplayError, match=r"choice 0 after outcome 0 of state 0 pays -1"):
        solve(broken)
    costly = TableGame({0: [(1, [(1, -2)])]}, terminal={1})
    with pytest.raises(PerfectplayError, match="costs -2, outside 0 to .*declares pays = True"):
        solve(costly)


@pytest.fixture
def registered(monkeypatch):
    from perfectplay import catalogue

    monkeypatch.setitem(catalogue._REGISTERED, KeepTheLast.name, KeepTheLast)


def test_every_command_reads_a_score(registered, tmp_path):
    out, plot = tmp_path / "keep.json", tmp_path / "keep.png"
    res = perfectplay("solve", "keep-the-last", "--out", str(out), "--plot", str(plot))
    assert res.returncode == 0, res.stderr
    assert "expected score (points)" in res.stdout and "4.666666667" in res.stdout
    assert "14/3" in res.stdout and "proven optimal" in res.stdout
    assert json.loads(out.read_text())["value"] == "14/3"
    res = perfectplay("verify", str(out))
    assert res.returncode == 0, res.stderr
    assert "its expected score (points), recomputed: 4.666666667" in res.stdout
    res = perfectplay("show", str(out))
    assert res.returncode == 0 and "expected score (points) = 14/3" in res.stdout, res.stderr
    res = perfectplay("play", "keep-the-last", "--seed", "3", input="\n" * 5)
    assert res.returncode == 0, res.stderr
    assert "optimal play scores 4.666667 points on average" in res.stdout
    assert "expected final score 4.2500" in res.stdout  # rolling again from the first roll
    assert "finished with" in res.stdout
    res = perfectplay("solve", "keep-the-last", "--objective", "probability", "--horizon", "5")
    assert res.returncode == 0 and "P(score at least 5 points)" in res.stdout, res.stderr
    assert "19/27" in res.stdout


def test_show_says_what_each_choice_pays_and_the_expected_final_score(registered, tmp_path):
    """The state a paying choice leads to counts only the points still to come (0 once
    the game is over): show says the points the choice pays and, from then on, what was
    scored along the branch and the expected final score, as play does."""
    out = tmp_path / "keep.json"
    assert perfectplay("solve", "keep-the-last", "--out", str(out)).returncode == 0
    shown = perfectplay("show", str(out), "--depth", "3").stdout
    assert "outcome 5 -> keep 6 (pays 6 points)" in " ".join(shown.split())
    assert "scored 6 points, expected final score 6.000000" in " ".join(shown.split())
    assert "roll again (pays" not in shown  # a choice paying nothing says nothing
    out = tmp_path / "at-least-5.json"
    res = perfectplay(
        "solve", "keep-the-last", "--objective", "probability", "--horizon", "5", "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    shown = " ".join(perfectplay("show", str(out), "--depth", "3").stdout.split())
    assert "(pays 6 points)" in shown and "expected final score" not in shown  # chances


def test_the_explorer_lists_each_choice_with_its_expected_final_score(registered):
    from perfectplay import load_strategy

    doc = json.loads(json.dumps(solve(KeepTheLast()).export()))
    view = load_strategy(doc).explore("0")
    assert "value: 4.666666667 points expected" in view.facts
    five = next(b for b in view.branches if b.number == 4)
    assert [o.value for o in five.options] == ["5.000000 points", "4.250000 points"]
    assert [o.chosen for o in five.options] == [True, False]


def test_gymnasium_pays_positive_rewards(registered):
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from perfectplay.gym import MarkovEnv, OptimalAgent

    check_env(MarkovEnv("keep-the-last"), skip_render_check=True)
    env = MarkovEnv("keep-the-last")
    agent = OptimalAgent(env)
    returns = []
    for seed in range(400):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, done, _, _ = env.step(agent.act())
            total += reward
        returns.append(total)
    assert min(returns) >= 1 and abs(np.mean(returns) - 14 / 3) < 0.35  # std of the mean ~0.06

    for seed in range(4):
        env = MarkovEnv("keep-the-last")
        env.reset(seed=seed)
        face = env.position.outcome + 1
        _, reward, done, _, _ = env.step(0)  # keep the first roll: its face paid
        assert done and reward == face
        chance = MarkovEnv("keep-the-last", objective="probability", horizon=5)
        chance.reset(seed=seed)
        _, reward, done, _, _ = chance.step(0)
        assert done and reward == float(face >= 5)


def test_the_web_board_reads_a_score():
    from perfectplay.web.render import templates

    page = templates.env.get_template("play_markov.html").render(
        game=KeepTheLast(),
        measure=KeepTheLast().measure,
        value=14 / 3,
        paid=5,
        done=True,
        spent=False,
        horizon=None,
    )
    assert "optimal play scores 4.666667 points on average; scored so far:" in page
    assert "finished with 5 points" in page


def _random_scored_table(seed: int, n: int = 40) -> dict:
    """A random table that pays, every choice leading to a lower state (so into its own
    block or an earlier one, for any cycle_span), state 0 the end."""
    rng = np.random.default_rng(seed)
    table = {}
    for s in range(1, n):
        table[s] = [
            (
                int(rng.integers(1, 4)),
                [
                    (int(rng.integers(0, s)), int(rng.integers(0, 7)))
                    for _ in range(rng.integers(1, 4))
                ],
            )
            for _ in range(rng.integers(1, 4))
        ]
    return table


@pytest.mark.parametrize("seed", range(4))
def test_compiled_rules_that_pay_agree_with_the_table_and_the_oracle(seed, monkeypatch):
    from perfectplay.markov import solve as markov_solve

    from .compiled_table import CompiledTable

    @dataclass(frozen=True, eq=False)
    class ScoredCompiled(CompiledTable):
        pays = True

    n = 40
    table = _random_scored_table(seed, n)
    python = ScoredTable(table=table, terminal=frozenset({0}), start=n - 1)
    want = oracle(python)
    for game in (python, ScoredCompiled(table=table, terminal=frozenset({0}), n=n, start=n - 1)):
        assert solve(game).value == want
        assert solve(game, Objective("probability", 9)).value == oracle(python, 9)
    blocks = ScoredCompiled(table=table, terminal=frozenset({0}), n=n, start=n - 1, cycle_span=8)
    monkeypatch.setattr(markov_solve, "EXACT_STATES", 0)  # large enough to stream, for costs
    floats = solve(blocks)  # a game that pays is solved from its graph, by its blocks
    assert not floats.exact and abs(floats.value_float - float(want)) < 1e-9


@pytest.mark.parametrize("faces", [(1, 6, 2), (6, 2, 4), (2, 2, 5)])
def test_the_review_of_a_scored_game_accounts_for_every_point(faces):
    """The web page's review of a game that pays: each move's loss is what it scores less
    than the best (never negative), each roll's luck what it gave beyond the average, and
    the score is the start's expected score, less the losses, plus the luck."""
    from perfectplay.markov.document import PolicyStrategy
    from perfectplay.web.review import markov_review

    game = KeepTheLast()
    strategy = PolicyStrategy(game, solve(game).export())  # as the board reads it
    steps, state, scored = [], 0, 0
    for roll, face in enumerate(faces):  # roll again while any roll is left, then keep
        keep = roll == ROLLS - 1
        steps.append((state, face - 1, 0 if keep else 1))
        if keep:
            scored += face
            state = DONE
        else:
            state += 1
    review = markov_review(game, strategy, steps, state)
    assert all(move.loss >= 0 for move in review.moves)
    # keeping a 6 at once scores 6, rolling on expects 4.25: a loss of 1.75
    assert (faces[0] == 6) == (abs(review.moves[0].loss - 1.75) < 1e-9)
    # keeping a 6 on the second roll scores 6, the last roll expects 3.5: a loss of 2.5
    assert (faces[1] == 6) == (abs(review.moves[1].loss - 2.5) < 1e-9)
    assert abs(review.accounted - scored) < 1e-9


def test_a_scored_board_played_for_a_chance_reads_as_a_score():
    from perfectplay.web.render import templates

    game = KeepTheLast()
    page = templates.env.get_template("play_markov.html").render(
        game=game, measure=game.measure, value=19 / 27, paid=6, done=True, spent=False, horizon=5
    )
    assert "optimal play scores at least 5 points with probability 0.703704" in page
    assert "finished with 6 points, at least 5" in page
    assert game.measure.finished_within(4, 5) == "finished with 4 points, short of 5"


def test_an_outcome_is_read_as_the_game_describes_it():
    """``play --enter-chance`` reads a typed outcome by the game's own description (case
    and spaces aside) by default, and names what may be typed otherwise."""
    from perfectplay.markov.model import BadOutcome

    game = KeepTheLast()
    assert game.parse_outcome(0, "  Outcome   4 ", list(range(SIDES))) == 4
    with pytest.raises(BadOutcome, match=r"no outcome here reads '7' \(they read 'outcome 0'"):
        game.parse_outcome(0, "7", list(range(SIDES)))
