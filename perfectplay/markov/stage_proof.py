"""The exact proof of a small game solved by stages: every stage's value as a fraction,
checked optimal, a stage that returns to itself (a bust) included.

A stage's turn is its template with its exit slots' values given (``markov/stages.py``):
each slot's best option, its points plus the value of the stage it leads to. Stages are
taken as the float solve took them, layer by layer, so every stage an exit leads to has
its exact value already; a stage's template is then evaluated backwards in rationals
(python-flint), the best option at every decision compared exactly.

A stage whose exit returns to itself is worth x = f(x), f its turn's value when
returning is worth x: the most over the turn's policies of a line a + b x, b the chance
the policy returns (convex, every slope at most 1). Starting from the float solve's
value, each step evaluates f at x exactly along with the slope of the best policy there
(ties broken towards the steeper: the right derivative), and moves x to that line's
fixed point a / (1 - b) (Newton's step on f(x) - x, which a piecewise linear convex
function ends after finitely many). The stage is proven when f(x) equals x exactly with
a slope below 1: f(x) - x then falls, so x is its only root, the stage's value, and
the best play at x is an optimal strategy. A best play that returns for certain (slope
1) is refused as the float solve refuses it.

The proof's work is the template's edges once or a few times per stage, in Python
rationals: it is made where the stages solved times the template's edges are at most
``PROOF_EDGES`` (Pig to 100, Farkle's race to 1,000: under a second to a few seconds),
and says why not otherwise.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..errors import IncompleteRules
from ..solution import PROVEN, Solution
from .stage_model import CHANCE, END, NONE, Stages
from .stages import _exit_arrays

#: Stages solved times template edges at most, for the exact proof.
PROOF_EDGES = 1_000_000
#: Newton steps at most for a stage that returns to itself (a handful are taken).
STEPS = 64


def proof_refusal(st: Stages) -> str | None:
    """Why the exact proof of `st` is not made (too much work), or None."""
    stages, edges = sum(len(layer) for layer in st.layers), len(st.template.target)
    if stages * edges > PROOF_EDGES:
        return (
            f"its exact proof would take {stages:,} stages times {edges:,} template edges "
            f"in rationals, more than {PROOF_EDGES:,}"
        )
    return None


def prove_stages(game, solution: Solution) -> None:
    """Make `solution`, the float solve of the staged `game`, exact and proven where the
    proof is small enough (``proof_refusal``), else say why in its stats
    (``exact_refused``). The strategy's stage values become the floats nearest the exact
    ones."""
    st = game.stages()
    why = proof_refusal(st)
    if why is not None:
        solution.stats["exact_refused"] = why
        return
    t0 = time.perf_counter()
    sign = 1 if game.pays else -1
    values = solution.strategy.values
    exact = _exact_values(st, sign, values * sign)
    for stage, value in exact.items():
        values[stage] = float(sign * value)
    start = sign * exact[st.start]
    solution.value = Fraction(int(start.p), int(start.q))
    solution.exact = solution.proven = True
    solution.status = PROVEN
    solution.stats["exact_seconds"] = round(time.perf_counter() - t0, 4)


def _exact_values(st: Stages, sign: int, guesses: np.ndarray) -> dict[int, fmpq]:
    """Every stage's exact value (maximised: the game's points times `sign`), layer by
    layer; `guesses`, the float solve's values in the same terms, start the Newton steps
    of a stage that returns to itself."""
    t = st.template
    n = t.nodes
    totals = np.add.reduceat(t.weight, t.start[:-1])
    edges = [
        [
            (int(t.target[e]), int(t.weight[e]), _rational(sign * t.points[e]))
            for e in range(t.start[i], t.start[i + 1])
        ]
        for i in range(n)
    ]
    chance = [bool(k == CHANCE) for k in t.kind]
    exact: dict[int, fmpq] = {}
    for layer in st.layers:
        codes = np.asarray(layer, dtype=np.int64)
        points, nxt = _exit_arrays(st, codes)
        for b, stage in enumerate(codes.tolist()):
            slots, loops = _slots(stage, points[b], nxt[b], sign, exact)
            if not loops:
                exact[stage] = _turn(edges, chance, totals, slots, fmpq(0))[0]
                continue
            exact[stage] = _fixed_point(stage, edges, chance, totals, slots, guesses[stage])
    return exact


def _rational(x: float) -> fmpq:
    """The float `x` as the rational it is."""
    p, q = float(x).as_integer_ratio()
    return fmpq(p, q)


def _slots(stage, points, nxt, sign, exact) -> tuple[list[list[tuple[fmpq, bool]]], bool]:
    """Each exit slot's options as (their worth without a return, whether they return to
    `stage` itself), and whether any does."""
    slots, loops = [], False
    for s in range(points.shape[0]):
        options = []
        for o in range(points.shape[1]):
            to = int(nxt[s, o])
            if to == NONE:
                continue
            worth = _rational(sign * points[s, o])
            if to == stage:
                loops = True
            elif to != END:
                if to not in exact:
                    raise IncompleteRules(
                        f"stage {stage}: option {o} of exit slot {s} leads to a stage not "
                        "solved before it"
                    )
                worth += exact[to]
            options.append((worth, to == stage))
        slots.append(options)
    return slots, loops


def _turn(edges, chance, totals, slots, x: fmpq) -> tuple[fmpq, fmpq]:
    """The turn's value when returning is worth `x`, and the chance that the best play
    there returns (of two plays equally good, the likelier to return: the slope from
    the right)."""
    n = len(edges)
    value: list = [None] * n
    slope: list = [None] * n  # (the int 0 where no return is chosen: cheap to add)
    for options in slots:
        best = max(((w + x if back else w), int(back)) for w, back in options)
        value.append(best[0])
        slope.append(best[1])
    for i in range(n - 1, -1, -1):
        if chance[i]:
            v, b = fmpq(0), 0
            for c, w, q in edges[i]:
                v += w * (q + value[c])
                b += w * slope[c]
            value[i], slope[i] = v / int(totals[i]), (fmpq(b) / int(totals[i]) if b else 0)
        else:
            value[i], slope[i] = max((q + value[c], slope[c]) for c, _, q in edges[i])
    return value[0], slope[0]


def _fixed_point(stage, edges, chance, totals, slots, guess: float) -> fmpq:
    """The exact x = turn(x) of a stage that returns to itself (module docstring), from
    the float solve's `guess`."""
    x = _rational(guess)
    for _ in range(STEPS):
        v, b = _turn(edges, chance, totals, slots, x)
        if b >= 1:
            raise IncompleteRules(
                f"stage {stage}: its best play returns to its start for certain (the game "
                "need not end, or its score grows without end)"
            )
        if v == x:
            return x
        x = (v - b * x) / (1 - b)
    raise IncompleteRules(f"stage {stage}: its exact value was not reached in {STEPS} steps")
