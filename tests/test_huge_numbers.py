"""Every number a person gives the command line is held to a range where it is read: past
the range (20 digits, 5,000 digits, a negative number), or not a finite number (nan, inf,
1e300 seconds), it is one line on stderr naming it, exit code 2, no traceback.

The options are found by walking the command tree, so that a number option added later
is tested here without being listed."""

from __future__ import annotations

import errno

import click
import pytest

from perfectplay.cli import cli
from perfectplay.cli_ranges import Within
from perfectplay.ranges import MOST, within

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as run

HUGE = "99999999999999999999"  # past int64
DIGITS = "9" * 5000  # past what int() converts


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    """Every command of the tree under `group`, with the words that name it."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


#: (command words, option, the words its required arguments take, whether it is a float)
#: for every option of the tree that takes a number.
NUMBER_OPTIONS = [
    (
        words,
        param.opts[0],
        ["x" for p in command.params if isinstance(p, click.Argument) and p.required],
        isinstance(param.type, Within) and not param.type.integer,
    )
    for words, command in _commands(cli)
    for param in command.params
    if isinstance(param.type, (Within, click.types._NumberParamTypeBase))
]


def test_the_tree_has_number_options_and_each_is_held_to_a_range():
    """The walk finds the options the issue names, and every number option is a `Within`
    (click's own INT, FLOAT and their ranges take 20 digits, nan or an open end)."""
    found = {(" ".join(words), option) for words, option, _, _ in NUMBER_OPTIONS}
    for named in [
        ("solve", "--horizon"),
        ("solve", "--top"),
        ("rank", "--horizon"),
        ("openings value", "--bound"),
        ("play", "--budget"),
    ]:
        assert named in found
    for words, command in _commands(cli):
        for param in command.params:
            if isinstance(param.type, click.types._NumberParamTypeBase):
                raise AssertionError(f"{' '.join(words)} {param.opts[0]} is {param.type!r}")


def _cases():
    for words, option, arguments, is_float in NUMBER_OPTIONS:
        values = [HUGE, "-" + HUGE, DIGITS]
        if is_float:
            values += ["nan", "inf", "-inf", "1e300"]
        for value in values:
            yield pytest.param(
                words, option, arguments, value, id=f"{' '.join(words)} {option}={value[:24]}"
            )


@pytest.mark.parametrize("words,option,arguments,value", list(_cases()))
def test_a_number_option_past_its_range_is_one_line(words, option, arguments, value):
    res = run(*words, f"{option}={value}", *arguments)
    assert_one_line_error(res, f"Invalid value for '{option}': must be ")
    assert len(res.stderr) < 200  # (5,000 digits are not repeated)


@pytest.mark.parametrize(
    "args,needle",
    [
        (
            ["solve", "mastermind", "pegs=3", "colors=3", "--objective", "probability"],
            "'--horizon': must be an integer from 0 to 1,000,000,000",
        ),
        (["rank", "mastermind", "pegs=3", "colors=3", "--objective", "probability"], "--horizon"),
    ],
)
def test_a_horizon_past_its_range_is_one_line_with_its_objective(args, needle):
    """With the objective that takes it, so that only the number is wrong."""
    assert_one_line_error(run(*args, "--horizon", HUGE), needle)


@pytest.mark.parametrize(
    "words,needle",
    [
        (["mastermind", f"pegs={HUGE}"], "pegs=99999999999999999999 is out of range"),
        (["mastermind", f"pegs={DIGITS}"], "pegs must be an integer from 1 to 6, got 999"),
        (
            ["item-matching", f"costs=1,2,3,4,5,6,{HUGE}"],
            "each number of costs= must be an integer from 0 to 1,000,000,000, got 9999",
        ),
        (["item-matching", "costs=1,2,3,4,5,6,-1"], "each number of costs= must be"),
        (["item-matching", "costs=1,2"], "costs=1,2 must list 7 whole numbers"),
        (["mastermind", "--after", f"1122:{DIGITS}B0W"], "cannot read feedback '99999"),
        (["mastermind", "--after", "11\u00b22:1B0W"], "cannot read code"),
        (["bulls-and-cows", "--after", "\u00b2123:1B0C"], "cannot read code"),
        (["mastermind", "--cluster", f"local:{HUGE}"], "N must be an integer from 1 to 1024"),
        (["mastermind", "--out", ""], "--out: empty path"),
        (["mastermind", "--plot", ""], "--plot: empty path"),
        (["mastermind", "--store", ""], "--store: empty path"),
    ],
)
def test_a_game_parameter_or_an_option_too_large_or_empty_is_one_line(words, needle):
    res = run("solve", *words, "--quiet")
    assert_one_line_error(res, needle)
    assert len(res.stderr) < 200


ITEMS = ("item-matching", "slots=2", "items=2", "turns=2")


@pytest.mark.parametrize(
    "weight", ["-1", "1e300", "1e99999999", "1e-99999999", "nan", "inf", "1/0", "1/" + DIGITS]
)
def test_a_cost_weight_past_its_range_is_one_line(weight):
    """1e99999999 took minutes (Fraction writing out its digits) and 1e300 was taken."""
    res = run("solve", *ITEMS, "--cost-weight", weight, "--quiet")
    assert_one_line_error(res, "--cost-weight must be a number like 1/100 or 0.01, 0 or from")
    assert len(res.stderr) < 200


def test_a_cost_weight_is_exact_as_a_fraction_or_a_decimal():
    said = {
        w: run("solve", *ITEMS, "--cost-weight", w, "--quiet").stdout for w in ("1/100", "1e-2")
    }
    assert (
        said["1/100"] == said["1e-2"] and "max P(win) - 1/100 * E[cost] = 193/200" in said["1e-2"]
    )


def test_an_empty_out_is_refused_by_openings_value_and_an_empty_store_by_store():
    args = ["openings", "value", "mastermind", "pegs=2", "colors=2", "--bound", "9"]
    assert_one_line_error(run(*args, "--out", "", "--no-store"), "--out: empty path")
    for command in ("info", "clear"):
        assert_one_line_error(run("store", command, "--store", ""), "--store: empty path")


def test_a_transport_dask_cannot_use_here_is_one_line():
    pytest.importorskip("distributed")
    res = run("solve", "mastermind", "pegs=3", "colors=3", "--no-store", "--cluster", "ucx://1:1")
    assert_one_line_error(res, "--cluster ucx://1:1: ")
    assert "ucx://" in res.stderr


def test_an_output_on_a_full_disk_says_the_disk_is_full(tmp_path, monkeypatch):
    from perfectplay import solution

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(solution.json, "dump", full)
    out = tmp_path / "s.json"
    res = run("solve", "mastermind", "pegs=2", "colors=2", "--no-store", "--quiet", "--out", out)
    assert_one_line_error(res, f"cannot write {out}: No space left on device")
    assert not out.exists() and list(tmp_path.iterdir()) == []  # (no temporary file left)


@pytest.mark.parametrize(
    "value,integer,shown",
    [
        ("12", True, 12),
        (" 7 ", True, 7),
        ("0.25", False, 0.25),
        (3, True, 3),
        ("1e-3", False, 0.001),
    ],
)
def test_within_reads_what_is_in_range(value, integer, shown):
    assert within(value, 0, MOST, integer=integer) == shown


@pytest.mark.parametrize(
    "value,integer",
    [
        (HUGE, True),
        (DIGITS, True),
        ("-" + DIGITS, True),
        ("1.5", True),
        ("x", True),
        (True, True),
        ("nan", False),
        ("inf", False),
        ("1e300", False),
        (DIGITS, False),
        (float("nan"), False),
    ],
)
def test_within_refuses_what_is_not_in_range(value, integer):
    from perfectplay.errors import BadParameter

    with pytest.raises(BadParameter, match=r"^the thing must be .* from 0 to 1,000,000,000, got"):
        within(value, 0, MOST, integer=integer, what="the thing")
