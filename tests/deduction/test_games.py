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
