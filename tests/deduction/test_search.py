"""Exact search: published values, a brute-force cross-check, speed-ups that change only speed."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import load_game, solve
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.search import Search, SpeedUps
from perfectplay.deduction.solve import suggest_guess
from perfectplay.deduction.tree import tree_stats
from perfectplay.objectives import Objective
from perfectplay.speedups import switch_names

from .bruteforce import BruteForce

TINY = [
    "mastermind(pegs=2,colors=2)",
    "mastermind(pegs=2,colors=3)",
    "mastermind(pegs=3,colors=2)",
    "mastermind(pegs=2,colors=4)",
    "permutation(n=3)",
    "permutation(n=4)",
    "bulls-and-cows(digits=2,symbols=4)",
]


def replayed(solution):
    """The tree's statistics recomputed by replaying every secret through it."""
    game = load_game(solution.game, [f"{k}={v}" for k, v in solution.params.items()])
    return tree_stats(build_table(game), solution.strategy.root)


@pytest.mark.parametrize("spec", TINY)
def test_brute_force_agrees(spec):
    game = load_game(spec)
    brute = BruteForce(game)
    everyone = brute.everything()
    best = solve(game, "expected")
    assert best.extra["total"] == brute.total(everyone, len(everyone))
    worst = solve(game, "worst")
    assert worst.value == brute.worst(everyone)
    assert worst.extra["total"] == brute.total(everyone, int(worst.value))
    capped = solve(game, "expected", max_guesses=int(worst.value))
    assert capped.extra["total"] == worst.extra["total"]
    for sol in (best, worst, capped):
        st = replayed(sol)
        assert (st.total, st.worst) == (sol.extra["total"], sol.extra["worst"])


SWITCHES = switch_names(SpeedUps)


@pytest.mark.parametrize(
    "spec",
    ["mastermind(pegs=3,colors=3)", "permutation(n=4)", "bulls-and-cows(digits=2,symbols=5)"],
)
@pytest.mark.parametrize("objective", ["expected", "worst"])
def test_each_speedup_changes_speed_not_value(spec, objective):
    game = load_game(spec)
    base = solve(game, objective)
    for name in SWITCHES:
        off = solve(game, objective, speedups=SpeedUps(**{name: False}))
        assert (off.value, off.extra["total"], off.extra["worst"]) == (
            base.value,
            base.extra["total"],
            base.extra["worst"],
        ), name
        if name in ("symmetry", "bounds", "memo", "lookahead"):
            assert off.stats["nodes"] >= base.stats["nodes"], name


@pytest.mark.parametrize(
    "spec",
    ["mastermind(pegs=3,colors=4)", "permutation(n=5)", "bulls-and-cows(digits=3,symbols=5)"],
)
@pytest.mark.parametrize("objective", ["expected", "worst", "probability"])
@pytest.mark.parametrize("switch", ["table", "columns"])
def test_how_feedbacks_are_read_is_only_a_speedup(spec, objective, switch):
    # feedbacks read from the table or computed per node, candidates scored together by
    # secret or one by one: the same bounds, so the same nodes and the very same tree
    game = load_game(spec)
    if objective == "probability":
        objective = Objective("probability", horizon=3)
    fast = solve(game, objective)
    slow = solve(game, objective, speedups=SpeedUps(**{switch: False}))
    assert fast.stats.get("nodes", fast.stats.get("states")) == slow.stats.get(
        "nodes", slow.stats.get("states")
    )
    assert fast.strategy.to_json() == slow.strategy.to_json()


def test_symmetry_leaves_few_first_guesses():
    t = build_table(load_game("mastermind"))
    everyone = np.arange(t.n_secrets)
    first = [t.game.format_code(t.guesses[g]) for g in Search(t).candidates(everyone, ())]
    assert first == ["1111", "1112", "1122", "1123", "1234"]
    t = build_table(load_game("permutation(n=5)"))
    assert len(Search(t).candidates(np.arange(t.n_secrets), ())) == 1


def test_mastermind_4x6_optimal_expected():
    # Koyama and Lai (1993): 5625/1296, worst case 6.
    sol = solve(load_game("mastermind"), "expected")
    assert (sol.extra["total"], sol.extra["secrets"], sol.extra["worst"]) == (5625, 1296, 6)
    assert sol.value == Fraction(5625, 1296) and sol.proven
    assert replayed(sol).total == 5625


def test_suggest_guess_is_callable_on_any_consistent_set():
    game = load_game("mastermind(pegs=3,colors=3)")
    first = suggest_guess(game, np.arange(27))
    assert game.format_code(game.guesses()[first]) == "112"
    assert suggest_guess(game, [5]) == 5
    assert suggest_guess(game, np.arange(27), strategy="minimax") >= 0


def test_suggest_guess_on_a_set_the_history_does_not_explain():
    # an asymmetric set given with an empty history: symmetry must not prune the guesses
    game = load_game("mastermind(pegs=2,colors=4)")
    brute = BruteForce(game)
    subset = [0, 2, 5, 8, 11, 12, 15]  # 11 13 22 31 34 41 44: symmetry would cost 2 guesses
    secrets = frozenset(brute.secrets[i] for i in subset)
    g = brute.guesses[suggest_guess(game, subset)]
    after = len(secrets) + sum(
        brute.total(frozenset(c), 9)
        for f, c in brute.split(g, secrets).items()
        if f != brute.solved
    )
    assert after == brute.total(secrets, 10)


def test_mastermind_4x6_worst_and_capped():
    # Koyama and Lai (1993): 5626/1296 with at most 5 guesses; Knuth (1976): worst case 5.
    game = load_game("mastermind")
    assert solve(game, "expected", max_guesses=5).extra["total"] == 5626
    worst = solve(game, "worst")
    assert worst.value == 5 and worst.extra["total"] == 5626


@pytest.mark.slow
def test_bulls_and_cows():
    # 26274/5040 with worst case 7 (the published optimum for 4 digits out of 10);
    # about 45 s on two cores
    sol = solve(load_game("bulls-and-cows"), "expected", workers=2)
    assert (sol.extra["total"], sol.extra["worst"]) == (26274, 7)
    assert replayed(sol).total == 26274


GAMES = [
    "mastermind(pegs=1,colors=3)",
    "mastermind(pegs=2,colors=3)",
    "mastermind(pegs=3,colors=2)",
    "permutation(n=2)",
    "permutation(n=3)",
    "bulls-and-cows(digits=2,symbols=3)",
    "bulls-and-cows(digits=1,symbols=5)",
]


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(GAMES),
    st.sampled_from(["expected", "worst"]),
    st.fixed_dictionaries({name: st.booleans() for name in SWITCHES}),
)
def test_any_mix_of_speedups_gives_the_same_replayed_value(spec, objective, switches):
    game = load_game(spec)
    base = solve(game, objective)
    sol = solve(game, objective, speedups=SpeedUps(**switches))
    assert (sol.value, sol.extra["total"], sol.extra["worst"]) == (
        base.value,
        base.extra["total"],
        base.extra["worst"],
    )
    st_ = replayed(sol)
    assert (st_.total, st_.worst, st_.histogram) == (
        sol.extra["total"],
        sol.extra["worst"],
        {int(k): v for k, v in sol.extra["histogram"].items()},
    )


# The permutation game (seed 002): no published table known; computed here and
# cross-checked by brute force for n <= 4 (see docs/deduction.md). n -> (total, worst).
PERMUTATION = {3: (15, 4), 4: (86, 5), 5: (535, 6), 6: (3924, 7)}


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_permutation_table(n):
    game = load_game(f"permutation(n={n})")
    best, worst = solve(game, "expected"), solve(game, "worst")
    assert (best.extra["total"], worst.value) == PERMUTATION[n]


@pytest.mark.parametrize("objective", ["expected", "worst"])
def test_two_workers_find_the_same_optimum(objective, monkeypatch):
    # 512 secrets, above the threshold set here: the cells of the first guesses go to two
    # thread lanes with memos of their own (and the tie-break pass reuses them)
    from perfectplay.deduction import root

    monkeypatch.setattr(root, "PARALLEL_MIN_SECRETS", 100)
    game = load_game("mastermind(pegs=3,colors=8)")
    one = solve(game, objective)
    two = solve(game, objective, workers=2)
    assert (two.value, two.extra["total"], two.extra["worst"]) == (
        one.value,
        one.extra["total"],
        one.extra["worst"],
    )
    assert replayed(two).total == two.extra["total"]
