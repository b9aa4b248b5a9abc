"""Every parameter combination the catalogue allows gives a value or a one-line refusal.

The catalogue declares each parameter's range; a user may ask for any point of it. This
sweep solves each game at the corners of its ranges (all smallest, all largest, each
parameter largest with the others smallest, and with the others at their defaults;
every word of a choice parameter, with the others smallest) and requires exit code 0 with a value, or exit code 2
with one line naming the problem: never a traceback (item-matching slots=5 turns=11 once
ended in numba's "Int value is too large"). Each runs the command group in the test's
own process (``cli_runner.perfectplay``: an escaping exception shows as a traceback, as
it would in a process of its own, without paying an interpreter's start per corner);
``test_cli`` checks that a process of its own answers and refuses the same.

Corners that take minutes are marked slow (run with ``pytest -m slow``); the figures
beside them were measured on the project's 2-core machine.
"""

from __future__ import annotations

import json

import pytest

from perfectplay.catalogue import game_class, shipped_names

from .cli_runner import perfectplay


def corners(cls) -> list[dict]:
    """The corner points of a game class's declared parameter ranges (no repeats)."""
    specs = [s for s in cls.param_specs() if not s.omit_default]

    def at(pick) -> dict:
        return {s.name: (s.default if s.choices else pick(s)) for s in specs}

    low, default = at(lambda s: s.low), at(lambda s: s.default)
    points = [low, at(lambda s: s.high)]
    for s in specs:
        if s.choices:
            points += [{**low, s.name: c} for c in s.choices]
        else:
            points += [{**low, s.name: s.high}, {**default, s.name: s.high}]
    for s in cls.param_specs():  # a variant named only when set: set, the others smallest
        if s.omit_default and not s.text:
            points += [{**low, s.name: v} for v in (s.choices or (s.high,)) if v != s.default]
    unique = {tuple(p.items()): p for p in points}
    return list(unique.values())


def words(point: dict) -> list[str]:
    return [f"{k}={v}" for k, v in point.items()]


#: Corners that take minutes (or more): measured or known, marked slow.
SLOW = {
    "bulls-and-cows digits=4 symbols=10": "the default game: about 10 minutes on 2 cores",
    "item-matching slots=6 items=12 turns=12 restrict=both": "2,985,984 secrets, deep horizon",
    "item-matching slots=6 items=7 turns=4 restrict=both": "117,649 secrets, no table: minutes",
    "item-matching slots=5 items=12 turns=4 restrict=both": "248,832 secrets: minutes",
    "item-matching slots=5 items=7 turns=4 restrict=both": "the seed's default: 20 to 80 s",
    "item-matching slots=5 items=7 turns=12 restrict=both": "20 s; turns=11 is solved below",
    "mastermind pegs=4 colors=9": "6,561 codes: the exact search takes minutes",
    "mastermind pegs=6 colors=6": "46,656 codes: the exact search does not finish",
    "permutation n=7": "the exact search did not finish in 26 minutes (docs/deduction.md)",
    "tricky-trios n=100": "about 4 minutes and 7 GB",
    "yahtzee joker=free card=8191": "the whole card and its distribution (--json): 16 s",
    "yatzy joker=none card=32767": "the whole card and its distribution (--json): 28 s",
    "wordle lists=original answers= guesses= mode=normal turns=50": "every opening: hours",
}


def _cases():
    for name in shipped_names():  # (not the games other tests register as they load)
        for point in corners(game_class(name)):
            key = " ".join([name, *words(point)])
            marks = [pytest.mark.slow] if key in SLOW else []
            yield pytest.param(name, point, id=key, marks=marks)


@pytest.mark.parametrize("name,point", list(_cases()))
def test_corner_gives_a_value_or_a_one_line_refusal(name, point):
    res = perfectplay("solve", name, *words(point), "--json", "--quiet")
    assert "Traceback" not in res.stderr, res.stderr
    if res.returncode == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("perfectplay: error: "), res.stderr
        return
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["game"] == name and doc["params"] == point
    assert doc["value"] and 0 <= doc["value_float"] < float("inf")


def test_the_reported_item_matching_case_is_solved():
    # the catalogue allows 12 turns; 11 overflowed the search's leaf bound (242^10).
    # With 11 guesses every one of the 7^5 secrets is found.
    res = perfectplay("solve", "item-matching", "slots=5", "turns=11", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["value"] == "1" and doc["wins"] == doc["secrets"] == 16807
