"""Explore a Markov game's reachable states once into integer-indexed (CSR) arrays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import BadRules, PerfectplayError, call_rule, in_rule
from ..memory import available, refuse_beyond
from ..progress import Silent
from . import contract
from .model import MarkovGame

#: Estimated bytes a compiled choice edge costs, outcome share and exploration included;
#: used to refuse games that cannot fit in memory before exploring them.
BYTES_PER_EDGE = 24
#: Estimated bytes a state costs beside its choices (its code, flags, pointers, values).
BYTES_PER_STATE = 40
#: Bytes a state costs in the set of states seen by an exploration that tracks them
#: without a bitmap (``_Seen``): a Python int and its share of the set's table, which
#: is briefly held twice when the set grows (measured: 70 on average, 123 at worst).
SEEN_BYTES = 130
#: Largest code space tracked by a bitmap of seen states (2^36 bits = 8 GiB).
BITMAP_LIMIT = 1 << 36
#: States handed to ``is_terminal`` and ``expand`` at once by the exploration through the
#: vectorised rules (``check_game`` calls them in the same batches).
EXPLORE_BATCH = 1 << 16


class Rows(NamedTuple):
    """What the solver's kernels read of a graph, as one record (``Graph``'s arrays of
    the same names): each state's outcomes, their weights and the state's denominator,
    each outcome's choices, their targets and costs."""

    out_ptr: np.ndarray
    weight: np.ndarray
    denom: np.ndarray
    choice_ptr: np.ndarray
    target: np.ndarray
    cost: np.ndarray


class GraphArrays(NamedTuple):
    """Every array of a ``Graph``, as one record: what the compiled exploration
    (``compiled.fill``) writes."""

    codes: np.ndarray
    terminal: np.ndarray
    denom: np.ndarray
    out_ptr: np.ndarray
    weight: np.ndarray
    outcome_k: np.ndarray
    choice_ptr: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    choice_c: np.ndarray


@dataclass
class Graph:
    """A compiled game. States are indexed 0..N-1 (in discovery order when compiled, in
    the solver's visiting order once ``renumber``ed); ``start`` is the start's index.

    Outcomes of state s are out_ptr[s]:out_ptr[s+1]; outcome o has chance weight
    weight[o] (probability weight[o] / denom[s]) and the game's outcome number
    outcome_k[o]; its choices are choice_ptr[o]:choice_ptr[o+1], each with target state,
    cost and the game's choice number choice_c.
    """

    codes: np.ndarray
    terminal: np.ndarray
    denom: np.ndarray
    out_ptr: np.ndarray
    weight: np.ndarray
    outcome_k: np.ndarray
    choice_ptr: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    choice_c: np.ndarray
    start: int = 0

    @property
    def n_states(self) -> int:
        return len(self.codes)

    @property
    def rows(self) -> Rows:
        """The arrays the solver's kernels read (taken by the record's field names)."""
        return Rows(*(getattr(self, name) for name in Rows._fields))

    @property
    def arrays(self) -> GraphArrays:
        """Every array, as one record (taken by the record's field names)."""
        return GraphArrays(*(getattr(self, name) for name in GraphArrays._fields))

    @property
    def n_edges(self) -> int:
        return len(self.target)

    def index_of(self, codes: np.ndarray) -> np.ndarray:
        """State indices of game codes; KeyError for a code never reached."""
        codes = np.asarray(codes, dtype=np.int64)
        order, sorted_codes = self._lookup()
        idx = np.minimum(np.searchsorted(sorted_codes, codes), self.n_states - 1)
        if order is not None:
            idx = order[idx]
        if (self.codes[idx] != codes).any():
            raise KeyError("state not reachable in this game")
        return idx

    def renumber(self, order: np.ndarray, pairs: Pairs | None = None) -> None:
        """Renumber state order[i] as i, in place, so that sweeping states in `order` reads
        the arrays front to back (an order of magnitude fewer cache misses). Each array
        is copied row by row into its new place (a state's outcomes, and its choices, are
        contiguous) and replaced at once, so the peak memory is one array more than the
        graph. `pairs`, the graph's ``Pairs`` layout, is renumbered with it."""
        from .kernels import copy_rows_renamed, permute_pointers, targets_through_pairs
        from .structure_kernels import edge_rows

        order = order.astype(np.int64)
        inv = np.empty(self.n_states, dtype=self.target.dtype)
        inv[order] = np.arange(self.n_states, dtype=self.target.dtype)
        rows = edge_rows(self.out_ptr, self.choice_ptr)
        target = np.empty_like(self.target)
        if pairs is not None:
            old_local = pairs.local
            pairs.renumber(order, inv, rows)
            targets_through_pairs(
                order, rows, self.target, inv, old_local, pairs.ptr, pairs.target, target
            )
            del old_local
        else:
            copy_rows_renamed(order, rows, self.target, inv, target)
        self.target = target
        out_ptr = np.zeros(self.n_states + 1, dtype=np.int64)
        choice_ptr = np.zeros(len(self.weight) + 1, dtype=self.choice_ptr.dtype)
        permute_pointers(order, self.out_ptr, self.choice_ptr, out_ptr, choice_ptr)
        for name in ("codes", "terminal", "denom"):
            setattr(self, name, getattr(self, name)[order])
        for name in ("weight", "outcome_k"):
            setattr(self, name, _rows_in_order(order, self.out_ptr, getattr(self, name)))
        for name in ("cost", "choice_c"):
            setattr(self, name, _rows_in_order(order, rows, getattr(self, name)))
        self.out_ptr, self.choice_ptr, self.start = out_ptr, choice_ptr, int(inv[self.start])
        self.__dict__.pop("_lookup_table", None)  # the codes moved: rebuild on next lookup

    @property
    def in_code_order(self) -> bool:
        """Whether the states are indexed in increasing code order (a compiled
        exploration's)."""
        return self.n_states < 2 or bool((self.codes[1:] > self.codes[:-1]).all())

    def _lookup(self) -> tuple[np.ndarray | None, np.ndarray]:
        """(argsort of the codes, the codes sorted), built on the first lookup only: most
        solves never look a code up, and the sort of tens of millions of codes is not free.
        Codes already in increasing order (a compiled exploration indexes states in code
        order) are searched as they are: (None, the codes), nothing built (Tricky Trios
        n=100: 0.85 GB and a sort of 53 million codes spared)."""
        if "_lookup_table" not in self.__dict__:
            if self.in_code_order:
                self.__dict__["_lookup_table"] = (None, self.codes)
            else:
                order = np.argsort(self.codes, kind="stable")
                self.__dict__["_lookup_table"] = (order, self.codes[order])
        return self.__dict__["_lookup_table"]

    def outcome_state(self) -> np.ndarray:
        """For every outcome, the state it belongs to."""
        return np.repeat(np.arange(self.n_states), np.diff(self.out_ptr))

    def edge_outcome(self) -> np.ndarray:
        """For every choice edge, the outcome it belongs to."""
        return np.repeat(np.arange(len(self.weight)), np.diff(self.choice_ptr))

    def pairs(self) -> Pairs:
        """The graph's ``Pairs`` layout (one compiled pass over the choices)."""
        from .kernels import distinct_pairs

        ptr, target, cost, local = distinct_pairs(
            self.out_ptr, self.choice_ptr, self.target, self.cost
        )
        return Pairs(ptr, target, cost, local)


@dataclass
class Pairs:
    """Each state's distinct (target, cost) pairs, and each choice's position among its
    state's pairs: the compressed form of a Graph's choices the sweeps read.

    A state offers many choices to few distinct next states when its outcomes share them
    (dice-cards n=10: about 155 choices, 20 distinct targets). Reading ``V[target]`` for
    every choice is a random gather per choice; with the pairs, a sweep computes
    ``cost + V[target]`` once per pair into a small buffer and takes each outcome's
    minimum from the buffer through ``local`` (one byte per choice instead of a
    four-byte target and a cost). The arithmetic is the same, so the values are the same
    bit for bit. Row s is ptr[s]:ptr[s + 1] of `target` and `cost`; ``local[e]`` is
    choice e's position in its state's row. A state with more than ``kernels.LOCAL_MAX``
    (255) pairs keeps every choice in its row instead, its ``local`` entries 0 and
    unused: its choices are read directly (``kernels.direct_value``, the fallback). The
    rows are also the state graph without its repeated edges, which the structure passes
    walk (``structure.solve_order``).
    """

    ptr: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    local: np.ndarray

    @staticmethod
    def none() -> Pairs:
        """No layout: every state's choices read directly (``by_components`` solves one
        small component at a time, where building the layout would not pay)."""
        return Pairs(
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype=np.int32),
            np.zeros(0, dtype=np.int8),
            np.zeros(0, dtype=np.uint8),
        )

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ptr, target, cost, local): the form the kernels take."""
        return self.ptr, self.target, self.cost, self.local

    def renumber(self, order: np.ndarray, inv: np.ndarray, edge_rows: np.ndarray) -> None:
        """``Graph.renumber``'s part for the layout: the rows in `order`, targets renamed by
        `inv`, ``local`` moved with its choices (`edge_rows`: the graph's choice rows per
        state before renumbering). A choice's position in its row does not change."""
        from .kernels import copy_rows_renamed

        ptr = _pointers(np.diff(self.ptr)[order])
        target = np.empty_like(self.target)
        copy_rows_renamed(order, self.ptr, self.target, inv, target)
        self.target = target
        self.cost = _rows_in_order(order, self.ptr, self.cost)
        self.ptr = ptr
        self.local = _rows_in_order(order, edge_rows, self.local)


@dataclass
class _Piece:
    """A batch of explored states in compact form; targets still as game codes."""

    terminal: np.ndarray
    n_out: np.ndarray
    denom: np.ndarray
    weight: np.ndarray
    outcome_k: np.ndarray
    n_choice: np.ndarray
    target_codes: np.ndarray
    cost: np.ndarray
    choice_c: np.ndarray


def check_memory(game: MarkovGame, memory_bytes: int | None = None) -> None:
    """Refuse, in one line, a game whose states cannot fit in `memory_bytes` (by default
    the memory available, ``memory.available``)."""
    bound = game.state_bound()
    if bound is None:
        return
    if game.bytes_per_state is not None:
        need = bound * game.bytes_per_state
        detail = f"at {game.bytes_per_state:,} bytes each (measured)"
    else:
        sample = contract.expansion(game, np.array([contract.start(game)], dtype=np.int64))
        edges_per_state = int((sample.next >= 0).sum())
        need = graph_bytes(bound, bound * max(edges_per_state, 1))
        detail = f"with about {edges_per_state} choices each"
    way_out = _WAY_OUT
    if game.stages() is not None:
        way_out = (
            "a game given by stages takes far less solved by stages (without --without "
            f"stages) than as a graph; or {_WAY_OUT}"
        )
    refuse_beyond(
        need, f"{game} is too large: up to {bound:,} states {detail}", way_out, memory_bytes
    )


def graph_bytes(states: int, edges: int) -> int:
    """The memory a solve of `states` states and `edges` choice edges takes, about
    (``BYTES_PER_EDGE`` a choice, ``BYTES_PER_STATE`` a state): the estimate of games
    that measured none of their own (``MarkovGame.bytes_per_state``)."""
    return states * BYTES_PER_STATE + edges * BYTES_PER_EDGE


#: What a person can do about a game too large for the memory.
_WAY_OUT = "try smaller parameters"


class _Seen:
    """The set of state codes discovered so far: a bitmap when the game bounds its codes,
    else a Python set (a sorted array merged per layer was quadratic on deep games)."""

    def __init__(self, bound: int | None):
        self.bits = (
            np.zeros((bound + 7) // 8, dtype=np.uint8) if bound and bound <= BITMAP_LIMIT else None
        )
        self.known: set[int] = set()
        #: The memory each code seen takes (the bitmap is allocated whole at once).
        self.bytes_per_code = SEEN_BYTES if self.bits is None else 0

    def keep_new(self, codes: np.ndarray) -> np.ndarray:
        """The codes not seen before (each once), now marked as seen (the codes checked
        within the game's code bound as the rules gave them: ``contract``)."""
        codes = np.unique(codes)
        if self.bits is not None:
            from .kernels import mark_unseen

            return codes[mark_unseen(self.bits, codes)]
        fresh = [c for c in codes.tolist() if c not in self.known]
        self.known.update(fresh)
        return np.array(fresh, dtype=np.int64)


def explores_compiled(game: MarkovGame, compiled: bool | None = None):
    """The game's compiled rules when its exploration runs compiled (``compiled=None``:
    whenever the game gives compiled rules and a code bound a bitmap can track), else
    None."""
    rules = call_rule(game, "compiled_rules")
    bound = contract.code_bound(game)
    if compiled is None:
        compiled = rules is not None and bound is not None and bound <= BITMAP_LIMIT
    return rules if compiled else None


def compile_game(
    game: MarkovGame,
    *,
    memory_bytes: int | None = None,
    batch: int = EXPLORE_BATCH,
    progress: Silent | None = None,
    compiled: bool | None = None,
    reached: Reached | None = None,
) -> Graph:
    """Explore every state reachable from the start and index them: compiled end to end
    when the game gives compiled rules and a code bound (``compiled=None``: whenever it
    can; `reached`: the compiled reach pass done already), else breadth first in batches
    through the vectorised ``expand``."""
    progress = progress or Silent()
    check_memory(game, memory_bytes)
    rules = explores_compiled(game, compiled)
    g = (
        _explore_compiled(game, rules, reached)
        if rules is not None
        else _explore_by_batches(game, batch, progress)
    )
    if game.pays:  # the points paid, as costs (the one place they enter the engine)
        np.negative(g.cost, out=g.cost)
    return g


def _explore_by_batches(game: MarkovGame, batch: int, progress: Silent) -> Graph:
    """Explore breadth first in batches through the game's vectorised ``expand``, the
    rules read checked (``contract``); in the first batch of more than one state that
    is not terminal, the first is expanded alone too, and must come out the same (one
    call more per solve: ``_explore``). The states found are held to the memory
    available as they are found."""
    free = available()
    seen = _Seen(contract.code_bound(game))
    frontier = seen.keep_new(np.array([contract.start(game)], dtype=np.int64))
    layers, pieces, explored, found, edges = [frontier], [], 0, 1, 0
    alone = True  # a state is still to be expanded alone too (``_explore``)
    while frontier.size:
        fresh = []
        for lo in range(0, len(frontier), batch):
            piece = _explore(game, frontier[lo : lo + batch], alone)
            alone = alone and piece.n_out.astype(bool).sum() < 2
            pieces.append(piece)
            fresh.append(seen.keep_new(piece.target_codes))
            explored += len(piece.terminal)
            found, edges = found + len(fresh[-1]), edges + len(piece.target_codes)
            refuse_beyond(
                graph_bytes(found, edges) + seen.bytes_per_code * found,
                f"{game} is too large: the {found:,} states found so far, with {edges:,} choices,",
                _WAY_OUT,
                free,
            )
            progress.update(explored)
        frontier = np.concatenate(fresh)
        if frontier.size:
            layers.append(frontier)
    return _assemble(np.concatenate(layers), pieces)


class Reached(NamedTuple):
    """What ``compiled.reach`` finds: the reachable codes as a bitmap, how many states,
    outcomes and choices they have, and their largest weight, weight total and cost."""

    bits: np.ndarray
    states: int
    outcomes: int
    choices: int
    top_weight: int
    top_total: int
    top_cost: int


def reach_compiled(
    game: MarkovGame, rules, *, graph_must_fit: bool = True, reached: Reached | None = None
) -> Reached:
    """The compiled reach pass over `game` (its `rules`, ``game.compiled_rules()``),
    from its start checked within its code bound (``contract.start``; a start beyond it
    would be marked outside the bitmap); a broken rule is a one-line error naming the
    game (the kernel's checks: weights, costs, codes within the bound, an outcome
    without a choice; then weights that could total more than 2**62 on a state); a
    bitmap of the game's codes or a graph of the states found larger than the memory
    available is refused in one line before it is allocated (`graph_must_fit` False: not
    the graph, for a solve that may recompute it; `reached`: the pass made already, only
    the graph's refusal made)."""
    if reached is not None:
        _refuse_graph(game, reached)
        return reached
    start = contract.start(game)
    bound = contract.code_bound(game)
    refuse_beyond(bound // 8, f"{game}: a bitmap of its {bound:,} codes", _WAY_OUT)
    with in_rule(game, "compiled_rules"):  # (a kernel that does not compile, say)
        try:
            reached = Reached(
                *rules.reach(
                    rules.params, np.int64(start), np.int64(bound), rules.outcomes, rules.choices
                )
            )
        except ValueError as err:  # the kernel's checks
            raise BadRules(f"{game}: compiled_rules(): {err}") from None
    if reached.top_weight > contract.MAX_TOTAL_WEIGHT // max(rules.outcomes, 1):
        raise BadRules(
            f"{game}: compiled_rules(): a weight of {reached.top_weight:,} among "
            f"{rules.outcomes} outcomes may total more than 2**62 on a state"
        )
    if graph_must_fit:
        _refuse_graph(game, reached)
    return reached


def _refuse_graph(game: MarkovGame, reached: Reached) -> None:
    """Refuse, in one line, a `reached` game whose graph would not fit in memory."""
    refuse_beyond(
        graph_bytes(reached.states, reached.choices),
        f"{game} is too large: its {reached.states:,} states, with {reached.choices:,} choices,",
        _WAY_OUT,
    )


def _explore_compiled(game: MarkovGame, rules, reached: Reached | None = None) -> Graph:
    """The whole exploration in two compiled calls (``compiled.reach``, unless `reached`
    holds its result, and ``fill``), the arrays allocated in between, exactly sized and
    no wider than their values need, and paged in on a helper thread while ``fill``
    writes them (``prefault.writing``)."""
    from .prefault import writing

    bits, n, n_out, n_edge, top_w, top_total, top_cost = reached or reach_compiled(game, rules)
    g = Graph(
        codes=np.empty(n, dtype=np.int64),
        terminal=np.empty(n, dtype=bool),
        denom=np.empty(n, dtype=narrowest(top_total, np.int32)),
        out_ptr=np.empty(n + 1, dtype=np.int64),
        weight=np.empty(n_out, dtype=narrowest(top_w, np.int32)),
        outcome_k=np.empty(n_out, dtype=narrowest(rules.outcomes)),
        choice_ptr=np.empty(n_out + 1, dtype=narrowest(n_edge, low=np.int32)),
        target=np.empty(n_edge, dtype=np.int32),
        cost=np.empty(n_edge, dtype=narrowest(top_cost)),
        choice_c=np.empty(n_edge, dtype=narrowest(rules.choices)),
    )
    arrays = g.arrays
    g.start = int(
        writing(
            arrays,
            lambda: rules.fill(
                rules.params,
                bits,
                np.int64(contract.start(game)),
                rules.outcomes,
                rules.choices,
                arrays,
            ),
        )
    )
    return g


def _rows_in_order(order: np.ndarray, row_ptr: np.ndarray, a: np.ndarray) -> np.ndarray:
    """A copy of `a` with its rows (``row_ptr``) in the order `order`."""
    from .kernels import copy_rows

    out = np.empty_like(a)
    copy_rows(order, row_ptr, a, out)
    return out


def narrowest(largest: int, low=np.int8) -> type:
    """The narrowest signed integer type, `low` or wider, that holds -largest..largest (a
    game's points are held negated, as costs: ``MarkovGame.pays``): the graph's
    costs and labels are small in practice, and at tens of millions of states each byte
    per choice is hundreds of MB. (Weights and pointers start at int32 so that nearly
    every game gives the compiled kernels the same argument types: each new combination
    is compiled once more.)"""
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        if np.dtype(dtype).itemsize >= np.dtype(low).itemsize and largest <= np.iinfo(dtype).max:
            return dtype
    raise PerfectplayError(f"a value of {largest} does not fit in 64 bits")


def _explore(game: MarkovGame, chunk: np.ndarray, alone: bool = False) -> _Piece:
    """Expand one batch of states, the rules read checked (``contract``), and keep only
    the outcomes and choices that exist. With `alone`, where more than one of them is
    not terminal, the first is expanded alone too and held to its row of the batch:
    rules that answer a state two ways (drawing at random, or alone otherwise than in
    a batch) are refused in one line."""
    terminal = contract.terminal(game, chunk)
    live = chunk[~terminal]
    n_out = np.zeros(len(chunk), dtype=np.int64)
    denom = np.ones(len(chunk), dtype=np.int64)
    if not live.size:
        empty = np.zeros(0, dtype=np.int64)
        return _Piece(terminal, n_out, denom, empty, empty, empty, empty, empty, empty)
    exp = contract.expansion(game, live)
    if alone and len(live) > 1:
        one = contract.expansion(game, live[:1])
        contract.same_state(game, int(live[0]), one, 0, exp, 0)
    w, nxt, cost = exp.weight, exp.next, exp.cost
    has_out = w > 0
    valid = (nxt >= 0) & has_out[..., None]
    n_out[~terminal] = has_out.sum(axis=1)
    denom[~terminal] = w.sum(axis=1)
    bk = np.nonzero(has_out)
    bkc = np.nonzero(valid)
    return _Piece(
        terminal,
        n_out.astype(np.int32),
        denom,
        w[bk],
        bk[1].astype(np.int32),
        valid[bk].sum(axis=1).astype(np.int32),
        nxt[bkc],
        cost[bkc].astype(np.int32),
        bkc[2].astype(np.int16),
    )


def _pointers(counts: np.ndarray) -> np.ndarray:
    """CSR row pointers from row lengths."""
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


def _assemble(codes: np.ndarray, pieces: list[_Piece]) -> Graph:
    """Join the pieces (in discovery order, as the state indices are) into one Graph,
    releasing each piece's field as soon as it is joined."""

    def take(name: str, dtype) -> np.ndarray:
        joined = np.concatenate([getattr(p, name) for p in pieces]).astype(dtype, copy=False)
        for p in pieces:
            setattr(p, name, None)
        return joined

    def narrow(a: np.ndarray, low=np.int8) -> np.ndarray:
        return a.astype(narrowest(int(a.max(initial=0)), low), copy=False)

    out_ptr = _pointers(take("n_out", np.int32))
    choice_ptr = _pointers(take("n_choice", np.int32))
    order = np.argsort(codes, kind="stable")
    index_type = np.int32 if len(codes) < 2**31 else np.int64
    target = order[np.searchsorted(codes[order], take("target_codes", np.int64))].astype(index_type)
    del order
    return Graph(
        codes=codes,
        terminal=take("terminal", bool),
        denom=narrow(take("denom", np.int64), np.int32),
        out_ptr=out_ptr,
        weight=narrow(take("weight", np.int64), np.int32),
        outcome_k=narrow(take("outcome_k", np.int32)),
        choice_ptr=narrow(choice_ptr, np.int32),
        target=target,
        cost=narrow(take("cost", np.int32)),
        choice_c=narrow(take("choice_c", np.int16)),
    )
