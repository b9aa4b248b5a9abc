"""Large feedback tables are kept between runs in the user's cache: read back equal to a
fresh computation (the table transposed too), named by what decides them, never half
written, ignored when they cannot be read, and not kept at all when switched off."""

import numpy as np
import pytest

from perfectplay import load_game
from perfectplay.deduction import feedback
from perfectplay.deduction.feedback import KEEP_ENV, _kept_table, compute_feedback


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache of the test's own, keeping tables of any size."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(KEEP_ENV, raising=False)
    monkeypatch.setattr(feedback, "KEEP_ENTRIES", 1)
    return tmp_path / "cache" / "perfectplay" / "tables"


def small_wordle(tmp_path, answers: str):
    """Wordle with these answers (a file of their own: lists are read once per file)."""
    path = tmp_path / f"{answers.replace(chr(10), '-')}.txt"
    path.write_text(answers)
    return load_game("wordle", [f"answers={path}", "lists=nyt-2022"])


def kept(game):
    return _kept_table(game, game.guesses(), game.secrets())[0]


def test_a_kept_table_is_read_back_equal(tmp_path, cache, monkeypatch):
    game = small_wordle(tmp_path, "salet\ntarse\ncrane\n")
    first = kept(game)
    assert len(list(cache.glob("*.npy"))) == 1 and not list(cache.glob("*.part"))
    monkeypatch.setattr(feedback, "compute_feedback", lambda *a: pytest.fail("computed again"))
    again = kept(game)
    assert np.array_equal(again, first)
    assert np.array_equal(first, compute_feedback(game, game.guesses(), game.secrets()))
    # mapped from the file, as a plain writable array (the kernels' usual type)
    assert type(again) is np.ndarray and again.flags.writeable and again.flags.c_contiguous


def test_the_table_by_secret_is_kept_beside_it(tmp_path, cache, monkeypatch):
    game = small_wordle(tmp_path, "salet\ntarse\ncrane\nslate\n")
    first = feedback.build_table(game)
    assert np.array_equal(first.by_secret, first.fb.T)
    assert len(list(cache.glob("*.by-secret.npy"))) == 1
    feedback.build_table.cache_clear()
    monkeypatch.setattr(feedback, "compute_feedback", lambda *a: pytest.fail("computed again"))
    import perfectplay.deduction.kernels as kernels

    monkeypatch.setattr(kernels, "transpose", lambda *a: pytest.fail("transposed again"))
    again = feedback.build_table(game)
    assert again is not first and np.array_equal(again.by_secret, first.fb.T)


def test_other_lists_have_their_own_file(tmp_path, cache):
    kept(small_wordle(tmp_path, "salet\ntarse\n"))
    kept(small_wordle(tmp_path, "salet\ncrane\n"))
    assert len(list(cache.glob("*.npy"))) == 2


def test_an_unreadable_file_is_computed_again(tmp_path, cache):
    game = small_wordle(tmp_path, "salet\ntarse\n")
    truth = kept(game)
    (path,) = cache.glob("*.npy")
    path.write_bytes(b"not a table")
    assert np.array_equal(kept(game), truth)
    assert np.array_equal(np.load(path), truth)  # and kept anew


def test_switched_off_nothing_is_kept(tmp_path, cache, monkeypatch):
    monkeypatch.setenv(KEEP_ENV, "0")
    kept(small_wordle(tmp_path, "salet\ntarse\n"))
    assert not cache.exists()


def test_a_file_that_cannot_be_mapped_is_read(tmp_path, cache, monkeypatch):
    game = small_wordle(tmp_path, "salet\ntarse\n")
    truth = kept(game)
    load = np.load

    def unmappable(path, mmap_mode=None, **options):
        if mmap_mode is not None:
            raise OSError("this file system cannot map files")
        return load(path, **options)

    monkeypatch.setattr(np, "load", unmappable)
    monkeypatch.setattr(feedback, "compute_feedback", lambda *a: pytest.fail("computed again"))
    assert np.array_equal(kept(game), truth)
