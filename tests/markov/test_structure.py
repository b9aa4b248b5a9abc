"""The compiled structure passes: strong components against scipy's, and the refusals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfectplay import solve
from perfectplay.errors import PerfectplayError
from perfectplay.markov.structure import components
from perfectplay.markov.table import TableGame


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 30).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n),
        )
    )
)
def test_components_match_scipy(graph):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n, edges = graph
    edges = sorted(edges)
    src = np.array([a for a, _ in edges], dtype=np.int64)
    col = np.array([b for _, b in edges], dtype=np.int32)
    row_ptr = np.searchsorted(src, np.arange(n + 1)).astype(np.int64)
    labels = components(row_ptr, col)
    if len(edges):
        assert (labels[col] <= labels[src]).all()  # successors' components first
    adj = sp.csr_matrix((np.ones(len(edges)), (src, col)), shape=(n, n))
    _, ref = connected_components(adj, directed=True, connection="strong")
    pairs = set(zip(labels.tolist(), ref.tolist()))  # the same partition, up to names
    assert len(pairs) == len(set(labels.tolist())) == len(set(ref.tolist()))


@pytest.mark.parametrize(
    "table,terminal",
    [
        ({0: [(1, [(1, 0)])], 1: [(1, [(0, 0), (2, 1)])]}, {2}),  # a zero-cost cycle
        ({0: [(1, [(0, 0), (1, 1)])]}, {1}),  # a zero-cost self-loop
    ],
)
def test_zero_cost_cycles_are_refused(table, terminal):
    with pytest.raises(PerfectplayError, match="zero-cost"):
        solve(TableGame(table, terminal=frozenset(terminal)))


def test_a_state_that_can_never_finish_is_refused():
    game = TableGame({0: [(1, [(1, 1), (2, 1)])], 2: [(1, [(2, 1)])]}, terminal=frozenset({1}))
    with pytest.raises(PerfectplayError, match="can never end"):
        solve(game)
