"""What a solved policy learned, by kind of choice (the game labels its choices).

At every decision (a state and chance outcome offering two or more choices) each kind of
choice is counted as available, chosen by the policy, strictly best (a choice of this
kind is cheaper than every choice of any other kind), or tied for best with another kind. A rule such as Tricky
Trios' "flip a known card only to complete a trio" is then read off the counts, computed
from the exported values and the rules rather than asserted: "strictly best" is 0 for
the kind the rule avoids.

Comparisons are exact when the file records exact values (floats only screen the
near-ties), else to a relative tolerance of 1e-9, and the summary says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import MarkovGame
from .policy_file import BadPolicy, PolicyColumns, segments
from . import contract

TOLERANCE = 1e-9
BATCH = 1 << 14


@dataclass
class KindCounts:
    """Decisions where the kind is available / chosen / strictly best / tied for best."""

    name: str
    available: int = 0
    chosen: int = 0
    strictly_best: int = 0
    tied_best: int = 0


def summarise_by_kind(game: MarkovGame, cols: PolicyColumns) -> tuple[list[KindCounts], int, bool]:
    """(counts per kind, decisions seen, exact?) for an expected-cost policy."""
    names = game.choice_kind_names
    counts = [KindCounts(name) for name in names]
    if cols.by_budget:
        raise BadPolicy("a summary by kind of choice is for expected-cost policies only")
    exact = cols.exact is not None
    sign = game.measure.sign  # a game's points compared as the engine's costs: less is better
    parsed: dict[int, object] = {}

    def value(i: int):
        from ..solution import parse_value

        if i not in parsed:
            parsed[i] = parse_value(cols.exact[i])
        return parsed[i]

    order = np.argsort(cols.code, kind="stable")
    sorted_codes, ptr = cols.code[order], cols.out_ptr
    live = np.flatnonzero(cols.n_out > 0)
    decisions = 0
    for lo in range(0, len(live), BATCH):
        idx = live[lo : lo + BATCH]
        exp = contract.expansion(game, cols.code[idx])
        kinds = np.asarray(game.choice_kinds(cols.code[idx], exp))
        nxt = np.asarray(exp.next)
        cost = sign * np.broadcast_to(np.asarray(exp.cost, dtype=np.int64), nxt.shape)
        b_of, k = np.nonzero(np.asarray(exp.weight) > 0)
        outs = segments(ptr, idx)
        if not np.array_equal(cols.outcome[outs], k):
            raise BadPolicy("the policy's outcomes do not match the rules")
        legal = nxt[b_of, k] >= 0
        many = legal.sum(axis=1) >= 2
        pos = np.minimum(np.searchsorted(sorted_codes, nxt[b_of, k]), len(order) - 1)
        target = np.where(legal, order[pos], 0)
        if (legal & (sorted_codes[pos] != nxt[b_of, k])).any():
            raise BadPolicy("a choice leads to a state the file does not list")
        q = np.where(legal, cost[b_of, k] + sign * cols.value[target], np.inf)
        best = q.min(axis=1)
        near = legal & (q <= (best + TOLERANCE * np.maximum(1.0, np.abs(best)))[:, None])
        chosen = cols.choose[0, outs]
        kb = kinds[b_of, k]
        for r in np.flatnonzero(many):
            decisions += 1
            ks = kb[r][legal[r]]
            for kind in np.unique(ks):
                counts[kind].available += 1
            counts[kb[r, chosen[r]]].chosen += 1
            tied = np.flatnonzero(near[r])
            if exact and len(tied) > 1:
                qx = {
                    c: int(cost[b_of[r], k[r], c]) + sign * value(int(target[r, c])) for c in tied
                }
                low = min(qx.values())
                tied = np.array([c for c in tied if qx[c] == low])
            best_kinds = set(kb[r, tied].tolist())
            if len(best_kinds) == 1:  # cheaper than every choice of another kind
                counts[best_kinds.pop()].strictly_best += 1
            else:
                for kind in best_kinds:
                    counts[kind].tied_best += 1
    return counts, decisions, exact
