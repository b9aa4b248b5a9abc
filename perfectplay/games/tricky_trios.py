"""Seed 003: Tricky Trios (Code Jam to I/O for Women 2018).

3n cards, n trios, face down. In a round the player flips a card, then a second; if the
two differ the round ends (both go face down again); if they match, a third flip either
completes the trio, which is removed, or ends the round. Cards seen are remembered and a
known card may be flipped. The goal is to remove every trio in the fewest rounds.

Since trios are interchangeable, a state records how many remaining trios have 0, 1, 2
or 3 known cards (counts c0..c3, not counting the trio face up this round), the phase of
the round, and f, the number of known cards of the trio face up. Every legal flip is
offered; the solver finds which to make.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from ..markov.model import Expansion, MarkovGame
from ..params import param

#: Phases: START of a round, ONE or TWO cards face up, and the pending chance event of
#: flipping an unknown card in each of those (the card's identity is drawn).
START, ONE, TWO, DRAW_FIRST, DRAW_SECOND, DRAW_THIRD = range(6)
#: Choices at a flip: an unknown card, a known card of a trio with j known cards, or a
#: known card of the trio already face up.
UNKNOWN, KNOWN_1, KNOWN_2, KNOWN_3, KNOWN_FACE_UP = range(5)
#: Chance outcomes of an unknown flip: a card of a trio with j=0,1,2 known cards, or of the
#: trio face up.
FROM_FACE_UP = 3


@dataclass(frozen=True)
class TrickyTrios(MarkovGame):
    """Remove all n trios in the fewest rounds (Code Jam 2018 I/O for Women)."""

    name = "tricky-trios"
    summary = "flip cards to find and remove n hidden trios; fewest expected rounds"
    cost_unit = "rounds"
    family_label = "trios left"

    n: int = param(5, low=1, high=100, help="number of trios (3n cards)")

    # --- state codes: phase, f, c0..c3 in mixed radix --------------------------------
    def encode(self, phase: np.ndarray | int, f: np.ndarray | int, c: np.ndarray) -> np.ndarray:
        """State codes from the phase, f and the counts c[..., 0:4] (mixed radix)."""
        r = self.n + 1
        code = phase * 4 + f
        for j in range(4):
            code = code * r + c[..., j]
        return code

    def decode(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(phase, f, counts) of state codes: the inverse of ``encode``."""
        r = self.n + 1
        c = np.empty(codes.shape + (4,), dtype=np.int64)
        rest = codes.copy()
        for j in (3, 2, 1, 0):
            c[..., j] = rest % r
            rest //= r
        return rest // 4, rest % 4, c

    def initial_state(self) -> int:
        return int(self.encode(START, 0, np.array([self.n, 0, 0, 0])))

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        phase, _, c = self.decode(np.asarray(states, dtype=np.int64))
        return (phase == START) & (c.sum(axis=-1) == 0)

    def expand(self, states: np.ndarray) -> Expansion:
        phase, f, c = self.decode(np.asarray(states, dtype=np.int64))
        B = len(phase)
        weight = np.zeros((B, 4), dtype=np.int64)
        nxt = np.full((B, 4, 5), -1, dtype=np.int64)
        cost = np.zeros((B, 4, 5), dtype=np.int64)
        unknown = 3 * c[:, 0] + 2 * c[:, 1] + c[:, 2] + np.where(phase == START, 0, 3 - f)
        unit = np.eye(4, dtype=np.int64)
        with_face_up = c + unit[np.minimum(np.maximum(f, 1), 3)] * (f > 0)[:, None]

        deciding = phase <= TWO
        weight[deciding, 0] = 1
        # Flip an unknown card: the draw is a chance event of its own.
        ok = deciding & (unknown > 0)
        nxt[ok, 0, UNKNOWN] = self.encode(phase[ok] + 3, f[ok], c[ok])
        # Flip a known card of another trio with j known cards.
        for j in (1, 2, 3):
            ok = deciding & (c[:, j] > 0)
            start = ok & (phase == START)
            nxt[start, 0, j] = self.encode(ONE, j, c[start] - unit[j])       # it becomes face up
            later = ok & (phase != START)
            nxt[later, 0, j] = self.encode(START, 0, with_face_up[later])    # a mismatch
        # Flip a known card of the trio face up: a match, or the removal when all are known.
        ok = (phase == ONE) & (f >= 2)
        nxt[ok, 0, KNOWN_FACE_UP] = self.encode(TWO, f[ok], c[ok])
        ok = (phase == TWO) & (f == 3)
        nxt[ok, 0, KNOWN_FACE_UP] = self.encode(START, 0, c[ok])
        cost[phase == START, 0, :] = 1  # a round is paid for when its first card is flipped

        # The card drawn by an unknown flip.
        drawing = ~deciding
        for j in (0, 1, 2):
            ok = drawing & (c[:, j] > 0)
            weight[ok, j] = (3 - j) * c[ok, j]
            first = ok & (phase == DRAW_FIRST)
            nxt[first, j, 0] = self.encode(ONE, j + 1, c[first] - unit[j])
            later = ok & (phase != DRAW_FIRST)
            nxt[later, j, 0] = self.encode(START, 0, with_face_up[later] - unit[j] + unit[j + 1])
        ok = (phase == DRAW_SECOND) & (f < 3)
        weight[ok, FROM_FACE_UP] = 3 - f[ok]
        nxt[ok, FROM_FACE_UP, 0] = self.encode(TWO, f[ok] + 1, c[ok])
        ok = (phase == DRAW_THIRD) & (f < 3)
        weight[ok, FROM_FACE_UP] = 3 - f[ok]
        nxt[ok, FROM_FACE_UP, 0] = self.encode(START, 0, c[ok])
        return Expansion(weight=weight, next=nxt, cost=cost)

    #: Peak resident memory per bound state, measured: n = 15, 30, 45 peak at 197, 333
    #: and 869 MB for bounds of 93,024, 1,113,024 and 5,085,024 states (about 140 bytes
    #: per bound state above the interpreter's 190 MB; about 300 per reachable state).
    bytes_per_state = 160

    def state_bound(self) -> int:
        return 24 * comb(self.n + 4, 4)

    def code_bound(self) -> int:
        return 24 * (self.n + 1) ** 4

    # --- descriptions for people ------------------------------------------------------
    def describe_state(self, state: int) -> str:
        phase, f, c = (np.asarray(x) for x in self.decode(np.array([state])))
        counts = "trios with 0/1/2/3 cards known: " + "/".join(str(int(v)) for v in c[0])
        where = {START: "start of a round", ONE: "one card face up", TWO: "two cards face up"}
        p = int(phase[0])
        if p == START:
            return f"{counts}; {where[START]}"
        up = f"its trio has {int(f[0])} known" if p != DRAW_FIRST else ""
        label = where.get(p, "drawing an unknown card")
        return f"{counts}; {label}" + (f" ({up})" if up else "")

    def describe_outcome(self, state: int, k: int) -> str:
        if k == FROM_FACE_UP:
            return "the card matches the face-up trio"
        phase = int(self.decode(np.array([state]))[0][0])
        if phase <= TWO:
            return "your flip"
        return f"a card of a trio with {k} known card{'s' if k != 1 else ''}"

    def describe_choice(self, state: int, k: int, c: int) -> str:
        if c == UNKNOWN:
            return "flip an unknown card" if int(self.decode(np.array([state]))[0][0]) <= TWO else "reveal"
        if c == KNOWN_FACE_UP:
            return "flip a known card of the face-up trio"
        return f"flip a known card of a trio with {c} known"

    def state_family(self, state: int) -> int:
        _, _, c = self.decode(np.array([state]))
        return int(c[0].sum())
