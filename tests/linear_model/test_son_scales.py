"""RFD-SON's feature scales: read from one value first, confirmed by the first two.

A feature first seen after the first rows (or seen fewer than three times in
them) is scaled by the power of two of its first non-zero value; from the row
of its second non-zero value on, by the power of two nearest the
root-mean-square of its first two.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from skonline import RFDSONClassifier, RFDSONRegressor
from skonline.evaluation import prequential_score


def _sparse_stream(n, d, seed, density=0.05):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.nnz)
    y = (np.asarray(X @ rng.standard_normal(d)).ravel() > 0).astype(int)
    return X, y


def _confirmed_scales(X, k=2):
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


@pytest.mark.parametrize("sparse_input", [True, False])
def test_scales_are_confirmed_by_the_first_two_values(sparse_input):
    X, y = _sparse_stream(600, 80, 2)
    est = RFDSONClassifier().fit(X if sparse_input else X.toarray(), y)
    scale = est._state.scale
    confirmed = _confirmed_scales(X)
    # features seen at least twice, fewer than twice in the first ten rows: the confirmed scale
    late = (confirmed > 0) & (np.asarray((X[:10] != 0).sum(axis=0)).ravel() < 2)
    assert late.sum() > 20
    ratio = scale[late] / confirmed[late]
    assert np.all(ratio == 1.0)
    assert np.all(est._state.scale_seen <= 2)


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
    # one-value scales learned next to nothing here: 0.522 (chance 0.5); raw units 0.710
    X, y = _sparse_stream(4000, 1000, 0)
    res = prequential_score(RFDSONClassifier(), X, y, batch_size=10, scoring="accuracy")
    assert res["cumulative_accuracy"][-1] > 0.57


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
