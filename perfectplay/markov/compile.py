"""Explore a Markov game's reachable states once into integer-indexed (CSR) arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import PerfectplayError, Unsupported
from .model import MarkovGame

#: Bytes a compiled state costs with its outcomes and choices, per choice edge (estimate
#: used to refuse games that cannot fit in memory before exploring them).
BYTES_PER_EDGE = 24


@dataclass
class Graph:
    """A compiled game. States are indexed 0..N-1 in discovery order (0 is the start).

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

    @property
    def n_states(self) -> int:
        return len(self.codes)

    @property
    def n_edges(self) -> int:
        return len(self.target)

    def index_of(self, codes: np.ndarray) -> np.ndarray:
        """State indices of game codes (which must have been reached)."""
        order = self._sorted_order
        pos = np.searchsorted(self.codes[order], codes)
        return order[pos]

    @property
    def _sorted_order(self) -> np.ndarray:
        if not hasattr(self, "_order"):
            self._order = np.argsort(self.codes, kind="stable")
        return self._order

    def outcome_state(self) -> np.ndarray:
        """For every outcome, the state it belongs to."""
        return np.repeat(np.arange(self.n_states), np.diff(self.out_ptr))

    def edge_outcome(self) -> np.ndarray:
        """For every choice edge, the outcome it belongs to."""
        return np.repeat(np.arange(len(self.weight)), np.diff(self.choice_ptr))


def _check_memory(game: MarkovGame, memory_bytes: int) -> None:
    bound = game.state_bound()
    if bound is None:
        return
    sample = game.expand(np.array([game.initial_state()], dtype=np.int64))
    edges_per_state = int((sample.next >= 0).sum())
    need = bound * max(edges_per_state, 1) * BYTES_PER_EDGE
    if need > memory_bytes:
        raise Unsupported(
            f"{game} is too large: up to {bound:,} states with about {edges_per_state} "
            f"choices each need ~{need / 2**30:.0f} GiB, more than the "
            f"{memory_bytes / 2**30:.0f} GiB allowed"
        )


def compile_game(game: MarkovGame, *, memory_bytes: int = 20 * 2**30, batch: int = 1 << 16) -> Graph:
    """Explore every state reachable from the start, breadth first, and index them."""
    _check_memory(game, memory_bytes)
    start = np.array([game.initial_state()], dtype=np.int64)
    known = start.copy()  # sorted codes seen so far
    layers = [start]
    parts: list[tuple] = []  # per expanded chunk: (codes, terminal, weight, next, cost)
    frontier = start
    while frontier.size:
        new_codes = []
        for lo in range(0, len(frontier), batch):
            chunk = frontier[lo:lo + batch]
            terminal = np.asarray(game.is_terminal(chunk), dtype=bool)
            live = chunk[~terminal]
            exp = game.expand(live) if live.size else None
            parts.append((chunk, terminal, exp))
            if exp is not None:
                nxt = np.asarray(exp.next)
                reached = np.unique(nxt[(nxt >= 0) & (np.asarray(exp.weight)[..., None] > 0)])
                new_codes.append(reached)
        if not new_codes:
            break
        cand = np.unique(np.concatenate(new_codes))
        pos = np.searchsorted(known, cand)
        seen = (pos < len(known)) & (known[np.minimum(pos, len(known) - 1)] == cand)
        frontier = cand[~seen]
        if frontier.size:
            layers.append(frontier)
            known = np.union1d(known, frontier)
    return _assemble(np.concatenate(layers), parts, game)


def _assemble(codes: np.ndarray, parts: list[tuple], game: MarkovGame) -> Graph:
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]

    def index(c: np.ndarray) -> np.ndarray:
        return order[np.searchsorted(sorted_codes, c)]

    n = len(codes)
    terminal = np.zeros(n, dtype=bool)
    n_out = np.zeros(n, dtype=np.int64)
    denom = np.ones(n, dtype=np.int64)
    weights, out_k, n_choice, targets, costs, choice_c = [], [], [], [], [], []
    for chunk, term, exp in parts:  # chunks come in discovery order, as the indices do
        idx = index(chunk)
        terminal[idx] = term
        if exp is None:
            continue
        live = idx[~term]
        w = np.asarray(exp.weight, dtype=np.int64)
        nxt = np.asarray(exp.next, dtype=np.int64)
        cost = np.broadcast_to(np.asarray(exp.cost, dtype=np.int64), nxt.shape)
        has_out = w > 0
        valid = (nxt >= 0) & has_out[..., None]
        empty = has_out & ~valid.any(axis=2)
        if empty.any():
            b, k = map(int, np.argwhere(empty)[0])
            raise PerfectplayError(f"{game}: outcome {k} of state {int(chunk[~term][b])} offers no choice")
        if (w < 0).any() or (w.sum(axis=1) == 0).any():
            raise PerfectplayError(f"{game}: a non-terminal state has no chance outcome")
        if (cost[valid] < 0).any():
            raise PerfectplayError(f"{game}: negative cost")
        n_out[live] = has_out.sum(axis=1)
        denom[live] = w.sum(axis=1)
        bk = np.nonzero(has_out)
        weights.append(w[bk])
        out_k.append(bk[1])
        n_choice.append(valid[bk].sum(axis=1))
        bkc = np.nonzero(valid)
        targets.append(index(nxt[bkc]))
        costs.append(cost[bkc])
        choice_c.append(bkc[2])
    # Parts are in discovery order, so concatenating them lays outcomes out by state index.
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_out, out=out_ptr[1:])
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dtype=dt)  # noqa: E731
    nc = cat(n_choice, np.int64)
    choice_ptr = np.zeros(len(nc) + 1, dtype=np.int64)
    np.cumsum(nc, out=choice_ptr[1:])
    return Graph(
        codes=codes, terminal=terminal, denom=denom, out_ptr=out_ptr,
        weight=cat(weights, np.int64), outcome_k=cat(out_k, np.int32), choice_ptr=choice_ptr,
        target=cat(targets, np.int32 if n < 2**31 else np.int64), cost=cat(costs, np.int32),
        choice_c=cat(choice_c, np.int8),
    )
