"""The order candidates are tried in: the counting sort on bounds gives exactly the order
of the two stable sorts it replaces (by bound, then possible guesses first, then index)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from perfectplay import load_game
from perfectplay.deduction.core import try_order
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.search import Search

SEARCH = Search(build_table(load_game("mastermind(pegs=3,colors=4)")))  # 64 codes


def reference(cand, bound, possible, n_codes):
    keys = (1 - possible.astype(np.int64)) * n_codes + cand
    first = np.argsort(keys, kind="mergesort")
    return first[np.argsort(bound[first], kind="mergesort")]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=1, max_size=60),
    st.integers(0, 10**6),
    st.booleans(),
    st.booleans(),
)
def test_counting_sort_is_the_stable_sort(rows, offset, shuffled, spread):
    bound = np.array([b + offset for b, _ in rows], dtype=np.int64)
    if spread:  # a range too wide to count: the stable sorts answer
        bound[0] += 1 << 40
    possible = np.array([p for _, p in rows], dtype=np.bool_)
    cand = np.arange(len(rows), dtype=np.int64)  # guess indices, as prepare gives them
    if shuffled:  # not ascending: the stable sorts answer (the same order either way)
        cand = cand[::-1].copy()
    got = try_order(SEARCH.core, cand, bound, possible, np.zeros(len(rows), dtype=np.int64))
    assert np.array_equal(got, reference(cand, bound, possible, 64))
