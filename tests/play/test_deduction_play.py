"""The advisor for deduction games, driven through a pipe and a terminal."""

import os
import re
import subprocess
import sys

import pytest

from ..cli_runner import accept_suggestions, assert_one_line_error, in_terminal, perfectplay


def advise(*args, script):
    """Play through pipes; the output's lines (wrapped at 80 columns) joined back."""
    res = perfectplay("play", *args, input=script)
    res.stdout = _unwrap(res.stdout)
    return res


def _unwrap(text: str) -> str:
    """Lines wrapped between words at 80 columns joined again (a line that reaches the
    margin continues on the next)."""
    out = []
    for line in text.split("\n"):
        if out and len(out[-1]) >= 60 and line and not out[-1].endswith((":", ": ")):
            out[-1] = out[-1].rstrip() + " " + line
        else:
            out.append(line)
    return "\n".join(out)


def test_tool_holding_the_secret_solves_with_suggestions():
    res = advise("permutation", "n=4", "--secret", "2143", script="\n" * 20)
    assert res.returncode == 0, res.stderr
    assert "I hold the secret" in res.stdout and "solved in" in res.stdout
    assert "(proven optimal" in res.stdout  # 24 secrets: the optimal search answers in time


def test_random_secret_is_reproducible():
    a = advise(
        "mastermind", "pegs=3", "colors=3", "--secret", "random", "--seed", "5", script="\n" * 20
    )
    b = advise(
        "mastermind", "pegs=3", "colors=3", "--secret", "random", "--seed", "5", script="\n" * 20
    )
    assert a.returncode == 0 and a.stdout == b.stdout and "solved in" in a.stdout


def test_person_types_feedback_malformed_inconsistent_and_undo():
    # permutation n=3: guess 123 (suggested), feedback "x" (malformed), "1" (fine),
    # then an impossible feedback "2" for the next guess (asked again: the guess stands),
    # then undo (the guess), undo (the last turn), then quit.
    script = "\nx\n1\n\n2\nundo\nundo\nquit\n"
    res = advise("permutation", "n=3", script=script)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "cannot read feedback 'x'" in out
    assert "no secret is consistent with" in out and "nothing changed" in out
    assert "took back that guess" in out and "took back the last turn" in out and "bye" in out
    assert "(expected a number from 0 to 3)" in out and "expected" not in out.split("0 to 3)")[1]
    assert "Traceback" not in res.stderr


def test_a_guess_or_feedback_of_5000_digits_is_said_and_asked_again():
    """int() refuses so many digits: it was a traceback at the feedback prompt."""
    digits = "9" * 5000
    res = advise("permutation", "n=3", script=f"{digits}\n\n{digits}\n1\nquit\n")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert "cannot read code '999999999999... (5,000 characters)'" in res.stdout
    assert "cannot read feedback '999999999999... (5,000 characters)'" in res.stdout
    assert "turn 2:" in res.stdout  # the feedback typed next was read


def test_guess_outside_the_rules_is_refused():
    res = advise("permutation", "n=3", script="112\nhelp\nquit\n")
    assert "code '112' must use each of 1..3 once" in res.stdout
    assert "type the guess you played" in res.stdout


def test_bad_secret_is_one_line_error():
    res = advise("permutation", "n=3", "--secret", "999", script="")
    assert_one_line_error(res, "999")


@pytest.mark.parametrize("budget", ["nan", "inf", "-inf", "-1", "1e10"])
def test_a_budget_that_is_no_number_of_seconds_is_one_line(budget):
    # nan and inf were tracebacks (exit 1), a negative budget passed as 0
    res = perfectplay(
        "play", "mastermind", "pegs=2", "colors=3", "--budget", budget, input="quit\n"
    )
    assert_one_line_error(res, "--budget': must be a number of seconds from 0 to 86400")


def test_a_budget_of_zero_asks_the_heuristic_at_once():
    res = advise("mastermind", "pegs=2", "colors=3", "--budget", "0", script="\nquit\n")
    assert res.returncode == 0, res.stderr
    assert "(rule of thumb" in res.stdout


def test_advisor_in_a_terminal():
    child = in_terminal("play", "mastermind", "pegs=3", "colors=3", "--secret", "321")
    assert accept_suggestions(child, "your guess", "solved in", turns=12) == 0


def test_solved_feedback_for_a_ruled_out_guess_is_refused():
    # 123 -> 0 rules 123 out; claiming 123 -> 3 afterwards must not end the game
    res = advise("permutation", "n=3", script="\n0\n123\n3\nquit\n")
    assert "no secret is consistent with 123 -> 3" in res.stdout
    assert "solved in" not in res.stdout


def test_undo_at_the_feedback_prompt_takes_back_only_the_guess():
    res = advise("permutation", "n=3", script="\n0\n132\nundo\n\n0\n\n3\n")
    out = res.stdout
    assert "took back that guess" in out
    assert out.count("turn 2: 2 secrets still possible") == 2  # same turn asked again
    assert "solved in 3 guesses" in out


def test_item_matching_advice_aims_at_winning_within_the_turns():
    res = advise(
        "item-matching", "slots=3", "items=4", "turns=3", "--secret", "123", script="\n" * 10
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "best chance to win within 3 guesses" in out and "(proven optimal" in out
    assert "solved in" in out or "no guesses left" in out


def test_item_matching_refuses_a_guess_the_restrictions_forbid():
    # 111 against secret 234 answers III: item 1 is barred, so 122 is refused
    res = advise(
        "item-matching",
        "slots=3",
        "items=4",
        "turns=3",
        "--secret",
        "234",
        script="111\n122\nquit\n",
    )
    assert "feedback: III" in res.stdout
    assert "122 is not allowed here: item 1 was answered Incorrect" in res.stdout


def test_out_of_turns_ends_the_game():
    res = advise("item-matching", "slots=2", "items=4", "turns=1", "--secret", "34", script="11\n")
    assert "no guesses left" in res.stdout


@pytest.mark.parametrize("layer", [None, "omp", "workqueue"])
def test_optimal_suggestion_at_turn_2_with_every_threading_layer(layer):
    # The budgeted search runs in a worker process; a worker forked from a process that
    # ran GNU OpenMP kernels died ("fork() called from a process already using GNU
    # OpenMP"), and the heuristic answered after the budget. The budget here is generous:
    # what is checked is that the worker answers, not how fast.
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    if layer:
        env["NUMBA_THREADING_LAYER"] = layer
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "play",
            "mastermind",
            "--secret",
            "random",
            "--seed",
            "3",
            "--budget",
            "120",
        ],
        input="\n\nquit\n",
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    turn2 = res.stdout.split("turn 2:")[1]
    assert "222 secrets still possible" in turn2
    assert "suggested guess: 2434 (proven optimal" in turn2
    assert "Terminating" not in res.stderr and "leaked" not in res.stderr, res.stderr


def test_corrected_feedback_is_read_as_feedback():
    # 123 -> 3 is impossible after 123 -> 0; the prompt stays at the feedback, so the
    # corrected "1" is feedback for the same guess, not a guess
    res = advise("permutation", "n=3", script="\n0\n132\n3\n1\nquit\n")
    out = res.stdout
    assert "no secret is consistent with 132 -> 3" in out and "Type the feedback again" in out
    assert "turn 3:" in out and "cannot read code" not in out


def test_messages_say_each_thing_once_and_in_good_grammar():
    res = advise("mastermind", "pegs=2", "colors=2", script="\nxx\nquit\n")
    assert "cannot read feedback 'xx' (expected e.g. 1B2W)" in res.stdout
    assert "the form" not in res.stdout
    res = advise("item-matching", "slots=2", "items=2", "turns=2", script="\nhelp\nquit\n")
    assert "C = the slot holds the guessed item" in res.stdout and "I = Incorrect" in res.stdout
    res = advise("permutation", "n=1", "--secret", "1", script="\n")
    assert "solved in 1 guess\n" in res.stdout


def test_a_lost_game_shows_the_secret():
    res = advise(
        "item-matching",
        "slots=3",
        "items=4",
        "turns=1",
        "--secret",
        "random",
        "--seed",
        "2",
        script="\n" * 3,
    )
    assert "no guesses left: the secret was " in res.stdout
    shown = res.stdout.split("the secret was ")[1].split()[0]
    assert len(shown) == 3 and set(shown) <= set("1234")


def test_output_fits_80_columns_without_breaking_words():
    res = perfectplay(
        "play",
        "item-matching",
        "restrict=items",
        "--secret",
        "random",
        "--seed",
        "1",
        "--budget",
        "0",
        input="\n" * 5,
    )
    lines = res.stdout.splitlines()
    assert lines and all(len(line) <= 80 for line in lines), max(lines, key=len)
    text = " ".join(res.stdout.split())
    assert "item-matching(restrict=items): " in text and "I hold the secret" in text


def test_optimal_guesses_say_symmetry_only_where_it_merged_and_how_a_tie_is_broken(tmp_path):
    """The advice says how many guesses are optimal and how a tie is broken (the order of
    strength: the smaller worst case, a possible secret, the lowest code): after 2314 ->
    1 in the permutation game the search's own pick is 2143, the list's first 1234."""
    (tmp_path / "a.txt").write_text("cat\ncot\ndog\ntag\ntoe\nact\n")
    (tmp_path / "g.txt").write_text("cat\ncot\ndog\ntag\ntoe\nact\ntea\neat\nate\n")
    lists = [f"answers={tmp_path / 'a.txt'}", f"guesses={tmp_path / 'g.txt'}"]
    res = advise("wordle", *lists, "--secret", "cot", script="\n" * 10)
    assert "suggested guess: act (proven optimal" in res.stdout
    assert "best guesses here: act 1.8333" in res.stdout
    assert "; 4 optimal, ties to the smaller worst case, a possible secret, the lowest code" in (
        " ".join(res.stdout.split())
    )
    assert "up to symmetry" not in res.stdout
    ranked = perfectplay("rank", "wordle", *lists).stdout
    assert "4 of 9 useful guesses are optimal; 6 secrets possible" in ranked
    res = advise("permutation", "n=4", script="2314\n1\n\nquit\n")
    assert "24 optimal, ties to the smaller worst case" in " ".join(res.stdout.split())
    second = res.stdout.split("turn 2:")[1]
    assert "suggested guess: 1234 (proven optimal" in second
    assert "best guesses here: 1234 " in second


def test_the_advice_plays_for_the_objective_asked_for():
    """After 241 answered 0B1W in Mastermind 3x5 the fewest guesses in the worst case
    start with 123, the fewest on average with 133: the advice follows --objective."""
    script = "241\n" + "\n" * 10
    worst = advise(
        "mastermind", "pegs=3", "colors=5", "--secret", "315", "--objective", "worst", script=script
    )
    assert worst.returncode == 0, worst.stderr
    assert "advice aims at the fewest guesses in the worst case" in worst.stdout
    assert "turn 2: " in worst.stdout and "suggested guess: 123 (proven optimal" in worst.stdout
    expected = advise("mastermind", "pegs=3", "colors=5", "--secret", "315", script=script)
    assert "suggested guess: 133 (proven optimal" in expected.stdout
    within = advise(
        "mastermind",
        "pegs=2",
        "colors=3",
        "--objective",
        "probability",
        "--horizon",
        "2",
        "--secret",
        "21",
        script="\n" * 4,
    )
    assert "advice aims at the best chance to win within 2 guesses" in within.stdout
    assert_one_line_error(
        perfectplay("play", "dice-cards", "--objective", "probability", "--horizon", "4"),
        "advice with values is for the expected objective, or a target score",
    )
    assert_one_line_error(
        perfectplay("play", "mastermind", "--objective", "worst", "--horizon", "3"),
        "--horizon goes with --objective probability",
    )


def test_the_advice_for_the_chance_then_the_cost_keeps_the_cheaper_guess():
    """After 123 answered CWI (items costing 1, 5, 9, 20) the best chance within 3 goes
    with 111 once the items' cost counts, 112 by the chance alone (the ranking's first)."""
    res = advise(
        "item-matching",
        "slots=3",
        "items=4",
        "turns=3",
        "costs=1,5,9,20",
        "--objective",
        "probability-then-cost",
        "--secret",
        "142",
        script="123\n" + "\n" * 6,
    )
    assert res.returncode == 0, res.stderr
    assert "turn 2: " in res.stdout and "suggested guess: 111 (proven optimal" in res.stdout
    assert "112 chance 1.0000 (1)" in res.stdout  # as likely to win, at more cost


@pytest.mark.slow  # (88 games, each turn's advice from a worker: about two minutes)
@pytest.mark.parametrize(
    "name, params", [("permutation", ["n=4"]), ("mastermind", ["pegs=3", "colors=4"])]
)
def test_following_the_terminals_suggestions_never_exceeds_the_promised_worst_case(name, params):
    """Every secret played at the terminal (Enter takes each suggestion): none takes more
    guesses than the worst case the opening's advice promised, and some take all of it."""
    from perfectplay import advise as api_advise, load_game

    game = load_game(name, params)
    promised = api_advise(game).worst
    taken = []
    for code in game.secrets():
        secret = game.format_code(code)
        res = advise(name, *params, "--secret", secret, script="\n" * 12)
        assert f"worst case {promised})" in res.stdout.split("turn 2")[0], secret
        found = re.search(r"solved in (\d+) guess", res.stdout)
        assert found, (secret, res.stdout[-400:])
        taken.append(int(found[1]))
    assert max(taken) == promised
