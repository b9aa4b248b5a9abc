"""A Markov game's rules checked where the package reads them (the protocol of
``model.py``): the exploration, ``verify``, ``show``, ``play``, the web board and
Gymnasium read the start, ``is_terminal`` and ``expand`` through these functions, and
``check_game`` (which adds sampled checks of its own) too, so that a rule that breaks
the protocol is refused in one line (``BadRules``: the game, the method, the first bad
value) before anything is computed from it, never solved as if it were true.

What is checked, vectorised over the batch the package reads at once: the start a
Python or numpy integer from 0 (below ``code_bound()`` where the game declares one,
itself a positive integer); ``is_terminal`` one truth value per state; ``expand`` an
``Expansion`` of integer arrays of the documented shapes (weights (B, K), next (B, K,
C), costs broadcasting to next's shape), weights non-negative with a positive total of
at most MAX_TOTAL_WEIGHT per state, next states -1 or codes from 0 (below the code
bound), every outcome offering a choice, every choice's cost (or points) from 0 to
MAX_COST; an exception raised by a rule named as the rule's. Floats are refused, even
whole ones: a weight of 0.5 or a cost of 1.5 would otherwise be cut to an integer
silently (a cost of 1.5 a turn solved as 1: 6 turns for 9), and NaN read as anything.
"""

from __future__ import annotations


import numpy as np
from numba import njit

from ..errors import BadRules, call_rule
from ..ranges import integer
from .model import Expansion, MarkovGame

#: The largest cost (or score) one choice may have: a graph holds them in 32 bits at most.
MAX_COST = 2**31 - 1
#: The largest total of one state's chance weights: the engine holds it in 64 bits, and a
#: total near 2**63 would wrap (weights of 2**61 on six outcomes did, to a division by 0).
MAX_TOTAL_WEIGHT = 2**62
#: Codes are int64: the largest a state may have.
MAX_CODE = 2**63 - 1


def code_bound(game: MarkovGame) -> int | None:
    """``code_bound()``, checked: None or a positive integer."""
    bound = call_rule(game, "code_bound")
    if bound is not None and (not integer(bound) or not 1 <= bound <= MAX_CODE):
        raise BadRules(f"{game}: code_bound() gave {bound!r}, not None or a positive integer")
    return None if bound is None else int(bound)


def start(game: MarkovGame) -> int:
    """``initial_state()``, checked: an integer from 0, below ``code_bound()`` where the
    game declares one."""
    code = call_rule(game, "initial_state")
    if not integer(code) or not 0 <= code <= MAX_CODE:
        raise BadRules(f"{game}: initial_state() gave {code!r}, not an integer from 0 to 2**63 - 1")
    bound = code_bound(game)
    if bound is not None and code >= bound:
        raise BadRules(f"{game}: initial_state() gave {int(code)}, not below code_bound() {bound}")
    return int(code)


def terminal(game: MarkovGame, states: np.ndarray) -> np.ndarray:
    """``is_terminal(states)``, checked: one truth value per state (booleans, or integers
    0 and 1), as a boolean array."""
    states = np.ascontiguousarray(states, dtype=np.int64)
    ends = np.asarray(call_rule(game, "is_terminal", states))
    if ends.shape != states.shape:
        raise BadRules(
            f"{game}: is_terminal() of {len(states)} state{'s' if len(states) != 1 else ''} "
            f"gave shape {ends.shape} (one truth value per state)"
        )
    if ends.dtype.kind != "b" and not (
        ends.dtype.kind in "iu" and ((ends == 0) | (ends == 1)).all()
    ):
        first = ends.ravel()[0].item() if ends.size else None
        raise BadRules(
            f"{game}: is_terminal() gave {ends.dtype} values such as {first!r}, not truth values"
        )
    return ends.astype(bool, copy=False)


def _array(game: MarkovGame, what: str, value: object) -> np.ndarray:
    """One array of an expansion, which must be integers (a float one named by its first
    value that is not whole, else its first value)."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise BadRules(f"{game}: expand() gave {what} that are not an array") from None
    if array.dtype.kind not in "iu":
        flat = array.ravel()
        if array.dtype.kind == "f" and flat.size:
            odd = np.flatnonzero(~np.isfinite(flat) | (flat != np.round(flat)))
            example = float(flat[odd[0] if len(odd) else 0])
            raise BadRules(
                f"{game}: expand() gave {what} of type {array.dtype} such as {example!r} "
                "(integers wanted)"
            )
        raise BadRules(f"{game}: expand() gave {what} of type {array.dtype}, not integers")
    return array.astype(np.int64, copy=False)


def expansion(game: MarkovGame, states: np.ndarray) -> Expansion:
    """``expand(states)`` (states that are not terminal), checked as the module says, its
    arrays as int64 (costs broadcast to next's shape, read-only): what the exploration,
    the screens and ``check_game`` read."""
    states = np.ascontiguousarray(states, dtype=np.int64)
    exp = call_rule(game, "expand", states)
    parts = [getattr(exp, name, None) for name in ("weight", "next", "cost")]
    if any(p is None for p in parts):
        raise BadRules(f"{game}: expand() gave {type(exp).__name__}, not an Expansion")
    weight, nxt, cost = (
        _array(game, w, p) for w, p in zip(("weights", "next states", "costs"), parts)
    )
    B = len(states)
    if weight.ndim != 2 or nxt.ndim != 3 or weight.shape[0] != B or nxt.shape[:2] != weight.shape:
        raise BadRules(
            f"{game}: expand() of {B} state{'s' if B != 1 else ''} gave weights of shape {weight.shape} and next "
            f"states of shape {nxt.shape}, not ({B}, K) and ({B}, K, C)"
        )
    try:
        cost = np.broadcast_to(cost, nxt.shape)
    except ValueError:
        raise BadRules(
            f"{game}: expand() gave costs of shape {cost.shape}, which do not broadcast to "
            f"next's {nxt.shape}"
        ) from None
    _check(game, states, weight, nxt, cost)
    return Expansion(weight=weight, next=nxt, cost=cost)


@njit(cache=True)
def _all_well(weight, nxt, last, top_weight):
    """Whether an expansion's weights and next states hold, in one pass (the usual case,
    in a few microseconds where a dozen numpy passes took 15 on a small batch): weights
    from 0 to `top_weight`, each state with an outcome, next states -1 or codes from 0 to
    `last`, every outcome with a weight offering a choice."""
    B, K, C = nxt.shape
    for b in range(B):
        some = False
        for k in range(K):
            w = weight[b, k]
            if w < 0 or w > top_weight:
                return False
            offered = False
            for c in range(C):
                n = nxt[b, k, c]
                if n < -1 or n > last:
                    return False
                offered = offered or n >= 0
            if w > 0:
                some = True
                if not offered:
                    return False
        if not some:
            return False
    return True


def _check(
    game: MarkovGame, states: np.ndarray, weight: np.ndarray, nxt: np.ndarray, cost: np.ndarray
) -> None:
    """The values of an expansion: weights, next states, choices, costs. A few whole-array
    passes say whether all is well (the usual case: a batch costs a handful of numpy
    calls); only then are the breaches sought one by one, the first named."""
    bound = code_bound(game)
    K = weight.shape[1]
    if weight.size and K and nxt.size and nxt.shape[2]:
        last = MAX_CODE if bound is None else bound - 1
        if (
            _all_well(
                np.ascontiguousarray(weight), np.ascontiguousarray(nxt), last, MAX_TOTAL_WEIGHT // K
            )
            and cost.min() >= 0
            and cost.max() <= MAX_COST
        ):
            return

    def refuse(what: str) -> None:
        raise BadRules(f"{game}: expand(): {what}")

    if (weight < 0).any():
        b, k = map(int, np.argwhere(weight < 0)[0])
        refuse(f"outcome {k} of state {int(states[b])} has weight {int(weight[b, k])}, below 0")
    if weight.shape[1] and weight.max() > MAX_TOTAL_WEIGHT // weight.shape[1]:
        total = weight.sum(axis=1, dtype=np.float64)
        if (total > MAX_TOTAL_WEIGHT).any():
            b = int(np.flatnonzero(total > MAX_TOTAL_WEIGHT)[0])
            refuse(
                f"the weights of state {int(states[b])} total {int(sum(map(int, weight[b]))):,}, "
                f"more than 2**62"
            )
    has_out = weight > 0
    if not has_out.any(axis=1).all():
        b = int(np.flatnonzero(~has_out.any(axis=1))[0])
        refuse(f"state {int(states[b])} has no chance outcome (its weights total 0)")
    live = has_out[..., None]
    low = live & (nxt < -1)
    if low.any():
        b, k, c = map(int, np.argwhere(low)[0])
        refuse(
            f"choice {c} after outcome {k} of state {int(states[b])} leads to {int(nxt[b, k, c])} "
            "(a state code from 0, or -1 for no such choice)"
        )
    if bound is not None:
        beyond = live & (nxt >= bound)
        if beyond.any():
            b, k, c = map(int, np.argwhere(beyond)[0])
            refuse(
                f"choice {c} after outcome {k} of state {int(states[b])} leads to "
                f"{int(nxt[b, k, c])}, not below code_bound() {bound}"
            )
    valid = live & (nxt >= 0)
    empty = has_out & ~valid.any(axis=2)
    if empty.any():
        b, k = map(int, np.argwhere(empty)[0])
        refuse(f"outcome {k} of state {int(states[b])} offers no choice")
    bad = valid & ((cost < 0) | (cost > MAX_COST))
    if bad.any():
        b, k, c = map(int, np.argwhere(bad)[0])
        what = "pays" if game.pays else "costs"
        hint = "" if game.pays else "; a game that pays a score declares pays = True"
        refuse(
            f"choice {c} after outcome {k} of state {int(states[b])} {what} "
            f"{int(cost[b, k, c])}, outside 0 to {MAX_COST:,}{hint}"
        )


def choices(e: Expansion, i: int) -> set:
    """Row i of a checked expansion as a set: (outcome, weight, choice, next, cost) of
    every choice that exists."""
    w, nxt, cost = e.weight[i], e.next[i], e.cost[i]
    return {
        (k, int(w[k]), c, int(nxt[k, c]), int(cost[k, c]))
        for k in np.flatnonzero(w > 0).tolist()
        for c in np.flatnonzero(nxt[k] >= 0).tolist()
    }


def same_state(game: MarkovGame, code: int, a: Expansion, i: int, b: Expansion, j: int) -> None:
    """Refuse in one line a state the rules expanded two ways: row i of `a` and row j of
    `b`, both the state `code` (rules that draw at random, or that answer a state alone
    otherwise than in a batch)."""
    if choices(a, i) != choices(b, j):
        raise BadRules(
            f"{game}: expand() gave state {code} two different sets of outcomes and choices "
            "(the rules must answer the same state the same way, alone or in a batch)"
        )
