"""The command line's contract: JSON fields, exports, one-line errors with exit code 2."""

import json

import pytest


from .cli_runner import assert_one_line_error, in_process_of_its_own, in_terminal
from .cli_runner import perfectplay as run


def test_list_names_every_game_with_parameters():
    out = run("list").stdout
    assert "dice-cards" in out and "tricky-trios" in out and "n=5" in out


@pytest.mark.parametrize(
    "name, varied, spec",
    [
        ("mastermind", "mastermind(pegs=3)", "mastermind(pegs=4,colors=6)"),
        ("wordle", "wordle(lists=nyt-2023)", "wordle(lists=original,mode=normal,turns=6)"),
        ("yahtzee", "yahtzee(card=4096)", "yahtzee(joker=free,card=8191)"),
        (
            "item-matching",
            "item-matching(turns=3,possible_only=1)",
            "item-matching(slots=5,items=7,turns=4,restrict=both)",
        ),
    ],
)
def test_a_title_names_the_parameters_set_away_from_their_defaults(name, varied, spec):
    """Titles and messages leave a parameter at its default unsaid (Yahtzee's full card
    was 'yahtzee(joker=free,card=8191)'); the game read back from its title is the same,
    and the store names every parameter (``spec``), as files do (``params``)."""
    from perfectplay import load_game

    game = load_game(name)
    assert str(game) == name and load_game(str(game)) == game
    assert game.spec == spec
    assert str(load_game(varied)) == varied and load_game(str(load_game(varied))) == load_game(
        varied
    )


def test_the_solve_title_shows_only_the_parameters_given_away_from_their_defaults():
    res = run("solve", "yahtzee", "card=4096", "joker=free")  # Chance alone: 23.33 points
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[0].strip() == "yahtzee(card=4096)"
    res = run("solve", "mastermind", "pegs=2", "colors=6", "--no-store")
    assert res.stdout.split("\n")[0].strip() == "mastermind(pegs=2)"


def test_the_console_scripts_own_process_answers_and_refuses_as_in_the_tests():
    """The other tests run the command in their own process; here a process of its own
    (the console script's exit path included): a value with exit 0, a one-line error
    with exit 2, the same words as in process."""
    res = in_process_of_its_own("solve", "tricky-trios", "n=2", "--json", "--quiet")
    assert res.returncode == 0 and json.loads(res.stdout)["value"] == "17/5", res.stderr
    assert res.stderr == ""
    bad = in_process_of_its_own("solve", "mastermind", "pegs=30")
    assert_one_line_error(bad, "pegs=30 is out of range")
    assert (bad.stdout, bad.stderr) == (
        run("solve", "mastermind", "pegs=30").stdout,
        run("solve", "mastermind", "pegs=30").stderr,
    )


def test_solve_json_has_the_contract_fields():
    res = run("solve", "tricky-trios", "n=2", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["game"] == "tricky-trios" and doc["params"] == {"n": 2}
    assert doc["objective"] == "expected" and doc["value"] == "17/5"
    assert doc["value_float"] == 3.4 and doc["exact"] and doc["proven"]
    assert isinstance(doc["seconds"], float)


def test_solve_out_writes_the_policy(tmp_path):
    target = tmp_path / "policy.json"
    res = run("solve", "dice-cards", "n=2", "--out", str(target), "--quiet")
    assert res.returncode == 0, res.stderr
    doc = json.loads(target.read_text())
    assert doc["strategy"]["kind"] == "markov-policy"
    from perfectplay.markov.policy_file import decode_policy

    cols = decode_policy(doc["strategy"])
    assert cols.code[0] == 0 and cols.n_out[0] == 3  # the start: rolls {1,1},{1,2},{2,2}
    assert cols.outcome[:3].tolist() == [0, 1, 2] and cols.choose.shape == (1, cols.n_out.sum())


@pytest.mark.parametrize(
    "args,needle",
    [
        (["solve", "no-such-game"], "unknown game 'no-such-game'"),
        (["solve", "dice-cards", "n=0"], "n=0 is out of range"),
        (["solve", "dice-cards", "faces=3"], "has no parameter 'faces'"),
        (["solve", "dice-cards", "n=five"], "n must be an integer"),
        (["solve", "dice-cards", "n"], "expected key=value"),
        (["solve", "dice-cards", "n=16"], "too large"),
        (["solve", "dice-cards", "--objective", "best"], "unknown objective 'best'"),
        (["solve", "dice-cards", "--objective", "probability"], "needs a horizon"),
        (["solve", "dice-cards", "--objective", "worst"], "does not support objective 'worst'"),
        (["solve", "dice-cards", "--frobnicate"], "No such option"),
        # each engine's options, the others refused in one line naming them (engines.py)
        (
            ["solve", "dice-cards", "--workers", "2", "--without", "memo", "--store", "s.sqlite"],
            "dice-cards takes no --workers or --store (deduction games only)",
        ),
        (
            ["solve", "dice-cards", "--no-store"],
            "dice-cards takes no --no-store (deduction games only)",
        ),
        (["solve", "mastermind", "--tol", "1e-3"], "mastermind takes no --tol (Markov games only)"),
        (
            ["solve", "mastermind", "--float"],
            "mastermind takes no --exact/--float (Markov games only)",
        ),
        (
            ["play", "tricky-trios", "--secret", "random"],
            "tricky-trios takes no --secret (deduction games only)",
        ),
        (["rank", "dice-cards"], "dice-cards has no guesses to rank (deduction games only)"),
        (
            ["openings", "list", "tricky-trios"],
            "tricky-trios has no openings to value (deduction games only)",
        ),
        (
            ["solve", "dice-cards", "--frontier"],
            "--frontier and --cost-weight need a deduction game",
        ),
        (["solve", "mastermind", "--frontier"], "--frontier and --cost-weight need a horizon"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    res = run(*args)
    assert_one_line_error(res, needle)


def test_long_solve_shows_progress_and_stops_cleanly_on_ctrl_c(tmp_path):
    import pexpect

    # (its kernels are compiled: installed, or warmed before the tests by conftest.py)
    out = tmp_path / "policy.json"
    child = in_terminal("solve", "dice-cards", "n=9", "--out", str(out), cwd=str(tmp_path))
    child.expect("exploring|iteration")  # exploration is compiled now: often done before the bar
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted while" in child.before and "Traceback" not in child.before
    assert list(tmp_path.iterdir()) == []  # no partial file left behind


def test_item_matching_probability_by_default(tmp_path):
    """The game's own objective (probability) and horizon (turns); value reduced and unreduced."""
    out = tmp_path / "im.json"
    res = run(
        "solve", "item-matching", "slots=3", "items=5", "turns=3", "--json", "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["objective"] == "probability" and doc["horizon"] == 3
    assert doc["value"] == "107/125" and doc["unreduced"] == "107/125"
    assert (doc["wins"], doc["secrets"]) == (107, 125)
    checked = run("verify", str(out), "--json")
    assert checked.returncode == 0 and json.loads(checked.stdout)["wins"] == 107


def test_item_matching_bad_restriction_is_one_line():
    res = run("solve", "item-matching", "restrict=all")
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "choose one of" in res.stderr
