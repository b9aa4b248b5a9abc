"""Symmetry: canonical guesses on a consistent set, and canonical keys of histories."""

import itertools
import json
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import load_game
from perfectplay.deduction.feedback import build_table, compute_feedback
from perfectplay.deduction.model import DeductionGame
from perfectplay.deduction.undeclared import found, note, used_symmetry
from perfectplay.deduction.partition import cells
from perfectplay.deduction.search import Search

GAMES = [
    "mastermind(pegs=3,colors=4)",
    "bulls-and-cows(digits=3,symbols=5)",
    "permutation(n=4)",
    "item-matching(slots=3,items=4)",
]


def consistent(table, history):
    subset = np.arange(table.n_secrets)
    for g, f in history:
        subset = subset[table.fb[g, subset] == f]
    return subset


def random_history(table, rng, length):
    secret = int(rng.integers(table.n_secrets))
    guesses = rng.integers(len(table.guesses), size=length).tolist()
    return tuple((g, int(table.fb[g, secret])) for g in guesses)


def image(table, history, rng):
    """`history` mapped by a random element of the game's symmetry group, pairs shuffled."""
    game, sym = table.game, table.symmetry
    e = int(rng.integers(len(sym.positions)))
    pi = sym.positions[e]
    tau = rng.permutation(game.n_symbols()) if sym.symbols else np.arange(game.n_symbols())
    act = game.feedback_action(sym.positions)
    index = {tuple(c): i for i, c in enumerate(table.guesses.tolist())}
    mapped = [
        (index[tuple(tau[table.guesses[g][pi]])], f if act is None else int(act[e, f]))
        for g, f in history
    ]
    return tuple(mapped[i] for i in rng.permutation(len(mapped)))


def history_slot(search, history):
    """(key or None, e, rename): the kernel's key of `history`'s canonical form (the core
    uses it for the shallowest histories only, ``core.HISTORY_KEY_DEPTH``)."""
    from perfectplay.deduction.kernels import history_key

    c = search.fields
    h1, h2, e, rename = history_key(
        c.codes, c.hist_g, c.hist_f, search._enter(history), c.perms, c.act, c.relabel, c.n_symbols
    )
    return ((int(h1), int(h2)) if h1 != 0 or h2 != 0 else None), int(e), rename


def canonical_guess(search, g, e, rename):
    from perfectplay.deduction.kernels import to_canonical

    c = search.fields
    return to_canonical(c.codes[g], c.perms[e], rename, c.n_symbols)


def actual_guess(search, packed, e, rename):
    from perfectplay.deduction.kernels import from_canonical

    c = search.fields
    return from_canonical(
        packed, c.perms[e], rename, c.n_symbols, c.codes.shape[1], c.index_of_code
    )


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAMES), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_equivalent_histories_share_a_key_and_map_guesses_back(spec, length, seed):
    rng = np.random.default_rng(seed)
    table = build_table(load_game(spec))
    search = Search(table)
    history = random_history(table, rng, length)
    other = image(table, history, rng)
    key, e, rename = history_slot(search, history)
    key2, e2, rename2 = history_slot(search, other)
    assert key is not None and key == key2
    # a guess stored in canonical coordinates by one history, read back by the other,
    # splits the other's consistent set exactly as it splits the first (cell sizes)
    subset, subset2 = consistent(table, history), consistent(table, other)
    assert len(subset) == len(subset2)
    for g in rng.integers(len(table.guesses), size=5).tolist():
        packed = canonical_guess(search, g, e, rename)
        assert actual_guess(search, packed, e, rename) == g
        g2 = actual_guess(search, packed, e2, rename2)
        sizes = sorted(len(p) for _, p in cells(table, g, subset))
        sizes2 = sorted(len(p) for _, p in cells(table, g2, subset2))
        assert sizes == sizes2


def test_inequivalent_histories_have_different_keys():
    table = build_table(load_game("mastermind(pegs=3,colors=4)"))
    search = Search(table)
    keys = set()
    for f in np.unique(table.fb[0]).tolist():  # guess 111: each feedback a different set
        keys.add(history_slot(search, ((0, int(f)),))[0])
    assert len(keys) == len(np.unique(table.fb[0]))


def test_symbols_absent_from_the_consistent_set_are_interchangeable():
    # after 1122 answered with no peg at all, colours 1 and 2 are out: 1345 and 2345 are
    # the same guess, and so are 3456 and 3455's relabellings of 1/2
    table = build_table(load_game("mastermind"))
    game = table.game
    g = int(np.flatnonzero((table.guesses == game.parse_code("1122")).all(axis=1))[0])
    history = ((g, game.parse_feedback("0B0W")),)
    subset = consistent(table, history)
    with_set = {
        game.format_code(table.guesses[c]) for c in Search(table).candidates(subset, history)
    }
    assert "1345" in with_set and "2345" not in with_set
    # both are guesses: the set's symmetries keep one of them
    codes = {game.format_code(c) for c in table.guesses}
    assert {"1345", "2345"} <= codes and len(with_set) < len(codes)


@dataclass(frozen=True)
class Bagels(DeductionGame):
    """Bagels as a person writes it, declaring no symmetry: three distinct digits,
    answered fermi (right digit, right place) and pico (right digit, wrong place)."""

    name = "bagels"
    summary = "three distinct digits; fermi: right place, pico: wrong place"

    def length(self) -> int:
        return 3

    def n_symbols(self) -> int:
        return 10

    def guesses(self) -> np.ndarray:
        return np.array(list(itertools.permutations(range(10), 3)), dtype=np.int8)

    def n_feedbacks(self) -> int:
        return 16

    def solved_feedback(self) -> int:
        return 12

    def feedback(self, guess, secret) -> int:
        fermi = int(np.sum(guess == secret))
        return 4 * fermi + len(set(guess.tolist()) & set(secret.tolist())) - fermi


def test_a_symmetry_left_undeclared_is_found_used_and_said(monkeypatch):
    # without its symmetry Bagels ran for more than 1,200 s and nothing said why: the
    # engine finds every permutation of the positions and every relabelling of the
    # digits, checks them on the whole table, uses them (3 s with them declared) and
    # says once what declaring them saves
    from perfectplay import catalogue

    from ..cli_runner import perfectplay

    monkeypatch.setitem(catalogue._REGISTERED, "bagels", Bagels)
    res = perfectplay("solve", "bagels", "--json", "--no-store")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["value"] == "715/144"
    assert res.stderr.count("perfectplay: note:") == 1, res.stderr
    assert (
        "bagels declares no symmetry, but its rules keep every permutation of the 3 "
        "positions and every relabelling of the symbols (checked on every guess and secret): "
        "the search uses it, 1 first guess to try instead of 720; declaring it (symmetry() "
        "returning Symmetry.full(3, symbols=True)) skips this search"
    ) in " ".join(res.stderr.split())


class CostlyBagels(Bagels):
    """Bagels whose digits cost differently: a relabelling changes what a guess costs."""

    def symbol_costs(self) -> np.ndarray:
        return np.arange(1, 11, dtype=np.int64)


def test_what_the_search_cannot_assume_is_not_used():
    # digits of different costs: the positions' permutations only
    used = used_symmetry(CostlyBagels(), build_table(CostlyBagels()).fb, compute_feedback)
    assert not used.symbols and len(used.positions) == 6
    assert (
        found(CostlyBagels(), True, compute_feedback).classes == 120
    )  # 720 guesses, 6 orders of 3 digits
    # no whole table to check on: named from the sample, not used
    assert used_symmetry(Bagels(), None, compute_feedback) is None
    named = found(Bagels(), False, compute_feedback)
    assert not named.used and named.symmetry.symbols and named.classes == 1
    # a game that declares its symmetry, or has none, is left alone
    notes = []
    for game in (load_game("bulls-and-cows(digits=3)"), load_game("wordle")):
        assert found(game, False, compute_feedback) is None
        note(game, build_table(game).symmetry, notes.append, compute_feedback)
    assert notes == []


def test_what_the_search_may_use_of_a_found_symmetry_is_worked_out_once():
    """The table's symmetry and the note naming it ask the same question of the same
    candidates: answered once (the group listed, the game's costs and feedback action
    read), the second time from what the first kept."""
    from perfectplay.deduction import undeclared

    game = CostlyBagels()
    fb = build_table(game).fb
    undeclared._usable.cache_clear()
    used = used_symmetry(game, fb, compute_feedback)
    named = found(game, True, compute_feedback)
    assert named.symmetry.symbols == used.symbols and len(named.symmetry.positions) == 6
    assert (undeclared._usable.cache_info().misses, undeclared._usable.cache_info().hits) == (1, 1)
