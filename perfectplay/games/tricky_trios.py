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

from numba import njit

from ..markov.compiled import expand_batch, fill, reach, rules_kernel
from ..markov.streamed import solve_blocks
from ..markov.model import CompiledRules, Expansion, MarkovGame
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


@njit(inline="always")
def _plus(j, c0, c1, c2, c3, step):
    """The counts with `step` added to count j."""
    return (c0 + step * (j == 0), c1 + step * (j == 1), c2 + step * (j == 2), c3 + step * (j == 3))


#: A phase's rank in the state code: the phases a round passes through later rank lower
#: (see ``_code``).
_RANK = (5, 3, 1, 4, 2, 0)
#: The phase of each rank: the inverse of ``_RANK``.
_PHASE_OF_RANK = (DRAW_THIRD, TWO, DRAW_SECOND, ONE, DRAW_FIRST, START)


@njit(inline="always")
def _code(r, phase, f, c0, c1, c2, c3):
    """The state code of (phase, f, c0..c3), as TrickyTrios.encode: mixed radix over the
    counts u with the face-up trio counted among them (u = c plus one at f when f > 0),
    then the phase's rank, then f. Why this order: every move goes to a smaller code but
    a mismatch that sends the round back to its start (the game's only cycles). A card
    drawn lowers the count of its trio's class (a more significant digit than the class
    it joins), a removal lowers a count, and within a round, where u stays the same, the
    phases rank lower as the round goes on. States are indexed in code order, so a walk
    over them in index order (the strong components' pass) meets successors first, and
    a state's successors lie within a few fixed strides of it: the pass reads memory
    almost in order (a quicker components pass than with the phase as the most
    significant digit: docs/measurements.md)."""
    u0, u1, u2, u3 = _plus(f, c0, c1, c2, c3, 1 if f > 0 else 0)
    return (((((u0 * r + u1) * r + u2) * r + u3) * 6 + _RANK[phase]) * 4) + f


@rules_kernel
def _rules(params, code, weight, nxt, cost):
    """One state's flips (see the module docstring): at a decision (phases START, ONE,
    TWO) one outcome and every legal flip; at a draw, the class of the card revealed."""
    r = params[0] + 1
    f = code & 3
    q = code >> 2
    u = q // 6
    phase = _PHASE_OF_RANK[q - u * 6]
    q = u // r
    u3 = u - q * r
    u, q = q, q // r
    u2 = u - q * r
    u, q = q, q // r
    u1 = u - q * r
    u0 = q  # u: the counts with the face-up trio (f known cards) among them
    c0, c1, c2, c3 = _plus(f, u0, u1, u2, u3, -1 if f > 0 else 0)
    if phase == START and c0 + c1 + c2 + c3 == 0:
        return True
    if phase <= TWO:
        weight[0] = 1
        unknown = 3 * c0 + 2 * c1 + c2 + (0 if phase == START else 3 - f)
        if unknown > 0:  # the draw is a chance event of its own
            nxt[0, UNKNOWN] = _code(r, phase + 3, f, c0, c1, c2, c3)
        counts = (c1, c2, c3)
        for j in (1, 2, 3):
            if counts[j - 1] > 0:
                if phase == START:  # it becomes the face-up card
                    a0, a1, a2, a3 = _plus(j, c0, c1, c2, c3, -1)
                    nxt[0, j] = _code(r, ONE, j, a0, a1, a2, a3)
                else:  # a mismatch: the round ends
                    nxt[0, j] = _code(r, START, 0, u0, u1, u2, u3)
        if phase == ONE and f >= 2:  # a match with the face-up trio
            nxt[0, KNOWN_FACE_UP] = _code(r, TWO, f, c0, c1, c2, c3)
        if phase == TWO and f == 3:  # the trio is removed
            nxt[0, KNOWN_FACE_UP] = _code(r, START, 0, c0, c1, c2, c3)
        if phase == START:  # a round is paid for when its first card is flipped
            for c in range(5):
                cost[0, c] = 1
        return False
    counts = (c0, c1, c2)
    for j in (0, 1, 2):  # the card drawn belongs to a trio with j known cards
        if counts[j] > 0:
            weight[j] = (3 - j) * counts[j]
            if phase == DRAW_FIRST:
                a0, a1, a2, a3 = _plus(j, c0, c1, c2, c3, -1)
                nxt[j, 0] = _code(r, ONE, j + 1, a0, a1, a2, a3)
            else:
                a0, a1, a2, a3 = _plus(j, u0, u1, u2, u3, -1)
                a0, a1, a2, a3 = _plus(j + 1, a0, a1, a2, a3, 1)
                nxt[j, 0] = _code(r, START, 0, a0, a1, a2, a3)
    if phase == DRAW_SECOND and f < 3:  # it matches the face-up card
        weight[FROM_FACE_UP] = 3 - f
        nxt[FROM_FACE_UP, 0] = _code(r, TWO, f + 1, c0, c1, c2, c3)
    if phase == DRAW_THIRD and f < 3:  # it completes the face-up trio: removed
        weight[FROM_FACE_UP] = 3 - f
        nxt[FROM_FACE_UP, 0] = _code(r, START, 0, c0, c1, c2, c3)
    return False


@njit(cache=True)
def _expand_batch(params, codes, K, C):
    return expand_batch(_rules, params, codes, K, C)


@njit(cache=True)
def _reach(params, start, bound, K, C):
    return reach(_rules, params, start, bound, K, C)


@njit(cache=True, nogil=True)
def _fill(params, bits, start, K, C, arrays):
    return fill(_rules, params, bits, start, K, C, arrays)


@njit(cache=True, nogil=True)
def _solve_blocks(params, bits, K, C, span, limits, V, chosen, rank):
    return solve_blocks(_rules, params, bits, K, C, span, limits, V, chosen, rank)


@dataclass(frozen=True)
class TrickyTrios(MarkovGame):
    """Remove all n trios in the fewest rounds (Code Jam 2018 I/O for Women)."""

    name = "tricky-trios"
    summary = "flip cards to find and remove n hidden trios; fewest expected rounds"
    cost_unit = "rounds"
    family_label = "trios left"

    n: int = param(5, low=1, high=100, help="number of trios (3n cards)")

    #: A round's states share their counts u (``_code``: all but the phase's rank and f,
    #: 6 * 4 codes): its mismatches return to its start, every other move lowers the code.
    cycle_span = 24

    choice_kind_names = (
        "an unknown card",
        "a known card that completes a trio",
        "any other known card",
    )

    # --- state codes: phase, f, c0..c3 in mixed radix --------------------------------
    def encode(self, phase: np.ndarray | int, f: np.ndarray | int, c: np.ndarray) -> np.ndarray:
        """State codes from the phase, f and the counts c[..., 0:4] (see ``_code``)."""
        r = self.n + 1
        f = np.asarray(f)
        u = np.array(c, dtype=np.int64)
        for j in (1, 2, 3):
            u[..., j] += f == j
        code = np.zeros(u.shape[:-1], dtype=np.int64)
        for j in range(4):
            code = code * r + u[..., j]
        return (code * 6 + np.asarray(_RANK)[phase]) * 4 + f

    def decode(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(phase, f, counts) of state codes: the inverse of ``encode``."""
        r = self.n + 1
        codes = np.asarray(codes, dtype=np.int64)
        f = codes % 4
        rest = codes // 4
        phase = np.asarray(_PHASE_OF_RANK)[rest % 6]
        rest = rest // 6
        c = np.empty(codes.shape + (4,), dtype=np.int64)
        for j in (3, 2, 1, 0):
            c[..., j] = rest % r
            rest = rest // r
        for j in (1, 2, 3):
            c[..., j] -= f == j
        return phase, f, c

    def initial_state(self) -> int:
        return int(self.encode(START, 0, np.array([self.n, 0, 0, 0])))

    def compiled_rules(self) -> CompiledRules:
        return CompiledRules(
            np.array([self.n], dtype=np.int64), 4, 5, _expand_batch, _reach, _fill, _solve_blocks
        )

    def choice_kinds(self, states: np.ndarray, expansion: Expansion) -> np.ndarray:
        """Unknown flips (kind 0); known flips completing a trio (kind 1): a card of a trio
        with all three known at the start of a round, or of the face-up trio once all its
        cards are known; every other known flip (kind 2: a mismatch that ends the round,
        or a match whose trio still has an unknown card). Draws count as unknown."""
        phase, f, _ = self.decode(np.asarray(states, dtype=np.int64))
        kinds = np.full(np.asarray(expansion.next).shape, 2, dtype=np.int8)
        kinds[:, :, UNKNOWN] = 0
        kinds[phase > TWO] = 0  # the draw's forced "reveal"
        kinds[phase == START, :, KNOWN_3] = 1
        kinds[f == 3, :, KNOWN_FACE_UP] = 1
        return kinds

    #: Peak resident memory per bound state, measured with the graph kept: n = 100 peaks
    #: at 4,754 MiB for a bound of 110,355,024 states (53,408,689 reachable): about 45
    #: bytes per bound state, 93 per reachable one (session 12; 4,338 MiB by blocks).
    #: Solved as explored (``streamed``, the default at this size) it peaks at 1,475 MiB;
    #: the bound stays that of a kept graph, which ``--without streamed``, an export or
    #: ``show`` of the policy builds.
    bytes_per_state = 50

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
            return (
                "flip an unknown card"
                if int(self.decode(np.array([state]))[0][0]) <= TWO
                else "reveal"
            )
        if c == KNOWN_FACE_UP:
            return "flip a known card of the face-up trio"
        return f"flip a known card of a trio with {c} known"

    def state_family(self, state: int) -> int:
        _, _, c = self.decode(np.array([state]))
        return int(c[0].sum())

    def turn(self, state: int, paid: int) -> int:
        """The round: a round is paid for when its first card is flipped."""
        return paid + int(int(self.decode(np.array([state]))[0][0]) == START)
