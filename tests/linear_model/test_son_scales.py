"""RFD-SON's feature scales: read from one value first, confirmed by the first two.

A feature first seen after the first rows (or seen fewer than twice in
them) is scaled by the power of two of its first non-zero value; from the row
of its second non-zero value on, by the power of two nearest the
root-mean-square of its first two. Both, and the scales of the features that
are zero in some of the first rows, are shrunk toward the first rows' common
scale (empirical Bayes; transcribed below from the user guide's formulas).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import polygamma

from skonline import RFDSONClassifier, RFDSONRegressor
from skonline.evaluation import prequential_score


def _sparse_stream(n, d, seed, density=0.05):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.nnz)
    y = (np.asarray(X @ rng.standard_normal(d)).ravel() > 0).astype(int)
    return X, y


def _first_values(X, j, k):
    column = np.asarray(X[:, [j]].todense()).ravel() if sp.issparse(X) else X[:, j]
    return column[column != 0][:k]


def _prior(first):
    """``(μ, τ², σ²)`` of the first rows, feature by feature (a plain transcription)."""
    values = [_first_values(first, j, first.shape[0]) for j in range(first.shape[1])]
    values = [v for v in values if v.size]
    several = [v for v in values if v.size >= 2]
    sigma2 = sum(np.sum((np.log2(abs(v)) - np.log2(abs(v)).mean()) ** 2) for v in several) / sum(
        v.size - 1 for v in several
    )
    noise = lambda n: sigma2 * polygamma(1, n / 2) / polygamma(1, 0.5)  # noqa: E731
    rms = np.array([np.log2(np.sqrt(np.mean(v**2))) for v in values])
    # the core: within 3 robust standard deviations of the median feature
    centre = np.median(rms)
    core = np.abs(rms - centre) <= 3 * 1.4826 * np.median(np.abs(rms - centre))
    mu = np.log2(
        np.sqrt(np.mean(np.concatenate([v for v, c in zip(values, core, strict=True) if c]) ** 2))
    )
    tau2 = max(
        np.var(rms[core]) - np.mean([noise(v.size) for v in np.array(values, object)[core]]), 0
    )
    return mu, tau2, noise


def _shrunk(log2_scale, n, log_rms, prior):
    mu, tau2, noise = prior
    factor = noise(n) / (noise(n) + tau2) if noise(n) > 0 else 0.0
    if abs(log_rms - mu) > 10:
        factor = 0.0
    return 2.0 ** np.round(mu + (1 - factor) * (log2_scale - mu))


def _confirmed_scales(X, k=2, rows=10):
    """Per feature, the power of two nearest the RMS of its first ``k`` non-zeros, shrunk."""
    prior = _prior(X[:rows])
    out = np.zeros(X.shape[1])
    for j in range(X.shape[1]):
        vals = _first_values(X, j, k)
        if vals.size == k:
            log_rms = np.log2(np.sqrt(np.mean(vals**2)))
            out[j] = _shrunk(np.round(log_rms), k, log_rms, prior)
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
    # one-value scales learned next to nothing here: 0.522 (chance 0.5); scales confirmed at
    # the second value 0.610; raw units 0.710; shrunk to the common scale 0.731, and with the
    # prior for rows wider than the sketch 0.747
    X, y = _sparse_stream(4000, 1000, 0)
    res = prequential_score(RFDSONClassifier(), X, y, batch_size=10, scoring="accuracy")
    assert res["cumulative_accuracy"][-1] > 0.68


def test_features_of_one_unit_share_its_scale():
    # standard normal non-zeros: the spread of the scales is the noise of a few values
    # (1 bit unshrunk); the first rows show one unit (tau2 near 0), so the features get it
    X, y = _sparse_stream(2000, 300, 6)
    est = RFDSONClassifier().fit(X, y)
    mu, tau2, sigma2 = est._state.scale_prior
    assert tau2 < 0.1 * sigma2 and 1.5 < sigma2 < 4.0  # a normal value's log2 |x|: 2.57 bits²
    log_scale = np.log2(est._state.scale[est._state.scale > 0])
    assert np.mean(log_scale == np.round(mu)) > 0.9 and np.std(log_scale) < 0.4


@pytest.mark.parametrize("unit", [1e-6, 1e6])
def test_a_feature_in_another_unit_keeps_its_own_scale(unit):
    # a feature first seen after the first rows, a factor 1e6 from the others: not shrunk
    X, y = _sparse_stream(600, 40, 7, density=0.2)
    X = X.toarray()
    X[:30, -1] = 0.0
    X[:, -1] *= unit
    est = RFDSONClassifier().fit(X, y)
    first_two = _first_values(X, X.shape[1] - 1, 2)
    own = 2.0 ** np.round(np.log2(np.sqrt(np.mean(first_two**2))))
    assert est._state.scale[-1] == own
    assert abs(np.log2(own / unit)) < 6


def test_features_in_different_units_are_hardly_shrunk():
    # six decades of units: the first rows' log2 scales spread far beyond the noise (tau2 large)
    X, y = _sparse_stream(3000, 200, 8)
    units = 10.0 ** np.random.default_rng(8).uniform(-3, 3, X.shape[1])
    X = sp.csr_matrix(X @ sp.diags(units))
    est = RFDSONClassifier().fit(X, y)
    assert est._state.scale_prior[1] > 20  # the units' log2 spread: (6 log2 10)² / 12 = 33
    raw = _confirmed_scales(X)  # shrunk by the transcription: within a factor 2 of the unshrunk
    has = raw > 0
    unshrunk = np.zeros_like(raw)
    for j in np.flatnonzero(has):
        unshrunk[j] = 2.0 ** np.round(np.log2(np.sqrt(np.mean(_first_values(X, j, 2) ** 2))))
    assert np.mean(np.abs(np.log2(raw[has] / unshrunk[has])) <= 1) > 0.95


def test_dense_rows_without_zeros_keep_their_scales():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((200, 6)) * 10.0 ** np.arange(-3, 3)
    y = (X[:, 0] > 0).astype(int)
    est = RFDSONClassifier().fit(X, y)
    rms = 2.0 ** np.round(np.log2(np.sqrt(np.mean(X[:10] ** 2, axis=0))))
    np.testing.assert_array_equal(est._state.scale, rms)


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


@pytest.mark.parametrize("unit", [2.0**8, 2.0**12])
def test_one_column_in_another_unit_does_not_move_the_common_scale(unit):
    # 100 sparse features of one unit and one dense column in another: the column is not in
    # the prior's core, so the sparse features still share their own unit (mean log2 scale 0)
    X, y = _sparse_stream(1000, 100, 10)
    noise = np.random.default_rng(10).standard_normal((1000, 1)) * unit
    est = RFDSONClassifier().fit(sp.hstack([X, sp.csr_matrix(noise)], format="csr"), y)
    mu, tau2, sigma2 = est._state.scale_prior
    assert abs(mu) < 1.0 and tau2 < 0.1 * sigma2
    log_scale = np.log2(est._state.scale[:100][est._state.scale[:100] > 0])
    assert abs(np.mean(log_scale)) < 0.5 and np.std(log_scale) < 0.5
    assert est._state.scale[100] == 2.0 ** np.round(np.log2(np.sqrt(np.mean(noise[:10] ** 2))))


def test_without_measured_noise_a_feature_keeps_its_own_scale():
    # binary first rows (every value 1, sigma2 = 0): a later feature of values 300 is not
    # pulled to the common scale 1, and the first rows' features take their values' scale
    n = 40
    y = np.random.default_rng(0).integers(0, 2, n)
    X = np.ones((n, 4))
    X[:, 1] = 0.0
    X[30, 1] = X[35, 1] = 300.0
    X[[0, 3, 5], 2] = 0.0  # zero in some first rows: its scale from its values, 1
    est = RFDSONClassifier().fit(X, y)
    assert est._state.scale_prior[2] == 0.0
    np.testing.assert_array_equal(est._state.scale, [1.0, 256.0, 1.0, 1.0])
