"""Every speed-up of the Markov solver changes only the time: solved with each one off,
the values are those solved with all on (``markov.speedups.SpeedUps``, ``--without``)."""

import json

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.markov import solve as markov_solve
from perfectplay.markov.speedups import SpeedUps
from perfectplay.speedups import switch_names

from ..cli_runner import perfectplay as cli
from ..golden import DICE_CARDS, TRICKY_TRIOS

NAMES = switch_names(SpeedUps)


def values_by_code(sol) -> np.ndarray:
    """A solution's float values in the order of its states' codes (the solver may number
    them differently with a speed-up off)."""
    g = sol.strategy.graph
    return np.asarray(sol.strategy.values, dtype=float)[np.argsort(g.codes)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "game,n,golden", [("dice-cards", 5, DICE_CARDS), ("tricky-trios", 5, TRICKY_TRIOS)]
)
def test_each_speedup_off_changes_no_value(name, game, n, golden, monkeypatch):
    monkeypatch.setattr(markov_solve, "RENUMBER_STATES", 0)  # so that `renumber` has work
    monkeypatch.setattr(markov_solve, "EXACT_STATES", 0)  # and `streamed`
    g = load_game(game, [f"n={n}"])
    on = solve(g, exact=False)
    off = solve(g, exact=False, speedups=SpeedUps(**{name: False}))
    assert round(on.value_float, 6) == round(off.value_float, 6) == golden[n]
    assert abs(values_by_code(on) - values_by_code(off)).max() < 1e-9


def test_components_off_takes_the_global_path():
    g = load_game("tricky-trios", ["n=4"])
    assert "components" in solve(g, exact=False).stats
    off = solve(g, exact=False, speedups=SpeedUps(components=False))
    assert "components" not in off.stats and off.stats["policy_rounds"] >= 1


def test_without_from_the_command_line():
    res = cli("solve", "tricky-trios", "n=4", "--json", "--quiet", "--without", "components,packed")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (
        doc["value"]
        == json.loads(cli("solve", "tricky-trios", "n=4", "--json", "--quiet").stdout)["value"]
    )
    bad = cli("solve", "tricky-trios", "n=4", "--without", "symmetry")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert (
        "unknown speed-up 'symmetry' (known: components, packed, merged, warm, renumber, code_order, halves, blocks, streamed, stages)"
        in bad.stderr
    )


def test_the_help_names_every_switch_of_both_engines():
    """``--without``'s help lists the switches by hand (the CLI does not import the engines
    to start): every switch of both engines must be in it."""
    from perfectplay.deduction.search import SpeedUps as DeductionSpeedUps

    text = " ".join(cli("solve", "--help").stdout.split())
    for name in switch_names(SpeedUps) + switch_names(DeductionSpeedUps):
        assert name in text, name
