"""``forgetting_factor="auto"``: two learners, undiscounted and discounted, mixed by losses."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

from skonline import (
    RFDSONClassifier,
    RFDSONRegressor,
    ScaleInvariantClassifier,
    ScaleInvariantRegressor,
)
from skonline.datasets import make_drifting_stream
from skonline.linear_model._linear import (
    calibration_pass,
    mixture_pass,
    new_calibration,
    temperature_pass,
)
from skonline.linear_model._scale_invariant_kernels import full_pass

from ._calibration_reference import score_targets

CLASSIFIERS = [ScaleInvariantClassifier, RFDSONClassifier]
REGRESSORS = [ScaleInvariantRegressor, RFDSONRegressor]
EPS = np.finfo(float).eps


def _drifting(task, n=2000, seed=0):
    X, y, _ = make_drifting_stream(n, 10, task=task, n_concepts=2, random_state=seed)
    return X, y


def _prequential(est, X, y, batch=10, **kw):
    """Prequential predictions (each batch predicted before it is learned), after the first."""
    out = []
    for start in range(0, len(y), batch):
        xb, yb = X[start : start + batch], y[start : start + batch]
        if start:
            out.append(est.predict(xb))
        est.partial_fit(xb, yb, **kw)
    return np.concatenate(out), y[batch:]


# ----------------------------------------------------------------- the kernels
def _logistic_loss(z, positive):
    m = -z if positive else z
    return max(m, 0.0) + math.log1p(math.exp(-abs(m)))


@pytest.mark.parametrize("layout", ["temperature-binary", "temperature-multi", "platt"])
def test_calibration_losses_are_each_rows_log_loss_before_its_step(layout):
    """Each row's weighted −log p_y under the map before the row's step, row by row."""
    rng = np.random.default_rng(3)
    n, K = 60, (3 if layout == "temperature-multi" else 1)
    F = rng.standard_normal((n, K)) * 3
    F[7] = np.inf  # a skipped row: loss 0
    labels = rng.integers(0, max(K, 2), n)
    T = score_targets(labels, K)
    w = rng.uniform(0.2, 2.0, n)
    start = new_calibration("platt" if layout == "platt" else "temperature", K)
    losses = np.empty(n)
    calibration_pass(start, F, T, w, losses)
    expected = np.zeros(n)
    cal = start
    for i in range(n):  # the map before row i: the pass over the rows before it
        if np.all(np.isfinite(F[i])):
            z = F[i] * cal[0] + (cal[1] if layout == "platt" else 0.0)
            if K == 1:
                expected[i] = w[i] * _logistic_loss(float(z[0]), labels[i] == 1)
            else:
                expected[i] = w[i] * (np.logaddexp.reduce(z) - z[labels[i]])
        cal = calibration_pass(cal, F[i : i + 1], T[i : i + 1], w[i : i + 1])
    assert losses[7] == 0.0
    # the same map, updated by the same loop one row per call; the loss's own
    # log/exp are libm's against NumPy's: a few ulps of each term
    np.testing.assert_allclose(losses, expected, rtol=64 * EPS, atol=64 * EPS)


def test_temperature_pass_refuses_a_losses_array_of_the_wrong_length():
    with pytest.raises(ValueError, match="do not match"):
        temperature_pass(
            new_calibration(), np.zeros((5, 1)), np.ones((5, 1)), np.ones(5), np.empty(4)
        )


def _mixture_reference(first, second, y, w, mix=None):
    """The NumPy transcription of ``gaussian_mixture_steps``."""
    L1, L2, sse, total, lo, hi = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0] if mix is None else list(mix)
    for a, b, t, c in zip(first.tolist(), second.tolist(), y.tolist(), w.tolist(), strict=True):
        if lo <= hi:
            a, b = min(max(a, lo), hi), min(max(b, lo), hi)
            w1 = (
                1.0 / (1.0 + math.exp(-(L2 - L1)))
                if L2 >= L1
                else math.exp(L2 - L1) / (1.0 + math.exp(L2 - L1))
            )
            r = t - (w1 * a + (1.0 - w1) * b)
            if sse > 0 and total > 0:
                s2 = 2.0 * sse / total
                L1 += c * (t - a) * (t - a) / s2
                L2 += c * (t - b) * (t - b) / s2
            sse += c * r * r
            total += c
            lo, hi = min(lo, t), max(hi, t)
        else:
            lo = hi = t
    return np.array([L1, L2, sse, total, lo, hi])


def test_gaussian_mixture_matches_the_numpy_transcription_for_any_split():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.standard_normal(n) * 5 + 20
    first = y + rng.standard_normal(n)  # the better learner
    second = y + 3 * rng.standard_normal(n)
    first[:3] = 1e6  # wild early predictions are clipped to the targets' range
    w = rng.uniform(0.5, 2.0, n)
    want = _mixture_reference(first, second, y, w)
    got = mixture_pass(None, first[:, None], second[:, None], y[:, None], w)
    np.testing.assert_array_equal(got, want)  # the same operations in the same order
    split = None
    for start in range(0, n, 7):
        part = slice(start, start + 7)
        split = mixture_pass(split, first[part, None], second[part, None], y[part, None], w[part])
    np.testing.assert_array_equal(split, got)
    assert got[0] < got[1] - 50  # the better learner's loss is far lower
    assert got[4] == y.min() and got[5] == y.max()


def test_mixture_pass_refuses_mismatched_shapes_before_its_compiled_loop():
    p = np.zeros((5, 1))
    with pytest.raises(ValueError, match="do not match"):
        mixture_pass(np.zeros(4), p, p, p, np.ones(5))
    with pytest.raises(ValueError, match="do not match"):
        mixture_pass(None, p, np.zeros((4, 1)), p, np.ones(5))
    with pytest.raises(ValueError, match="do not match"):
        mixture_pass(None, p, p, p, np.ones(6))


def test_least_squares_prequential_predictions_are_the_textbook_ones():
    """``x_tᵀ S'⁺ Σ_{s<t} γ^{t−s} y_s x_s`` with ``S' = Σ_{s<t} γ^{t−s} x_s x_sᵀ``."""
    X, y = _drifting("regression", n=200)
    for gamma in (1.0, 0.98):
        est = ScaleInvariantRegressor(forgetting_factor=gamma).partial_fit(X[:5], y[:5])
        state = est._state
        readout = np.empty(195)
        full_pass(
            state,
            X[5:],
            y[5:, None],
            np.ones(195),
            potential_width=1.5,
            loss=state.frozen.loss,
            epsilon=est._epsilon(),
            rank_tol=1e-20,
            forgetting=gamma,
            readout_predictions=readout,
        )
        Xa = np.hstack([X, np.ones((200, 1))])
        expected = np.empty(195)
        for t in range(5, 200):
            decay = gamma ** np.arange(t, 0, -1)
            S = (Xa[:t] * decay[:, None]).T @ Xa[:t]
            expected[t - 5] = Xa[t] @ np.linalg.lstsq(S, (Xa[:t] * decay[:, None]).T @ y[:t])[0]
        kappa = np.linalg.cond(Xa[:20])  # the worst conditioning, at the first full rank
        done = 20 - 5  # from full rank on (11 coordinates) the solution is unique
        np.testing.assert_allclose(
            readout[done:], expected[done:], rtol=0, atol=1e3 * kappa**2 * EPS * np.abs(y).max()
        )


# ----------------------------------------------------------------- the estimators
@pytest.mark.parametrize(
    "Est",
    [*CLASSIFIERS, lambda **kw: ScaleInvariantClassifier(variant="diagonal", **kw)],
    ids=["SI", "RFDSON", "SI-diagonal"],
)
@pytest.mark.parametrize("data", ["binary", "multiclass"])
def test_auto_classifier_is_the_same_for_any_split(Est, data):
    X, y = load_breast_cancer(return_X_y=True) if data == "binary" else load_iris(return_X_y=True)
    classes = np.unique(y)
    one = Est(forgetting_factor="auto").partial_fit(X, y, classes=classes)
    assert one._state.drift is not None
    many = Est(forgetting_factor="auto")
    for start in range(0, len(y), 7):
        many.partial_fit(X[start : start + 7], y[start : start + 7], classes=classes)
    np.testing.assert_array_equal(one.predict_proba(X), many.predict_proba(X))
    np.testing.assert_array_equal(one.mixture_weights_, many.mixture_weights_)


@pytest.mark.parametrize("Est", REGRESSORS)
def test_auto_regressor_is_the_same_for_any_split(Est):
    X, y = load_diabetes(return_X_y=True)
    one = Est(forgetting_factor="auto").partial_fit(X, y)
    many = Est(forgetting_factor="auto")
    for start in range(0, len(y), 7):
        many.partial_fit(X[start : start + 7], y[start : start + 7])
    np.testing.assert_array_equal(one.predict(X), many.predict(X))
    np.testing.assert_array_equal(one._state.mixture, many._state.mixture)


@pytest.mark.parametrize("Est", CLASSIFIERS)
@pytest.mark.parametrize("data", ["binary", "multiclass"])
def test_auto_classifier_read_outs_agree(Est, data):
    X, y = load_breast_cancer(return_X_y=True) if data == "binary" else load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    clf = Est(forgetting_factor="auto").fit(X[order], y[order])
    proba, log_proba = clf.predict_proba(X), clf.predict_log_proba(X)
    decision, pred = clf.decision_function(X), clf.predict(X)
    assert np.all(proba <= 1.0) and np.all(proba >= 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=4 * EPS)
    np.testing.assert_array_equal(pred, clf.classes_[proba.argmax(axis=1)])
    mask = proba > 1e-6  # where predict_proba resolves the value
    np.testing.assert_allclose(np.exp(log_proba[mask]), proba[mask], rtol=1e-9)
    if decision.ndim == 1:
        np.testing.assert_array_equal(pred, clf.classes_[(decision > 0).astype(int)])
    else:
        np.testing.assert_array_equal(pred, clf.classes_[decision.argmax(axis=1)])
    w = clf.mixture_weights_
    assert w.shape == (2,) and abs(w.sum() - 1.0) <= 4 * EPS
    learners = (clf._state, clf._state.drift)
    coefs = [clf._linear_readout(s)[0] for s in learners]
    np.testing.assert_allclose(clf.coef_, w[0] * coefs[0] + w[1] * coefs[1], rtol=1e-12)


@pytest.mark.parametrize("Est", REGRESSORS)
def test_auto_regressor_predicts_with_its_mixed_coefficients(Est):
    X, y = load_diabetes(return_X_y=True)
    reg = Est(forgetting_factor="auto").fit(X, y)
    raw = X @ reg.coef_ + reg.intercept_
    np.testing.assert_allclose(
        reg.predict(X), np.clip(raw, y.min(), y.max()), rtol=1e-12, atol=1e-9 * np.abs(y).max()
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auto_classifier_follows_a_concept_switch(seed):
    """On a switch half way the discounted learner (0.995) carries the mixture by the end,
    which is well above the paper's learner (1.0) alone. (RFD-SON's classifier gains
    nothing from forgetting, measured: its bounded margin limits it; default 1.0.)"""
    X, y = _drifting("classification", seed=seed)
    acc = {}
    for gamma in (1.0, "auto"):
        est = ScaleInvariantClassifier(forgetting_factor=gamma)
        pred, truth = _prequential(est, X, y, classes=[0, 1])
        acc[gamma] = np.mean(pred == truth)
    est = ScaleInvariantClassifier().partial_fit(X, y, classes=[0, 1])  # the default: "auto"
    assert est.mixture_weights_[1] > 0.99
    # measured: 0.878 / 0.895 / 0.837 -> 0.926 / 0.938 / 0.913
    assert acc["auto"] > acc[1.0] + 0.03


@pytest.mark.parametrize("Est", REGRESSORS)
def test_auto_regressor_follows_a_concept_switch_and_keeps_a_stationary_stream(Est):
    X, y = _drifting("regression")
    mae = {}
    for gamma in (1.0, "auto", 0.98):
        pred, truth = _prequential(Est(forgetting_factor=gamma), X, y)
        mae[gamma] = np.mean(np.abs(pred - truth))
    # measured: 1.16 / 1.25 (1.0) against 0.19 / 0.22 (auto and 0.98)
    assert mae["auto"] < 0.3 * mae[1.0]
    assert mae["auto"] < 1.1 * mae[0.98]
    Xd, yd = load_diabetes(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(yd))
    stationary = {}
    for gamma in (1.0, "auto"):
        pred, truth = _prequential(Est(forgetting_factor=gamma), Xd[order], yd[order])
        stationary[gamma] = np.mean(np.abs(pred - truth))
    assert stationary["auto"] < 1.02 * stationary[1.0]  # measured: +0.1 % (SI), +0.1 % (RFD)


@pytest.mark.parametrize("Est", CLASSIFIERS + REGRESSORS)
def test_switching_to_and_from_auto_keeps_the_papers_learner(Est):
    """The learner itself runs undiscounted under "auto": leaving "auto" gives the model of
    forgetting_factor=1.0 throughout; entering it starts the second learner as a copy."""
    X, y = _drifting("classification" if Est in CLASSIFIERS else "regression", n=600)
    kw = {"classes": [0, 1]} if Est in CLASSIFIERS else {}
    plain = Est(forgetting_factor=1.0).partial_fit(X, y, **kw)
    switched = Est(forgetting_factor=1.0).partial_fit(X[:200], y[:200], **kw)
    switched.set_params(forgetting_factor="auto").partial_fit(X[200:400], y[200:400], **kw)
    assert switched._state.drift is not None
    switched.set_params(forgetting_factor=1.0).partial_fit(X[400:], y[400:], **kw)
    assert switched._state.drift is None
    with pytest.raises(AttributeError, match="two learners"):
        switched.mixture_weights_  # noqa: B018
    np.testing.assert_array_equal(switched.coef_, plain.coef_)
    np.testing.assert_array_equal(switched.predict(X), plain.predict(X))


@pytest.mark.parametrize(
    "params",
    [
        {"calibration": None},
        {"loss": "hinge"},
        {"variant": "coordinate"},
        {"center": True},
    ],
)
def test_auto_is_one_learner_where_it_cannot_mix_a_classifier(params):
    X, y = load_breast_cancer(return_X_y=True)
    auto = ScaleInvariantClassifier(forgetting_factor="auto", **params).fit(X, y)
    one = ScaleInvariantClassifier(forgetting_factor=1.0, **params).fit(X, y)
    assert auto._state.drift is None
    np.testing.assert_array_equal(auto.decision_function(X), one.decision_function(X))


def test_auto_is_one_learner_for_the_learners_read_out():
    X, y = load_diabetes(return_X_y=True)
    auto = ScaleInvariantRegressor(forgetting_factor="auto", readout="learner").fit(X, y)
    one = ScaleInvariantRegressor(forgetting_factor=1.0, readout="learner").fit(X, y)
    assert auto._state.drift is None
    np.testing.assert_array_equal(auto.predict(X), one.predict(X))


@pytest.mark.parametrize("Est", CLASSIFIERS + REGRESSORS)
def test_auto_takes_csr_rows_as_dense_ones(Est):
    X, y = _drifting("classification" if Est in CLASSIFIERS else "regression", n=300)
    X[X < 0.3] = 0.0
    kw = {"classes": [0, 1]} if Est in CLASSIFIERS else {}
    dense = Est(forgetting_factor="auto").partial_fit(X, y, **kw)
    sparse = Est(forgetting_factor="auto").partial_fit(sp.csr_matrix(X), y, **kw)
    np.testing.assert_allclose(sparse.predict(X), dense.predict(X), rtol=1e-9, atol=1e-9)
