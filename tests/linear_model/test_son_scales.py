"""RFD-SON's feature scales: read from one value first, confirmed by the first three.

A feature first seen after the first rows (or seen fewer than three times in
them) is scaled by the power of two of its first non-zero value; at its third
non-zero value the scale becomes the power of two nearest the root-mean-square
of its first three, and the curvature changes units with it.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from skonline import RFDSONClassifier, RFDSONRegressor
from skonline.evaluation import prequential_score
from skonline.linear_model._son_kernels import rescale_curvature


def _sparse_stream(n, d, seed, density=0.05):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.nnz)
    y = (np.asarray(X @ rng.standard_normal(d)).ravel() > 0).astype(int)
    return X, y


def _confirmed_scales(X, k=3):
    """Per feature, the power of two nearest the RMS of its first ``k`` non-zeros (0: fewer)."""
    X = sp.csc_matrix(X)
    out = np.zeros(X.shape[1])
    for j in range(X.shape[1]):
        lo, hi = X.indptr[j], X.indptr[j + 1]
        order = np.argsort(X.indices[lo:hi], kind="stable")
        vals = X.data[lo:hi][order]
        vals = vals[vals != 0][:k]
        if vals.size == k:
            out[j] = 2.0 ** np.round(np.log2(np.sqrt(np.mean(vals**2))))
    return out


@pytest.mark.parametrize("sketch", ["rfd", "fd", "full", "diag"])
def test_rescale_curvature_is_a_change_of_units(sketch):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 6))
    y = (X[:, 0] - X[:, 2] > 0).astype(int)
    est = RFDSONClassifier(sketch=sketch, sketch_size=3, alpha0=1.0).fit(X, y)
    curvature = est._state.curvature
    cols, factors = np.array([1, 4]), np.array([0.25, 8.0])
    new = rescale_curvature(curvature, cols, factors)
    D = np.ones(curvature.n_coords if curvature.n_coords else 7)
    D[cols] = factors
    H, H_new = curvature.gram(0), new.gram(0)
    if sketch == "diag":  # gram is sqrt(Σ g²): scales with |D|
        expected = np.diag(np.diag(H) * D)
    else:
        expected = D[:, None] * H * D[None, :]
    tol = 64 * np.finfo(float).eps * np.abs(expected).max() * D.max() ** 2
    np.testing.assert_allclose(H_new, expected, rtol=0, atol=tol)
    assert new is not curvature
    np.testing.assert_array_equal(curvature.gram(0), H)  # the argument is not written into


def test_rescale_curvature_on_a_basis_stored_on_some_columns():
    X, y = _sparse_stream(100, 3000, 1, density=0.002)
    est = RFDSONClassifier(sketch_size=4, scale_features=False).fit(X, y)
    curvature = est._state.curvature
    assert curvature.columns is not None  # a wide CSR pass stores the touched columns only
    inside = curvature.columns[[0, 3]]
    outside = np.setdiff1d(np.arange(3000), curvature.columns)[:2]
    cols = np.concatenate([inside, outside])
    factors = np.array([4.0, 0.5, 2.0, 0.125])
    new = rescale_curvature(curvature, cols, factors)
    full, full_new = curvature.on_every_column(), new.on_every_column()
    D = np.ones(full.Q.shape[2])
    D[cols] = factors
    q = int(full.q_dim[0])
    H = full.Q[0, :q].T @ full.S[0, :q, :q] @ full.Q[0, :q]
    H_new = full_new.Q[0, :q].T @ full_new.S[0, :q, :q] @ full_new.Q[0, :q]
    expected = D[:, None] * H * D[None, :]
    tol = 64 * np.finfo(float).eps * np.abs(expected).max() * D.max() ** 2
    np.testing.assert_allclose(H_new, expected, rtol=0, atol=tol)


@pytest.mark.parametrize("sparse_input", [True, False])
def test_scales_are_confirmed_by_the_first_three_values(sparse_input):
    X, y = _sparse_stream(600, 80, 2)
    est = RFDSONClassifier().fit(X if sparse_input else X.toarray(), y)
    scale = est._state.scale
    confirmed = _confirmed_scales(X)
    # features seen at least three times after the first ten rows: the confirmed scale
    # (or one within a factor below 2 of it, kept); none keeps a one-value scale far below it
    late = (confirmed > 0) & (np.asarray((X[:10] != 0).sum(axis=0)).ravel() < 3)
    assert late.sum() > 20
    ratio = scale[late] / confirmed[late]
    assert np.all(ratio == 1.0)
    assert np.all(est._state.scale_seen <= 3)


def test_any_split_gives_the_same_model():
    X, y = _sparse_stream(300, 60, 3)
    dense = X.toarray()
    whole = RFDSONClassifier().fit(dense, y)
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, 300), 25, replace=False))
    split = RFDSONClassifier()
    for part in np.split(np.arange(300), cuts):
        split.partial_fit(dense[part], y[part], classes=[0, 1])
    np.testing.assert_array_equal(split.coef_, whole.coef_)
    np.testing.assert_array_equal(split._state.scale, whole._state.scale)
    one = RFDSONClassifier()
    for i in range(300):
        one.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    sparse_whole = RFDSONClassifier().fit(X, y)
    np.testing.assert_array_equal(one._state.scale, sparse_whole._state.scale)
    np.testing.assert_allclose(one.coef_, sparse_whole.coef_, rtol=1e-9, atol=1e-12)


def test_real_valued_sparse_rows_are_learned():
    # with one-value scales the default learned next to nothing here (0.53, chance 0.5)
    X, y = _sparse_stream(4000, 1000, 0)
    res = prequential_score(RFDSONClassifier(), X, y, batch_size=10, scoring="accuracy")
    raw = prequential_score(
        RFDSONClassifier(scale_features=False), X, y, batch_size=10, scoring="accuracy"
    )
    assert res["cumulative_accuracy"][-1] > 0.6
    assert res["cumulative_accuracy"][-1] > raw["cumulative_accuracy"][-1] - 0.08


def test_regressor_and_no_scaling():
    X, _ = _sparse_stream(300, 40, 4)
    y = np.asarray(X.sum(axis=1)).ravel()
    reg = RFDSONRegressor().fit(X, y)
    assert reg._state.scale_seen is not None and np.all(np.isfinite(reg.coef_))
    raw = RFDSONClassifier(scale_features=False).fit(X, (y > 0).astype(int))
    assert raw._state.scale_seen is None
    np.testing.assert_array_equal(raw._state.scale, 1.0)


def test_tiny_values_keep_their_first_scale():
    # squares below the normal range cannot give a root-mean-square: the one-value scale stays
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 3))
    X[:20, 2] = 0.0
    X[20:, 2] = np.where(rng.random(20) < 0.5, 1e-170, 0.0) * rng.choice([-1, 1], 20)
    y = (X[:, 0] > 0).astype(int)
    est = RFDSONClassifier().fit(X, y)
    first = X[20:, 2][X[20:, 2] != 0][0]
    assert est._state.scale[2] == 2.0 ** (np.frexp(abs(first))[1] - 1)
    assert np.all(np.isfinite(est.coef_))
