"""Published values the tests check, each with its source."""

from fractions import Fraction

# Seed 001 (value iteration notebook): dice-cards n=5 -> 34.698560 (6 decimals).
# Project Euler 640 statement: the worked example with two 2-sided dice -> 5.673651.
DICE_CARDS = {2: 5.673651, 5: 34.698560}

# Code Jam to I/O for Women 2018, Tricky Trios samples: n=1 -> 1, n=2 -> 3.4, n=5 -> 9.842024.
TRICKY_TRIOS = {1: 1.0, 2: 3.4, 5: 9.842024}
TRICKY_TRIOS_EXACT = {1: Fraction(1), 2: Fraction(17, 5)}
