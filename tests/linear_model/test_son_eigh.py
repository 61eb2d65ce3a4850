"""The compiled small symmetric eigen-solver of the SON compactions against LAPACK.

Both are backward stable: each computes the exact decomposition of ``A + E``
with ``‖E‖₂ ≤ c · n · eps · ‖A‖₂`` for a small constant ``c``. So eigenvalues
agree within that bound (Weyl), the residual ``‖AV − VΛ‖`` and the loss of
orthogonality ``‖VᵀV − I‖`` are of that order too; the tests use ``c = 10``.
"""

import numpy as np
import pytest
from skonline.linear_model._son_fast import _small_eigh, _small_eigh_top

EPS = np.finfo(np.float64).eps


def _check(A):
    n = A.shape[0]
    w, V = _small_eigh(A)
    norm = max(np.linalg.norm(A, 2), np.finfo(np.float64).tiny)
    tol = 10 * n * EPS * norm
    np.testing.assert_array_equal(w, np.sort(w))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A), rtol=0, atol=tol)
    assert np.linalg.norm(A @ V - V * w, 2) <= tol
    assert np.linalg.norm(V.T @ V - np.eye(n), 2) <= 10 * n * EPS


@pytest.mark.parametrize("n", [1, 2, 3, 7, 11, 20, 40])
@pytest.mark.parametrize("scale", [1e-200, 1e-8, 1.0, 1e8, 1e200])
def test_gram_matrices_of_every_size_and_scale(n, scale):
    rng = np.random.default_rng(n)
    rows = rng.standard_normal((n + 3, n)) * np.sqrt(scale)
    _check(rows.T @ rows)


@pytest.mark.parametrize("n", [2, 5, 20])
def test_indefinite_symmetric(n):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n))
    _check((A + A.T) / 2)


def _repeated_zero_and_graded():
    """Matrices with repeated, zero and graded eigenvalues, then one already diagonal."""
    rng = np.random.default_rng(1)
    Q, _ = np.linalg.qr(rng.standard_normal((9, 9)))
    for values in (
        [1, 1, 1, 2, 2, 0, 0, 0, 0],
        [0] * 9,
        [10.0**-k for k in range(9)],
        [1e12, 1e12, 1, 1, 1e-12, 0, 0, 3, 3],
    ):
        yield (Q * values) @ Q.T


def test_repeated_zero_and_graded_eigenvalues():
    for A in _repeated_zero_and_graded():
        _check(A)
    _check(np.diag([3.0, -1.0, 2.0, 2.0, 0.0]))  # already tridiagonal (and diagonal)


def test_rank_deficient_sketch_gram():
    # what a compaction sees: the m - 1 kept values on the diagonal plus m + 1
    # appended rows in the same basis
    rng = np.random.default_rng(2)
    m = 10
    S = np.zeros((2 * m, 2 * m))
    S[np.arange(m - 1), np.arange(m - 1)] = np.sort(rng.uniform(1, 50, m - 1))[::-1]
    C = rng.standard_normal((m + 1, 2 * m))
    C[:, : m - 1] *= 3.0
    _check(S + C.T @ C)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_reported(bad):
    A = np.eye(4)
    A[1, 2] = A[2, 1] = bad
    with pytest.raises(FloatingPointError):
        _small_eigh(A)


def _check_top(A, count, nvec):
    # the top `count` eigenvalues (the same values as the full solver's: the same
    # reduction and QL arithmetic) and the eigenvectors of the top `nvec`, under
    # the bounds of _check
    n = A.shape[0]
    w, V, status = _small_eigh_top(A, count, nvec)
    assert status == 0
    w_full, _ = _small_eigh(A)
    np.testing.assert_array_equal(w, w_full[n - count :])
    norm = max(np.linalg.norm(A, 2), np.finfo(np.float64).tiny)
    tol = 10 * n * EPS * norm
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A)[n - count :], rtol=0, atol=tol)
    assert V.shape == (n, nvec)
    if nvec:
        assert np.linalg.norm(A @ V - V * w[count - nvec :], 2) <= tol
        assert np.linalg.norm(V.T @ V - np.eye(nvec), 2) <= 10 * n * EPS


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 40])
@pytest.mark.parametrize("scale", [1e-200, 1.0, 1e200])
def test_top_eigenpairs_of_sketch_grams(n, scale):
    rng = np.random.default_rng(n)
    m = max(n // 2, 1)
    S = np.zeros((n, n))
    S[np.arange(m - 1), np.arange(m - 1)] = np.sort(rng.uniform(1, 50, m - 1))[::-1]
    C = rng.standard_normal((m + 1, n))
    A = (S + C.T @ C) * scale
    for count, nvec in ((m, m - 1), (m, m), (n, n), (1, 0), (1, 1)):
        _check_top(A, count, max(nvec, 0))


def test_top_eigenpairs_repeated_zero_and_graded():
    for A in _repeated_zero_and_graded():
        for count, nvec in ((9, 9), (5, 4), (2, 2)):
            _check_top(A, count, nvec)
    _check_top(np.diag([3.0, -1.0, 2.0, 2.0, 0.0]), 3, 2)


def test_top_eigenpairs_non_finite_input_is_reported():
    A = np.eye(4)
    A[1, 2] = A[2, 1] = np.nan
    with pytest.raises(FloatingPointError):
        _small_eigh_top(A, 2, 1)
