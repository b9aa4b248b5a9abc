"""The dense solve of the policy evaluation (``markov.dense``) against numpy's LAPACK."""

import numpy as np
import pytest

from perfectplay.markov.dense import solve_in_place


def _policy_system(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    """A system like a policy block's: den on the diagonal, a few negative weights off it,
    some mass leaving the block (so the matrix is regular)."""
    A = np.zeros((m, m))
    for i in range(m):
        den = 36.0
        for t in rng.choice(m, size=min(m, 4), replace=False):
            A[i, t] -= rng.integers(1, 6)
        A[i, i] += den
    return A, rng.uniform(1, 100, m)


@pytest.mark.parametrize("m", [1, 2, 7, 60, 300])
def test_matches_lapack(m):
    rng = np.random.default_rng(m)
    A, b = _policy_system(rng, m)
    expected = np.linalg.solve(A, b)
    x = b.copy()
    assert solve_in_place(A.copy(), x)
    np.testing.assert_allclose(x, expected, rtol=1e-13)


def test_pivots():
    """A zero on the diagonal needs a row exchange."""
    A = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    b = np.array([5.0, 3.0, 7.0])
    x = b.copy()
    assert solve_in_place(A.copy(), x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-14)


def test_singular():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert not solve_in_place(A, np.array([1.0, 1.0]))
