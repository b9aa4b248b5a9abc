"""Paging the exploration's arrays in on a helper thread (``markov.prefault``) changes
nothing but the time."""

import numpy as np

from perfectplay import load_game
from perfectplay.markov import prefault
from perfectplay.markov.compile import compile_game

_real_madvise = prefault._madvise


def _arrays(g) -> dict:
    return {k: v for k, v in vars(g).items() if isinstance(v, np.ndarray)}


def test_paging_in_changes_no_array(monkeypatch):
    game = load_game("dice-cards", ["n=6"])
    monkeypatch.setattr(prefault, "_madvise", lambda: None)  # the writer faults its own pages
    plain = _arrays(compile_game(game))
    calls = []
    page_in = prefault._page_in
    monkeypatch.setattr(prefault, "_madvise", _real_madvise)
    monkeypatch.setattr(prefault, "MIN_BYTES", 0)
    monkeypatch.setattr(prefault, "_page_in", lambda *a: (calls.append(1), page_in(*a)))
    paged = _arrays(compile_game(game))
    assert calls, "the helper thread did not run"
    assert plain.keys() == paged.keys()
    for name in plain:
        assert np.array_equal(plain[name], paged[name]), name


def test_writing_without_the_call_just_writes(monkeypatch):
    monkeypatch.setattr(prefault, "_madvise", lambda: None)
    a = np.empty(1 << 20, dtype=np.int64)
    assert prefault.writing([a], lambda: a.fill(7) or "done") == "done"
    assert (a == 7).all()


def test_page_in_on_a_fresh_array_keeps_what_is_written():
    """The advice faults pages in without changing their contents, even beside a writer."""
    madvise = _real_madvise()
    if madvise is None:
        return
    a = np.empty(8 << 20, dtype=np.uint8)
    a[::4096] = 5
    prefault._page_in([a], madvise, 4096)
    assert (a[::4096] == 5).all()
