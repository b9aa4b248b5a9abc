"""`perfectplay verify` on exported Markov policies: accepted when right, refused when not."""

import json

import numpy as np
import pytest

from perfectplay.markov.policy_file import decode_policy, encode_policy

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
    cols = decode_policy(doc["strategy"])
    if how == "illegal choice":
        cols.choose[0, 0] = 4
    elif how == "wrong value":
        cols.value[5] = 1 / 3
    elif how == "missing state":
        goal = int(np.flatnonzero(cols.n_out == 0)[0])  # the policy must lead there
        keep = np.arange(len(cols.code)) != goal  # it has no outcomes to drop
        cols.code, cols.n_out, cols.value = cols.code[keep], cols.n_out[keep], cols.value[keep]
        cols.exact = [x for i, x in enumerate(cols.exact) if i != goal]
    elif how == "wrong exact value":
        cols.exact[0] = "311/57"
    elif how == "unreadable value":
        cols.exact[2] = "lots"
    elif how == "huge code":
        cols.code[1] = 2**62
    elif how == "not a markov game":
        doc["game"], doc["params"] = "permutation", {"n": 3}
        return doc
    elif how == "garbled columns":
        doc["strategy"]["columns"] = doc["strategy"]["columns"][:100]
        return doc
    elif how == "old format":
        doc["strategy"] = {"kind": "markov-policy", "states": [{"code": 0}]}
        return doc
    doc["strategy"] = encode_policy(cols)
    return doc


@pytest.mark.parametrize(
    "how,needle",
    [
        ("illegal choice", "is not legal"),
        ("wrong value", "recorded values differ"),
        ("missing state", "not listed"),
        ("wrong exact value", "is not the policy's"),
        ("unreadable value", "no readable value"),
        ("huge code", "no valid integer code"),
        ("not a markov game", "not a Markov game"),
        ("garbled columns", "cannot be read"),
        ("old format", "unknown encoding"),
    ],
)
def test_verify_rejects_a_broken_policy(exported, tmp_path, how, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(exported, how)))
    res = cli("verify", str(path))
    assert_one_line_error(res, needle)


def _columns(codes, values, outcomes, choose):
    from perfectplay.markov.policy_file import PolicyColumns

    n_out = np.array([len(o) for o in outcomes])
    return PolicyColumns(
        np.array(codes),
        n_out,
        np.array(sum(outcomes, []), dtype=np.int64),
        np.array([sum(choose, [])], dtype=np.int64),
        np.array([float(v) for v in values]),
        [str(v) for v in values],
        False,
    )


def test_verify_finds_a_legal_but_suboptimal_policy():
    """A policy that is legal and whose recorded values are its own, but not optimal."""
    from perfectplay.markov.table import TableGame
    from perfectplay.markov.verify import verify_policy

    game = TableGame({0: [(1, [(1, 1), (2, 1)])], 2: [(1, [(1, 5)])]}, terminal=frozenset({1}))
    bad = _columns([0, 1, 2], [6, 0, 5], [[0], [], [0]], [[1], [], [0]])
    check = verify_policy(game, bad, recorded_exact=True)
    assert check.value == 6 and check.optimal is False
    good = _columns([0, 1, 2], [1, 0, 5], [[0], [], [0]], [[0], [], [0]])
    assert verify_policy(game, good, recorded_exact=True).optimal is True


def test_float_verification_of_a_large_policy_finds_a_suboptimal_choice(monkeypatch):
    """Beyond the exact limit the same checks run in floats (and say so)."""
    from perfectplay import load_game, solve
    from perfectplay.markov import verify

    monkeypatch.setattr(verify, "EXACT_LIMIT", 10)
    game = load_game("dice-cards", ["n=3"])
    cols = decode_policy(solve(game).strategy.to_json())
    check = verify.verify_policy(game, cols, recorded_exact=True)
    assert not check.exact and check.optimal is True and abs(check.value - 12.453758316) < 1e-8
    cols.exact[0] = "1/3"
    with pytest.raises(verify.BadPolicy, match="recorded exact value"):
        verify.verify_policy(game, cols, recorded_exact=True)


@pytest.mark.parametrize(
    "field,value,needle",
    [
        ("value", "1/1", "the file says value '1/1'"),
        ("value_float", 2.0, "the file says value_float 2.0"),
        ("states", 3, "the file says states 3"),
    ],
)
def test_verify_and_show_check_the_top_level_numbers(exported, tmp_path, field, value, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(exported, **{field: value})))
    assert_one_line_error(cli("verify", str(path)), needle)
    assert_one_line_error(cli("show", str(path)), needle)


def _with_columns(doc, replaced, **strategy):
    """`doc` with its policy's columns replaced by those of `replaced` (compressed as
    solve writes them) and the strategy's fields `strategy` changed."""
    import base64
    import io

    with np.load(io.BytesIO(base64.b64decode(doc["strategy"]["columns"]))) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays.update(replaced)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    columns = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {**doc, "strategy": {**doc["strategy"], "columns": columns, **strategy}}


ZEROS = np.zeros(1 << 23, np.int64)  # 64 MiB that compress to 64 KiB


@pytest.mark.parametrize(
    "columns,states,needle",
    [
        # each was expanded whole before (1 GiB: 1.15 GB and 6.5 s to refuse, 2026-11-27)
        ({"code": ZEROS}, None, "column 'code' holds 8,388,608 entries, not one for each"),
        ({"code": ZEROS}, 1 << 23, "lists 8,388,608 states, more than its game has (64)"),
        (
            {"outcome": ZEROS, "choose": ZEROS[None, :]},
            None,
            "8,388,608 chance outcomes, more than its 64 states have (6 each at most)",
        ),
        ({"choose": np.zeros((1 << 14, 378), np.int64)}, None, "outcomes and choices"),
        ({"exact": ZEROS.view(np.uint8)}, None, "exact values take 67,108,864 characters"),
    ],
)
def test_a_column_is_checked_against_the_game_before_it_expands(tmp_path, columns, states, needle):
    """Each column's header is held against the game (dice-cards n=3: 64 states, 378
    chance outcomes in all) and the states the policy says it lists before the column
    is expanded: the command's memory stays far below the column's."""
    import tracemalloc

    from perfectplay import load_game, solve

    doc = solve(load_game("dice-cards(n=3)")).export()
    assert doc["strategy"]["states"] == 64
    bomb = _with_columns(doc, columns, **({"states": states} if states else {}))
    path = tmp_path / "bomb.json"
    path.write_text(json.dumps(bomb))
    size = sum(a.nbytes for a in columns.values())
    assert path.stat().st_size < size / 100
    for command in ("verify", "show"):
        tracemalloc.start()
        try:
            res = cli(command, str(path))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert_one_line_error(res, needle)
        assert peak < size / 4, peak


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_value_that_is_no_finite_number_is_refused(tmp_path, bad):
    """A policy whose value column holds NaN or an infinity is refused in one line, before
    any replay compares it (a NaN compared passed no check but warned)."""
    from perfectplay import load_game, solve

    doc = solve(load_game("dice-cards(n=3)")).export()
    values = _policy_values(doc)
    values[5] = bad
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_with_columns(doc, {"value": values})))
    for command in ("verify", "show"):
        assert_one_line_error(cli(command, str(path)), "a state's value is not a finite number")


def _policy_values(doc) -> np.ndarray:
    """The value column of `doc`'s policy."""
    import base64
    import io

    with np.load(io.BytesIO(base64.b64decode(doc["strategy"]["columns"]))) as npz:
        return npz["value"].copy()
