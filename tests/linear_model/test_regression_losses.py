"""The regressors' added losses: squared error (scale-invariant), absolute error (RFD-SON)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from skonline.linear_model._scale_invariant_fast import compiled_loss

from skonline import RFDSONRegressor, ScaleInvariantRegressor

from ._loss_reference import loss_and_derivative
from .test_scale_invariant_theory import (
    _close,
    _run,
    factor_condition,
    stream_rtol,
    textbook_alg2,
)


def test_defaults_are_unchanged():
    assert ScaleInvariantRegressor().loss == "absolute_error"
    assert RFDSONRegressor().loss == "squared_error"


def test_compiled_squared_error_is_the_table_unnormalised():
    # the squared loss has no Lipschitz constant: the table's 2(p - y) is passed on,
    # and the pass clips c g to [-1, 1] as for every loss
    rng = np.random.default_rng(3)
    for _ in range(100):
        p, y = rng.normal(0, 3), rng.normal(0, 3)
        value, g = compiled_loss("squared_error", np.array([p]), np.array([y]), 0.0)
        ref_value, ref_g = loss_and_derivative("squared_error", p, y)
        assert value == ref_value and g[0] == ref_g


def textbook_alg2_squared(X, Y, alpha):
    """Algorithm 2 literally (eq. 7) on the squared loss fed clip(2(p - y), -1, 1)."""
    return textbook_alg2(X, Y, alpha, derivative=lambda p, y: 2.0 * (p - y))


@pytest.mark.parametrize("seed", [0, 1])
def test_full_kernel_on_the_squared_loss_matches_textbook(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((200, 4))
    Y = X @ rng.standard_normal(4) + 0.05 * rng.standard_normal(200)
    ref = textbook_alg2_squared(X, Y, 1.5)
    _, preds = _run("full", X, Y, loss="squared_error")
    _close(preds[:, 0], ref, stream_rtol(*X.shape, factor_condition(X, False)))
    assert np.any(np.abs(2 * (preds[:, 0] - Y)) > 1)  # the clip was reached


@pytest.mark.parametrize("variant", ["full", "diagonal", "coordinate"])
def test_scale_invariant_squared_error_learns_and_stays_finite(variant):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 5)) * [1e-3, 1.0, 1e3, 1.0, 10.0]
    y = X @ [100.0, -0.3, 2e-4, 0.2, 0.01] + 0.05 * rng.standard_normal(2000)
    reg = ScaleInvariantRegressor(variant=variant, loss="squared_error").fit(X, y)
    assert reg.score(X, y) > 0.8
    # extreme targets: a residual of 1e12 pulls with a unit gradient, no more
    y_bad = y.copy()
    y_bad[::50] = 1e12
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even the potential's clip warning
        extreme = ScaleInvariantRegressor(variant=variant, loss="squared_error").fit(X, y_bad)
    assert np.all(np.isfinite(extreme.coef_)) and np.isfinite(extreme.cumulative_loss_)
    absolute = ScaleInvariantRegressor(variant=variant).fit(X, y_bad)
    assert np.abs(extreme.coef_).max() < 10 * np.abs(absolute.coef_).max() + 1.0


def test_scale_invariant_squared_error_estimates_the_mean_not_the_median():
    # skewed noise with residuals inside the unclipped zone: the squared loss's
    # intercept goes to the mean of the noise (0.1), the absolute loss's to its median
    rng = np.random.default_rng(1)
    X = rng.standard_normal((6000, 2))
    noise = rng.exponential(0.1, 6000)  # mean 0.1, median 0.1 ln 2 = 0.069
    y = 0.2 * X[:, 0] + noise
    kw = {"variant": "full", "center_target": False, "readout": "learner"}
    sq = ScaleInvariantRegressor(loss="squared_error", **kw).fit(X, y)
    ab = ScaleInvariantRegressor(**kw).fit(X, y)
    assert abs(sq.intercept_ - 0.1) < abs(sq.intercept_ - 0.1 * math.log(2))
    assert abs(ab.intercept_ - 0.1 * math.log(2)) < abs(ab.intercept_ - 0.1)


def test_rfdson_absolute_error_resolves_gradient_curvature():
    X, y = load_diabetes(return_X_y=True)
    reg = RFDSONRegressor(loss="absolute_error").fit(X[:50], y[:50])
    assert reg._curvature_rows() == "gradient" and reg._mu() == 0.0
    with pytest.raises(ValueError, match="l'' = 0"):
        RFDSONRegressor(loss="absolute_error", curvature="hessian").fit(X, y)


def _prequential_mae(est, X, y, batch=20):
    errors = []
    for start in range(0, len(X), batch):
        if start:
            errors.append(np.abs(est.predict(X[start : start + batch]) - y[start : start + batch]))
        est.partial_fit(X[start : start + batch], y[start : start + batch])
    return float(np.concatenate(errors).mean())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rfdson_absolute_error_beats_the_running_median(seed):
    # diabetes, prequential MAE in batches of 20; measured: 58.7 / 58.7 / 56.5 against
    # the running median's 65.7 / 65.6 / 65.3 (squared error: 45.6 / 45.3 / 45.6)
    X, y = load_diabetes(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(X))
    X, y = X[order], y[order]
    median = np.array([np.median(y[:i]) for i in range(20, len(y))])
    baseline = float(np.abs(median - y[20:]).mean())
    assert _prequential_mae(RFDSONRegressor(loss="absolute_error"), X, y) < 0.95 * baseline


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rfdson_absolute_error_is_robust_to_outlying_targets(seed):
    # 10 % of the training targets moved by ±3000; held-out MAE on clean targets,
    # measured: absolute 56.1 / 67.5 / 55.6, squared 70.2 / 124.7 / 101.5
    X, y = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(X))
    train, test = order[:330], order[330:]
    corrupted = y[train].copy()
    bad = rng.random(330) < 0.1
    corrupted[bad] += rng.choice([-1.0, 1.0], bad.sum()) * 3000
    mae = {}
    for loss in ("absolute_error", "squared_error"):
        est = RFDSONRegressor(loss=loss).fit(X[train], corrupted)
        mae[loss] = float(np.abs(est.predict(X[test]) - y[test]).mean())
    assert mae["absolute_error"] < mae["squared_error"], mae


@pytest.mark.parametrize(
    "est",
    [RFDSONRegressor(loss="absolute_error"), ScaleInvariantRegressor(loss="squared_error")],
    ids=["rfdson-absolute", "scale-invariant-squared"],
)
def test_added_losses_keep_the_online_contract(est):
    from skonline.utils.estimator_checks import check_online_estimator

    check_online_estimator(est)
