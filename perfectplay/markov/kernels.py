"""Compiled inner loops over a Graph's arrays (numba, cached on disk)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .dense import solve_in_place


#: A state's choices are read through its distinct (target, cost) pairs (``compile.Pairs``)
#: when it has at most this many: a choice's position among them then fits in a uint8.
LOCAL_MAX = 255


#: Slots of ``distinct_pairs``' hash table of one row's pairs (a power of two, at least
#: twice LOCAL_MAX so that probes stay short; it lives in the L1 cache).
_SLOTS = 1024


@njit(cache=True)
def distinct_pairs(out_ptr, choice_ptr, target, cost):
    """The ``compile.Pairs`` layout of a graph: (row pointers, targets, costs of each
    state's distinct (target, cost) pairs in order of first appearance, each choice's
    position in its state's row). One pass, each row's pairs found through a small hash
    table (open addressing, cleared by stamping with the state), not an array over all
    states: a lookup in it stays in the cache. A state with more than LOCAL_MAX pairs
    keeps every choice in its row (its ``local`` entries are 0 and unused)."""
    n = out_ptr.shape[0] - 1
    n_edges = target.shape[0]
    ptr = np.zeros(n + 1, dtype=np.int64)
    local = np.zeros(n_edges, dtype=np.uint8)
    stamp = np.full(_SLOTS, -1, dtype=np.int64)
    slot_pos = np.empty(_SLOTS, dtype=np.int64)
    cap = min(n_edges, 8 * n + 16)
    p_target = np.empty(cap, dtype=target.dtype)
    p_cost = np.empty(cap, dtype=cost.dtype)
    m = 0
    for s in range(n):
        lo = m
        e_lo, e_hi = choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]
        if cap - m < e_hi - e_lo:  # room for the whole row
            cap = min(n_edges, max(2 * cap, m + e_hi - e_lo))
            grown_t = np.empty(cap, dtype=target.dtype)
            grown_c = np.empty(cap, dtype=cost.dtype)
            for i in range(m):  # (a loop: a slice copy costs seconds of compiling)
                grown_t[i] = p_target[i]
                grown_c[i] = p_cost[i]
            p_target, p_cost = grown_t, grown_c
        for e in range(e_lo, e_hi):
            t, c = target[e], cost[e]
            h = (np.uint64(t) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(c)) >> np.uint64(54)
            while stamp[h] == s and not (p_target[slot_pos[h]] == t and p_cost[slot_pos[h]] == c):
                h = (h + np.uint64(1)) & np.uint64(_SLOTS - 1)
            if stamp[h] != s:
                if m - lo == LOCAL_MAX:  # too many pairs: the row keeps every choice
                    m = lo
                    for x in range(e_lo, e_hi):
                        p_target[m] = target[x]
                        p_cost[m] = cost[x]
                        local[x] = 0
                        m += 1
                    break
                stamp[h] = s
                slot_pos[h] = m
                p_target[m] = t
                p_cost[m] = c
                m += 1
            local[e] = slot_pos[h] - lo
        ptr[s + 1] = m
    return ptr, p_target[:m].copy(), p_cost[:m].copy(), local


@njit(inline="always")
def no_pairs(target, cost):
    """``compile.Pairs.none()``'s arrays made inside a kernel, typed as the graph's own
    `target` and `cost`: no layout, every state's choices read directly (``_packed``)."""
    return np.zeros(1, dtype=np.int64), target[:0], cost[:0], np.zeros(0, dtype=np.uint8)


@njit(inline="always")
def _packed(s, pairs):
    """Whether state s's choices are read through its ``compile.Pairs`` row: the graph has
    the layout and s has at most LOCAL_MAX pairs (else the fallback reads them directly)."""
    ptr = pairs[0]
    return ptr.shape[0] > 1 and ptr[s + 1] - ptr[s] <= LOCAL_MAX


@njit(inline="always")
def _gather(s, V, pairs, buf):
    """``cost + V[target]`` of the packed state s's distinct pairs into `buf`."""
    ptr, p_target, p_cost, _ = pairs
    lo = ptr[s]
    for j in range(ptr[s + 1] - lo):
        buf[j] = p_cost[lo + j] + V[p_target[lo + j]]


@njit(inline="always")
def _packed_value(s, V, out_ptr, weight, denom, choice_ptr, pairs, buf):
    """The Bellman update of a packed state s (``_packed``): each outcome's cheapest
    choice, its sum read from ``_gather``'s buffer."""
    _gather(s, V, pairs, buf)
    local = pairs[3]
    total = 0.0
    e = choice_ptr[out_ptr[s]]
    for o in range(out_ptr[s], out_ptr[s + 1]):
        end = choice_ptr[o + 1]  # an outcome's first choice starts the minimum: 15% faster
        best = buf[local[e]]
        e += 1
        while e < end:
            q = buf[local[e]]
            if q < best:
                best = q
            e += 1
        total += weight[o] * best
    return total / denom[s]


@njit(cache=True)
def direct_value(s, V, out_ptr, weight, denom, choice_ptr, target, cost):
    """The Bellman update of state s read without the layout (the fallback, and every
    state in ``by_components``): a compiled function of its own, called, not inlined:
    inlined in the sweep beside ``_packed_value`` the packed sweep ran 1.7 times slower
    and this one 1.4 times (dice-cards n=9; the branch between the two must also stay at
    the call site, with no function around it returning either value; the packed update
    called rather than inlined ran 20% slower at n=10)."""
    total = 0.0
    for o in range(out_ptr[s], out_ptr[s + 1]):
        best = np.inf
        for e in range(choice_ptr[o], choice_ptr[o + 1]):
            q = cost[e] + V[target[e]]
            if q < best:
                best = q
        total += weight[o] * best
    return total / denom[s]


@njit(cache=True)
def _margin(best):
    """How much better a choice must be to count as better (rounding; zero at infinity)."""
    return 1e-12 * max(1.0, abs(best)) if best < np.inf else 0.0


@njit(cache=True, nogil=True)
def gauss_seidel_sweeps(V, order, rows, pairs, tol, max_sweeps):
    """``sweeps`` over `order` (compiled once for callers outside numba; without the GIL,
    so that two threads sweep at once: ``halves``)."""
    return sweeps(V, order, rows, pairs, np.empty(LOCAL_MAX), tol, max_sweeps, False)


@njit(inline="always")
def sweeps(V, order, rows, pairs, buf, tol, max_sweeps, bound_error):
    """Minimum-expected-cost value iteration in place over the states of `order`, visited
    in that order, the other states' values held fixed: the one sweep of the package,
    over the whole graph (``solve._sweep``) or over one strong component once its exits
    are final (``by_components``).

    Started from infinity off the goal, values decrease towards the optimum, so a costly
    loop back to a state is never mistaken for a cheap one and a nearly acyclic graph
    visited successors-first converges in a few sweeps. States that would keep infinity
    for ever (each has an outcome leading only back among them) are then restarted above
    every finite value their choices can see, from where value iteration still
    converges, though no longer from above. Stops when a sweep changes no value by more
    than `tol` (relative to max(1, |V|)), and with `bound_error` only once the error left
    is estimated below `tol` too (``_settled``). Returns (sweeps done, last largest change).
    `rows`: the graph's ``compile.Rows``; `pairs`: its ``compile.Pairs`` arrays
    (``Pairs.none()``'s: none); `buf`: room for LOCAL_MAX floats (allocated by the caller:
    ``by_components`` sweeps millions of small components).
    """
    out_ptr, weight, denom, choice_ptr, target, cost = rows
    delta = previous = np.inf
    done = 0
    while done < max_sweeps and not _settled(delta, previous, tol, bound_error):
        previous, delta = delta, 0.0
        for i in range(order.shape[0]):
            s = order[i]
            if out_ptr[s] == out_ptr[s + 1]:
                continue  # terminal
            if _packed(s, pairs):
                v = _packed_value(s, V, out_ptr, weight, denom, choice_ptr, pairs, buf)
            else:
                v = direct_value(s, V, out_ptr, weight, denom, choice_ptr, target, cost)
            if v == V[s]:
                continue
            d = np.inf if V[s] == np.inf else abs(v - V[s]) / max(1.0, abs(v))
            if d > delta:
                delta = d
            V[s] = v
        done += 1
        if _settled(delta, previous, tol, bound_error) and _restart_stuck(
            V, order, out_ptr, choice_ptr, target, cost
        ):
            delta = np.inf
    return done, delta


@njit(inline="always")
def _settled(delta, previous, tol, bound_error):
    """Whether sweeps whose last two largest changes were `previous`, then `delta`, have
    settled: `delta` is at most `tol`, and with `bound_error` so is the error left. Sweeps
    that shrink the changes by a factor r = delta / previous are r/(1 - r) times the
    last change away from their limit: a cycle left with probability 1/100 per turn
    changes by 1e-12 when it is still 1e-10 away (a generated game whose only cycle is
    left seldom was 1e-9 off at 72). A change a thousand times below `tol` is settled
    whatever the factor (rounding keeps changing the last bits)."""
    if delta > tol:
        return False
    if not bound_error or delta <= 1e-3 * tol:
        return True
    r = delta / previous  # unknown after the first sweep from infinity: not settled
    return previous < np.inf and r < 1.0 and delta * r <= tol * (1.0 - r)


@njit(cache=True)
def restart_stuck(V, order, out_ptr, choice_ptr, target, cost):
    """``_restart_stuck`` for callers outside numba (``halves.sweep``)."""
    return _restart_stuck(V, order, out_ptr, choice_ptr, target, cost)


@njit(inline="always")
def _restart_stuck(V, order, out_ptr, choice_ptr, target, cost):
    """Give the states of `order` still at infinity a finite value above every finite
    value their choices can reach. Returns whether there were any."""
    stuck = False
    for i in range(order.shape[0]):
        if V[order[i]] == np.inf:
            stuck = True
    if not stuck:
        return False
    high = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        for e in range(choice_ptr[out_ptr[s]], choice_ptr[out_ptr[s + 1]]):
            x = V[target[e]] + cost[e]
            if x < np.inf and x > high:
                high = x
    for i in range(order.shape[0]):
        if V[order[i]] == np.inf:
            V[order[i]] = 2.0 * high + 1.0
    return True


@njit(cache=True)
def greedy_choices(V, out_ptr, choice_ptr, target, cost, pairs):
    """For each outcome, the edge index of its cheapest choice (cost + value of the next
    state). Ties go to the lowest choice, so the policy is deterministic: improving the
    policy of every outcome's first choice (``improve_choices``)."""
    best = choice_ptr[:-1].copy()  # int32 where the edges allow
    improve_choices(V, best, out_ptr, choice_ptr, target, cost, pairs, 0, out_ptr.shape[0] - 1)
    return best


@njit(inline="always")
def _improve_packed(s, current, out_ptr, choice_ptr, local, buf):
    """``improve_choices`` at the packed state s, its sums in `buf`. Returns changes."""
    changed = 0
    for o in range(out_ptr[s], out_ptr[s + 1]):
        cur = current[o]
        best = buf[local[cur]]
        for e in range(choice_ptr[o], choice_ptr[o + 1]):
            q = buf[local[e]]
            if q < best - _margin(best):
                best = q
                cur = e
        if cur != current[o]:
            current[o] = cur
            changed += 1
    return changed


@njit(inline="always")
def improve_direct(s, V, current, out_ptr, choice_ptr, target, cost):
    """``improve_choices`` at state s, its choices read directly. Returns changes."""
    changed = 0
    for o in range(out_ptr[s], out_ptr[s + 1]):
        cur = current[o]
        best = cost[cur] + V[target[cur]]
        for e in range(choice_ptr[o], choice_ptr[o + 1]):
            q = cost[e] + V[target[e]]
            if q < best - _margin(best):
                best = q
                cur = e
        if cur != current[o]:
            current[o] = cur
            changed += 1
    return changed


@njit(cache=True, nogil=True)
def improve_choices(V, current, out_ptr, choice_ptr, target, cost, pairs, first, last):
    """Greedy minimising choice per outcome of the states first..last-1, keeping the
    current one unless another is better by more than rounding (so a converged policy
    stays put). Returns changes made. A packed state's sums are read from ``_gather``'s
    buffer (the same sums). Without the GIL: two threads improve two ranges at once."""
    changed = 0
    buf = np.empty(LOCAL_MAX)
    if pairs[0].shape[0] == 1:  # no layout: a loop of its own, without the per-state test
        for s in range(first, last):
            changed += improve_direct(s, V, current, out_ptr, choice_ptr, target, cost)
        return changed
    for s in range(first, last):
        if _packed(s, pairs):
            _gather(s, V, pairs, buf)
            changed += _improve_packed(s, current, out_ptr, choice_ptr, pairs[3], buf)
        else:
            changed += improve_direct(s, V, current, out_ptr, choice_ptr, target, cost)
    return changed


@njit(cache=True)
def policy_rows(out_ptr, weight, best, target, cost, pairs):
    """The graph of the policy `best` (a choice edge per outcome) as rows per state of
    (weight, target, cost): a packed state's outcomes that choose the same (target, cost)
    pair (``compile.Pairs``) merged into one entry with their summed weight (dice-cards
    n=10: about 18 entries per state instead of 55 outcomes), any other state's outcomes
    one entry each. Returns (row pointers, weights, targets, costs); a weight sum is at
    most its state's total, so it has ``denom``'s type (here: the weights' own)."""
    n = out_ptr.shape[0] - 1
    local = pairs[3]
    slot = np.full(LOCAL_MAX, -1, dtype=np.int64)  # pair j's entry, when in the current row
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    m = 0
    for s in range(n):
        lo = m
        if _packed(s, pairs):
            for o in range(out_ptr[s], out_ptr[s + 1]):
                j = local[best[o]]
                if slot[j] < lo:
                    slot[j] = m
                    m += 1
        else:
            m += out_ptr[s + 1] - out_ptr[s]
        row_ptr[s + 1] = m
    r_weight = np.zeros(m, dtype=np.int64)
    r_target = np.empty(m, dtype=target.dtype)
    r_cost = np.empty(m, dtype=cost.dtype)
    slot[:] = -1
    m = 0
    for s in range(n):
        lo = m
        if _packed(s, pairs):
            first = pairs[0][s]
            for o in range(out_ptr[s], out_ptr[s + 1]):
                j = local[best[o]]
                if slot[j] < lo:
                    slot[j] = m
                    r_target[m] = pairs[1][first + j]
                    r_cost[m] = pairs[2][first + j]
                    m += 1
                r_weight[slot[j]] += weight[o]
        else:
            for o in range(out_ptr[s], out_ptr[s + 1]):
                r_weight[m] = weight[o]
                r_target[m] = target[best[o]]
                r_cost[m] = cost[best[o]]
                m += 1
    return row_ptr, r_weight, r_target, r_cost


@njit(cache=True)
def evaluate_blocks(
    V, order, block_ptr, label, row_ptr, row_weight, row_target, row_cost, denom, max_dense
):
    """Expected cost of a fixed policy, given as ``policy_rows``, one strong component of
    its graph at a time, successors first: substitution for one state, a dense solve for a
    small block (``dense.solve_in_place``), Gauss-Seidel for a large one. Returns False if
    some block never exits (the policy does not finish from there) or its dense system is
    singular, leaving V partly updated."""
    out_ptr, weight, pol_target, pol_cost = row_ptr, row_weight, row_target, row_cost
    pos = np.zeros(label.shape[0], dtype=np.int64)
    for b in range(block_ptr.shape[0] - 1):
        lo, hi = block_ptr[b], block_ptr[b + 1]
        m = hi - lo
        lab = label[order[lo]]
        exits = False
        for i in range(lo, hi):
            s = order[i]
            for o in range(out_ptr[s], out_ptr[s + 1]):
                if label[pol_target[o]] != lab:
                    exits = True
        if out_ptr[order[lo]] == out_ptr[order[lo] + 1]:
            continue  # terminal
        if not exits:
            return False
        if m <= max_dense:
            A = np.zeros((m, m))
            rhs = np.zeros(m)
            for i in range(m):
                pos[order[lo + i]] = i
            for i in range(m):
                s = order[lo + i]
                A[i, i] += denom[s]
                for o in range(out_ptr[s], out_ptr[s + 1]):
                    t = pol_target[o]
                    rhs[i] += weight[o] * pol_cost[o]
                    if label[t] == lab:
                        A[i, pos[t]] -= weight[o]
                    else:
                        rhs[i] += weight[o] * V[t]
            if not solve_in_place(A, rhs):  # singular: a safeguard (an exit makes it regular)
                return False
            for i in range(m):
                V[order[lo + i]] = rhs[i]
        else:
            for i in range(lo, hi):
                if V[order[i]] == np.inf:
                    V[order[i]] = 0.0
            delta = np.inf
            sweeps = 0
            while delta > 1e-15 and sweeps < 1_000_000:
                delta = 0.0
                for i in range(lo, hi):
                    s = order[i]
                    tot = 0.0
                    for o in range(out_ptr[s], out_ptr[s + 1]):
                        tot += weight[o] * (pol_cost[o] + V[pol_target[o]])
                    v = tot / denom[s]
                    d = abs(v - V[s]) / max(1.0, abs(v))
                    if d > delta:
                        delta = d
                    V[s] = v
                sweeps += 1
    return True


@njit(cache=True)
def mark_unseen(bits, codes):
    """Mask of `codes` whose bit in the bitmap was clear; sets those bits."""
    fresh = np.zeros(codes.shape[0], dtype=np.bool_)
    for i in range(codes.shape[0]):
        c = codes[i]
        byte, bit = c >> 3, np.uint8(1 << (c & 7))
        if not bits[byte] & bit:
            bits[byte] |= bit
            fresh[i] = True
    return fresh


@njit(cache=True)
def permute_pointers(order, out_ptr, choice_ptr, new_out_ptr, new_choice_ptr):
    """The row pointers of the graph renumbered by `order` (state order[i] becomes i)."""
    o_new = 0
    e_new = 0
    for i in range(order.shape[0]):
        s = order[i]
        for o in range(out_ptr[s], out_ptr[s + 1]):
            e_new += choice_ptr[o + 1] - choice_ptr[o]
            o_new += 1
            new_choice_ptr[o_new] = e_new
        new_out_ptr[i + 1] = o_new


@njit(cache=True)
def copy_rows(order, row_ptr, src, dst):
    """The rows of `src` (row s is src[row_ptr[s]:row_ptr[s + 1]]) back to back into
    `dst`, in the order `order`: each row a sequential copy, no index array per element."""
    j = 0
    for i in range(order.shape[0]):
        s = order[i]
        for x in range(row_ptr[s], row_ptr[s + 1]):
            dst[j] = src[x]
            j += 1


@njit(cache=True)
def targets_through_pairs(order, row_ptr, target, new_name, local, pairs_ptr, pairs_target, dst):
    """``copy_rows_renamed`` of the choices' targets, a packed state's read from its row of
    ``compile.Pairs`` already renumbered (`pairs_ptr`, `pairs_target`; `local` as before
    renumbering): a read in the cache per choice instead of a random one into
    `new_name`."""
    j = 0
    for i in range(order.shape[0]):
        s = order[i]
        lo = pairs_ptr[i]
        if pairs_ptr[i + 1] - lo <= LOCAL_MAX:
            for x in range(row_ptr[s], row_ptr[s + 1]):
                dst[j] = pairs_target[lo + local[x]]
                j += 1
        else:
            for x in range(row_ptr[s], row_ptr[s + 1]):
                dst[j] = new_name[target[x]]
                j += 1


@njit(cache=True)
def copy_rows_renamed(order, row_ptr, src, new_name, dst):
    """``copy_rows`` of state indices, each replaced by its new name ``new_name[s]``."""
    j = 0
    for i in range(order.shape[0]):
        s = order[i]
        for x in range(row_ptr[s], row_ptr[s + 1]):
            dst[j] = new_name[src[x]]
            j += 1
