"""The search's journal: the values of large sets found inside a task, read while the
search runs and kept in the store, never read half written, and loaded into another
search's memos without changing a value."""

import numpy as np

from perfectplay import load_game
from perfectplay.deduction.core import JOURNAL_MIN_SECRETS, journal_check, take_journal
from perfectplay.deduction.feedback import build_table
from perfectplay.deduction.objective import EXPECTED, WORST
from perfectplay.deduction.search import Search
from perfectplay.deduction.stored import AnswerStore
from perfectplay.store import Store


def ring(entries: int, size: int) -> np.ndarray:
    """A journal of `size` rows into which `entries` entries were written in turn."""
    rows = np.zeros((size, 6), dtype=np.int64)
    for i in range(entries):
        row = rows[i % size]
        row[:5] = [1000 + i, 2000 + i, 5, 10 * i, i % 3 - 1]
        row[5] = journal_check(i, row)
    return rows


def test_rows_are_taken_once_in_order():
    rows = ring(3, 8)
    taken, start = take_journal(rows, 3, 0)
    assert start == 3 and taken[:, 0].tolist() == [1000, 1001, 1002]
    taken, start = take_journal(rows, 3, start)
    assert start == 3 and len(taken) == 0


def test_overwritten_rows_are_skipped_and_a_half_written_one_waits():
    rows = ring(10, 4)  # entries 0..5 overwritten by 4..9
    taken, start = take_journal(rows, 10, 0)
    assert start == 10 and taken[:, 0].tolist() == [1006, 1007, 1008, 1009]
    rows[8 % 4, 3] += 1  # entry 8 as if its value were still being written
    taken, start = take_journal(rows, 10, 6)
    assert start == 8 and taken[:, 0].tolist() == [1006, 1007]
    rows[8 % 4, 3] -= 1  # written now: read on the next look
    taken, start = take_journal(rows, 10, start)
    assert start == 10 and taken[:, 0].tolist() == [1008, 1009]


def test_a_row_is_checked_against_its_entry_number():
    rows = ring(5, 4)  # entry 4 sits where entry 0 was
    taken, start = take_journal(rows, 4, 0)  # a reader that saw 4 entries written
    assert len(taken) == 0 and start == 0  # slot 0 does not hold entry 0 any more


def test_a_seeded_search_finds_the_same_values_with_fewer_nodes(tmp_path):
    game = load_game("mastermind", ["pegs=4", "colors=4"])
    table = build_table(game)
    everything = np.arange(table.n_secrets)
    for objective, cap in ((EXPECTED, 10), (WORST, 5)):
        store = AnswerStore(Store(tmp_path / f"{objective.name}.sqlite"), game, table)
        first = Search(table, objective)
        value = first.best(everything, (), cap)
        kept = store.keep_journal(first)
        assert kept > 0 and store.keep_journal(first) == 0  # each row kept once
        second = Search(table, objective)
        assert store.seed([second]) == kept
        assert second.best(everything, (), cap) == value and second.nodes < first.nodes


def test_journals_are_kept_apart_by_objective_and_breadth(tmp_path):
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    table = build_table(game)
    store = AnswerStore(Store(tmp_path / "s.sqlite"), game, table)
    everything = np.arange(table.n_secrets)
    kept = {}
    for search in (Search(table, EXPECTED), Search(table, WORST), Search(table, EXPECTED, top=2)):
        search.best(everything, (), 8)
        kept[(search.objective.name, search.top)] = store.keep_journal(search)
    assert min(kept.values()) > 0
    for (name, top), rows in kept.items():
        objective = EXPECTED if name == "expected" else WORST
        assert store.seed([Search(table, objective, top=top)]) == rows
    assert JOURNAL_MIN_SECRETS < table.n_secrets


def test_only_the_positions_game_is_journaled(tmp_path):
    """A process's searches of other games (the API's shared searches) are not kept under
    this game's journal: their set keys could coincide with this game's."""
    from perfectplay.deduction.root import Subproblem, _Journaling, search_for
    from perfectplay.deduction.search import SpeedUps

    this, other = (load_game("mastermind", ["pegs=3", f"colors={c}"]) for c in (4, 3))
    table = build_table(this)
    store = AnswerStore(Store(tmp_path / "s.sqlite"), this, table)
    searches: dict = {}
    for game in (this, other):
        search = search_for(game, "expected", SpeedUps(), searches)
        search.best(np.arange(search.table.n_secrets), (), 8)
    sub = Subproblem(this, "expected", SpeedUps(), (), np.arange(table.n_secrets), 8)
    with _Journaling(sub, [], searches, store):
        pass
    mine, theirs = (search_for(g, "expected", SpeedUps(), searches) for g in (this, other))
    assert theirs.journaled > 0 and store.tally.journal_written == mine.journaled > 0
