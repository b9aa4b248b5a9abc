"""The one search core of the deduction engine: a compiled node evaluator (numba, cached).

Every objective is the same recursion over consistent sets S with `cap` guesses left:

    V(S, cap) = min over allowed guesses g of  node_cost * |S| + sum over the non-solved
                cells S_f of S under g of V(S_f, cap - 1),
    V({}, cap) = 0,    V(S, 0) = exhausted(|S|),

and an objective is the data that fills it in (``objective.py``): the expected total
(node_cost 1, exhausted = INF: the least total number of guesses), the worst case (node
cost 0, exhausted = INF: 0 when S can be solved within cap, else INF), and the secrets
lost within T guesses (node cost 0, exhausted = |S|: a secret not revealed within the
horizon is lost, so |S| - V is the most secrets won). The lower bound of a set of n
secrets within cap guesses (``Objective.lower_row``) prunes every objective alike.
More data of the same kind (``docs/objectives.md``): ``determine`` (a set of one secret
is worth 0: found without its last guess), ``loss_value`` (what one lost secret is
worth) and guess costs (``costed``: each guess adds the cost of its symbols, the forced
positions free with ``forced_free``, per secret, like the node cost; then more guesses
than secrets can pay, so the cap is not cut to |S|).

``best(core, subset, depth, cap, budget)`` returns (value, guess) if the value is below
`budget`, else (a lower bound >= budget, NO_GUESS). The history of `depth` guesses sits
in ``core.hist_g``/``core.hist_f`` and the restriction state it leaves in
``core.allowed[depth]``/``core.least[depth]``.

Speed-ups, each a switch (``SpeedUps``; off changes nothing but the time):

* symmetry: one candidate per orbit of the symmetries fixing the history (with the
  symbols no consistent secret uses interchangeable, in games without a hard mode);
* bounds: cell bounds from ``lower_row``, candidates in order of bound, budgets passed
  down (branch-and-bound); a guess's cells are searched smallest first (the objective's
  ``smallest_first``; the losses objective goes largest first): the cheap cells show
  most losing guesses before the large one is searched, and the large one, searched
  last, gets the tightest budget (largest first took 2 to 3 times the nodes);
* lookahead: each cell's bound raised to the least bound of its own candidates before
  a guess is searched, in the order the cells are searched (smallest first: the cheap
  looks first), and the guess dropped as soon as its bound so raised reaches the best
  so far (small cells cost a look at their obvious guesses only);
* memo: values and failed-budget bounds per consistent set (a 128-bit hash of the set,
  the cap and the restriction state) and per canonical form of the history;
* obvious: a possible guess splitting S into singletons is optimal for every objective;
  so is a guess reaching 2|S| (expected) when no possible guess splits S that well.
* columns: a one-byte table is also kept by secret (transposed). With few feedbacks a
  set's candidates are scored together in one pass over its secrets
  (``score_by_secret``); with more, one candidate after another in index order, each
  secret's row read along (``score_by_guess``): a candidate's feedbacks then share
  cache lines with the next one's, where the table by guess costs a line per secret and
  candidate (Wordle's small sets: several times faster).
* cutoff: scoring one candidate after another, a candidate is dropped part-way once the
  cells counted so far already bound it at the budget, or, with two guesses left (where
  a bound is the value), above the best bound found (possible guesses scored first).

A breadth (``core.top`` > 0) searches each node over its first ``top`` candidates in the
order tried (by bound: the heuristic that ranks SALET second of Wordle's 12,972 openings)
and nothing else: every value is then the value of a real strategy, an upper bound of the
optimum, found far faster (``solve --top N``).

Feedbacks come from the table built once (``core.fb``, one byte per entry where the
feedbacks fit, else ``core.fb_wide``, two bytes; the other is empty, so that every game
has the one type of ``Core`` and the search is compiled once) or, for games too large to
tabulate, from the game's compiled block function ``core.block`` (a first-class numba function: the core stays cached),
called on blocks of candidates so that the cost of a call is shared.
The search is one self-recursive function: numba's disk cache cannot hold mutual
recursion (it segfaults on load).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import cfunc, njit, typed, types
from numba.experimental import structref

from .kernels import (
    canonical,
    from_canonical,
    hash_step,
    history_key,
    split,
    stabiliser,
    symbol_classes,
    to_canonical,
)
from .restriction_kernels import allowed_mask, allows, counts_apply, meets_counts, update

#: "Impossible within the cap" (and the budget of an unbounded search).
INF = 1 << 40
#: The guess slot of a result that has none (a bound, not a value).
NO_GUESS = -1
#: Added to the cap in memo keys made from a history (never equal to a set's key).
HISTORY_TAG = 1 << 32
#: Most symbols for which candidate lists are cached by class pattern (3 ** 39 < 2 ** 63).
MAX_PATTERN_SYMBOLS = 39
#: Bytes of candidate lists cached by class pattern, per search.
PATTERN_CACHE_BYTES = 64 << 20
#: Secrets scored between two looks at a candidate's partial bound (``score_by_guess``,
#: with the table; the step measured best: docs/measurements.md).
CUTOFF_STEP = 4
#: Largest set scored by secret (its cell counts are 16-bit).
MAX_COUNT = 65535
#: Most feedbacks for which every candidate's cells are counted in one pass over a set's
#: secrets (``score_by_secret``): more make the counts of all candidates too large to
#: keep in cache.
BY_SECRET_FEEDBACKS = 64
#: Histories of at most this many guesses get a canonical memo key: deeper, the key costs
#: more (k! orders of the guesses under every symmetry) than the rare hit it finds saves.
HISTORY_KEY_DEPTH = 2

#: Signature of a game's block function: out[i, j] = feedback of guess codes[i] against
#: secret codes[j] (the game's feedback kernel itself).
BLOCK_SIGNATURE = types.void(types.int8[:, ::1], types.int8[:, ::1], types.uint16[:, ::1])
#: Feedbacks computed per call of the block function when scoring (128 kB of output).
BLOCK_ENTRIES = 1 << 16

# switches (SpeedUps fields, in this order)
SYMMETRY, BOUNDS, MEMO, OBVIOUS, LOOKAHEAD, CUTOFF, FLOOR = range(7)
# counters
NODES, SCORED, LOOKS, CANDS, JOURNALED = range(5)
N_COUNTERS = 5
#: Rows of a search's journal (``journal``): 48 bytes each.
JOURNAL_ROWS = 1 << 15
#: Sets of at least this many secrets have their values journaled (``journal``).
JOURNAL_MIN_SECRETS = 16


#: Memo entries: a set's key (h1, h2, cap) -> (value, guess), or -> a lower bound.
MEMO_KEY = types.UniTuple(types.int64, 3)
MEMO_VALUE = types.UniTuple(types.int64, 2)


@njit(cache=True)
def new_memos():
    """Empty memos (exact values, lower bounds). Made here, compiled and cached: an empty
    typed Dict made from Python compiles its constructor afresh in every process (about
    half a second each)."""
    return typed.Dict.empty(MEMO_KEY, MEMO_VALUE), typed.Dict.empty(MEMO_KEY, types.int64)


@njit(cache=True)
def new_canon():
    """An empty cache of candidate lists by class pattern (``candidates``; cached like
    ``new_memos``)."""
    return typed.Dict.empty(types.int64, types.int64[::1])


@cfunc(BLOCK_SIGNATURE, cache=True)
def no_block(guesses, secrets, out):  # pragma: no cover - the table is read instead
    """The block function of a game whose feedbacks are tabulated (never called)."""
    return


class Core(NamedTuple):
    """Everything the compiled search reads and writes, by name, as Python builds it;
    the kernels get it as one ``CoreType`` reference (``to_ref``)."""

    # the game
    fb: np.ndarray  # (G, S) uint8 feedback table, or (0, 0)
    fb_wide: np.ndarray  # (G, S) uint16 feedback table (over 256 feedbacks), or (0, 0)
    by_secret: np.ndarray  # (S, G) uint8: the one-byte table transposed, or (0, 0)
    block: object  # compiled block function when there is no table
    codes: np.ndarray  # (G, L) int8 guesses
    secret_codes: np.ndarray  # (S, L) int8 secrets
    sog: np.ndarray  # (G,) secret index of each guess, -1 for none
    gos: np.ndarray  # (S,) guess index of each secret
    solved: int
    n_feedbacks: int
    branching: int
    n_symbols: int
    perms: np.ndarray  # (k, L) position permutations of the symmetry group
    act: np.ndarray  # (k, F) their action on feedbacks
    relabel: bool  # every relabelling of the symbols is a symmetry
    index_of_code: np.ndarray  # packed code -> guess index (empty: no history keys)
    product: bool  # the guesses are every code, in lexicographic order
    # the restriction (Restriction in compiled form)
    restricted: bool  # per-position rules are live
    possible_only: bool
    radix: int
    rules: np.ndarray
    spares: bool
    secrets_allowed: bool  # every consistent secret is an allowed guess
    allowed: np.ndarray  # (D, L, n_symbols) state per depth
    least: np.ndarray  # (D, n_symbols)
    # the objective
    node_cost: int
    exhaust_inf: bool
    determine: bool  # a set of one secret is found already (costs 0, never lost)
    loss_value: int  # the value of one secret lost (exhausted = n * loss_value)
    costed: bool  # guesses cost their symbols too (node cost += guess_cost * n)
    symbol_cost: np.ndarray  # (n_symbols,) cost of each symbol in a guess
    forced_free: bool  # a position whose symbol is forced costs nothing
    order_by_largest: bool
    smallest_first: bool  # a guess's cells searched smallest first (else largest)
    lower: np.ndarray  # (caps, S + 1) lower bounds by cap and set size
    # the breadth: 0 searches every candidate; k > 0 only the k first in the order tried
    # (``try_order``), which makes every value an upper bound instead of an optimum
    top: int
    # switches, memo, scratch
    switches: np.ndarray
    canon: object  # Dict class pattern -> canonical candidates (``candidates``)
    canon_limit: int  # most patterns kept there
    exact: object  # Dict (h1, h2, cap) -> (value, guess)
    bound_memo: object  # Dict (h1, h2, cap) -> lower bound
    hist_g: np.ndarray
    hist_f: np.ndarray
    counters: np.ndarray
    journal: np.ndarray  # (JOURNAL_ROWS, 6) ring of values found (``journal``)
    journal_min: int  # the fewest secrets of a set journaled
    mark: np.ndarray  # (S,) scratch, all False between calls


@structref.register
class CoreType(types.StructRef):
    """The numba type of the search's state, passed to every kernel by reference: one
    pointer a call. (As a tuple of some 45 fields, 25 of them arrays, every call passed
    hundreds of arguments and reference counts, and the first compile took minutes.)"""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class CoreRef(structref.StructRefProxy):
    """The search's state as Python holds it: opaque (Python keeps the ``Core`` it was made
    from, whose arrays it shares)."""


structref.define_constructor(CoreRef, CoreType, Core._fields)
structref.define_boxing(CoreType, CoreRef)


@njit(cache=True)
def _make_ref(fields):
    return CoreRef(*fields)


def to_ref(fields: Core) -> CoreRef:
    """The kernels' reference to `fields` (made by a cached compiled function: a structref
    made from Python compiles its constructor afresh in every process)."""
    return _make_ref(fields)


@njit(cache=True)
def exhausted(core, n):
    """The value of n secrets with no guess left (one is found already when determining)."""
    if n == 0 or (core.determine and n == 1):
        return np.int64(0)
    return np.int64(INF) if core.exhaust_inf else np.int64(n) * core.loss_value


@njit(cache=True)
def free_positions(core, depth):
    """Positions that cost nothing after `depth` guesses: those whose symbol is forced (one
    allowed symbol), when the objective leaves them empty (``forced_free``)."""
    free = np.zeros(core.codes.shape[1], dtype=np.bool_)
    if core.forced_free and core.restricted:
        allowed = core.allowed[depth]
        for p in range(free.shape[0]):
            free[p] = allowed[p].sum() == 1
    return free


@njit(cache=True)
def guess_cost(core, guess, free):
    """The cost of playing `guess` (per secret still possible): its symbols' costs, the
    free positions' excepted; 0 unless the objective counts costs."""
    if not core.costed:
        return np.int64(0)
    total = np.int64(0)
    for p in range(free.shape[0]):
        if not free[p]:
            total += core.symbol_cost[core.codes[guess, p]]
    return total


@njit(cache=True)
def lower_row(core, cap):
    """Lower bounds of sets of each size within `cap` guesses (rows stop changing)."""
    return core.lower[min(cap, core.lower.shape[0] - 1)]


@njit(inline="always")
def _copy_row(fb, guess, subset, out):
    """out[j] = fb[guess, subset[j]] (either table: inlined where it is read)."""
    for j in range(subset.shape[0]):
        out[j] = fb[guess, subset[j]]


@njit(inline="always")
def _count(f, cnt, seen, d, b, lower, solved):
    """One secret's feedback `f` counted into its cell: cnt, the feedbacks first met in
    seen[d:], and the bound b grown by the cell's step of `lower`; the new (d, b)."""
    c = cnt[f]
    cnt[f] = c + 1
    seen[d] = f
    d += c == 0
    b += (lower[c + 1] - lower[c]) * (f != solved)
    return d, b


@njit(cache=True)
def tabulated(core):
    """Whether the feedbacks are read from a table (of either width)."""
    return core.fb.shape[0] > 0 or core.fb_wide.shape[0] > 0


@njit(cache=True)
def feedback_row(core, guess, subset, secret_rows, out):
    """out[j] = feedback of `guess` against secret subset[j] (table, or the block function
    on `secret_rows`, the subset's codes)."""
    if core.fb.shape[0] > 0:
        _copy_row(core.fb, guess, subset, out)
    elif core.fb_wide.shape[0] > 0:
        _copy_row(core.fb_wide, guess, subset, out)
    else:
        core.block(core.codes[guess : guess + 1], secret_rows, out.reshape((1, out.shape[0])))


@njit(cache=True)
def rows_of(core, subset):
    """The codes of `subset` when feedbacks are computed (an empty array with a table)."""
    if tabulated(core):
        return np.empty((0, core.codes.shape[1]), dtype=np.int8)
    return core.secret_codes[subset]


@njit(cache=True)
def set_key(core, subset, depth, cap):
    """(hash1, hash2, cap): the memo key of a sorted consistent set and its restriction."""
    h1 = np.uint64(0xCBF29CE484222325) ^ np.uint64(subset.shape[0])
    h2 = np.uint64(0x9E3779B97F4A7C15) * np.uint64(subset.shape[0] + 1)
    for j in range(subset.shape[0]):
        h1, h2 = hash_step(h1, h2, subset[j])
    if core.restricted:
        allowed = core.allowed[depth]
        for p in range(allowed.shape[0]):
            for s in range(allowed.shape[1]):
                h1, h2 = hash_step(h1, h2, 2 + allowed[p, s])
        for s in range(core.least.shape[1]):
            h1, h2 = hash_step(h1, h2, 4 + core.least[depth, s])
    return (np.int64(h1), np.int64(h2), np.int64(cap))


@njit(cache=True)
def push(core, depth, guess, feedback):
    """Record (guess, feedback) as history entry `depth` and the restriction state it leaves."""
    core.hist_g[depth] = guess
    core.hist_f[depth] = feedback
    if core.restricted:
        # loops: a row assigned whole costs seconds of compiling (numba's shape checks)
        allowed, least = core.allowed, core.least
        for p in range(allowed.shape[1]):
            for s in range(allowed.shape[2]):
                allowed[depth + 1, p, s] = allowed[depth, p, s]
        for s in range(least.shape[1]):
            least[depth + 1, s] = least[depth, s]
        update(
            core.allowed[depth + 1],
            core.least[depth + 1],
            core.codes[guess],
            feedback,
            core.radix,
            core.rules,
            core.spares,
        )


@njit(cache=True)
def possible_guesses(core, subset, depth):
    """Guess indices of the secrets of `subset` that the restriction allows."""
    out = np.empty(subset.shape[0], dtype=np.int64)
    gos, codes, restricted = core.gos, core.codes, core.restricted
    allowed, least = core.allowed[depth], core.least[depth]
    k = 0
    for j in range(subset.shape[0]):
        g = gos[subset[j]]
        if not restricted or allows(allowed, least, codes, g):
            out[k] = g
            k += 1
    return out[:k]


@njit(cache=True)
def allowed_guesses(core, depth):
    """Indices of the guesses the restriction allows after `depth` guesses, ascending.
    When the guesses are every code in lexicographic order, the allowed ones are the
    product of each position's allowed symbols, enumerated directly (a scan of every
    code per node cost a tenth of item matching's time with ten items)."""
    allowed, least = core.allowed[depth], core.least[depth]
    if not core.product:
        return np.flatnonzero(allowed_mask(allowed, least, core.codes))
    L, n = allowed.shape
    total = 1
    for p in range(L):
        size = 0
        for a in range(n):
            size += allowed[p, a]
        total *= size
    out = np.empty(total, dtype=np.int64)
    digit = np.zeros(L, dtype=np.int64)  # an odometer over the allowed symbols
    for p in range(L):
        while digit[p] < n and not allowed[p, digit[p]]:
            digit[p] += 1
    for k in range(total):
        index = 0
        for p in range(L):
            index = index * n + digit[p]
        out[k] = index
        p = L - 1
        while p >= 0:  # next: the last position that can advance, the later ones reset
            digit[p] += 1
            while digit[p] < n and not allowed[p, digit[p]]:
                digit[p] += 1
            if digit[p] < n:
                break
            digit[p] = 0
            while not allowed[p, digit[p]]:
                digit[p] += 1
            p -= 1
    if not counts_apply(least):
        return out
    keep = np.empty(total, dtype=np.bool_)
    for k in range(total):
        keep[k] = meets_counts(least, core.codes, out[k])
    return out[keep]


@njit(cache=True)
def candidates(core, depth, subset):
    """The guesses worth trying on `subset` after `depth` guesses: allowed, one per orbit."""
    whole = not core.possible_only and not core.restricted
    if core.possible_only:
        cand = possible_guesses(core, subset, depth)
    elif core.restricted:
        cand = allowed_guesses(core, depth)
    else:
        cand = np.arange(core.codes.shape[0])
    if not core.switches[SYMMETRY] or (core.perms.shape[0] == 1 and not core.relabel):
        return cand
    perms, act, hist_f = core.perms, core.act, core.hist_f
    ok = np.ones(perms.shape[0], dtype=np.bool_)
    for k in range(perms.shape[0]):
        for h in range(depth):
            if act[k, hist_f[h]] != hist_f[h]:
                ok[k] = False
                break
    codes = core.codes
    hist = np.empty((depth, codes.shape[1]), dtype=codes.dtype)
    for h in range(depth):
        for p in range(codes.shape[1]):  # (not a row assigned whole: see ``push``)
            hist[h, p] = codes[core.hist_g[h], p]
    absent = np.zeros(core.n_symbols, dtype=np.bool_)
    if core.relabel and not core.restricted and not core.possible_only:
        absent[:] = True
        for j in range(subset.shape[0]):
            for p in range(codes.shape[1]):
                absent[core.secret_codes[subset[j], p]] = False
    fixing, taus = stabiliser(perms[ok], hist, core.n_symbols, core.relabel)
    fix_perms, fix_taus = perms[ok][fixing], taus[fixing]
    classes = symbol_classes(hist, core.n_symbols, absent)
    if core.relabel and whole and core.n_symbols <= MAX_PATTERN_SYMBOLS and fix_perms.shape[0] == 1:
        # only relabellings fix the history: the representatives depend on the symbols'
        # classes alone, and the same few patterns recur at every depth (cached)
        pattern = np.int64(0)
        for a in range(core.n_symbols):
            pattern = pattern * 3 + classes[a] + 1
        if pattern in core.canon:
            return core.canon[pattern]
        cand = cand[canonical(codes, cand, fix_perms, fix_taus, classes, core.relabel)]
        if len(core.canon) < core.canon_limit:
            core.canon[pattern] = cand
        return cand
    keep = canonical(codes, cand, fix_perms, fix_taus, classes, core.relabel)
    return cand[keep]


@njit(cache=True)
def possible_mask(core, cand, subset):
    """Which guesses cand[i] are secrets of `subset` (still possible)."""
    mark, sog = core.mark, core.sog
    for j in range(subset.shape[0]):
        mark[subset[j]] = True
    out = np.empty(cand.shape[0], dtype=np.bool_)
    for i in range(cand.shape[0]):
        s = sog[cand[i]]
        out[i] = s >= 0 and mark[s]
    for j in range(subset.shape[0]):
        mark[subset[j]] = False
    return out


@njit(cache=True)
def score(core, cand, subset, lower, depth, cutoff, exact, possible):
    """Bound, largest non-solved cell and completeness of each candidate on `subset`.

    bound[i] = node_cost * |subset| (plus the guess's cost) + the sum of lower[cell size]
    over the non-solved cells of cand[i] (lower[0] is 0). With the table kept by secret
    (``by_secret``: games with few feedbacks) every candidate's cells are counted in one
    pass over the secrets (``score_by_secret``); otherwise one candidate after another
    (``score_by_guess``), which stops scoring a candidate once its partial bound (the same
    sum over the secrets counted so far: rows of ``lower`` never decrease) reaches
    `cutoff`, or, when the bounds are `exact` values, exceeds the best bound so far. A
    candidate so stopped has complete[i] False, a bound that is still a lower bound (at
    least the cut-off), and largest[i] = |subset|. `possible` (a mask of cand) puts the
    possible guesses first in that scan.
    """
    n, m = subset.shape[0], cand.shape[0]
    core.counters[SCORED] += n * m
    bound = np.empty(m, dtype=np.int64)
    largest = np.zeros(m, dtype=np.int64)
    complete = np.ones(m, dtype=np.bool_)
    base = core.node_cost * n
    free = free_positions(core, depth)
    for i in range(m):
        bound[i] = base + guess_cost(core, cand[i], free) * n
    if core.by_secret.shape[0] > 0 and core.n_feedbacks <= BY_SECRET_FEEDBACKS and n <= MAX_COUNT:
        score_by_secret(core, cand, subset, lower, bound, largest)
    else:
        first = np.zeros(m, dtype=np.bool_) if possible is None else possible
        score_by_guess(core, cand, subset, lower, bound, largest, complete, cutoff, exact, first)
    return bound, largest, complete


@njit(cache=True)
def score_by_secret(core, cand, subset, lower, bound, largest):
    """``score``'s sums, the table read one secret's row at a time: each secret adds one to
    a count of every candidate (counts of all candidates together stay in cache, and the
    row is read in order). Up to the number of feedbacks, each count's growth adds
    lower[c + 1] - lower[c] to its candidate's bound at once; beyond, the counts are
    summed at the end (fewer steps per secret)."""
    n, m, F = subset.shape[0], cand.shape[0], core.n_feedbacks
    solved, table = core.solved, core.by_secret
    cnt = np.zeros((m, F), dtype=np.uint16)
    if n <= F:
        step = np.empty(n, dtype=np.int64)
        for c in range(n):
            step[c] = lower[c + 1] - lower[c]
        for j in range(n):
            row = table[subset[j]]
            for i in range(m):
                f = row[cand[i]]
                c = cnt[i, f]
                cnt[i, f] = c + 1
                if f != solved:
                    bound[i] += step[c]
                    if c >= largest[i]:
                        largest[i] = c + 1
        return
    for j in range(n):
        row = table[subset[j]]
        for i in range(m):
            cnt[i, row[cand[i]]] += 1
    for i in range(m):
        b = np.int64(0)
        big = np.int64(0)
        for f in range(F):
            if f != solved:
                c = np.int64(cnt[i, f])
                b += lower[c]
                big = max(big, c)
        bound[i] += b
        largest[i] = big


@njit(cache=True)
def score_by_guess(core, cand, subset, lower, bound, largest, complete, cutoff, exact, first):
    """``score``'s sums, one candidate after another (those marked `first` before the
    others), each growing cell from c to c + 1 secrets adding lower[c + 1] - lower[c].
    With the table, a candidate's row is read in place (no call per candidate: a call
    touching ``core`` costs reference counts that outweigh a small set's work),
    CUTOFF_STEP secrets at a time; between steps, a candidate whose partial bound reaches
    the cut-off is left incomplete (see ``score``). Without it, the game's block function
    fills the rows of up to BLOCK_ENTRIES // |subset| candidates per call."""
    n, m = subset.shape[0], cand.shape[0]
    cnt = np.zeros(core.n_feedbacks, dtype=np.int32)
    seen = np.empty(n, dtype=np.int64)  # the feedbacks met, each once (d of them)
    table = tabulated(core)
    fb, fb_wide, codes, by_secret = core.fb, core.fb_wide, core.codes, core.by_secret
    wide = fb_wide.shape[0] > 0
    transposed = by_secret.shape[0] > 0
    rows = rows_of(core, subset)
    solved = core.solved
    step = n if cutoff >= INF and not exact else CUTOFF_STEP
    order = np.empty(m, dtype=np.int64)  # the candidates marked first, then the others
    k = 0
    for turn in range(2):
        for i in range(m):
            if first[i] == (turn == 0):
                order[k] = i
                k += 1
    per_block = m if table else max(1, min(m, BLOCK_ENTRIES // max(n, 1)))
    guesses = np.empty((0 if table else per_block, codes.shape[1]), dtype=np.int8)
    out = np.empty((0 if table else per_block, n), dtype=np.uint16)
    for start in range(0, m, per_block):
        size = min(per_block, m - start)
        if not table:
            for k in range(size):
                for p in range(codes.shape[1]):
                    guesses[k, p] = codes[cand[order[start + k]], p]
            core.block(guesses[:size], rows, out[:size])
        for k in range(size):
            i = order[start + k]
            g = cand[i]
            b = bound[i]
            j = 0
            d = 0
            if not table:  # the row is computed whole: no cut-off part-way
                for q in range(n):
                    d, b = _count(np.int64(out[k, q]), cnt, seen, d, b, lower, solved)
                j = n
            while j < n:
                stop = min(n, j + step)
                # Read the table transposed where there is one: candidates are scored in
                # index order, so the next candidate's feedback is in the same cache line
                # of a secret's row, where the table by guess costs a line per secret.
                if transposed:
                    for q in range(j, stop):
                        f = np.int64(by_secret[subset[q], g])
                        d, b = _count(f, cnt, seen, d, b, lower, solved)
                elif wide:
                    for q in range(j, stop):
                        f = np.int64(fb_wide[g, subset[q]])
                        d, b = _count(f, cnt, seen, d, b, lower, solved)
                else:
                    for q in range(j, stop):
                        d, b = _count(np.int64(fb[g, subset[q]]), cnt, seen, d, b, lower, solved)
                j = stop
                if b >= cutoff and j < n:
                    complete[i] = False
                    break
            big = 0
            for t in range(d):  # each feedback met reset once
                f = seen[t]
                if f != solved:
                    big = max(big, np.int64(cnt[f]))
                cnt[f] = 0
            bound[i] = b
            largest[i] = big if complete[i] else n
            if exact and complete[i] and b < cutoff:
                cutoff = b + 1  # ties still scored in full: the order among them stays


@njit(cache=True)
def obvious_possible(core, subset, depth, cap):
    """(guess, value) of an obviously optimal possible guess, or (NO_GUESS, 0).

    A possible guess splitting the set into singletons costs (2n-1) * node_cost, which
    nothing beats; without one nothing beats 2n * node_cost, which a possible guess
    leaving one pair reaches with 3 guesses left. Needs every consistent secret to be
    an allowed guess (singletons then cost node_cost).
    """
    n = subset.shape[0]
    if not core.switches[OBVIOUS] or not core.secrets_allowed or n > core.branching + 1 or cap < 2:
        return np.int64(NO_GUESS), np.int64(0)
    inside = possible_guesses(core, subset, depth)
    small = np.zeros(n + 1, dtype=np.int64)  # 1 for a pair: spots the "one pair" guess
    if n >= 2:
        small[2] = 1
    none_first = np.zeros(inside.shape[0], dtype=np.bool_)
    # (constants as np.int64 and np.bool_ values: a literal or a left-out default would
    # compile a second specialisation of the kernels, seconds of the first compile)
    exact, largest, _ = score(
        core, inside, subset, small, depth, np.int64(INF), np.bool_(False), none_first
    )
    for i in range(inside.shape[0]):
        if largest[i] <= 1:
            return np.int64(inside[i]), np.int64((2 * n - 1) * core.node_cost)
    if cap >= 3:
        for i in range(inside.shape[0]):
            if largest[i] <= 2 and exact[i] == core.node_cost * n + 1:
                return np.int64(inside[i]), np.int64(2 * n * core.node_cost)
    return np.int64(NO_GUESS), np.int64(0)


@njit(cache=True, nogil=True)
def prepare(core, subset, depth, cap, child, budget):
    """Candidates with bound, possibility and largest cell; or an obvious guess.

    Returns (obvious guess or NO_GUESS, its value, cand, bound, possible, largest). With
    the cut-off on, a candidate's scoring may stop once its bound reaches `budget` (or,
    with two guesses left, once it exceeds a bound already found: the child row's bounds
    are then the cells' values, see ``child_row_exact``), its bound then only a lower
    bound; such candidates stay, ordered after the rest.
    """
    n = subset.shape[0]
    empty = np.empty(0, dtype=np.int64)
    none = np.empty(0, dtype=np.bool_)
    guess, value = obvious_possible(core, subset, depth, cap)
    if guess >= 0:
        return guess, value, empty, empty, none, empty
    cand = candidates(core, depth, subset)
    core.counters[CANDS] += 1
    possible = possible_mask(core, cand, subset)
    cut = core.switches[CUTOFF] and core.switches[BOUNDS] and core.top == 0
    bound, largest, complete = score(
        core,
        cand,
        subset,
        child,
        depth,
        budget if cut else np.int64(INF),
        cut and child_row_exact(core, cap),
        possible,
    )
    useful = possible | (largest < n) | ~complete
    if core.switches[OBVIOUS] and core.secrets_allowed and cap >= 2:
        for i in range(cand.shape[0]):
            if (
                useful[i] and complete[i] and largest[i] <= 1
            ):  # singletons, no possible guess does so
                return cand[i], np.int64(2 * n * core.node_cost), empty, empty, none, empty
    keep = np.flatnonzero(useful)
    if core.top > 0 and keep.shape[0] > core.top:
        keep = np.sort(
            keep[
                try_order(core, cand[keep], bound[keep], possible[keep], largest[keep])[: core.top]
            ]
        )
    return np.int64(NO_GUESS), np.int64(0), cand[keep], bound[keep], possible[keep], largest[keep]


@njit(cache=True)
def child_row_exact(core, cap):
    """True if, with `cap` guesses left, ``lower_row(cap - 1)`` gives each cell's value and
    so a candidate's bound is its value: two guesses left, the last of which reveals one
    secret of a cell (every secret an allowed guess, at no cost of its own)."""
    return cap == 2 and core.secrets_allowed and not core.costed and not core.determine


@njit(cache=True)
def ordered_cells(core, guess, subset, smallest_first):
    """The non-solved cells of `subset` under `guess`: (members, feedbacks, starts, order),
    ``order`` listing the cells smallest first or largest first (ties by feedback)."""
    buf = np.empty(subset.shape[0], dtype=np.uint16)
    feedback_row(core, guess, subset, rows_of(core, subset), buf)
    places, feedbacks, starts = split(buf, np.arange(subset.shape[0]), core.n_feedbacks)
    members = subset[places]
    k = feedbacks.shape[0]
    keys = np.empty(k, dtype=np.int64)
    m = 0
    for c in range(k):
        if feedbacks[c] != core.solved:
            size = starts[c + 1] - starts[c]
            keys[m] = (size if smallest_first else -size) * (1 << 20) + c
            m += 1
    keys = np.sort(keys[:m])
    order = np.empty(m, dtype=np.int64)
    for i in range(m):
        order[i] = keys[i] % (1 << 20)
    return members, feedbacks, starts, order


@njit(cache=True)
def try_order(core, cand, bound, possible, largest):
    """The order candidates are tried in: by bound, then (worst case) the largest cell,
    then possible guesses first, then by index.

    Bounds are small integers: without the largest cell's key, and with `cand` ascending
    (as ``prepare`` gives it), a counting sort on the bound gives the same order in one
    pass (two sorts of Wordle's 12,972 candidates cost as much as scoring them on a set
    of a dozen secrets)."""
    m = cand.shape[0]
    if m > 0 and not core.order_by_largest:
        low, high = bound.min(), bound.max()
        ascending = True
        for i in range(1, m):
            if cand[i] <= cand[i - 1]:
                ascending = False
                break
        if ascending and high - low <= 4 * m + 1024:
            slots = np.zeros(high - low + 2, dtype=np.int64)
            for i in range(m):
                slots[bound[i] - low + 1] += 1
            for b in range(1, slots.shape[0]):
                slots[b] += slots[b - 1]
            order = np.empty(m, dtype=np.int64)
            for turn in range(2):  # possible guesses first, then the others, each by index
                for i in range(m):
                    if possible[i] == (turn == 0):
                        b = bound[i] - low
                        order[slots[b]] = i
                        slots[b] += 1
            return order
    G = core.codes.shape[0]
    keys = (1 - possible.astype(np.int64)) * G + cand
    if core.order_by_largest:
        keys = keys + largest * (2 * G)
    first = np.argsort(keys, kind="mergesort")
    return first[np.argsort(bound[first], kind="mergesort")]


@njit(cache=True)
def history_slot(core, depth, cap):
    """(usable, memo key, e, rename) of the history's canonical form (``history_key``)."""
    sw = core.switches
    if (
        not (sw[MEMO] and sw[SYMMETRY])
        or core.index_of_code.shape[0] == 0
        or depth > HISTORY_KEY_DEPTH
    ):
        return False, (np.int64(0), np.int64(0), np.int64(0)), np.int64(0), np.arange(1)
    h1, h2, e, rename = history_key(
        core.codes,
        core.hist_g,
        core.hist_f,
        depth,
        core.perms,
        core.act,
        core.relabel,
        core.n_symbols,
    )
    usable = h1 != 0 or h2 != 0
    return usable, (h1, h2, np.int64(cap + HISTORY_TAG)), e, rename


@njit(cache=True)
def recall(core, key, shared, hkey, e, rename, n):
    """What the memo knows of a set of n secrets: (exact?, value, guess).

    An exact value comes with its guess (mapped back from canonical coordinates when
    found under the history's key); otherwise the best lower bound known, under either
    key or with more guesses (one more, or as many as the set has secrets: more guesses
    never cost more).
    """
    exact, bounds = core.exact, core.bound_memo
    if key in exact:
        hit = exact[key]
        return True, hit[0], hit[1]
    if shared and hkey in exact:
        hit = exact[hkey]
        guess = hit[1]
        if guess >= 0:
            guess = from_canonical(
                guess,
                core.perms[e],
                rename,
                core.n_symbols,
                core.codes.shape[1],
                core.index_of_code,
            )
        return True, hit[0], guess
    known = bounds[key] if key in bounds else np.int64(0)
    if shared and hkey in bounds:
        known = max(known, bounds[hkey])
    if key[2] < n:  # more guesses never cost more: one more, and as many as there are secrets
        for cap in (key[2] + 1, n):
            wider = (key[0], key[1], np.int64(cap))
            if wider in exact:
                known = max(known, exact[wider][0])
            elif wider in bounds:
                known = max(known, bounds[wider])
    return False, known, np.int64(NO_GUESS)


@njit(cache=True)
def remember(core, key, shared, hkey, e, rename, value, guess):
    """Store an exact value with its guess (guess >= 0) or a lower bound, under both keys."""
    if guess >= 0:
        core.exact[key] = (value, guess)
        if shared:
            core.exact[hkey] = (
                value,
                to_canonical(core.codes[guess], core.perms[e], rename, core.n_symbols),
            )
    else:
        bounds = core.bound_memo
        bounds[key] = max(bounds[key] if key in bounds else np.int64(0), value)
        if shared:
            bounds[hkey] = max(bounds[hkey] if hkey in bounds else np.int64(0), value)


@njit(cache=True)
def trivial(core, subset, depth, cap):
    """(known, value, guess) of the sets valued without a search: empty, no guess left,
    one guess left, or two secrets (when secrets are allowed guesses). When determining,
    one secret is found already and two take one guess (of either); one guess left is
    searched (its singleton cells are found too)."""
    n = subset.shape[0]
    if n == 0 or (core.determine and n == 1):
        return True, np.int64(0), np.int64(NO_GUESS)
    if cap <= 0:
        return True, exhausted(core, n), np.int64(NO_GUESS)
    if core.determine:
        if n == 2 and core.secrets_allowed:
            return True, core.node_cost * n, core.gos[subset[0]]
        return False, np.int64(0), np.int64(NO_GUESS)
    if cap == 1:  # the last guess: reveal one possible secret at most (the cheapest)
        inside = possible_guesses(core, subset, depth)
        if inside.shape[0] > 0:
            pick, cost = inside[0], np.int64(0)
            if core.costed:
                free = free_positions(core, depth)
                cost = guess_cost(core, pick, free)
                for g in inside:
                    if guess_cost(core, g, free) < cost:
                        pick, cost = g, guess_cost(core, g, free)
            return True, (core.node_cost + cost) * n + exhausted(core, n - 1), pick
        if not core.exhaust_inf:  # a loss of every secret, whatever is guessed
            return True, core.node_cost * n + exhausted(core, n), np.int64(NO_GUESS)
        return True, np.int64(INF), np.int64(NO_GUESS)
    if n <= 2 and core.secrets_allowed and not core.costed:
        return True, core.node_cost * (2 * n - 1), core.gos[subset[0]]
    return False, np.int64(0), np.int64(NO_GUESS)


@njit(cache=True, nogil=True)
def cell_bound(core, part, depth, cap):
    """A lower bound of ``best(part, cap)`` from one look at the cell's own candidates
    (the exact value when an obvious guess exists), remembered as a lower bound."""
    m = part.shape[0]
    known, value, _ = trivial(core, part, depth, cap)
    if known:
        return value
    cap = min(cap, m) if core.secrets_allowed and not core.costed else cap
    low = lower_row(core, cap)[m]
    key = set_key(core, part, depth, cap)
    shared, hkey, e, rename = history_slot(core, depth, cap)
    use_memo = core.switches[MEMO]
    if use_memo:
        found, value, _ = recall(core, key, shared, hkey, e, rename, m)
        if found or value > low:
            return value
    if core.switches[OBVIOUS] and core.secrets_allowed and m <= core.branching + 1:
        # small cells: the obvious guesses only (scoring every candidate costs more than
        # it prunes); without an obvious possible guess nothing beats 2m
        obvious, value = obvious_possible(core, part, depth, cap)
        if obvious < 0:
            return max(low, np.int64(2 * m * core.node_cost))
    else:
        core.counters[LOOKS] += 1
        obvious, value, _, bound, _, _ = prepare(
            core, part, depth, cap, lower_row(core, cap - 1), np.int64(INF)
        )
        if obvious < 0:
            low = max(low, bound.min() if bound.shape[0] > 0 else np.int64(INF))
    if obvious >= 0:
        low = np.int64(value)
    if use_memo:
        remember(core, key, shared, hkey, e, rename, low, np.int64(obvious))
    return low


@njit(cache=True, nogil=True)
def best(core, subset, depth, cap, budget):
    """(value, guess) of the sorted set `subset` within `cap` guesses, if below `budget`;
    otherwise (a lower bound >= budget, NO_GUESS). INF: no strategy fits the cap."""
    n = subset.shape[0]
    known, value, guess = trivial(core, subset, depth, cap)
    if known:
        return (value, guess) if value < budget else (value, np.int64(NO_GUESS))
    if core.secrets_allowed and not core.costed:  # (cheap guesses may be worth more turns)
        cap = min(cap, n)
    sw = core.switches
    bounds = sw[BOUNDS]
    low = lower_row(core, cap)[n]
    if bounds and low >= budget:
        return np.int64(low), np.int64(NO_GUESS)
    key = set_key(core, subset, depth, cap)
    shared, hkey, e, rename = history_slot(core, depth, cap)
    if sw[MEMO]:
        found, value, guess = recall(core, key, shared, hkey, e, rename, n)
        if found and value < budget:
            return value, guess
        if value >= budget:
            return value, np.int64(NO_GUESS)
    core.counters[NODES] += 1

    child = lower_row(core, cap - 1)
    obvious, value, cand, bound, possible, largest = prepare(
        core, subset, depth, cap, child, budget if bounds else np.int64(INF)
    )
    if obvious >= 0:
        best_value = np.int64(value)
        best_guess = np.int64(obvious) if value < budget else np.int64(NO_GUESS)
    else:
        best_value = budget if bounds else np.int64(INF)
        best_guess = np.int64(NO_GUESS)
        free = free_positions(core, depth)
        if bound.shape[0] == 0:
            best_value = max(best_value, exhausted(core, n) + core.node_cost * n)
        elif bounds and bound.min() >= budget:
            best_value = bound.min()  # a tighter lower bound for the memo
        live = np.flatnonzero(bound < min(best_value, INF))  # the others are never tried
        # if no guess is found below the budget: the least lower bound any guess showed
        floor = np.int64(INF)
        for i in range(bound.shape[0]):
            if bound[i] >= min(best_value, INF):
                floor = min(floor, bound[i])
        for i in live[try_order(core, cand[live], bound[live], possible[live], largest[live])]:
            if bound[i] >= min(best_value, INF):
                floor = min(floor, bound[i])  # (the rest are bounded as high)
                break
            g = cand[i]
            members, feedbacks, starts, order = ordered_cells(core, g, subset, core.smallest_first)
            lower = np.empty(order.shape[0], dtype=np.int64)
            total = bound[i] if bounds else (core.node_cost + guess_cost(core, g, free)) * n
            for k in range(order.shape[0]):
                c = order[k]
                part = members[starts[c] : starts[c + 1]]
                lower[k] = child[part.shape[0]] if bounds else np.int64(0)
                if bounds and sw[LOOKAHEAD]:
                    push(core, depth, g, feedbacks[c])
                    better = cell_bound(core, part, depth + 1, cap - 1)
                    total += better - lower[k]
                    lower[k] = better
                if bounds and total >= best_value:
                    break
            if bounds and total >= best_value:
                floor = min(floor, total)
                continue
            complete = True
            for k in range(order.shape[0]):
                c = order[k]
                part = members[starts[c] : starts[c + 1]]
                push(core, depth, g, feedbacks[c])
                v, _ = best(
                    core,
                    part,
                    depth + 1,
                    cap - 1,
                    best_value - (total - lower[k]) if bounds else np.int64(INF),
                )
                total += v - lower[k]
                if total >= best_value and (bounds or v >= INF):
                    complete = False
                    break
            if complete and total < best_value:
                best_value, best_guess = total, g
            elif bounds:
                floor = min(floor, total)
        if bounds and sw[FLOOR] and best_guess < 0 and bound.shape[0] > 0:
            best_value = max(best_value, floor)
    if sw[MEMO]:
        remember(core, key, shared, hkey, e, rename, best_value, best_guess)
        if n >= core.journal_min:
            journal(core, key, best_value, best_guess)
    return best_value, best_guess


@njit(inline="always")
def _mix(x):
    """A 64-bit finaliser (splitmix64's): every bit of x moves every bit of the result."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def journal_check(i, row):
    """The check of journal row `row` written as entry number i: a reader on another thread
    takes a row only when its check matches (never one half written, nor one from an
    earlier lap of the ring)."""
    h = _mix(np.uint64(i) ^ np.uint64(0x6A09E667F3BCC909))
    for j in range(5):
        h = _mix(h ^ np.uint64(row[j]))
    return np.int64(h)


@njit(cache=True)
def journal(core, key, value, guess):
    """Write a large set's value (guess >= 0) or lower bound into the search's journal, a
    ring the solve reads while the search runs (``take_journal``) and keeps in its result
    store, so that the values found inside a long task survive its interruption: a
    resumed solve seeds its memos with them (``seed_memos``)."""
    rows = core.journal
    if rows.shape[0] == 0:
        return
    i = core.counters[JOURNALED]
    row = rows[i % rows.shape[0]]
    row[0] = key[0]
    row[1] = key[1]
    row[2] = key[2]
    row[3] = value
    row[4] = guess
    row[5] = journal_check(i, row)
    core.counters[JOURNALED] = i + 1


@njit(cache=True)
def take_journal(rows, written, start):
    """The journal's rows from entry `start` to `written` (the count of rows written) that
    read whole, stopping at the first that does not yet (a row being written on another
    thread: read again next time); entries overwritten before being read are skipped.
    Returns (rows, the entry to start from next time)."""
    J = rows.shape[0]
    start = max(start, written - J)
    out = np.empty((max(written - start, 0), 5), dtype=np.int64)
    m = 0
    i = start
    while i < written:
        row = rows[i % J].copy()
        if row[5] != journal_check(i, row):
            break
        for j in range(5):
            out[m, j] = row[j]
        m += 1
        i += 1
    return out[:m], i


@njit(cache=True)
def seed_memos(core, rows):
    """Load journaled values (rows of ``take_journal``) into the search's memos: exact
    values with their guesses, lower bounds raising what is known."""
    exact, bounds = core.exact, core.bound_memo
    for r in range(rows.shape[0]):
        key = (rows[r, 0], rows[r, 1], rows[r, 2])
        value, guess = rows[r, 3], rows[r, 4]
        if guess >= 0:
            exact[key] = (value, guess)
        elif key not in exact:
            bounds[key] = max(bounds[key] if key in bounds else np.int64(0), value)


@njit(cache=True)
def enter(core, guesses, feedbacks):
    """Write a history (guess indices and their feedbacks) and the restriction state it
    leaves into the core, in one call; its depth."""
    core.allowed[0] = True
    core.least[0] = 0
    for depth in range(guesses.shape[0]):
        push(core, depth, guesses[depth], feedbacks[depth])
    return guesses.shape[0]


@njit(cache=True, nogil=True)
def tree_rows(core, subset, depth, cap):
    """The optimal tree of `subset` within `cap` guesses as an (nodes, 3) array: per node
    its guess, the index of its parent node (NO_GUESS at the root) and the feedback
    leading to it, depth first, children largest cell first.

    Values come from ``best`` (memo hits once the value is known). For the losses
    objective a cell that cannot win a secret any more gets no subtree. One compiled
    walk, as a call from Python per node costs more than the node's own work; it keeps
    its own stack of cells, as a recursive kernel would be one more compiled copy of
    ``best`` and all it calls (about 7 s more of compiling). The array is made here, as
    reading a typed List from Python compiles its accessors afresh in every process.
    """
    out = typed.List.empty_list(types.int64)
    cells = typed.List()  # cells still to walk, the last one first
    cells.append(subset)
    steps = typed.List()  # theirs: depth, parent node, the parent's guess, the feedback
    steps.append((depth, np.int64(NO_GUESS), np.int64(NO_GUESS), np.int64(0)))
    while len(cells) > 0:
        part = cells.pop()
        d, parent, parent_guess, feedback = steps.pop()
        left = cap - (d - depth)
        if d > depth:
            push(core, d - 1, parent_guess, feedback)
            if not core.exhaust_inf:
                v, _ = best(core, part, d, left, np.int64(INF))
                if v >= exhausted(core, part.shape[0]):
                    continue
        _, guess = best(core, part, d, left, np.int64(INF))
        if guess < 0:
            continue
        me = np.int64(len(out) // 3)
        out.append(guess)
        out.append(parent)
        out.append(feedback)
        members, feedbacks, starts, order = ordered_cells(core, guess, part, np.bool_(False))
        for k in range(order.shape[0] - 1, -1, -1):
            c = order[k]
            cells.append(members[starts[c] : starts[c + 1]])
            steps.append((d + 1, me, np.int64(guess), np.int64(feedbacks[c])))
    rows = np.empty(len(out), dtype=np.int64)
    for i in range(len(out)):
        rows[i] = out[i]
    return rows.reshape((-1, 3))
