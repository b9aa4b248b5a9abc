"""Exact values longer than Python's 4,300-digit int-to-text limit, in every output."""

import json
import sys
from fractions import Fraction

import pytest

from perfectplay import solve
from perfectplay.markov.policy_file import decode_policy
from perfectplay.markov.table import TableGame
from perfectplay.solution import digit_counts_text, format_value, parse_value

from ..cli_runner import perfectplay as cli

LENGTH = 470  # rungs of the ladder; its value's denominator is UP**469 (4,377 digits)
UP = 2**31 - 1  # one chance in UP to climb a rung (weights and their sum fit 32 bits, as the
# kernels compiled at install take them: a 64-bit weight compiles the solve afresh, 20 s)


def ladder(length: int) -> TableGame:
    """From rung i: one move, then with chance 1/UP up to rung i+1, else done (the end).
    The value is sum_{k<length} UP^-k, a fraction whose denominator is UP^(length-1)."""
    end = length
    table = {i: [(1, [(i + 1, 1)]), (UP - 1, [(end, 1)])] for i in range(length - 1)}
    table[length - 1] = [(1, [(end, 1)])]
    return TableGame(table, terminal=frozenset({end}))


def test_format_and_parse_past_the_digit_limit():
    value = Fraction(7**6000, 3**9000 + 2)
    assert sys.get_int_max_str_digits() == 4300  # the limit is left alone
    text = format_value(value)
    assert len(text) > 2 * 4300 and parse_value(text) == value
    assert digit_counts_text(value) == f"{len(str(7**6000 // 10**4000)) + 4000:,}/4,295 digits"


def test_a_solution_with_a_huge_fraction_exports_and_reads_back():
    sol = solve(ladder(LENGTH))
    expected = sum(Fraction(1, UP**k) for k in range(LENGTH))
    assert sol.proven and sol.value == expected and len(format_value(expected.denominator)) > 4300
    summary = json.loads(json.dumps({**sol.to_dict(), "params": None}))  # (a table game's own)
    assert parse_value(summary["value"]) == expected
    cols = decode_policy(json.loads(json.dumps(sol.strategy.to_json())))
    assert parse_value(cols.exact[0]) == expected and abs(cols.value[0] - float(expected)) < 1e-12


@pytest.mark.slow
def test_dice_cards_7_in_every_output(tmp_path):
    """The README's plotting example: summary, --json, --out, verify, show and plot."""
    out, png = tmp_path / "d7.json", tmp_path / "d7.png"
    res = cli(
        "solve", "dice-cards", "n=7", "--json", "--out", str(out), "--plot", str(png), "--quiet"
    )
    assert res.returncode == 0, res.stderr
    value = parse_value(json.loads(res.stdout)["value"])
    assert len(format_value(value.numerator)) > 4300 and png.stat().st_size > 0
    cols = decode_policy(json.loads(out.read_text())["strategy"])
    assert parse_value(cols.exact[0]) == value
    shown = cli("show", str(out), "--depth", "1")
    assert shown.returncode == 0 and "digits" in shown.stdout
    checked = cli("verify", str(out), "--json")
    assert checked.returncode == 0, checked.stderr
    assert abs(json.loads(checked.stdout)["value_float"] - float(value)) < 1e-9
    summary = cli("solve", "dice-cards", "n=7", "--quiet")
    assert (
        summary.returncode == 0 and "digits" in summary.stdout and "Traceback" not in summary.stderr
    )
