"""A Markov game whose compiled rules read a transition table packed into their
parameters: random games of any shape explored and solved compiled end to end, streamed
included, for the tests to compare with ``TableGame`` (the per-state Python path)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from perfectplay.markov.compiled import expand_batch, fill, reach, rules_kernel
from perfectplay.markov.model import CompiledRules, MarkovGame
from perfectplay.markov.recomputed import solve_recomputed
from perfectplay.markov.streamed import solve_blocks
from perfectplay.markov.table import TableGame


@rules_kernel
def _rules(params, code, weight, nxt, cost):
    """params: n, K, C, then per state its terminal flag, then its K weights, then its K x C
    next codes, then its K x C costs (every state in turn, block by block)."""
    n, K, C = params[0], params[1], params[2]
    if params[3 + code] == 1:
        return True
    w0 = 3 + n + code * K
    n0 = 3 + n + n * K + code * K * C
    c0 = n0 + n * K * C
    for k in range(K):
        weight[k] = params[w0 + k]
        for c in range(C):
            nxt[k, c] = params[n0 + k * C + c]
            cost[k, c] = params[c0 + k * C + c]
    return False


@njit(cache=True)
def _expand_batch(params, codes, K, C):
    return expand_batch(_rules, params, codes, K, C)


@njit(cache=True)
def _reach(params, start, bound, K, C):
    return reach(_rules, params, start, bound, K, C)


@njit(cache=True, nogil=True)
def _fill(params, bits, start, K, C, arrays):
    return fill(_rules, params, bits, start, K, C, arrays)


@njit(cache=True, nogil=True)
def _solve_blocks(params, bits, K, C, span, limits, V, chosen, rank):
    return solve_blocks(_rules, params, bits, K, C, span, limits, V, chosen, rank)


@njit(cache=True, nogil=True)
def _solve_recomputed(params, bits, K, C, span, limits, V, rank, blocks, step):
    return solve_recomputed(_rules, params, bits, K, C, span, limits, V, rank, blocks, step)


@dataclass(frozen=True, eq=False)
class CompiledTable(MarkovGame):
    """``table`` as ``TableGame``'s (every state 0..n-1 a row or terminal), compiled."""

    name = "compiled-table"
    summary = "a transition table read by compiled rules (tests)"

    table: dict = field(default_factory=dict)
    terminal: frozenset = frozenset()
    n: int = 1
    start: int = 0
    cycle_span: int = 0

    def as_table_game(self) -> TableGame:
        return TableGame(self.table, terminal=self.terminal, start=self.start)

    def initial_state(self) -> int:
        return self.start

    def code_bound(self) -> int:
        return self.n

    def compiled_rules(self) -> CompiledRules:
        K = max([len(row) for row in self.table.values()] + [1])
        C = max([len(ch) for row in self.table.values() for _, ch in row] + [1])
        flags = np.array([s in self.terminal for s in range(self.n)], dtype=np.int64)
        weight = np.zeros((self.n, K), dtype=np.int64)
        nxt = np.full((self.n, K, C), -1, dtype=np.int64)
        cost = np.zeros((self.n, K, C), dtype=np.int64)
        for s, row in self.table.items():
            for k, (w, choices) in enumerate(row):
                weight[s, k] = w
                for c, (t, cst) in enumerate(choices):
                    nxt[s, k, c], cost[s, k, c] = t, cst
        params = np.concatenate(([self.n, K, C], flags, weight.ravel(), nxt.ravel(), cost.ravel()))
        return CompiledRules(
            params.astype(np.int64),
            K,
            C,
            _expand_batch,
            _reach,
            _fill,
            _solve_blocks,
            _solve_recomputed,
        )
