"""Independent brute force on tiny instances, written here without the engine."""

import itertools
from fractions import Fraction

import pytest

from perfectplay import load_game, solve


def dice_cards_by_direct_iteration(n: int, sweeps: int = 20000) -> float:
    """Seed 001's fixed-point iteration, over every ordered roll, in plain Python."""
    goal = (1 << 2 * n) - 1
    t = [0.0] * (goal + 1)
    rolls = [(x, y) for x in range(1, n + 1) for y in range(1, n + 1)]
    for _ in range(sweeps):
        new = [
            1
            + sum(
                min(t[s ^ 1 << x - 1], t[s ^ 1 << y - 1], t[s ^ 1 << x + y - 1]) for x, y in rolls
            )
            / len(rolls)
            for s in range(goal)
        ] + [0.0]
        if max(abs(a - b) for a, b in zip(new, t)) < 1e-14:
            break
        t = new
    return t[0]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_dice_cards_matches_direct_iteration(n):
    assert (
        abs(
            solve(load_game("dice-cards", [f"n={n}"])).value_float
            - dice_cards_by_direct_iteration(n)
        )
        < 1e-9
    )


def tricky_trios_by_enumeration(n: int) -> Fraction:
    """Average rounds over every order in which unknown cards can turn up, playing the
    Code Jam analysis' rule: flip unknown cards, and known ones only to finish a trio."""
    deck = [t for t in range(n) for _ in range(3)]
    orders = set(itertools.permutations(deck))
    total = 0
    for order in orders:
        known = [0] * n  # known, not removed, cards per trio
        removed = [False] * n
        draw = iter(order)
        rounds = 0
        while not all(removed):
            rounds += 1
            full = next((t for t in range(n) if known[t] == 3 and not removed[t]), None)
            if full is not None:
                removed[full] = True
                continue
            a = next(draw)
            known[a] += 1
            if known[a] >= 2:  # its partner is known: flip it; the third decides
                if known[a] == 3:
                    removed[a] = True
                    continue
                b = next(draw)
                known[b] += 1
                if b == a:
                    removed[a] = True
                continue
            b = next(draw)
            known[b] += 1
            if b != a:
                continue
            c = next(draw)  # a fresh pair: the third is still unknown
            known[c] += 1
            if c == a:
                removed[a] = True
        total += rounds
    return Fraction(total, len(orders))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tricky_trios_matches_enumeration_of_deals(n):
    assert solve(load_game("tricky-trios", [f"n={n}"])).value == tricky_trios_by_enumeration(n)
