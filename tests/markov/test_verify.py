"""`perfectplay verify` on exported Markov policies: accepted when right, refused when not."""

import json

import pytest


from ..cli_runner import assert_one_line_error
from ..cli_runner import perfectplay as cli


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "trios.json"
    assert cli("solve", "tricky-trios", "n=3", "--out", str(path), "--quiet").returncode == 0
    return json.loads(path.read_text())


def test_verify_recomputes_the_exact_value(exported, tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(exported))
    res = cli("verify", str(path), "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["value"] == "311/56" and doc["exact"] and doc["states"] == exported["states"]
    assert doc["optimal"] is True


def _broken(exported, how):
    doc = json.loads(json.dumps(exported))
    states = doc["strategy"]["states"]
    if how == "illegal choice":
        states[0]["choose"][0][0] = 4
    elif how == "wrong value":
        states[5]["value"] = "1/3"
    elif how == "missing state":
        del states[-1]
    elif how == "wrong exact value":
        states[0]["value"] = "311/57"
    elif how == "unreadable value":
        states[2]["value"] = "lots"
    elif how == "no choices":
        states[0]["choose"] = []
    elif how == "huge code":
        states[1]["code"] = 10**30
    elif how == "not a markov game":
        doc["game"], doc["params"] = "permutation", {"n": 3}
    return doc


@pytest.mark.parametrize("how,needle", [
    ("illegal choice", "is not legal"),
    ("wrong value", "recorded values differ"),
    ("missing state", "not listed"),
    ("wrong exact value", "differ"),
    ("unreadable value", "no readable value"),
    ("no choices", "malformed"),
    ("huge code", "no valid integer code"),
    ("not a markov game", "not a Markov game"),
])
def test_verify_rejects_a_broken_policy(exported, tmp_path, how, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(exported, how)))
    res = cli("verify", str(path))
    assert_one_line_error(res, needle)


def test_verify_finds_a_legal_but_suboptimal_policy():
    """A policy that is legal and whose recorded values are its own, but not optimal."""
    from perfectplay.markov.table import TableGame
    from perfectplay.markov.verify import verify_policy

    game = TableGame({0: [(1, [(1, 1), (2, 1)])], 2: [(1, [(1, 5)])]}, terminal=frozenset({1}))
    entries = [{"code": 0, "value": "6", "outcomes": [0], "choose": [[1]]},
               {"code": 1, "value": "0"},
               {"code": 2, "value": "5", "outcomes": [0], "choose": [[0]]}]
    check = verify_policy(game, entries, recorded_exact=True)
    assert check.value == 6 and check.optimal is False
    entries[0].update(value="1", choose=[[0]])
    assert verify_policy(game, entries, recorded_exact=True).optimal is True


@pytest.mark.parametrize("field,value,needle", [
    ("value", "1/1", "the file says value '1/1'"),
    ("value_float", 2.0, "the file says value_float 2.0"),
    ("states", 3, "the file says states 3"),
])
def test_verify_and_show_check_the_top_level_numbers(exported, tmp_path, field, value, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(exported, **{field: value})))
    assert_one_line_error(cli("verify", str(path)), needle)
    assert_one_line_error(cli("show", str(path)), needle)
