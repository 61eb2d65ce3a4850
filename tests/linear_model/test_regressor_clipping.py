"""Regressor predictions stay in the range of the targets seen; alpha0="auto" as measured."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1

from skonline.evaluation import prequential_score
from skonline.linear_model import RFDSONRegressor, ScaleInvariantRegressor

from ._son_paper_settings import RFDSONRegressor as PaperRFDSONRegressor

REGRESSORS = [RFDSONRegressor, ScaleInvariantRegressor]


def _far_rows(n_features, seed=0):
    """Rows 100 times larger than the training rows: a linear model extrapolates far."""
    return 100.0 * np.random.default_rng(seed).standard_normal((20, n_features))


@pytest.mark.parametrize("Estimator", REGRESSORS)
def test_predictions_clipped_to_the_targets_learned(Estimator):
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:100], y[:100]
    far = _far_rows(X.shape[1])
    clipped = Estimator().partial_fit(X, y)
    raw = Estimator(clip_predictions=False).partial_fit(X, y)
    p, q = clipped.predict(far), raw.predict(far)
    assert np.all((p >= y.min()) & (p <= y.max()))
    np.testing.assert_array_equal(p, np.clip(q, y.min(), y.max()))
    assert np.any((q < y.min()) | (q > y.max()))  # the rows do extrapolate
    # the learner is the same: only the read-out differs
    np.testing.assert_array_equal(clipped.coef_, raw.coef_)
    assert clipped.cumulative_loss_ == raw.cumulative_loss_


@pytest.mark.parametrize("Estimator", REGRESSORS)
def test_target_range_any_split_zero_weights_pickling(Estimator):
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:60], y[:60]
    w = np.ones(60)
    w[np.argmax(y)] = 0.0  # the largest target has weight 0: not learned, not in the range
    one = Estimator().partial_fit(X, y, sample_weight=w)
    rows = Estimator()
    for i in range(60):
        if w[i] > 0:
            rows.partial_fit(X[i : i + 1], y[i : i + 1])
        if i == 30:
            rows = pickle.loads(pickle.dumps(rows))
    far = _far_rows(X.shape[1], seed=1)
    high = np.max(y[w > 0])
    assert high < y.max()
    for est in (one, rows):
        assert (est._state.target_min, est._state.target_max) == (y.min(), high)
        assert np.max(est.predict(far)) <= high
    np.testing.assert_allclose(one.predict(far), rows.predict(far), rtol=1e-9)


@pytest.mark.parametrize("Estimator", REGRESSORS)
def test_prequential_r2_nonnegative_with_a_wild_row(Estimator):
    """One row of X 100 times too large: R² over the stream stays >= 0 (the running mean's ~ 0)."""
    X, y = load_diabetes(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order].copy(), y[order]
    X[50] *= 100.0
    res = prequential_score(Estimator(), X, y, scoring="r2", batch_size=10, baseline=True)
    assert res["baseline_cumulative_r2"][-1] <= 0.0  # the running mean
    assert res["cumulative_r2"][-1] >= 0.0


def test_paper_settings_do_not_clip():
    assert PaperRFDSONRegressor().clip_predictions is False
    X, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / (2 * np.abs(y - y.mean()).max())  # |y| <= 1: the paper's scaling
    reg = PaperRFDSONRegressor(alpha0=1.0).fit(X[:100], y[:100])
    far = _far_rows(X.shape[1])
    coef, b = reg.coef_, reg.intercept_
    np.testing.assert_allclose(reg.predict(far), np.clip(far @ coef + b, -1.0, 1.0), rtol=1e-12)


def test_clip_predictions_is_live_and_recorded():
    X, y = load_diabetes(return_X_y=True)
    reg = RFDSONRegressor().partial_fit(X[:50], y[:50])
    far = _far_rows(X.shape[1])
    before = reg.predict(far)
    reg.set_params(clip_predictions=False)
    np.testing.assert_array_equal(reg.predict(far), before)  # read-outs use the record
    reg.partial_fit(X[50:60], y[50:60])
    assert np.any(reg.predict(far) > y[:60].max())


def test_alpha0_auto_as_good_as_alpha0_one():
    """The measured default: "auto" within 3 % of alpha0=1 (the prior of ten rows lost by 19 %)."""
    X, y = make_friedman1(1000, noise=1.0, random_state=0)
    mae = {}
    for alpha0 in ("auto", 1.0):
        res = prequential_score(
            RFDSONRegressor(alpha0=alpha0), X, y, scoring="neg_mean_absolute_error", batch_size=10
        )
        mae[alpha0] = -res["cumulative_neg_mean_absolute_error"][-1]
    assert mae["auto"] <= 1.03 * mae[1.0]
