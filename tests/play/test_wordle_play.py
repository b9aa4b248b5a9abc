"""The advisor on Wordle: colours typed as GYBBG (or squares), shown as squares in a terminal."""

import pexpect
import pytest

from ..cli_runner import in_terminal, perfectplay

ANSWERS = ["cat", "cot", "dog", "tag", "toe", "act"]
GUESSES = ANSWERS + ["tea", "eat", "ate"]


def lists(tmp_path) -> list[str]:
    (tmp_path / "a.txt").write_text("\n".join(ANSWERS) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(GUESSES) + "\n")
    return [f"answers={tmp_path / 'a.txt'}", f"guesses={tmp_path / 'g.txt'}"]


def test_small_lists_with_the_tool_holding_the_secret(tmp_path):
    res = perfectplay("play", "wordle", *lists(tmp_path), "--secret", "cot", input="\n" * 10)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "6 possible secrets" in out and "act cat cot dog tag toe" in out
    assert "feedback: GGG" in out and "solved in" in out
    assert "🟩" not in out  # not a terminal: plain letters


def test_colours_typed_in_any_notation_and_hard_mode_refusals(tmp_path):
    # cat against cot: GBG, typed as squares; hard mode then refuses tag (C must stay first)
    script = "cat\n🟩⬛🟩\ntag\ncot\ng.g\nquit\n"
    res = perfectplay("play", "wordle", *lists(tmp_path), "mode=hard", input=script)
    out = res.stdout
    assert "turn 2: 1 secret still possible\n  cot" in out
    assert "tag is not allowed here: position 1 must keep c" in out
    assert "solved in 2 guesses" not in out  # g.g is G, grey, G: not solved
    assert "no secret is consistent with cot -> GBG" in out


def test_the_real_lists_accept_refuse_and_undo():
    # --budget 0: the opening book answers turn one, then the heuristic at once
    script = "zzzzz\nsal\nsalet\nBBYBB\ncrony\nbggbb\nsalet\nGGGGG\nundo\nundo\nquit\n"
    res = perfectplay("play", "wordle", "--budget", "0", input=script)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "2,315 possible secrets" in out and "(rule of thumb" in out
    assert "zzzzz is not one of the guesses of wordle" in out
    assert "cannot read word 'sal' (expected 5 letters a-z)" in out
    assert "turn 2: 99 secrets still possible" in out
    assert "turn 3: 5 secrets still possible\n  broil droll drool growl prowl" in out
    assert "no secret is consistent with salet -> GGGGG; nothing changed" in out
    assert "took back that guess" in out  # refused feedback: the guess stands until undone
    assert "took back the last turn" in out and out.count("turn 2: 99 secrets") == 2
    assert "Traceback" not in res.stderr


def test_squares_in_a_terminal(tmp_path):
    child = in_terminal("play", "wordle", *lists(tmp_path), "--secret", "dog")
    child.expect("your guess")
    child.sendline("cot")
    child.expect("feedback: ⬛🟩⬛ BGB")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_the_time_budget_falls_back_to_the_heuristic():
    res = perfectplay("play", "wordle", "--budget", "1", input="\nquit\n")
    assert res.returncode == 0, res.stderr
    assert "suggested guess: trace (most-parts)" in res.stdout


def test_a_turn_limit_is_part_of_the_objective_and_ends_the_game():
    """``play wordle turns=2 --secret gully`` played a third guess: the advice now aims at
    the best chance within 2 guesses, then the fewest on average, and the game ends at
    the limit."""
    res = perfectplay(
        "play", "wordle", "turns=2", "--secret", "gully", "--budget", "0", input="\n" * 6
    )
    text = " ".join(res.stdout.split())
    assert "best chance to win within 2 guesses, then the fewest guesses on average" in text
    assert "turn 3" not in text and "no guesses left: the secret was gully" in text
