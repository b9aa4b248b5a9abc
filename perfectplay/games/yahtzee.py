"""Solitaire Yahtzee and Scandinavian Yatzy, solved by stages (``markov/stages.py``).

Each turn: roll five dice, keep any of them and roll the rest, twice, then fill one open
box of the score card with the final roll's score. A stage is a turn's start: the boxes
filled, the upper boxes' total capped at 63 (35 more, Yatzy 50, when it reaches 63 by the
end) and whether the Yahtzee box holds 50; its code is ``filled << 7 | holds50 << 6 |
upper`` (``filled << 6 | upper`` where no box holds a fifty: Yatzy): the stages of one card are a group, solved side by side (``_exit_values``). Every turn has the same inside (the template: 1,345 nodes, the 252 final
rolls its exit slots), and only the boxes (the exit options) depend on the stage.

The rules are those behind the published values, written out in the project's shared
rules (Verhoeff 1999, Glenn 2006: 254.5896 with the free-choice joker; 248.44 for
Yatzy). An extra Yahtzee (the Yahtzee box filled) pays 100 when the box holds 50, and
is a joker: full house and the straights score 25 / 30 / 40; with ``joker=free`` any
open box may take it (the joker scores only when the face's upper box is filled), with
``joker=forced`` the face's upper box must take it if open, else a lower box, else an
upper box at zero; ``joker=none`` is the no-bonus variant (no 100, no joker).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
from numba import njit, prange

from ..markov.model import BadOutcome, MarkovGame
from ..errors import BadParameter
from ..markov.stage_model import (
    CHANCE,
    DECISION,
    END,
    NONE,
    Stages,
    Template,
    game_over,
    state_code,
)
from ..params import choice, param

FACES = 6
DICE = 5
#: The characters a die is typed as (``parse_outcome``): ASCII digits, not every digit
#: ``str.isdigit`` knows (a superscript two is no face).
_DIGITS = "0123456789"
UPPER_CAP = 63
JOKERS = ("free", "forced", "none")
#: Stage code fields: filled boxes above the lane (holds 50 << 6 | upper total: 7 bits,
#: 6 where no box holds a fifty); the stages of one card are a group (``Stages.lanes``).
UPPER_BITS = 6


def multisets(size: int) -> list[tuple[int, ...]]:
    """Every multiset of `size` dice, as counts per face, in increasing order."""
    return sorted(c for c in itertools.product(range(size + 1), repeat=FACES) if sum(c) == size)


#: Keeps of 0 to 5 dice (462), smallest first; the rolls are the 252 of five dice.
KEEPS = [k for size in range(DICE + 1) for k in multisets(size)]
ROLLS = multisets(DICE)
COUNTS = np.array(ROLLS, dtype=np.int64)


#: The keeps of fewer than five dice (a roll's chance nodes), and every keep largest first
#: (a decision's nodes), in the turn's order (``dice_turn``).
PARTIAL = [k for k in KEEPS if sum(k) < DICE]
BY_SIZE_DOWN = sorted(KEEPS, key=lambda k: (-sum(k), k))


def _turn_nodes() -> list[tuple[int, tuple[int, ...], bool]]:
    """The turn's nodes in order (``dice_turn``): (roll j = 0, 1, 2; the dice kept or
    rolled; whether it is a decision): R_0 of nothing kept, B_0, then R_j and B_j for the
    rerolls."""
    nodes = [(0, (0,) * FACES, False)] + [(0, k, True) for k in BY_SIZE_DOWN]
    for j in (1, 2):
        nodes += [(j, k, False) for k in PARTIAL]
        nodes += [(j, k, True) for k in BY_SIZE_DOWN] if j < 2 else []
    return nodes


#: The turn's nodes, as ``_turn_nodes`` lists them.
NODES = _turn_nodes()


def _dice(counts: tuple[int, ...]) -> str:
    """Dice as a person writes them: ``1 3 3 5 6``."""
    return " ".join(str(f + 1) for f in range(FACES) for _ in range(counts[f]))


@cache
def dice_turn() -> Template:
    """The turn, factorised so that it is small (1,345 nodes, 6,216 edges, where listing
    every keep of every roll would take 17,724 edges). Node 0 rolls five dice: its edges
    the 252 rolls r, weighted by their ways (5! / the product of each face's count!), each
    a decision B_1[r]: the best of the keeps within r, B_j[k] = max(R_{j+1}[k], B_j[k - f]
    for each face f in k), where "keep k, roll the rest" (R_j[k], a chance node for fewer
    than 5 dice kept) rolls one die at a time: the mean over the six faces f of R_j[k + f]
    (B_j[k + f] once five dice are there); after roll 3, r is an exit slot. Nodes come in
    the order R_1, B_1, R_2, B_2, R_3, the R in increasing size, the B in decreasing
    size, so that every edge leads forward. Built once (it has no parameters): every game
    of dice shares it, with its ``flat``."""
    position = {node: i for i, node in enumerate(NODES)}
    n = len(NODES)

    def rolled(j: int, k: tuple[int, ...]) -> int:
        """The node of roll j with k kept (a decision, or an exit slot after roll 3)."""
        if sum(k) < DICE:
            return position[j, k, False]
        return position[j, k, True] if j < 2 else n + ROLLS.index(k)

    def plus(k: tuple[int, ...], f: int, d: int) -> tuple[int, ...]:
        return tuple(c + d * (g == f) for g, c in enumerate(k))

    kinds: list[int] = []
    targets: list[list[int]] = []
    weights: list[list[int]] = []
    for j, k, decides in NODES:
        kinds.append(DECISION if decides else CHANCE)
        if decides:
            smaller = [position[j, plus(k, f, -1), True] for f in range(FACES) if k[f]]
            targets.append([rolled(j + 1, k), *smaller])
        elif j == 0:
            targets.append([rolled(0, r) for r in ROLLS])
        else:
            targets.append([rolled(j, plus(k, f, 1)) for f in range(FACES)])
        ways = [_ways(r) for r in ROLLS] if j == 0 and not decides else [1] * len(targets[-1])
        weights.append(ways)
    target = np.array([t for ts in targets for t in ts], dtype=np.int64)
    return Template(
        kind=np.array(kinds, dtype=np.int8),
        start=np.cumsum([0] + [len(t) for t in targets]).astype(np.int64),
        target=target,
        weight=np.array([w for ws in weights for w in ws], dtype=np.int64),
        points=np.zeros(len(target)),
        slots=len(ROLLS),
    )


def _ways(counts: tuple[int, ...]) -> int:
    """In how many orders five dice show `counts`."""
    return math.factorial(DICE) // math.prod(math.factorial(c) for c in counts)


@dataclass(frozen=True)
class Box:
    """A box of the score card: its name, its score for each of the 252 rolls, the face
    it counts when it is an upper box (0-5), and its joker score (-1: none)."""

    name: str
    score: np.ndarray
    face: int = -1
    joker: int = -1


def _sums() -> np.ndarray:
    return COUNTS @ np.arange(1, FACES + 1)


def _straight(faces: list[int]) -> np.ndarray:
    return np.all(COUNTS[:, [f - 1 for f in faces]] >= 1, axis=1)


def _full_house() -> np.ndarray:
    return np.array([sorted(c)[-2:] == [2, 3] for c in ROLLS])


def _upper(names: list[str]) -> list[Box]:
    return [Box(name, COUNTS[:, f] * (f + 1), face=f) for f, name in enumerate(names)]


def yahtzee_boxes() -> list[Box]:
    """Yahtzee's 13 boxes, upper first."""
    top = COUNTS.max(axis=1)
    small = _straight([1, 2, 3, 4]) | _straight([2, 3, 4, 5]) | _straight([3, 4, 5, 6])
    large = _straight([1, 2, 3, 4, 5]) | _straight([2, 3, 4, 5, 6])
    return _upper(["aces", "twos", "threes", "fours", "fives", "sixes"]) + [
        Box("three of a kind", np.where(top >= 3, _sums(), 0)),
        Box("four of a kind", np.where(top >= 4, _sums(), 0)),
        Box("full house", np.where(_full_house(), 25, 0), joker=25),
        Box("small straight", np.where(small, 30, 0), joker=30),
        Box("large straight", np.where(large, 40, 0), joker=40),
        Box("yahtzee", np.where(top == 5, 50, 0)),
        Box("chance", _sums()),
    ]


def yatzy_boxes() -> list[Box]:
    """Yatzy's 15 boxes, upper first."""
    faces = np.arange(1, FACES + 1)[None, :]
    pairs = np.where(COUNTS >= 2, faces, 0)
    return _upper(["ones", "twos", "threes", "fours", "fives", "sixes"]) + [
        Box("one pair", 2 * pairs.max(axis=1)),
        Box("two pairs", np.where((COUNTS >= 2).sum(axis=1) == 2, 2 * pairs.sum(axis=1), 0)),
        Box("three of a kind", 3 * np.where(COUNTS >= 3, faces, 0).max(axis=1)),
        Box("four of a kind", 4 * np.where(COUNTS >= 4, faces, 0).max(axis=1)),
        Box("small straight", np.where(_straight([1, 2, 3, 4, 5]), 15, 0)),
        Box("large straight", np.where(_straight([2, 3, 4, 5, 6]), 20, 0)),
        Box("full house", np.where(_full_house(), _sums(), 0)),
        Box("chance", _sums()),
        Box("yatzy", np.where(COUNTS.max(axis=1) == 5, 50, 0)),
    ]


#: The face of each final roll that is five of a kind (a Yahtzee), else -1.
FIVE_OF = np.array(
    [f if c == DICE else -1 for c, f in zip(COUNTS.max(axis=1), COUNTS.argmax(axis=1))]
)


@njit(inline="always")
def _card(filled, faces, yahtzee_box):
    """What a card `filled` means for the joker: whether an extra Yahtzee is a joker (the
    Yahtzee box filled), the open upper box of each face (-1: none), and whether a lower
    box other than the Yahtzee box is open."""
    open_face = np.full(FACES, -1)
    lower_open = False
    for o in range(len(faces)):
        if not filled >> o & 1:
            if faces[o] >= 0:
                open_face[faces[o]] = o
            elif o != yahtzee_box:
                lower_open = True
    return yahtzee_box >= 0 and filled >> yahtzee_box & 1, open_face, lower_open


@njit(inline="always")
def _box_score(filled, r, o, face, face_open, lower_open, scores, faces, jokers, forced):
    """The score of filling box o with final roll r (the joker's rules: `face` that of an
    extra Yahtzee, else -1), or -1 where the box is filled or the rules forbid it."""
    if filled >> o & 1:
        return -1
    score = scores[r, o]
    if face >= 0:
        if forced and face_open and faces[o] != face:
            return -1
        if forced and not face_open and lower_open and faces[o] >= 0:
            return -1
        if jokers[o] >= 0 and not face_open:
            score = jokers[o]
    return score


@njit(inline="always")
def _move(filled, full, lane, o, score, face, faces, yahtzee_box, bonus, shift):
    """Filling box o with `score` from a stage of card `filled` and lane `lane` (holds50
    << 6 | upper total): the points paid and the stage it leads to (``END``: the card is
    full, the upper bonus paid then)."""
    upper, holds50 = lane & 63, lane >> 6
    now = filled | (1 << o)
    up = min(UPPER_CAP, upper + score) if faces[o] >= 0 else upper
    flag = holds50
    if o == yahtzee_box:
        flag = 1 if score == 50 else 0
    paid = score + (100 if face >= 0 and holds50 else 0)
    if now == full:
        return paid + (bonus if up == UPPER_CAP else 0), END
    return paid, (now << shift) | (flag << 6) | up


@njit(inline="always")
def _roll_options(
    stage, r, scores, faces, jokers, yahtzee_box, forced, bonus, shift, points, nxt, card
):  # fmt: skip
    """`stage`'s options at final roll r: the open boxes, their points and the stage each
    leads to (``END`` when the card is full: the upper bonus added then), in `points`
    and `nxt` (one row of options); `card` what its card means for the joker (``_card``:
    worked out once for all of a stage's rolls)."""
    n = scores.shape[1]
    full = (1 << n) - 1
    filled, lane = stage >> shift, stage & ((1 << shift) - 1)
    joker, open_face, lower_open = card
    face = FIVE_OF[r] if joker else -1
    face_open = face >= 0 and open_face[face] >= 0
    for o in range(n):
        nxt[o] = NONE
        points[o] = 0.0
        score = _box_score(filled, r, o, face, face_open, lower_open, scores, faces, jokers, forced)
        if score >= 0:
            points[o], nxt[o] = _move(
                filled, full, lane, o, score, face, faces, yahtzee_box, bonus, shift
            )


@njit(cache=True, parallel=True)
def _exits(stages, scores, faces, jokers, yahtzee_box, forced, bonus, shift, points, nxt):
    """Each stage's options at each final roll (``_roll_options``)."""
    for b in prange(len(stages)):
        card = _card(stages[b] >> shift, faces, yahtzee_box)
        for r in range(scores.shape[0]):
            _roll_options(
                stages[b], r, scores, faces, jokers, yahtzee_box, forced, bonus, shift,
                points[b, r], nxt[b, r], card,
            )  # fmt: skip


@njit(cache=True, parallel=True)
def _exit_options(
    stages, rolls, scores, faces, jokers, yahtzee_box, forced, bonus, shift, points, nxt
):  # fmt: skip
    """Each stage's options at one final roll, rolls[b] (``Stages.exit_options``)."""
    for b in prange(len(stages)):
        _roll_options(
            stages[b], rolls[b], scores, faces, jokers, yahtzee_box, forced, bonus, shift,
            points[b], nxt[b], _card(stages[b] >> shift, faces, yahtzee_box),
        )  # fmt: skip


@njit(cache=True, parallel=True)
def _exit_values(
    groups, firsts, values, sign, out, scores, faces, jokers, yahtzee_box, forced, bonus, shift
):  # fmt: skip
    """out[b, r, i]: the best box for final roll r of stage groups[b] << shift | firsts[b]
    + i (the upper total i, holds50 = firsts[b] >> 6), the 64 upper totals side by side
    (``Stages.exit_values``): what ``_exits`` gives (``_by_lane``), its common case read
    as whole rows of the next card's values, box by box: a roll that is no joker filling
    a box that does not end the game scores the box's score, and leads to the same lane
    of the next card (a lower box), to the lane shifted by the score and capped at 63 (an
    upper box: ``_shifted``) or to the Yahtzee box's half of the next card. Points
    maximised (`sign` 1), a box scoring 0 at a roll leads to the row it leads to at any
    roll that scores 0 there: the best of those rows is taken once a block (``scratch``)
    and each roll adds only its boxes that score, 4 of Yatzy's 7.5 open boxes on
    average (a box that scores at a roll beats its own row at 0: more upper points are
    never worth less, nor is the fifty)."""
    n = scores.shape[1]
    rolls = scores.shape[0]
    for b in prange(len(groups)):
        filled, first = groups[b], firsts[b]
        joker, open_face, lower_open = _card(filled, faces, yahtzee_box)
        block = out[b]
        for r in range(rolls):
            for up in range(UPPER_CAP + 1):
                block[r, up] = -np.inf
        boxes = np.array([o for o in range(n) if not filled >> o & 1])
        if len(boxes) == 1:  # the last turn: every roll lane by lane (the bonus paid)
            for r in range(rolls):
                _by_lane(filled, first, r, values, sign, block[r], scores, faces, jokers,
                         yahtzee_box, forced, bonus, shift, joker, open_face, lower_open)  # fmt: skip
            continue
        shifted = _shifted(filled, first, values, faces, shift)
        if sign > 0:  # a box scoring 0: the same next row for every roll, max taken once
            scratch = np.full(UPPER_CAP + 1, -np.inf)
            for o in boxes:
                at = ((filled | 1 << o) << shift) + (0 if o == yahtzee_box else first)
                for up in range(UPPER_CAP + 1):
                    scratch[up] = max(scratch[up], values[at + up])
            for r in range(rolls):
                if not (joker and FIVE_OF[r] >= 0):  # (a joker's boxes: ``_by_lane``)
                    block[r, :] = scratch
        for o in boxes:
            paid = sign * scores[:, o]
            base = ((filled | 1 << o) << shift) + first
            for r in range(rolls):
                if joker and FIVE_OF[r] >= 0 or sign > 0 and scores[r, o] == 0:
                    continue
                if faces[o] >= 0:
                    src = shifted[faces[o], COUNTS[r, faces[o]]]
                elif o == yahtzee_box:
                    at = base - first + (64 if scores[r, o] == 50 else 0)
                    src = values[at : at + UPPER_CAP + 1]
                else:
                    src = values[base : base + UPPER_CAP + 1]
                row, q = block[r], paid[r]
                for up in range(UPPER_CAP + 1):
                    a, v = row[up], q + src[up]
                    row[up] = a if a >= v else v
        if joker:
            for r in range(rolls):
                if FIVE_OF[r] >= 0:
                    _by_lane(filled, first, r, values, sign, block[r], scores, faces, jokers,
                             yahtzee_box, forced, bonus, shift, joker, open_face, lower_open)  # fmt: skip


@njit(inline="always")
def _by_lane(
    filled, first, r, values, sign, row, scores, faces, jokers, yahtzee_box, forced, bonus,
    shift, joker, open_face, lower_open,
):  # fmt: skip
    """row[i]: the best box for final roll r of stage filled << shift | first + i, lane by
    lane as ``_exits`` computes it (the joker's rules, the last box's bonus)."""
    n = scores.shape[1]
    full = (1 << n) - 1
    face = FIVE_OF[r] if joker else -1
    face_open = face >= 0 and open_face[face] >= 0
    for o in range(n):
        score = _box_score(filled, r, o, face, face_open, lower_open, scores, faces, jokers, forced)
        if score < 0:
            continue
        for up in range(UPPER_CAP + 1):
            points, to = _move(
                filled, full, first + up, o, score, face, faces, yahtzee_box, bonus, shift
            )
            row[up] = max(row[up], sign * points + (values[to] if to >= 0 else 0.0))


@njit(inline="always")
def _shifted(filled, first, values, faces, shift):
    """[face, count, i]: the value of the stage an upper box of `face` open on card
    `filled` leads to from lane first + i when it scores count x its face: the next card's
    row shifted by the score and capped at 63."""
    shifted = np.zeros((FACES, DICE + 1, UPPER_CAP + 1))
    for o in range(len(faces)):
        f = faces[o]
        if f >= 0 and not filled >> o & 1:
            base = ((filled | 1 << o) << shift) + first
            for count in range(DICE + 1):
                for up in range(UPPER_CAP + 1):
                    shifted[f, count, up] = values[base + min(UPPER_CAP, up + count * (f + 1))]
    return shifted


def _reachable_uppers(faces: list[int]) -> np.ndarray:
    """R[s, u]: whether the upper total u (capped) can be made by the upper boxes whose
    faces are the bits of s."""
    reach = np.zeros((1 << FACES, UPPER_CAP + 1), dtype=bool)
    for s in range(1 << FACES):
        totals = {0}
        for f in faces:
            if s >> f & 1:
                totals = {min(UPPER_CAP, t + c * (f + 1)) for t in totals for c in range(6)}
        reach[s, sorted(totals)] = True
    return reach


@dataclass(frozen=True)
class Yahtzee(MarkovGame):
    """Solitaire Yahtzee: 13 boxes, 35 at 63 in the upper boxes, the Yahtzee bonus and joker."""

    name = "yahtzee"
    summary = "Solitaire Yahtzee: 13 turns of 5 dice rolled up to 3 times, the expected score"
    pays = True
    cost_unit = "points"
    objectives = ("expected", "probability")
    family_label = "boxes filled"

    joker: str = choice("free", choices=JOKERS, help="the joker rule (none: no Yahtzee bonus)")
    card: int = param(
        (1 << 13) - 1,
        low=1,
        high=(1 << 13) - 1,
        help="the boxes played, a bit mask (smaller games)",
    )

    @property
    def upper_bonus(self) -> int:
        return 35

    @cached_property
    def boxes(self) -> list[Box]:
        """The boxes played: those of ``card``'s bits, in the card's order."""
        return [b for i, b in enumerate(self.all_boxes()) if self.card >> i & 1]

    @staticmethod
    def all_boxes() -> list[Box]:
        return yahtzee_boxes()

    @property
    def yahtzee_box(self) -> int:
        """The Yahtzee box's index where it pays the bonus and the joker, else -1."""
        names = [b.name for b in self.boxes]
        return names.index("yahtzee") if self.joker != "none" and "yahtzee" in names else -1

    @property
    def shift(self) -> int:
        """Where a stage code's boxes filled start: above its lane (the upper total, and
        the fifty where the Yahtzee box can hold it)."""
        return UPPER_BITS + (self.yahtzee_box >= 0)

    def stages(self) -> Stages:
        return self._stages

    @cached_property
    def _stages(self) -> Stages:
        card = self.boxes
        scores = np.ascontiguousarray(np.stack([b.score for b in card], axis=1))
        faces = np.array([b.face for b in card], dtype=np.int64)
        jokers = np.array([b.joker for b in card], dtype=np.int64)
        yb, forced, bonus, shift = (
            self.yahtzee_box, self.joker == "forced", self.upper_bonus, self.shift
        )  # fmt: skip

        def exits(stages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # (arrays of their own at each call: the screens' threads ask at once; the
            # solve asks only for the blocks it holds to ``exit_values``)
            shape = (len(stages), len(ROLLS), len(card))
            points, nxt = np.empty(shape), np.empty(shape, dtype=np.int64)
            _exits(stages, scores, faces, jokers, yb, forced, bonus, shift, points, nxt)
            return points, nxt

        def exit_values(groups, firsts, values, sign, out) -> None:
            _exit_values(
                groups, firsts, values, sign, out, scores, faces, jokers, yb, forced, bonus, shift
            )

        def exit_options(stages: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            shape = (len(stages), len(card))
            points, nxt = np.empty(shape), np.empty(shape, dtype=np.int64)
            _exit_options(
                np.ascontiguousarray(stages, dtype=np.int64),
                np.ascontiguousarray(rolls, dtype=np.int64),
                scores, faces, jokers, yb, forced, bonus, shift, points, nxt,
            )  # fmt: skip
            return points, nxt

        return Stages(
            count=1 << (len(card) + shift),
            layers=self._layers(),
            start=0,
            template=dice_turn(),
            options=len(card),
            exits=exits,
            lanes=1 << shift,
            exit_values=exit_values,
            exit_options=exit_options,
        )

    def state_family(self, state: int) -> int:
        """The boxes filled at `state`."""
        return bin(state // self.stages().width >> self.shift).count("1")

    def turn(self, state: int, paid: int) -> int:
        """The turn: the boxes filled, plus one (13 is Yahtzee's last)."""
        return self.state_family(state) + 1

    def describe_state(self, state: int) -> str:
        st = self.stages()
        if state == game_over(st):
            return "the card is full"
        stage, node = divmod(state, st.width)
        filled, upper, holds50 = stage >> self.shift, stage & 63, stage >> 6 & 1
        names = [b.name for i, b in enumerate(self.boxes) if filled >> i & 1]
        card = f"filled: {', '.join(names) or 'nothing'}; upper boxes {upper}/63"
        card += "; Yahtzee box holds 50" if holds50 else ""
        if node >= st.template.nodes:
            return f"{card}. Final roll {_dice(ROLLS[node - st.template.nodes])}: choose a box"
        j, dice, decides = NODES[node]
        if decides:
            return f"{card}. Roll {j + 1} of 3: {_dice(dice)}"
        return f"{card}. Roll {j + 1} of 3, keeping {_dice(dice) or 'nothing'}"

    def describe_outcome(self, state: int, k: int) -> str:
        width = self.stages().width
        node = state % width
        if node >= len(NODES):
            return f"final roll: {_dice(ROLLS[node - len(NODES)])}"
        j, dice, decides = NODES[node]
        if decides:
            return f"roll {j + 1} of 3: {_dice(dice)}"
        return f"rolled {_dice(self._rolled(state, k))}"

    def _rolled(self, state: int, k: int) -> tuple[int, ...]:
        """The five dice (counts per face) that chance outcome `k` of `state` gives (the
        state's expansion computed once for all its outcomes: ``Stages.one_state``)."""
        width = self.stages().width
        target = int(self.expand(np.array([state], dtype=np.int64)).next[0, k, 0]) % width
        return ROLLS[target - len(NODES)] if target >= len(NODES) else NODES[target][1]

    def parse_outcome(self, state: int, text: str, outcomes: list[int]) -> int:
        """The roll a person typed: the five dice in any order (``4 2 1 2 4``, ``42124``,
        ``4,2,1,2,4``), those kept among them; each die a digit from 1 to 6, nothing but
        spaces and commas between them (``-1`` is no die)."""
        counts = self._counts(text)
        for k in outcomes:
            if self._rolled(state, k) == counts:
                return k
        raise BadOutcome(f"{_dice(counts)} cannot follow here: the dice kept are not among them")

    @staticmethod
    def _counts(text: str) -> tuple[int, ...]:
        """Five dice a person typed (``4 2 1 2 4``, ``42124``, ``4,2,1,2,4``), as counts
        per face; BadOutcome naming what to write otherwise."""
        faces = [int(ch) for ch in text if ch in _DIGITS]
        if (
            len(faces) != DICE
            or not all(1 <= f <= FACES for f in faces)
            or any(ch not in _DIGITS and ch != "," and not ch.isspace() for ch in text)
        ):
            raise BadOutcome(
                f"write the {DICE} dice, faces 1 to {FACES} (like 1 2 2 4 4), not {text.strip()!r}"
            )
        return tuple(faces.count(f) for f in range(1, FACES + 1))

    def describe_choice(self, state: int, k: int, c: int) -> str:
        st = self.stages()
        exp = self.expand(np.array([state], dtype=np.int64))  # (one state's: kept)
        if state % st.width >= st.template.nodes:
            return f"{self.boxes[c].name}: {int(exp.cost[0, 0, c])} points"
        target = int(exp.next[0, k, c]) % st.width
        if target >= st.template.nodes or NODES[target][2]:
            return "keep all five"
        kept = NODES[target][1]
        return f"keep {_dice(kept)}" if sum(kept) else "roll all five again"

    def dice_at(self, state: int) -> tuple[int, ...] | None:
        """The five dice showing at `state` (counts per face): a roll's keep to choose or
        the final roll's box; None between rolls (or once the card is full)."""
        st = self.stages()
        if state >= game_over(st):
            return None
        node = state % st.width
        if node >= st.template.nodes:
            return ROLLS[node - st.template.nodes]
        j, dice, decides = NODES[node]
        return dice if decides else None

    def kept(self, state: int, c: int) -> tuple[int, ...] | None:
        """The dice choice `c` keeps at a roll's decision `state` (counts per face), None
        where `c` is no keep (a box)."""
        st = self.stages()
        if state % st.width >= st.template.nodes:
            return None
        target = int(self.expand(np.array([state], dtype=np.int64)).next[0, 0, c]) % st.width
        return NODES[target][1] if target < st.template.nodes else ROLLS[target - st.template.nodes]

    def box_score(self, state: int, c: int) -> int:
        """What box `c` takes at the final roll of `state`: its points less the Yahtzee
        bonus (100) and the upper bonus the last box may bring with them."""
        st = self.stages()
        stage, node = divmod(state, st.width)
        exp = self.expand(np.array([state], dtype=np.int64))
        points, last = int(exp.cost[0, 0, c]), int(exp.next[0, 0, c]) == game_over(st)
        yb, roll = self.yahtzee_box, ROLLS[node - st.template.nodes]
        if yb >= 0 and stage >> self.shift >> yb & 1 and stage >> 6 & 1 and max(roll) == DICE:
            points -= 100
        upper, box = stage & 63, self.boxes[c]
        if last and box.face >= 0 and upper + points - self.upper_bonus >= UPPER_CAP:
            points -= self.upper_bonus  # (with the bonus it reaches 63; without, never)
        elif last and box.face < 0 and upper == UPPER_CAP:
            points -= self.upper_bonus
        return points

    def parse_position(self, text: str) -> tuple[int, int]:
        """A position written as the filled boxes with their scores, then the roll and
        its dice: ``aces 3, full house 25; roll 2: 1 3 3 5 6`` (an empty card: ``roll 1:
        2 2 3 5 6``; ``bonus 100`` adds Yahtzee bonuses scored). Roll 3 is the final roll,
        whose box is chosen. The state and the points scored (the upper bonus is paid
        with the last box)."""
        card, _, roll = text.rpartition(";")
        found = re.fullmatch(r"\s*roll\s*([123])\s*:?(.*)", roll, re.IGNORECASE)
        if found is None:
            raise BadParameter(f"write the roll as 'roll N: the five dice', not {roll.strip()!r}")
        j = int(found.group(1)) - 1
        try:
            dice = ROLLS.index(self._counts(found.group(2)))
        except BadOutcome as err:
            raise BadParameter(str(err)) from None
        filled, upper, holds50, scored = self._card(card)
        st = self.stages()
        stage = (filled << self.shift) | (holds50 << 6) | min(UPPER_CAP, upper)
        if filled == (1 << len(self.boxes)) - 1:
            raise BadParameter("every box is filled: the game is over")
        if j == 2:
            return state_code(st, stage, st.template.nodes + dice), scored
        return state_code(st, stage, NODES.index((j, ROLLS[dice], True))), scored

    def _card(self, text: str) -> tuple[int, int, int, int]:
        """The boxes filled (a mask), the upper boxes' total, whether the Yahtzee box
        holds 50 and the points scored, from ``aces 3, full house 25, bonus 100``."""
        scores, bonuses = self.card_scores(text)
        filled = sum(1 << i for i in scores)
        upper = sum(v for i, v in scores.items() if self.boxes[i].face >= 0)
        holds50 = int(scores.get(self.yahtzee_box) == 50)
        return filled, upper, holds50, sum(scores.values()) + bonuses

    def card_scores(self, text: str) -> tuple[dict[int, int], int]:
        """The boxes a written card fills (box index -> score) and the Yahtzee bonuses it
        says were scored, from ``aces 3, full house 25, bonus 100`` (the screens' score
        card of a position: ``scorecard.scorecard``)."""
        names = {b.name.replace(" ", ""): i for i, b in enumerate(self.boxes)}
        scores: dict[int, int] = {}
        bonuses = 0
        for entry in filter(None, (e.strip() for e in text.split(","))):
            found = re.fullmatch(r"([a-z ]+?)\s*[:=]?\s*(\d{1,4})", entry, re.IGNORECASE)
            name = found and found.group(1).lower().replace(" ", "")
            if found and name == "bonus" and self.yahtzee_box >= 0:
                if int(found.group(2)) % 100:
                    raise BadParameter(f"Yahtzee bonuses come in hundreds, not {entry!r}")
                bonuses += int(found.group(2))
                continue
            if not found or name not in names:
                raise BadParameter(
                    f"write each filled box as its name and score (like 'aces 3'), not "
                    f"{entry!r}; the boxes: {', '.join(b.name for b in self.boxes)}"
                )
            i, score, box = names[name], int(found.group(2)), self.boxes[names[name]]
            if i in scores:
                raise BadParameter(f"{box.name} is written twice")
            if score not in set(box.score.tolist()) | {box.joker}:
                raise BadParameter(f"{box.name} cannot score {score}")
            scores[i] = score
        return scores, bonuses

    def _layers(self) -> tuple[np.ndarray, ...]:
        """The stages a game can reach, by boxes filled, the fullest first (a card with
        every box filled is no stage: the game has ended)."""
        n = len(self.boxes)
        masks = np.arange(1 << n, dtype=np.int64)
        upper_set = np.zeros(len(masks), dtype=np.int64)
        for o, box in enumerate(self.boxes):
            if box.face >= 0:
                upper_set |= ((masks >> o) & 1) << box.face
        reach = _reachable_uppers([b.face for b in self.boxes if b.face >= 0])
        filled_count = np.array([bin(m).count("1") for m in masks])
        yb = self.yahtzee_box
        layers = []
        for count in range(n - 1, -1, -1):  # (a layer's cards at a time: little memory)
            cards = masks[filled_count == count]
            m, u = np.nonzero(reach[upper_set[cards]])
            codes = (cards[m] << self.shift) | u
            if yb >= 0:
                codes = np.concatenate([codes, codes[(cards[m] >> yb) & 1 == 1] | 1 << 6])
            layers.append(np.sort(codes).astype(np.int32))  # (Yatzy's 1.4M: 5.7 MB)
        return tuple(layers)


@dataclass(frozen=True)
class Yatzy(Yahtzee):
    """Scandinavian Yatzy: 15 boxes, 50 at 63 in the upper boxes, no Yatzy bonus."""

    name = "yatzy"
    summary = "Scandinavian Yatzy: 15 turns of 5 dice rolled up to 3 times, the expected score"

    joker: str = choice("none", choices=("none",), help="no Yatzy bonus or joker")
    card: int = param(
        (1 << 15) - 1,
        low=1,
        high=(1 << 15) - 1,
        help="the boxes played, a bit mask (smaller games)",
    )

    @property
    def upper_bonus(self) -> int:
        return 50

    @staticmethod
    def all_boxes() -> list[Box]:
        return yatzy_boxes()
