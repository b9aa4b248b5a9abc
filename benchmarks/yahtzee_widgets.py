"""Solitaire Yahtzee and Yatzy solved widget by widget in plain numpy: the yardstick that
``perfectplay solve yahtzee`` is timed against (issue 42), written for the comparison and
independent of the engine.

    python benchmarks/yahtzee_widgets.py                    # Yahtzee, free-choice joker
    python benchmarks/yahtzee_widgets.py --joker forced     # the printed rules' joker
    python benchmarks/yahtzee_widgets.py --joker none       # no Yahtzee bonus, no joker
    python benchmarks/yahtzee_widgets.py --game yatzy       # Scandinavian Yatzy
    python benchmarks/yahtzee_widgets.py --boxes 6          # the first 6 boxes only

The rules are those written out in the project's shared rules of the published values
(Verhoeff 1999 and Glenn 2006 for Yahtzee's 254.5896 with the free-choice joker; 248.44
for Yatzy). A game's turn-start state is (boxes filled, upper total capped at 63, whether
the Yahtzee box holds 50); the value of a state is the expected score still to come. Boxes
are filled one per turn, so the states fall into layers by the number of boxes filled,
solved from the last turn back to the first; inside a turn (a "widget") the three rolls and
two keeps are solved backwards for every state of a layer at once:

* F[s, r]: the best box for final roll r (its score plus the value of the next state);
* V[s, k] = sum_r P[k, r] F[s, r]: keeping the multiset k and rolling the rest;
* F'[s, r] = max over keeps k within r of V[s, k] (a running max over the keeps' lattice,
  one die fewer at a time), twice; the turn's value is sum_r P[{}, r] F''[s, r].

Only the states a game can reach are solved (an upper total no filled upper box can make
is skipped; the Yahtzee-holds-50 flag only where the Yahtzee box is filled).
"""

from __future__ import annotations

import argparse
import itertools
import math
import resource
import time
from dataclasses import dataclass

import numpy as np

FACES = 6
DICE = 5
UPPER_CAP = 63


def multisets(size: int) -> list[tuple[int, ...]]:
    """Every multiset of `size` dice as counts per face (faces 1..6)."""
    return [tuple(c) for c in itertools.product(range(size + 1), repeat=FACES) if sum(c) == size]


#: Every keep (0 to 5 dice) as counts per face, smallest first; the 252 rolls are those of 5.
KEEPS = [k for size in range(DICE + 1) for k in sorted(multisets(size))]
KEEP_INDEX = {k: i for i, k in enumerate(KEEPS)}
ROLLS = [k for k in KEEPS if sum(k) == DICE]
ROLL_COLUMNS = np.array([KEEP_INDEX[r] for r in ROLLS])
COUNTS = np.array(ROLLS)  # (252, 6)
FACE_VALUES = np.arange(1, FACES + 1)


def _outcome_probability(counts: tuple[int, ...]) -> float:
    n = sum(counts)
    ways = math.factorial(n)
    for c in counts:
        ways //= math.factorial(c)
    return ways / FACES**n


def transition() -> np.ndarray:
    """P[k, r]: the chance that keeping k and rolling the other dice gives roll r."""
    p = np.zeros((len(KEEPS), len(ROLLS)))
    roll_index = {r: i for i, r in enumerate(ROLLS)}
    for k, keep in enumerate(KEEPS):
        for outcome in multisets(DICE - sum(keep)):
            roll = tuple(a + b for a, b in zip(keep, outcome))
            p[k, roll_index[roll]] += _outcome_probability(outcome)
    return p


def lattice_parents() -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """For each keep size 1..5: the keeps of that size, and for each face the keep with
    one die of that face fewer (the keep itself where it holds no such die)."""
    levels = []
    for size in range(1, DICE + 1):
        cols = np.array([i for i, k in enumerate(KEEPS) if sum(k) == size])
        parents = []
        for face in range(FACES):
            par = []
            for i in cols:
                k = list(KEEPS[i])
                if k[face]:
                    k[face] -= 1
                    par.append(KEEP_INDEX[tuple(k)])
                else:
                    par.append(i)
            parents.append(np.array(par))
        levels.append((cols, parents))
    return levels


@dataclass(frozen=True)
class Box:
    """One box of the score card: its name, its score for each of the 252 rolls, and the
    face it counts when it is an upper box."""

    name: str
    score: np.ndarray
    face: int | None = None


def _sums() -> np.ndarray:
    return COUNTS @ FACE_VALUES


def _straight(faces: list[int]) -> np.ndarray:
    return np.all(COUNTS[:, [f - 1 for f in faces]] >= 1, axis=1)


def upper_boxes(names: list[str]) -> list[Box]:
    return [Box(name, COUNTS[:, f] * (f + 1), face=f) for f, name in enumerate(names)]


def yahtzee_boxes() -> list[Box]:
    top = COUNTS.max(axis=1)
    full = np.array([sorted(c)[-2:] == [2, 3] for c in COUNTS])
    small = _straight([1, 2, 3, 4]) | _straight([2, 3, 4, 5]) | _straight([3, 4, 5, 6])
    large = _straight([1, 2, 3, 4, 5]) | _straight([2, 3, 4, 5, 6])
    return upper_boxes(["aces", "twos", "threes", "fours", "fives", "sixes"]) + [
        Box("three of a kind", np.where(top >= 3, _sums(), 0)),
        Box("four of a kind", np.where(top >= 4, _sums(), 0)),
        Box("full house", np.where(full, 25, 0)),
        Box("small straight", np.where(small, 30, 0)),
        Box("large straight", np.where(large, 40, 0)),
        Box("yahtzee", np.where(top == 5, 50, 0)),
        Box("chance", _sums()),
    ]


def yatzy_boxes() -> list[Box]:
    faces = FACE_VALUES[None, :]
    pairs = np.where(COUNTS >= 2, faces, 0)
    one_pair = 2 * pairs.max(axis=1)
    two_pairs = np.where((COUNTS >= 2).sum(axis=1) == 2, 2 * pairs.sum(axis=1), 0)
    three = 3 * np.where(COUNTS >= 3, faces, 0).max(axis=1)
    four = 4 * np.where(COUNTS >= 4, faces, 0).max(axis=1)
    full = np.array([sorted(c)[-2:] == [2, 3] for c in COUNTS])
    return upper_boxes(["ones", "twos", "threes", "fours", "fives", "sixes"]) + [
        Box("one pair", one_pair),
        Box("two pairs", two_pairs),
        Box("three of a kind", three),
        Box("four of a kind", four),
        Box("small straight", np.where(_straight([1, 2, 3, 4, 5]), 15, 0)),
        Box("large straight", np.where(_straight([2, 3, 4, 5, 6]), 20, 0)),
        Box("full house", np.where(full, _sums(), 0)),
        Box("chance", _sums()),
        Box("yatzy", np.where(COUNTS.max(axis=1) == 5, 50, 0)),
    ]


@dataclass(frozen=True)
class Rules:
    """A game: its boxes, the upper bonus, and the Yahtzee joker (``free``, ``forced`` or
    ``none``: with none, an extra Yahtzee is scored as any other roll and pays no bonus)."""

    boxes: list[Box]
    upper_bonus: int
    joker: str = "none"

    @property
    def yahtzee_box(self) -> int | None:
        names = [b.name for b in self.boxes]
        return names.index("yahtzee") if self.joker != "none" else None


def reachable_uppers(rules: Rules) -> np.ndarray:
    """R[m, u]: whether the upper total u (capped) can be made by the upper boxes filled
    in mask m."""
    n = len(rules.boxes)
    reach = np.zeros((1 << n, UPPER_CAP + 1), dtype=bool)
    for mask in range(1 << n):
        totals = {0}
        for b, box in enumerate(rules.boxes):
            if mask >> b & 1 and box.face is not None:
                totals = {min(UPPER_CAP, t + c * (box.face + 1)) for t in totals for c in range(6)}
        reach[mask, sorted(totals)] = True
    return reach


def solve(rules: Rules, chunk: int = 4096) -> float:
    """The expected final score of the game under optimal play."""
    n = len(rules.boxes)
    p = transition()
    p_t = np.ascontiguousarray(p.T)
    first = p[KEEP_INDEX[(0,) * FACES]]
    levels = lattice_parents()
    reach = reachable_uppers(rules)
    yb = rules.yahtzee_box
    flags = 2 if yb is not None else 1
    # value[mask, upper, flag]: the expected score still to come at a turn start
    value = np.zeros((1 << n, UPPER_CAP + 1, flags))
    full = (1 << n) - 1
    value[full, UPPER_CAP, :] = rules.upper_bonus
    yahtzee_rolls = np.flatnonzero(COUNTS.max(axis=1) == DICE)
    popcount = np.array([bin(m).count("1") for m in range(1 << n)])
    for filled in range(n - 1, -1, -1):
        states = [
            (m, u, f)
            for m in np.flatnonzero(popcount == filled)
            for u in np.flatnonzero(reach[m])
            for f in range(flags)
            if f == 0 or (m >> yb & 1)
        ]
        for start in range(0, len(states), chunk):
            block = np.array(states[start : start + chunk])
            mask, upper, flag = block[:, 0], block[:, 1], block[:, 2]
            best = _final_rolls(rules, value, mask, upper, flag, yahtzee_rolls)
            for _ in range(2):
                best = _keep_lattice(best @ p_t, levels)[:, ROLL_COLUMNS]
            value[mask, upper, flag] = best @ first
    return float(value[0, 0, 0])


def _final_rolls(rules, value, mask, upper, flag, yahtzee_rolls) -> np.ndarray:
    """F[s, r]: the best box's score plus the next state's value, for each state s of the
    block and each final roll r (the joker's rolls corrected afterwards)."""
    rows = len(mask)
    best = np.full((rows, len(ROLLS)), -np.inf)
    yb = rules.yahtzee_box
    for b, box in enumerate(rules.boxes):
        open_ = (mask >> b & 1) == 0
        nxt = mask | (1 << b)
        if box.face is not None:
            up = np.minimum(UPPER_CAP, upper[:, None] + box.score[None, :])
            gain = box.score[None, :] + value[nxt[:, None], up, flag[:, None]]
        elif b == yb:
            holds = (box.score == 50).astype(int)
            gain = box.score[None, :] + value[nxt[:, None], upper[:, None], holds[None, :]]
        else:
            gain = box.score[None, :] + value[nxt, upper, flag][:, None]
        np.maximum(best, np.where(open_[:, None], gain, -np.inf), out=best)
    if yb is not None:
        _jokers(rules, value, mask, upper, flag, yahtzee_rolls, best)
    return best


def _jokers(rules, value, mask, upper, flag, yahtzee_rolls, best) -> None:
    """An extra Yahtzee (the Yahtzee box filled): +100 when the box holds 50, and the
    joker: full house and the straights score 25 / 30 / 40 (free choice: when the face's
    upper box is filled; forced: the face's upper box first if empty, else a lower box,
    else an upper box at zero)."""
    yb = rules.yahtzee_box
    filled = (mask >> yb & 1) == 1
    rows = np.flatnonzero(filled)
    if not len(rows):
        return
    joker_score = {"full house": 25, "small straight": 30, "large straight": 40}
    for r in yahtzee_rolls:
        face = int(np.argmax(COUNTS[r]))
        m, u, f = mask[rows], upper[rows], flag[rows]
        face_box = next(b for b, box in enumerate(rules.boxes) if box.face == face)
        face_open = (m >> face_box & 1) == 0
        gains = {}
        for b, box in enumerate(rules.boxes):
            if b == yb:
                continue
            nxt = m | (1 << b)
            score = joker_score.get(box.name, int(box.score[r]))
            if box.name in joker_score and rules.joker == "free":
                score = np.where(face_open, int(box.score[r]), score)
            up = np.minimum(UPPER_CAP, u + (score if box.face is not None else 0))
            gain = score + value[nxt, up if box.face is not None else u, f]
            gains[b] = np.where((m >> b & 1) == 0, gain, -np.inf)
        if rules.joker == "free":
            choice = np.max(list(gains.values()), axis=0)
        else:
            lower = [b for b, box in enumerate(rules.boxes) if box.face is None and b != yb]
            upper_boxes_ = [b for b, box in enumerate(rules.boxes) if box.face is not None]
            any_lower = np.max([gains[b] for b in lower], axis=0)
            upper_zero = np.max(
                [
                    np.where((m >> b & 1) == 0, value[m | (1 << b), u, f], -np.inf)
                    for b in upper_boxes_
                ],
                axis=0,
            )
            choice = np.where(
                face_open, gains[face_box], np.where(np.isfinite(any_lower), any_lower, upper_zero)
            )
        best[rows, r] = choice + np.where(f == 1, 100, 0)


def _keep_lattice(v: np.ndarray, levels) -> np.ndarray:
    """M[s, k] = the best V[s, k'] over the keeps k' within k (k itself included)."""
    m = v.copy()
    for cols, parents in levels:
        for par in parents:
            m[:, cols] = np.maximum(m[:, cols], m[:, par])
    return m


GAMES = {
    "yahtzee": lambda joker: Rules(yahtzee_boxes(), 35, joker),
    "yatzy": lambda joker: Rules(yatzy_boxes(), 50, "none"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="yahtzee")
    parser.add_argument("--joker", choices=["free", "forced", "none"], default="free")
    parser.add_argument("--boxes", type=int, help="the first BOXES boxes only")
    args = parser.parse_args()
    rules = GAMES[args.game](args.joker)
    if args.boxes:
        kept = rules.boxes[: args.boxes]
        joker = rules.joker if any(b.name == "yahtzee" for b in kept) else "none"
        rules = Rules(kept, rules.upper_bonus, joker)
    start = time.perf_counter()
    result = solve(rules)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.game} ({len(rules.boxes)} boxes, joker {rules.joker}): {result:.10f}")
    print(f"{seconds:.1f} s, peak {peak:.0f} MiB")


if __name__ == "__main__":
    main()
