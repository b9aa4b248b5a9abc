"""The exact proof streamed by strong components, its memory estimated before it starts
and held to the memory available while it runs.

The proof (``exact``) evaluates the float stage's policy in rational arithmetic and
checks that no choice is strictly better. Done over the whole graph at once it held
every state's rational value, and Python lists of every outcome, at once (Can't Stop on
a board of 155,208 states: 10.7 GB). Here the graph's strong components (of all its
choices) are taken successors first: each is evaluated exactly given its exits' final
values (``exact.solve_block``, or substitution for a lone state), its outcomes'
choices compared exactly with the chosen one (floats screen them: only a choice the
floats do not rank clearly below is compared in rationals), and the two repeated until no choice improves (policy
iteration within the component, its exits fixed: what the whole graph's iteration
reaches, component by component). Only the values some later component reads (a choice
from another component leads there, or the start) are kept as rationals; every other
state's value is kept as the float nearest to it.

Memory: the graph is held already; beside it, a float and a few flags per state, and
the rationals kept, each estimated at ``RATIONAL_BYTES`` (their size is not known
before they are computed: it grows with the game's depth). ``proof_bytes`` is the
estimate shown before the proof starts; the memory available is read again every
``CHECK_EVERY`` components, and a proof that comes within ``SPARE`` of it stops, and
the float answer is given with the reason (``TooLarge``).
"""

from __future__ import annotations

import numpy as np
from flint import fmpq
from numba import njit

from ..memory import available, size_text
from .compile import Graph
from .exact import TooLarge, _Policy, solve_block
from .structure import components

#: Estimated bytes of one rational value kept (a flint rational of a few thousand digits
#: and its place in a dictionary; Can't Stop's values grow to that size).
RATIONAL_BYTES = 4096
#: Bytes per state beside the graph (a float, the labels, the order and the flags).
STATE_BYTES = 40
#: Bytes per choice of one component while it is compared (numpy temporaries).
CHOICE_BYTES = 64
#: Components between two readings of the memory available, and the memory kept spare.
CHECK_EVERY = 64
SPARE = 256 * 2**20


def proof_bytes(n_states: int, kept: int, largest_choices: int) -> int:
    """The memory the streamed proof takes beside the graph (module docstring)."""
    return STATE_BYTES * n_states + RATIONAL_BYTES * kept + CHOICE_BYTES * largest_choices


@njit(cache=True)
def _read_from_outside(out_ptr, choice_ptr, target, labels):
    """Which states a choice from another strong component leads to."""
    n = out_ptr.shape[0] - 1
    outside = np.zeros(n, dtype=np.bool_)
    for s in range(n):
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            if labels[target[e]] != labels[s]:
                outside[target[e]] = True
    return outside


#: A graph of at most this many states keeps every state's rational value (its
#: document's values exact); a larger one only those other components read.
KEEP_ALL_STATES = 20_000


class Plan:
    """The proof's plan, made before it starts: the strong components successors first,
    which values are kept as rationals, and the memory estimate."""

    def __init__(self, g: Graph):
        from .structure_kernels import edge_rows

        rows = edge_rows(g.out_ptr, g.choice_ptr)
        self.labels = components(rows, g.target)
        self.kept = _read_from_outside(g.out_ptr, g.choice_ptr, g.target, self.labels)
        self.kept[g.start] = True
        self.keeps_all = g.n_states <= KEEP_ALL_STATES
        if self.keeps_all:
            self.kept[:] = True
        self.order = np.argsort(self.labels, kind="stable")
        self.bounds = np.flatnonzero(np.diff(self.labels[self.order])) + 1
        sizes = np.diff(np.concatenate(([0], self.bounds, [g.n_states])))
        edges_of = np.diff(rows)
        largest = int(sizes.max(initial=0))
        self.largest = largest
        self.estimate = proof_bytes(
            g.n_states, int(self.kept.sum()), int(edges_of.max(initial=0)) * largest
        )


def prove(g: Graph, best: np.ndarray, V: np.ndarray, max_block: int, plan: Plan, progress):
    """Prove the policy `best` (a choice edge per outcome, improved in place where a
    choice is exactly better) optimal, component by component (module docstring), from
    the float values `V` (updated in place to the floats nearest the exact values).
    Returns (the exact values kept, by state; the most rounds one component took);
    raises ``TooLarge`` for a component over `max_block` states, a policy that never
    finishes, or memory about to run out."""
    exact: dict[int, fmpq] = {}
    rounds = 0
    pieces = np.split(plan.order, plan.bounds)
    for number, block in enumerate(pieces):
        if len(block) > max_block:
            raise TooLarge(f"a cycle of {len(block)} states exceeds the exact limit {max_block}")
        if number % CHECK_EVERY == 0:
            free = available()
            if free < SPARE:
                raise TooLarge(
                    f"the proof came within {size_text(SPARE)} of the memory available "
                    f"after {number:,} of {len(pieces):,} components"
                )
            progress.update(number, f"of {len(pieces):,} components")
        states = block.tolist()
        rounds = max(rounds, _prove_component(g, best, V, states, exact))
        for s in states:
            if not plan.kept[s]:
                exact.pop(s, None)
    return exact, rounds


def _prove_component(g: Graph, best, V, states: list, exact: dict) -> int:
    """Evaluate and improve the component `states` exactly until no choice improves;
    its values into `exact` (rationals) and `V` (floats). Returns the rounds."""
    rounds = 0
    while True:
        rounds += 1
        _evaluate(g, best, states, exact)
        for s in states:
            V[s] = float(exact[s])
        if not _improve(g, best, V, states, exact):
            return rounds


def _evaluate(g: Graph, best, states: list, exact: dict) -> None:
    """The exact values of the component `states` under `best`, its exits' values final
    in `exact` (a linear system over the component's states solved in rationals, its
    exits' values given)."""
    if len(states) == 1 and g.terminal[states[0]]:
        exact[states[0]] = fmpq(0)
        return
    # the policy's rows of these states, as Python ints (``_Policy``), by local index
    local = {s: i for i, s in enumerate(states)}
    out_ptr, weight, target, cost, denom = [], [], [], [], []
    for s in states:
        lo, hi = int(g.out_ptr[s]), int(g.out_ptr[s + 1])
        out_ptr.append(len(weight))
        chosen = best[lo:hi]
        weight += g.weight[lo:hi].tolist()
        target += g.target[chosen].tolist()
        cost += g.cost[chosen].tolist()
        denom.append(int(g.denom[s]))
    out_ptr.append(len(weight))
    # rename: the component's states 0..m-1, each exit m, m + 1, ... (values known)
    exits: dict[int, int] = {}
    for i, t in enumerate(target):
        j = local.get(t)
        if j is None:
            j = exits.setdefault(t, len(states) + len(exits))
        target[i] = j
    m = len(states)
    values: list = [fmpq(0)] * m + [exact[t] for t in exits]
    policy = _Policy(out_ptr + [out_ptr[-1]] * len(exits), weight, target, cost, denom)
    # the policy's own strong components within this one (of all choices), successors
    # first: most are single states, valued by substitution (dice-cards n=5, one
    # component of 1,023 states under all choices, a chain under the policy: 1.1 s as one
    # linear system, 0.02 s so)
    rows = np.array(out_ptr, dtype=np.int64)
    owner = np.repeat(np.arange(m), np.diff(rows))
    cols = np.array(target, dtype=np.int64)
    labels = components(rows, np.where(cols < m, cols, owner))  # (an exit: no edge)
    order = np.argsort(labels, kind="stable")
    for block in np.split(order, np.flatnonzero(np.diff(labels[order])) + 1):
        if len(block) == 1:
            paid, to = policy.terms(int(block[0]))
            if int(block[0]) not in to:
                total = fmpq(paid)
                for t, w in to.items():
                    total += w * values[t]
                values[int(block[0])] = total / denom[int(block[0])]
                continue
        solve_block(block.tolist(), policy, values)
    for i, s in enumerate(states):
        exact[s] = values[i]


def _improve(g: Graph, best, V, states: list, exact: dict) -> bool:
    """Switch, in the component `states`, each outcome's choice to one exactly better
    (floats screen the choices: only those they do not rank clearly below are compared
    in rationals). Returns whether any
    switched."""
    changed = False
    for s in states:
        lo, hi = int(g.out_ptr[s]), int(g.out_ptr[s + 1])
        if lo == hi:
            continue
        e_lo, e_hi = int(g.choice_ptr[lo]), int(g.choice_ptr[hi])
        q = g.cost[e_lo:e_hi] + V[g.target[e_lo:e_hi]]
        e_out = np.repeat(np.arange(lo, hi), np.diff(g.choice_ptr[lo : hi + 1]))
        chosen = q[best[e_out] - e_lo]
        close = np.flatnonzero(q < chosen + 1e-9 * np.maximum(1.0, np.abs(chosen))) + e_lo
        for e in close.tolist():
            o = int(e_out[e - e_lo])
            b = int(best[o])
            if e == b:
                continue
            qe = int(g.cost[e]) + exact[int(g.target[e])]
            if qe < int(g.cost[b]) + exact[int(g.target[b])]:
                best[o] = e
                changed = True
    return changed
