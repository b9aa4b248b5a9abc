"""The drawn tables of Markov games (web/boards.py), checked against the rules' own text."""

from __future__ import annotations

import numpy as np

from perfectplay import load_game
from perfectplay.web.boards import Die, draw


def test_a_die_has_as_many_distinct_pips_as_its_value():
    for value in range(1, 10):
        pips = Die(value).pips
        assert len(pips) == len(set(pips)) == value
        assert all(10 <= x <= 90 and 10 <= y <= 90 for x, y in pips)


def test_dice_cards_board_matches_the_state_and_the_roll():
    game = load_game("dice-cards", ["n=4"])
    rolls = game._rolls[0].tolist()
    for state in (0, 0b1010_0110, (1 << 8) - 2):
        for k, (x, y) in enumerate(rolls):
            board = draw(game, state, k)
            assert [d.value for d in board.dice] == [x, y]
            cards = board.groups[0].cards
            down = " ".join(c.label for c in cards if not c.face_up)
            assert game.describe_state(state) == f"face down: {down or 'none'}"
            assert {c.label for c in cards if c.hint} == {str(x), str(y), str(x + y)}


def test_tricky_trios_board_counts_every_trio_once():
    game = load_game("tricky-trios", ["n=4"])
    from perfectplay.markov.compile import compile_game

    graph = compile_game(game)
    for code in graph.codes.tolist():
        phase, f, counts = (np.asarray(v)[0] for v in game.decode(np.array([code])))
        board = draw(game, int(code), None)
        live = [g for g in board.groups if not g.removed]
        assert all(len(g.cards) == 3 for g in live)
        assert len(board.groups) == game.n
        cards = [c for g in live for c in g.cards]
        up = sum(c.face_up for c in cards)
        assert up == {1: 1, 2: 2, 4: 1, 5: 2}.get(int(phase), 0)
        held = int(f) if up else 0  # known cards of the face-up trio
        assert sum(c.known for c in cards) == held + sum(j * int(counts[j]) for j in range(4))


def test_each_deduction_games_pad_enters_its_own_feedback():
    from perfectplay.web.pads import pad_of

    kinds = {
        "wordle": ("marks", ("B", "Y", "G")),
        "item-matching": ("marks", ("I", "W", "C")),
        "mastermind": ("counts", ("B", "W")),
        "bulls-and-cows": ("counts", ("B", "C")),
        "permutation": ("number", 5),
    }
    for name, (kind, what) in kinds.items():
        pad = pad_of(load_game(name, []), ())
        assert pad.feedback_kind == kind, name
        assert {"marks": pad.marks, "counts": pad.counts, "number": pad.numbers}[kind] == what
    # two pegs: 3**2 feedbacks, still two counts
    assert pad_of(load_game("mastermind", ["pegs=2", "colors=3"]), ()).feedback_kind == "counts"
    assert pad_of(load_game("bulls-and-cows", []), ()).distinct
    assert not pad_of(load_game("mastermind", []), ()).distinct


def test_the_wordle_keyboard_shows_the_best_mark_of_each_letter():
    from perfectplay.web.pads import QWERTY, pad_of

    game = load_game("wordle", [])
    guesses = [game.format_code(c) for c in game.guesses()]
    moves = [
        (guesses.index("salet"), game.parse_feedback("BYBBG")),
        (guesses.index("crane"), game.parse_feedback("BBGBB")),
    ]
    pad = pad_of(game, moves)
    assert ["".join(k.symbol for k in row) for row in pad.rows] == list(QWERTY)
    states = {k.symbol: k.state for row in pad.rows for k in row}
    assert states["a"] == "G"  # yellow, then green: its best
    assert (states["s"], states["t"], states["c"], states["q"]) == ("B", "G", "B", "")
