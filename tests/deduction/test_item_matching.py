"""Item matching (seed 000): the rules, the restrictions, and properties of the feedback."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from perfectplay import load_game
from perfectplay.deduction.feedback import compute_feedback
from perfectplay.deduction.check import check_game
from perfectplay.errors import BadParameter, PerfectplayError


def fb(game, guess, secret):
    return game.format_feedback(game.feedback(game.parse_code(guess), game.parse_code(secret)))


def test_the_seed_examples():
    g = load_game("item-matching", ["items=7"])
    assert fb(g, "12345", "12345") == "CCCCC"
    assert fb(g, "12345", "34567") == "IIWWW"
    assert fb(g, "11234", "51155") == "WCIII"
    assert fb(g, "11234", "44444") == "IIIIC"


def test_one_item_can_be_correct_and_incorrect():
    g = load_game("item-matching", ["slots=2", "items=2"])
    assert fb(g, "11", "12") == "CI"


@pytest.mark.parametrize("restrict", ["both", "items", "slots", "none"])
@pytest.mark.parametrize(
    "spec", ["item-matching", "item-matching(slots=3,items=4)", "item-matching(slots=2,items=10)"]
)
def test_check_game(spec, restrict):
    check_game(load_game(spec, [f"restrict={restrict}"]), samples=150)


def test_the_seed_restriction_example():
    """R = CCIIW: later guesses are 1, 2, then items other than 3 and 4.

    The seed prints A = 12345, Q = 12567, but by its own definition F(12567, 12345) is
    CCWII; its response and its conclusion (items 3 and 4 barred) are those of
    Q = 12345 against A = 12567, the roles swapped. The seed lists the later guesses as
    1, 2, {5,6,7}^3; no rule bars items 1 and 2 (answered Correct) from the free slots,
    and the seed's table comes out with them allowed.
    """
    g = load_game("item-matching")
    codes = g.guesses()
    assert fb(g, "12567", "12345") == "CCWII"
    q = int(np.flatnonzero((codes == g.parse_code("12345")).all(axis=1))[0])
    r = g.feedback(g.parse_code("12345"), g.parse_code("12567"))
    assert g.format_feedback(r) == "CCIIW"
    allowed = {g.format_code(c) for c in codes[g.restrict_guesses(((q, r),), codes)]}
    assert allowed == {"12" + "".join(t) for t in itertools.product("12567", repeat=3)}
    one = g.restrict_guesses(((q, r),), g.parse_code("12557")[None, :])
    assert one.tolist() == [True]


def test_a_locked_item_is_barred_from_the_other_slots():
    g = load_game("item-matching", ["slots=2", "items=3"])
    codes = g.guesses()
    history = ((0, g.parse_feedback("CI")),)  # guessed 11
    allowed = {g.format_code(c) for c in codes[g.restrict_guesses(history, codes)]}
    assert allowed == {"12", "13"}
    only_items = load_game("item-matching", ["slots=2", "items=3", "restrict=items"])
    allowed = {
        only_items.format_code(c) for c in codes[only_items.restrict_guesses(history, codes)]
    }
    assert allowed == {"22", "23", "32", "33"}
    assert not only_items.consistent_secrets_allowed()


def test_feedback_text_round_trips_and_bad_text_is_refused():
    g = load_game("item-matching")
    assert g.parse_feedback("cwiic") == g.parse_feedback("CWIIC")
    assert g.format_feedback(g.parse_feedback("CWIIC")) == "CWIIC"
    for bad in ("CWII", "CWIIX", "12345"):
        with pytest.raises(PerfectplayError):
            g.parse_feedback(bad)
    with pytest.raises(PerfectplayError):
        g.parse_code("12348")  # item 8 with 7 items
    assert load_game("item-matching", ["items=10"]).format_code([9, 0, 1, 2, 3]) == "A1234"


def test_restrict_is_a_choice_parameter():
    assert load_game("item-matching", ["restrict=slots"]).restrict == "slots"
    with pytest.raises(BadParameter, match="choose one of both, items, slots, none"):
        load_game("item-matching", ["restrict=all"])
    spec = {s.name: s for s in load_game("item-matching").param_specs()}["restrict"]
    assert spec.describe() == "restrict=both (both|items|slots|none)"


@st.composite
def instance(draw):
    slots = draw(st.integers(1, 5))
    items = draw(st.integers(1, 9))
    code = st.lists(st.integers(0, items - 1), min_size=slots, max_size=slots)
    return (
        load_game("item-matching", [f"slots={slots}", f"items={items}"]),
        draw(code),
        draw(code),
        draw(st.randoms()),
    )


@settings(max_examples=200, deadline=None)
@given(instance())
def test_feedback_properties(case):
    game, guess, secret, rnd = case
    f = game.format_feedback(game.feedback(guess, secret))
    # C exactly where the items agree
    assert [ch == "C" for ch in f] == [a == b for a, b in zip(guess, secret)]
    # I exactly where the item occurs in the secret only at Correct slots (or not at all)
    for p, ch in enumerate(f):
        if ch != "C":
            elsewhere = any(
                secret[k] == guess[p] and guess[k] != secret[k] for k in range(len(secret))
            )
            assert (ch == "W") == elsewhere
    # relabelling items leaves the feedback; permuting slots permutes it
    tau = list(range(game.items))
    rnd.shuffle(tau)
    pi = list(range(game.slots))
    rnd.shuffle(pi)
    g2 = [tau[guess[pi[p]]] for p in range(game.slots)]
    s2 = [tau[secret[pi[p]]] for p in range(game.slots)]
    assert game.format_feedback(game.feedback(g2, s2)) == "".join(
        f[pi[p]] for p in range(game.slots)
    )
    # the compiled kernel agrees
    out = compute_feedback(
        game, np.array([guess], dtype=np.int8), np.array([secret], dtype=np.int8)
    )
    assert int(out[0, 0]) == game.feedback(guess, secret)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 12),
    st.integers(1, 5),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
)
def test_block_kernel_equals_the_plain_rule(slots, items, m, n, seed):
    """The compiled kernel on blocks of every shape (secrets padded to the vector width
    inside it: counts on either side of a multiple of 16) equals ``feedback``."""
    game = load_game("item-matching", [f"slots={slots}", f"items={items}"])
    rng = np.random.default_rng(seed)
    guesses = rng.integers(0, items, (m, slots)).astype(np.int8)
    secrets = rng.integers(0, items, (n, slots)).astype(np.int8)
    out = compute_feedback(game, guesses, secrets)  # (the kernel, as the engine calls it)
    assert out.tolist() == [[game.feedback(g, s) for s in secrets] for g in guesses]
