"""The catalogue's deduction games keep the protocol; feedback kernels equal the scalar rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import game_names, load_game
from perfectplay.catalogue import game_class
from perfectplay.deduction.feedback import compute_feedback
from perfectplay.deduction.check import check_game
from perfectplay.errors import PerfectplayError

DEDUCTION = [name for name in game_names() if game_class(name).kind == "deduction"]
SMALL = [
    "mastermind(pegs=2,colors=3)",
    "mastermind(pegs=3,colors=4)",
    "permutation(n=3)",
    "permutation(n=5)",
    "bulls-and-cows(digits=2,symbols=5)",
    "bulls-and-cows(digits=3,symbols=6)",
]


def test_the_catalogue_has_the_three_deduction_games():
    assert {"mastermind", "permutation", "bulls-and-cows"} <= set(DEDUCTION)


@pytest.mark.parametrize("name", DEDUCTION)
def test_every_catalogue_game_passes_check_game(name):
    check_game(load_game(name))


@pytest.mark.parametrize("spec", SMALL)
def test_small_variants_pass_check_game(spec):
    check_game(load_game(spec), samples=100)


def test_code_counts():
    assert len(load_game("mastermind").guesses()) == 1296
    assert len(load_game("permutation(n=5)").guesses()) == 120
    assert len(load_game("bulls-and-cows").guesses()) == 5040


@st.composite
def game_and_codes(draw):
    spec = draw(st.sampled_from(SMALL + ["mastermind(pegs=4,colors=6)", "bulls-and-cows"]))
    game = load_game(spec)
    codes = game.guesses()
    picks = draw(st.lists(st.integers(0, len(codes) - 1), min_size=2, max_size=8))
    pi = draw(st.permutations(range(game.length())))
    tau = draw(st.permutations(range(game.n_symbols())))
    return game, codes[picks], np.array(pi), np.array(tau)


@settings(max_examples=60, deadline=None)
@given(game_and_codes())
def test_kernel_equals_scalar_reference_and_is_symmetric(case):
    game, codes, pi, tau = case
    out = compute_feedback(game, codes, codes)  # (the kernel, as the engine calls it)
    for i, g in enumerate(codes):
        for j, s in enumerate(codes):
            f = game.feedback(g, s)
            assert out[i, j] == f
            assert game.feedback(tau[g[pi]], tau[s[pi]]) == f
            assert game.parse_feedback(game.format_feedback(f)) == f


def test_feedback_display():
    mm = load_game("mastermind")
    assert mm.format_feedback(mm.feedback(mm.parse_code("1122"), mm.parse_code("1213"))) == "1B2W"
    bc = load_game("bulls-and-cows")
    assert bc.format_feedback(bc.feedback(bc.parse_code("0123"), bc.parse_code("0312"))) == "1B3C"
    pm = load_game("permutation(n=4)")
    assert pm.format_feedback(pm.feedback(pm.parse_code("1234"), pm.parse_code("1243"))) == "2"


@pytest.mark.parametrize(
    "spec,text",
    [
        ("mastermind", "1127"),
        ("mastermind", "11"),
        ("permutation(n=3)", "112"),
        ("bulls-and-cows", "0012"),
    ],
)
def test_bad_codes_are_rejected(spec, text):
    with pytest.raises(PerfectplayError):
        load_game(spec).parse_code(text)


def test_the_kernels_take_codes_contiguous_and_read_only(monkeypatch):
    """Codes a person typed (writable, any layout) reach a feedback kernel as the game's
    own codes do: numba would compile the kernel once more for writable arrays, at the
    advisor's first feedback after installing, instead of loading the shipped one."""
    game = load_game("mastermind(pegs=2,colors=3)")
    kernel, seen = game.feedback_kernel(), []

    def spy(guesses, secrets, out):
        seen.extend((a.flags.c_contiguous, a.flags.writeable) for a in (guesses, secrets))
        kernel(guesses, secrets, out)

    monkeypatch.setattr(type(game), "feedback_kernel", lambda self: spy)
    typed = np.array([[0, 1], [2, 2]], dtype=np.int8)
    secrets = game.secrets()[::2]  # (not contiguous)
    out = compute_feedback(game, typed, secrets)
    assert seen and all(contiguous and not writable for contiguous, writable in seen)
    assert typed.flags.writeable  # the caller's array is left as it was
    assert out.tolist() == [[game.feedback(g, s) for s in secrets] for g in typed]


def _numbers(n: int):
    """A one-position game of `n` symbols (higher or lower), its codes listed as int8."""
    from dataclasses import dataclass

    from perfectplay.deduction.model import DeductionGame

    @dataclass(frozen=True)
    class Numbers(DeductionGame):
        name = "numbers"
        summary = "find a number, told higher or lower"

        def length(self) -> int:
            return 1

        def n_symbols(self) -> int:
            return n

        def guesses(self) -> np.ndarray:
            return np.arange(n).astype(np.int8).reshape(-1, 1)  # wraps past 127

        def n_feedbacks(self) -> int:
            return 3

        def solved_feedback(self) -> int:
            return 2

        def feedback(self, guess, secret) -> int:
            g, s = int(guess[0]), int(secret[0])
            return 2 if g == s else (0 if s < g else 1)

        def format_code(self, code) -> str:
            return str(int(code[0]) + 1)

        def parse_code(self, text: str) -> np.ndarray:
            return np.array([int(text) - 1], dtype=np.int8)

    return Numbers


def test_a_game_of_more_symbols_than_int8_codes_hold_is_refused(monkeypatch):
    """Symbols 0..127 fit int8 codes; a game of 200 symbols (its codes wrapped to negative
    numbers, solved as if nothing were wrong before) is refused in one line naming the
    game and the limit by check_game, the command line's solve and play, and solve()."""
    from perfectplay import catalogue, solve
    from perfectplay.errors import Unsupported

    from ..cli_runner import assert_one_line_error, perfectplay

    check_game(_numbers(128)(), samples=50)  # the most int8 codes hold
    wide = _numbers(200)
    limit = "numbers: 200 symbols are more than int8 codes hold (at most 128: symbols 0 to 127)"
    with pytest.raises(AssertionError, match=limit.replace("(", r"\(").replace(")", r"\)")):
        check_game(wide())
    with pytest.raises(Unsupported, match="at most 128"):
        solve(wide())
    monkeypatch.setitem(catalogue._REGISTERED, wide.name, wide)  # as register does
    assert_one_line_error(perfectplay("solve", "numbers", "--no-store"), limit)
    assert_one_line_error(perfectplay("play", "numbers", "--secret", "3"), limit)
