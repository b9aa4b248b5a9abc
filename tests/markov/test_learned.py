"""What a policy learned, by kind of choice: Tricky Trios' rule, computed."""

import pytest

from perfectplay import load_game, solve
from perfectplay.markov.learned import summarise_by_kind
from perfectplay.markov.policy_file import decode_policy

from ..cli_runner import perfectplay as cli


@pytest.mark.parametrize("n", [3, 7])
def test_a_known_card_that_completes_no_trio_is_never_strictly_better(n):
    """The seed's analysis: flip known cards only to complete a trio (ties exist)."""
    game = load_game("tricky-trios", [f"n={n}"])
    counts, decisions, exact = summarise_by_kind(
        game, decode_policy(solve(game).strategy.to_json())
    )
    unknown, completes, other = counts
    assert exact and decisions > 0
    assert other.available > 0 and other.strictly_best == 0 and other.tied_best > 0
    assert unknown.strictly_best > 0 and completes.strictly_best > 0
    assert sum(c.chosen for c in counts) == decisions


def test_float_comparisons_give_the_same_counts():
    game = load_game("tricky-trios", ["n=5"])
    cols = decode_policy(solve(game).strategy.to_json())
    exact = summarise_by_kind(game, cols)[0]
    cols.exact = None
    floats, _, is_exact = summarise_by_kind(game, cols)
    assert not is_exact and floats == exact


def test_show_prints_the_summary(tmp_path):
    path = tmp_path / "t.json"
    assert cli("solve", "tricky-trios", "n=4", "--out", str(path), "--quiet").returncode == 0
    out = cli("show", str(path), "--depth", "0").stdout
    assert "choices by kind" in out and "any other known card" in out and "strictly best" in out
    dice = tmp_path / "d.json"
    assert cli("solve", "dice-cards", "n=2", "--out", str(dice), "--quiet").returncode == 0
    assert "choices by kind" not in cli("show", str(dice)).stdout  # dice-cards labels none
