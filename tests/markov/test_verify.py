"""`perfectplay verify` on exported Markov policies: accepted when right, refused when not."""

import json
import subprocess
import sys

import pytest


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "perfectplay", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


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
    return doc


@pytest.mark.parametrize("how,needle", [
    ("illegal choice", "is not legal"),
    ("wrong value", "recorded values differ"),
    ("missing state", "not listed"),
    ("wrong exact value", "differ"),
])
def test_verify_rejects_a_broken_policy(exported, tmp_path, how, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(exported, how)))
    res = cli("verify", str(path))
    assert res.returncode == 2 and needle in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
