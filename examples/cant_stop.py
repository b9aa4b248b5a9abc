"""Solitaire Can't Stop as a user writes it from docs/custom-games.md: compiled rules, a
board-size parameter, blocks of codes for the solver (one turn per block), and the
wrapper that lets a board too large for its graph be solved with the rules recomputed
at every sweep (``perfectplay.markov.recomputed``).

The game: eleven columns, one per sum of two dice (2 to 12), of heights 3, 5, ..., 13,
..., 5, 3 on the full board; ``length`` shrinks them (a column's height is its full
height times ``length / 13``, rounded up). Each turn rolls four dice, pairs them one of
three ways and advances a marker in the column of each pair's sum, at most three
columns a turn (three markers); after each roll the player stops (the markers' progress
is kept) or rolls again; a roll none of whose pairings can advance busts the turn (its
progress is lost). The game ends when three columns are climbed to the top; the cost is
the number of turns. A state is the board (the kept progress) and the turn's markers:

    code = block * span + (span - 1 - markers)    block = 1 + (boards - 1 - board)

where ``board`` numbers the kept heights in mixed radix, so that progress kept lowers
the block (every choice stays within its turn's block or leads to a lower code:
``cycle_span``), and ``markers`` numbers the turn's markers by how many there are, then
their columns, then their heights, so that within a block more progress is a lower code
(the turn's start is the block's last code). Code 0 is the end of the game.

    perfectplay solve cant-stop length=2        # 159,624 states, proven exactly
    perfectplay solve cant-stop length=3        # 11,331,252 states, in floats
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
from numba import njit

from perfectplay import register
from perfectplay.markov.compiled import expand_batch, fill, reach, rules_kernel
from perfectplay.markov.model import CompiledRules, MarkovGame
from perfectplay.markov.recomputed import solve_recomputed
from perfectplay.params import param

#: The full board's column heights, sums 2 to 12.
FULL = (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
COLUMNS = len(FULL)
#: Where the rules find things in ``params``: the span, the number of boards, the
#: number of rolls, then per column its height and its board stride, then per subset
#: of columns (a bitmask) the offset of its markers' codes (-1: more than three
#: columns), then the subsets of at most three columns by offset, with their offsets,
#: then per subset and column the column's place value among the subset's markers,
#: then per roll its weight and its three pairings' columns.
SPAN, BOARDS, ROLLS = 0, 1, 2
HEIGHT = 3
STRIDE = HEIGHT + COLUMNS
OFFSET = STRIDE + COLUMNS
MASKS = OFFSET + (1 << COLUMNS)
N_MASKS = 1 + 11 + 55 + 165  # subsets of at most three of the eleven columns
STARTS = MASKS + N_MASKS
SCALE = STARTS + N_MASKS + 1
ROLL = SCALE + (1 << COLUMNS) * COLUMNS
#: Choices after a roll: each of three pairings may give two moves, each stop or go on.
CHOICES = 12
#: Bits a column's height takes in the packed heights (one int64 for all eleven).
BITS = 4


def heights(length: int) -> list[int]:
    """The columns' heights on a board of `length` (13: the full board)."""
    return [max(1, math.ceil(h * length / 13)) for h in FULL]


@functools.cache
def rolls() -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """Four dice as (ways out of 1,296, the three pairings' sums), rolls whose pairings
    give the same sums merged."""
    ways: Counter = Counter()
    for dice in itertools.product(range(1, 7), repeat=4):
        a, b, c, d = dice
        pairs = ((a + b, c + d), (a + c, b + d), (a + d, b + c))
        ways[tuple(sorted(tuple(sorted(p)) for p in pairs))] += 1
    return sorted((w, key) for key, w in ways.items())


@njit(inline="always")
def _height(pos, c):
    """Column c's height in the packed heights `pos`."""
    return (pos >> (BITS * c)) & 15


@njit(inline="always")
def _move(params, code, banked, inside, pos, tops, a, up_a, b, up_b, first, k, j, nxt, cost):
    """Add the choices after a move of `up_a` in column a and `up_b` in column b (0: no
    second column) from the heights `pos` with markers on the columns of `inside`
    (`tops` columns at the top; `banked`: the block where stopping now leads): the third
    column climbed ends the game; else stop (the heights kept: the next turn's start, a
    lower block) or roll again (this block, more
    progress: a lower code). A choice another pairing listed already is not added
    again. Returns the number of choices listed."""
    span = params[SPAN]
    moved = inside | 1 << a
    after = pos + (up_a << (BITS * a))
    tops += _height(after, a) == params[HEIGHT + a]
    if up_b:
        moved |= 1 << b
        after += up_b << (BITS * b)
        tops += _height(after, b) == params[HEIGHT + b]
    if tops >= 3:
        stop, go = 0, -1
    else:
        kept = banked - up_a * params[STRIDE + a] - up_b * params[STRIDE + b]
        stop = kept * span + span - 1
        if moved == inside:  # the same markers, higher
            row = SCALE + COLUMNS * moved
            go = code - up_a * params[row + a] - up_b * params[row + b]
        else:
            go = code - code % span + _markers(params, moved, after)
    for target in (stop, go):
        if target < 0:
            continue
        seen = False
        for i in range(j):
            seen = seen or nxt[k, i] == target
        if not seen:
            nxt[k, j] = target
            cost[k, j] = first
            j += 1
    return j


@njit(inline="always")
def _markers(params, inside, pos):
    """The code, within a block, of the turn's markers on the columns of bitmask
    `inside` at the heights `pos` (the turn's start, no marker: the block's last code)."""
    index, row = 0, SCALE + COLUMNS * inside
    for c in range(COLUMNS):
        if inside >> c & 1:
            index += (_height(pos, c) - 1) * params[row + c]
    return params[SPAN] - 1 - params[OFFSET + inside] - index


@rules_kernel
def _rules(params, code, weight, nxt, cost):
    """One state of Can't Stop: True at the end, else its rolls and moves (the module
    docstring has the codes)."""
    if code == 0:
        return True
    span = params[SPAN]
    block = code // span
    board = params[BOARDS] - block  # the kept heights, in mixed radix
    rest = span - 1 - code % span  # the turn's markers
    lo, hi = 0, N_MASKS - 1  # the last subset of columns whose offset is at most `rest`
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if params[STARTS + mid] <= rest:
            lo = mid
        else:
            hi = mid - 1
    inside = params[MASKS + lo]
    rest -= params[STARTS + lo]
    pos, markers, tops, banked = 0, 0, 0, block
    for c in range(COLUMNS):
        h = (board // params[STRIDE + c]) % (params[HEIGHT + c] + 1)
        if inside >> c & 1:
            banked -= (rest % params[HEIGHT + c] + 1 - h) * params[STRIDE + c]
            h = rest % params[HEIGHT + c] + 1
            rest //= params[HEIGHT + c]
            markers += 1
        tops += h == params[HEIGHT + c]
        pos |= h << (BITS * c)
    first = 1 if markers == 0 else 0  # a turn is paid at its first roll
    for k in range(params[ROLLS]):
        row = ROLL + 7 * k
        weight[k] = params[row]
        j = 0
        for q in range(3):
            a, b = params[row + 1 + 2 * q], params[row + 2 + 2 * q]
            room_a = params[HEIGHT + a] - _height(pos, a)
            room_b = params[HEIGHT + b] - _height(pos, b)
            can_a = room_a > 0 and (inside >> a & 1 or markers < 3)
            can_b = room_b > 0 and (inside >> b & 1 or markers < 3)
            both = can_a and can_b and a != b
            if both and markers == 2 and not (inside >> a & 1 or inside >> b & 1):
                # one marker left for two new columns: either, not both
                j = _move(
                    params, code, banked, inside, pos, tops, a, 1, b, 0, first, k, j, nxt, cost
                )
                j = _move(
                    params, code, banked, inside, pos, tops, b, 1, a, 0, first, k, j, nxt, cost
                )
            elif both:
                j = _move(
                    params, code, banked, inside, pos, tops, a, 1, b, 1, first, k, j, nxt, cost
                )
            elif can_a:  # (a pair of equal sums climbs two if there is room)
                up = min(2, room_a) if a == b else 1
                j = _move(
                    params, code, banked, inside, pos, tops, a, up, b, 0, first, k, j, nxt, cost
                )
            elif can_b:
                j = _move(
                    params, code, banked, inside, pos, tops, b, 1, a, 0, first, k, j, nxt, cost
                )
        if j == 0:  # bust: back to the turn's start, its progress lost
            nxt[k, 0] = block * span + span - 1
            cost[k, 0] = first
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
def _solve_recomputed(params, bits, K, C, span, limits, V, rank, blocks, step):
    return solve_recomputed(_rules, params, bits, K, C, span, limits, V, rank, blocks, step)


@functools.cache
def _params(length: int) -> np.ndarray:
    """What ``_rules`` reads (see SPAN ... ROLL)."""
    h = heights(length)
    stride = [math.prod(x + 1 for x in h[:c]) for c in range(COLUMNS)]
    masks = sorted(
        (m for m in range(1 << COLUMNS) if m.bit_count() <= 3), key=lambda m: (m.bit_count(), m)
    )
    offset, starts, at = [-1] * (1 << COLUMNS), [], 0
    for m in masks:
        offset[m] = at
        starts.append(at)
        at += math.prod(h[c] for c in range(COLUMNS) if m >> c & 1)
    scale = [0] * ((1 << COLUMNS) * COLUMNS)
    for m in masks:
        place = 1
        for c in range(COLUMNS):
            if m >> c & 1:
                scale[m * COLUMNS + c], place = place, place * h[c]
    table = [x for w, pairs in rolls() for x in (w, *(s - 2 for s in itertools.chain(*pairs)))]
    head = [at, math.prod(x + 1 for x in h), len(rolls())]
    flat = head + h + stride + offset + masks + starts + [at] + scale + table
    return np.array(flat, dtype=np.int64)


@register
@dataclass(frozen=True)
class CantStop(MarkovGame):
    """Solitaire Can't Stop: the fewest turns on average to climb three columns."""

    name = "cant-stop"
    summary = "solitaire Can't Stop: climb three columns in the fewest turns"
    cost_unit = "turns"
    cycle_span = 0  # set per board below: a block is one turn's states

    length: int = param(2, low=1, high=4, help="the middle column's height (13: the full board)")

    @property
    def _p(self) -> np.ndarray:
        return _params(self.length)

    def __post_init__(self):
        object.__setattr__(self, "cycle_span", int(self._p[SPAN]))

    def initial_state(self) -> int:
        p = self._p
        return int(p[BOARDS] * p[SPAN] + p[SPAN] - 1)  # the empty board's turn start

    def code_bound(self) -> int:
        return self.initial_state() + 1

    def compiled_rules(self) -> CompiledRules:
        return CompiledRules(
            self._p,
            len(rolls()),
            CHOICES,
            _expand_batch,
            _reach,
            _fill,
            solve_recomputed=_solve_recomputed,
        )

    def _decode(self, state: int) -> tuple[list[int], dict[int, int]]:
        """(kept heights, the turn's markers by column) of a state."""
        p = self._p
        span, h = int(p[SPAN]), heights(self.length)
        board = int(p[BOARDS]) - state // span
        rest = span - 1 - state % span
        i = int(np.searchsorted(p[STARTS : STARTS + N_MASKS], rest, side="right")) - 1
        inside, rest = int(p[MASKS + i]), rest - int(p[STARTS + i])
        kept, marked = [], {}
        for c in range(COLUMNS):
            kept.append(board // int(p[STRIDE + c]) % (h[c] + 1))
            if inside >> c & 1:
                marked[c] = rest % h[c] + 1
                rest //= h[c]
        return kept, marked

    def describe_state(self, state: int) -> str:
        if state == 0:
            return "three columns climbed"
        kept, marked = self._decode(state)
        h = heights(self.length)
        cols = " ".join(
            f"{c + 2}:{kept[c]}" + (f">{marked[c]}" if c in marked else "") + f"/{h[c]}"
            for c in range(COLUMNS)
        )
        return cols + ("" if marked else " (a turn starts)")

    def describe_outcome(self, state: int, k: int) -> str:
        pairs = rolls()[k][1]
        return "pairs " + ", ".join(f"{a}+{b}" for a, b in pairs)

    def describe_choice(self, state: int, k: int, c: int) -> str:
        target = int(self.expand(np.array([state])).next[0, k, c])
        span = self.cycle_span
        if target == 0:
            return "climb the third column"
        if target // span == state // span:
            return "roll again: " + self.describe_state(target)
        return "stop: " + self.describe_state(target)
