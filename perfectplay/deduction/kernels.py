"""Compiled inner loops of the deduction engine (numba, cached on disk; imported lazily)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cell_sizes(fb, cand, subset, n_feedbacks):
    """sizes[i]: the sizes of the cells of `subset` under guess cand[i], zeros padding the
    row. A set of k secrets falls into at most k cells: with fewer secrets than feedbacks
    each row has k columns, the cells in the order their first secret comes (a row of
    every feedback, zeroed and scanned whole, cost Wordle's small sets 243 columns for a
    handful of secrets); otherwise column f counts feedback f."""
    k = subset.shape[0]
    if k >= n_feedbacks:
        sizes = np.zeros((cand.shape[0], n_feedbacks), dtype=np.int32)
        for i in range(cand.shape[0]):
            row = fb[cand[i]]
            for j in range(k):
                sizes[i, row[subset[j]]] += 1
        return sizes
    sizes = np.zeros((cand.shape[0], k), dtype=np.int32)
    slot = np.zeros(n_feedbacks, dtype=np.int64)
    seen = np.full(n_feedbacks, -1, dtype=np.int64)  # the last row that met feedback f
    for i in range(cand.shape[0]):
        row = fb[cand[i]]
        used = 0
        for j in range(k):
            f = row[subset[j]]
            if seen[f] != i:
                seen[f], slot[f] = i, used
                used += 1
            sizes[i, slot[f]] += 1
    return sizes


@njit(cache=True)
def feedbacks_present(fb, n_feedbacks):
    """present[f]: some entry of the table `fb` is f (one pass, no widened copy: numpy's
    bincount of a 60-million-entry byte table took a second)."""
    present = np.zeros(n_feedbacks, dtype=np.bool_)
    for i in range(fb.shape[0]):
        for j in range(fb.shape[1]):
            present[fb[i, j]] = True
    return present


@njit(cache=True, nogil=True)
def first_moved(fb, rows, g_map, s_map, act):
    """The first (t, j) where a symmetry does not keep the table `fb`:
    ``fb[g_map[t], s_map[j]] != act[fb[rows[t], j]]`` (guess rows[t] and secret j, moved
    to guess g_map[t] and secret s_map[j], must give the moved feedback); (-1, -1) if
    none. Row by row, each moved row read in cache: about a nanosecond an entry, where
    numpy's gather of the moved table took five."""
    for t in range(rows.shape[0]):
        mine = fb[rows[t]]
        moved = fb[g_map[t]]
        for j in range(mine.shape[0]):
            if moved[s_map[j]] != act[mine[j]]:
                return t, j
    return -1, -1


@njit(cache=True, nogil=True)
def transpose(fb, out):
    """out = `fb` transposed, tile by tile (64 x 64 entries: both tiles stay in cache).
    `out` comes from numpy, whose large arrays sit on huge pages: fresh memory costs a
    page fault per 4 kB page otherwise, slow on some virtual machines."""
    rows, cols = fb.shape
    for a in range(0, rows, 64):
        last_a = min(a + 64, rows)
        for b in range(0, cols, 64):
            for j in range(b, min(b + 64, cols)):
                for i in range(a, last_a):
                    out[j, i] = fb[i, j]


@njit(cache=True)
def counts_of_feedback(values, n_feedbacks):
    """counts[i, f] = how many entries of values[i] equal f (feedbacks computed on the fly)."""
    counts = np.zeros((values.shape[0], n_feedbacks), dtype=np.int32)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            counts[i, values[i, j]] += 1
    return counts


@njit(cache=True)
def stabiliser(perms, history_codes, n_symbols, relabel):
    """Position permutations pi (with their symbol maps tau) fixing every history code.

    An element acts as c -> tau[c[pi]]. Returns (ok mask, taus): taus[k, a] is the image
    of symbol a (or -1 for a symbol no history code uses). Without `relabel`, tau must be
    the identity on the symbols used.
    """
    k, L = perms.shape
    ok = np.ones(k, dtype=np.bool_)
    taus = np.full((k, n_symbols), -1, dtype=np.int16)
    used_by = np.full(n_symbols, -1, dtype=np.int16)
    for e in range(k):
        for a in range(n_symbols):
            used_by[a] = -1
        for h in range(history_codes.shape[0]):
            for i in range(L):
                src = history_codes[h, perms[e, i]]
                dst = history_codes[h, i]
                if not relabel and src != dst:
                    ok[e] = False
                if taus[e, src] == -1:
                    if used_by[dst] != -1 and used_by[dst] != src:
                        ok[e] = False
                    taus[e, src] = dst
                    used_by[dst] = src
                elif taus[e, src] != dst:
                    ok[e] = False
            if not ok[e]:
                break
    return ok, taus


@njit(cache=True)
def canonical_mask(codes, cand, perms, taus, classes, relabel):
    """Which guesses cand[i] are the least code of their orbit under the history's stabiliser.

    The stabiliser is the given (pi, tau) pairs times every relabelling within each class
    of interchangeable symbols (``classes[a]`` >= 0 names the class of symbol a, -1 a
    symbol the pairs map by tau; classes matter only when `relabel`). For each element
    the image of a code is built, its class symbols renamed in order of first
    appearance to the smallest symbols of their class (the least image under those
    relabellings), and compared lexicographically with the code.
    """
    n, L = cand.shape[0], codes.shape[1]
    n_symbols = classes.shape[0]
    members = np.empty((n_symbols, n_symbols), dtype=np.int16)  # members[k]: class k, sorted
    size = np.zeros(n_symbols, dtype=np.int64)
    for a in range(n_symbols):
        k = classes[a]
        if k >= 0:
            members[k, size[k]] = a
            size[k] += 1
    keep = np.ones(n, dtype=np.bool_)
    rename = np.full(n_symbols, -1, dtype=np.int16)
    renamed = np.empty(L, dtype=np.int64)  # the symbols given a name, to reset them
    nxt = np.zeros(n_symbols, dtype=np.int64)
    for i in range(n):
        g = cand[i]  # (codes[g, p] read in place: a row slice per candidate costs reference counts)
        for e in range(perms.shape[0]):
            # build the image position by position; the first difference decides
            n_renamed = 0
            smaller = False
            for p in range(L):
                s = codes[g, perms[e, p]]
                k = classes[s]
                if k < 0:
                    x = taus[e, s]
                elif not relabel:
                    x = s
                else:
                    if rename[s] == -1:
                        rename[s] = members[k, nxt[k]]
                        nxt[k] += 1
                        renamed[n_renamed] = s
                        n_renamed += 1
                    x = rename[s]
                if x != codes[g, p]:
                    smaller = x < codes[g, p]
                    break
            for q in range(n_renamed):
                s = renamed[q]
                nxt[classes[s]] = 0
                rename[s] = -1
            if smaller:
                keep[i] = False
                break
    return keep


@njit(cache=True)
def canonical(codes, cand, perms, taus, classes, relabel):
    """Which members of `cand` are canonical under the history's stabiliser.

    `perms` and `taus` are the stabiliser's position permutations and symbol maps (what
    `stabiliser` keeps), `classes` the symbols' classes (``symbol_classes``). Two classes
    of symbols are interchangeable within themselves: those no consistent secret uses
    (absent) and the others no history code uses. Relabelling within either maps the
    consistent set onto itself, so it extends the stabiliser (across the two classes it
    would not: a symbol the history uses can be known absent, an unused one not).
    """
    sizes = np.zeros(2, dtype=np.int64)
    for a in range(classes.shape[0]):
        if classes[a] >= 0:
            sizes[classes[a]] += 1
    if perms.shape[0] == 1 and (not relabel or (sizes[0] <= 1 and sizes[1] <= 1)):
        return np.ones(cand.shape[0], dtype=np.bool_)
    return canonical_mask(codes, cand, perms, taus, classes, relabel)


@njit(cache=True)
def symbol_classes(history_codes, n_symbols, absent):
    """The class of each symbol: 1 if `absent` (no consistent secret uses it), else 0 if
    no history code uses it, else -1 (a symbol of its own)."""
    used = np.zeros(n_symbols, dtype=np.bool_)
    for h in range(history_codes.shape[0]):
        for p in range(history_codes.shape[1]):
            used[history_codes[h, p]] = True
    classes = np.full(n_symbols, -1, dtype=np.int64)
    for a in range(n_symbols):
        if absent[a]:
            classes[a] = 1
        elif not used[a]:
            classes[a] = 0
    return classes


@njit(cache=True)
def split(fb_row, subset, n_feedbacks):
    """Sort `subset` by feedback (stable): returns (members, feedback of each cell, cell starts)."""
    cnt = np.zeros(n_feedbacks + 1, dtype=np.int64)
    for j in range(subset.shape[0]):
        cnt[fb_row[subset[j]] + 1] += 1
    k = 0
    for f in range(n_feedbacks):
        if cnt[f + 1] > 0:
            k += 1
    feedbacks = np.empty(k, dtype=np.int64)
    starts = np.empty(k + 1, dtype=np.int64)
    k = 0
    for f in range(n_feedbacks):
        if cnt[f + 1] > 0:
            feedbacks[k] = f
            starts[k] = cnt[f]
            k += 1
        cnt[f + 1] += cnt[f]
    starts[k] = subset.shape[0]
    out = np.empty_like(subset)
    pos = cnt[:n_feedbacks].copy()
    for j in range(subset.shape[0]):
        f = fb_row[subset[j]]
        out[pos[f]] = subset[j]
        pos[f] += 1
    return out, feedbacks, starts


#: Histories of at most this many guesses get a canonical key (k! orders are tried)...
CANONICAL_HISTORY = 4
#: ... and only while (position permutations) x k! stays below this (the permutation
#: game of n items has n! position permutations).
CANONICAL_WORK = 6000


@njit(cache=True)
def _next_order(order):
    """The next permutation of `order` in lexicographic order, in place; False after the last."""
    k = order.shape[0]
    i = k - 2
    while i >= 0 and order[i] >= order[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = k - 1
    while order[j] <= order[i]:
        j -= 1
    order[i], order[j] = order[j], order[i]
    lo, hi = i + 1, k - 1  # reversed in place (a reversed slice would be a copy and a
    while lo < hi:  # reference count per call: the hottest part of item matching)
        order[lo], order[hi] = order[hi], order[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True)
def _ascending(act, e, hist_f, order):
    """Whether the history's feedbacks, mapped by `action`, do not decrease in `order`: only
    such orders can give the least sequence (each pair's block starts with its feedback),
    so the others are skipped without changing the key. (`act` and its row `e`, not a
    slice: a slice per order costs reference counting.)"""
    for i in range(order.shape[0] - 1):
        if act[e, hist_f[order[i]]] > act[e, hist_f[order[i + 1]]]:
            return False
    return True


@njit(cache=True)
def history_key(codes, hist_g, hist_f, depth, perms, act, relabel, n_symbols):
    """A history's canonical form under the game's symmetry group: (hash1, hash2, e, rename).

    A consistent set is fixed by the unordered (guess, feedback) pairs played; two
    histories that a symmetry maps onto each other have consistent sets that are images
    of each other, hence the same value. The canonical form is the least sequence, over
    every position permutation and every order of the pairs, of (feedback, code) with
    symbols renamed in order of first appearance (when relabelling is a symmetry).
    ``(e, rename)`` is an element reaching it: code c maps to rename[c[perms[e]]]
    (``to_canonical``). Only histories of 1 to CANONICAL_HISTORY guesses get a key;
    others get hash (0, 0).
    """
    k = depth
    rename_best = np.arange(n_symbols)
    orders = 1
    for i in range(2, k + 1):
        orders *= i
    if k == 0 or k > CANONICAL_HISTORY or perms.shape[0] * orders > CANONICAL_WORK:
        return np.int64(0), np.int64(0), np.int64(0), rename_best
    L = codes.shape[1]
    width = k * (L + 1)
    best = np.full(width, 1 << 30, dtype=np.int64)
    e_best = 0
    seq = np.empty(width, dtype=np.int64)
    rename = np.empty(n_symbols, dtype=np.int64)
    order = np.arange(k)
    for e in range(perms.shape[0]):
        for i in range(k):
            order[i] = i
        more = True
        while more:
            if _ascending(act, e, hist_f, order):
                for a in range(n_symbols):
                    rename[a] = -1 if relabel else a
                nxt = 0
                q = 0
                for i in range(k):
                    h = order[i]
                    seq[q] = act[e, hist_f[h]]
                    q += 1
                    g = hist_g[h]
                    for p in range(L):
                        s = codes[g, perms[e, p]]
                        if rename[s] == -1:
                            rename[s] = nxt
                            nxt += 1
                        seq[q] = rename[s]
                        q += 1
                for q in range(width):
                    if seq[q] != best[q]:
                        if seq[q] < best[q]:
                            for q2 in range(width):
                                best[q2] = seq[q2]
                            e_best = e
                            for a in range(n_symbols):  # symbols the history lacks: in order
                                if rename[a] == -1:
                                    rename[a] = nxt
                                    nxt += 1
                            for a in range(n_symbols):
                                rename_best[a] = rename[a]
                        break
            more = _next_order(order)
    h1 = np.uint64(0x84222325CBF29CE4) ^ np.uint64(width)
    h2 = np.uint64(0x7F4A7C159E3779B9) * np.uint64(width + 3)
    for q in range(width):
        h1, h2 = hash_step(h1, h2, best[q] + 1)
    return np.int64(h1), np.int64(h2), np.int64(e_best), rename_best


@njit(cache=True)
def hash_step(h1, h2, value):
    """Feed one non-negative integer to a 128-bit hash: FNV-1a and a splitmix64 chain,
    two independent 64-bit halves (memo keys of sets and of histories)."""
    x = np.uint64(value)
    h1 = (h1 ^ x) * np.uint64(0x100000001B3)
    z = h2 + x * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h1, z ^ (z >> np.uint64(31))


@njit(cache=True)
def to_canonical(code, perm, rename, n_symbols):
    """A code's image under the element (perm, rename), packed as an integer."""
    x = 0
    for p in range(code.shape[0]):
        x = x * n_symbols + rename[code[perm[p]]]
    return np.int64(x)


@njit(cache=True)
def from_canonical(x, perm, rename, n_symbols, length, index_of_code):
    """The guess index whose image under (perm, rename) is the packed code `x` (the inverse)."""
    inverse = np.empty(n_symbols, dtype=np.int64)
    for a in range(n_symbols):
        inverse[rename[a]] = a
    code = np.empty(length, dtype=np.int64)
    for p in range(length - 1, -1, -1):
        code[perm[p]] = inverse[x % n_symbols]
        x //= n_symbols
    packed = 0
    for p in range(length):
        packed = packed * n_symbols + code[p]
    return index_of_code[packed]
