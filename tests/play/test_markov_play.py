"""`perfectplay play` for Markov games, driven through a pipe and through a terminal."""

from ..cli_runner import accept_suggestions, in_terminal, perfectplay


def test_pipe_session_accepts_suggestions_and_finishes():
    res = perfectplay("play", "dice-cards", "n=2", "--seed", "3", input="\n" * 200)
    assert res.returncode == 0, res.stderr
    assert "optimal play needs 5.673651 moves on average" in res.stdout
    assert "<- optimal" in res.stdout and "finished in" in res.stdout


def test_pipe_session_help_undo_bad_input_and_quit():
    script = "help\n9\nundo\n2\nundo\nquit\n"
    res = perfectplay("play", "tricky-trios", "n=3", "--seed", "1", input=script)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "commands at any prompt" in out
    assert "please type a number from 1 to" in out
    assert "bye" in out and "Traceback" not in res.stderr


def test_a_choice_of_5000_digits_is_no_such_choice_and_asked_again():
    """int() refuses so many digits: it was a traceback at the choice prompt."""
    script = "9" * 5000 + "\n0\n-1\nquit\n"
    res = perfectplay("play", "tricky-trios", "n=3", "--seed", "1", input=script)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout.count("no such choice: please type a number from 1 to") == 3
    assert "bye" in res.stdout


def test_same_seed_same_game():
    def run():
        return perfectplay("play", "dice-cards", "n=2", "--seed", "7", input="\n" * 200).stdout

    assert run() == run()


def test_terminal_session_through_a_pty():
    child = in_terminal("play", "dice-cards", "n=2", "--seed", "3")
    child.expect("choose 1-")
    child.sendline("help")
    child.expect("type the number of a choice")
    assert accept_suggestions(child, "choose 1-", "finished in", turns=100) == 0


def test_undo_returns_to_the_same_decision_and_cost():
    res = perfectplay("play", "dice-cards", "n=2", "--seed", "4", input="2\nundo\nquit\n")
    blocks = res.stdout.split("\nface down")
    first, after_undo = blocks[1], blocks[-1]
    # the decision shown after undo is the first one again: same state, roll and cost paid
    assert first.splitlines()[:2] == after_undo.splitlines()[:2]
