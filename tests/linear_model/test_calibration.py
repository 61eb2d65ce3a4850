"""Calibrated probabilities of the online linear classifiers (``calibration="platt"``, the
default, and ``"temperature"``)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_wine, make_classification
from sklearn.metrics import log_loss, roc_auc_score

from skonline.linear_model import RFDSONClassifier, ScaleInvariantClassifier
from skonline.linear_model._linear import (
    calibration_pass,
    new_calibration,
    temperature_pass,
)

CLASSIFIERS = [RFDSONClassifier, ScaleInvariantClassifier]


def _prequential(est, X, y, batch_size=10):
    """Probabilities of each row by the model learned before its batch, and of the frequency.

    The frequency forecaster is the running class frequency with one
    pseudo-count per class (the prequential baseline).
    """
    classes = np.unique(y)
    proba, freq = [], []
    counts = np.ones(len(classes))
    for start in range(0, len(y), batch_size):
        xb, yb = X[start : start + batch_size], y[start : start + batch_size]
        if start:
            proba.append(est.predict_proba(xb))
            freq.append(np.tile(counts / counts.sum(), (len(yb), 1)))
        est.partial_fit(xb, yb, classes=classes)
        counts += np.bincount(np.searchsorted(classes, yb), minlength=len(classes))
    return np.vstack(proba), np.vstack(freq), y[batch_size:]


def _imbalanced_breast_cancer():
    """Malignant tumours subsampled to 5 % of the rows."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    malignant, benign = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    keep = np.sort(np.r_[rng.choice(malignant, 19, replace=False), benign])
    return X[keep], (y[keep] == 0).astype(int)


def _generated(weight):
    return make_classification(
        2000, 20, n_informative=5, weights=[weight], flip_y=0.01, random_state=2
    )


@pytest.mark.parametrize("Est", CLASSIFIERS)
@pytest.mark.parametrize("stream", ["breast_cancer 5 %", "generated 5 %", "generated 20 %"])
def test_log_loss_below_the_class_frequency_on_imbalanced_streams(Est, stream):
    if stream == "breast_cancer 5 %":
        X, y = _imbalanced_breast_cancer()
    else:
        X, y = _generated(0.95 if stream == "generated 5 %" else 0.8)
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(y))
        proba, freq, scored = _prequential(Est(), X[order], y[order])
        assert log_loss(scored, proba, labels=[0, 1]) < log_loss(scored, freq, labels=[0, 1])


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_probabilities_are_not_capped(Est):
    X, y = _imbalanced_breast_cancer()
    clf = Est().fit(X, y)
    p = clf.predict_proba(X)[:, 1]
    # the paper's link with bound=2 stays within [σ(−2), σ(2)] = [0.119, 0.881]: the maps
    # go at least 5 points beyond it on both sides (measured: RFD-SON 0.949 and 0.0066)
    cap = 1.0 / (1.0 + np.exp(-2.0))
    assert p.max() > cap + 0.05 and p.min() < 1.0 - cap - 0.05


def test_the_paper_link_is_still_available():
    X, y = _imbalanced_breast_cancer()
    p = RFDSONClassifier(calibration=None, bound=2.0).fit(X, y).predict_proba(X)
    bound = 1.0 / (1.0 + np.exp(-2.0))
    assert p.max() <= bound + 1e-12 and p.min() >= 1 - bound - 1e-12


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_probabilities_rank_rows_as_the_decision_function(Est):
    X, y = _imbalanced_breast_cancer()
    clf = Est().fit(X, y)
    auc_p = roc_auc_score(y, clf.predict_proba(X)[:, 1])
    assert auc_p == roc_auc_score(y, clf.decision_function(X))


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_multiclass_probabilities_sum_to_one(Est):
    X, y = load_digits(return_X_y=True)
    clf = Est().fit(X[:900], y[:900])
    p = clf.predict_proba(X[900:])
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_scale_invariant_multiclass_log_loss_improves_on_its_link():
    """Digits, prequential: the map corrects the over-confident raw scores."""
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    losses = {}
    for calibration in ("temperature", None):
        est = ScaleInvariantClassifier(calibration=calibration)
        proba, _, scored = _prequential(est, X[order], y[order])
        losses[calibration] = log_loss(scored, proba, labels=range(10))
    # measured: 0.40 against 1.14 (the class frequency: 2.32)
    assert losses["temperature"] < 0.5 * losses[None]


def test_rfdson_multiclass_log_loss_improves_on_the_paper_link():
    """Wine, prequential: softmax(a f) against the capped one-vs-rest link of bound=2."""
    X, y = load_wine(return_X_y=True)
    losses = {}
    for calibration in ("temperature", None):
        per_order = []
        for seed in range(3):
            order = np.random.default_rng(seed).permutation(len(y))
            est = RFDSONClassifier(calibration=calibration, bound=2.0)
            proba, _, scored = _prequential(est, X[order], y[order])
            per_order.append(log_loss(scored, proba, labels=range(3)))
        losses[calibration] = np.mean(per_order)
    # measured on the first order: 0.30 against 0.45 (the class frequency: 1.12)
    assert losses["temperature"] < 0.8 * losses[None]


def test_multiclass_temperature_pass_is_the_online_newton_step():
    """Transcription for several classes: softmax(a f), H += Var_p(f), a −= H⁻¹ Σ (p − y) f."""
    rng = np.random.default_rng(1)
    F = rng.standard_normal((40, 4)) * 2
    labels = rng.integers(0, 4, 40)
    a, H = 1.0, 1.0
    for f, k in zip(F, labels, strict=True):
        p = np.exp(a * f) / np.exp(a * f).sum()
        H += p @ f**2 - (p @ f) ** 2
        a = max(a - (p @ f - f[k]) / H, 1e-6)
    T = -np.ones((40, 4))
    T[np.arange(40), labels] = 1.0
    out = temperature_pass(new_calibration(), F, T, np.ones(40))
    np.testing.assert_allclose(out, [a, H], rtol=1e-10)


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_calibration_is_the_same_for_any_split(Est):
    X, y = _generated(0.9)
    X, y = X[:300], y[:300]
    one = Est().partial_fit(X, y, classes=[0, 1])
    many = Est()
    for start in range(0, 300, 7):
        many.partial_fit(X[start : start + 7], y[start : start + 7], classes=[0, 1])
    np.testing.assert_array_equal(one._state.calibration, many._state.calibration)


def test_binary_temperature_pass_is_the_online_newton_step():
    """Transcription: h += c p(1−p) f²; a −= c (p − y) f / h, from a = 1, h = 1."""
    rng = np.random.default_rng(0)
    f = rng.standard_normal(50) * 3
    y = (rng.random(50) < 1 / (1 + np.exp(-0.5 * f))).astype(float)
    w = rng.uniform(0.5, 2.0, 50)
    a, h = 1.0, 1.0
    for fi, yi, wi in zip(f, y, w, strict=True):
        p = 1 / (1 + np.exp(-a * fi))
        h += wi * p * (1 - p) * fi**2
        a = max(a - wi * (p - yi) * fi / h, 1e-6)
    out = temperature_pass(new_calibration(), f[:, None], (2 * y - 1)[:, None], w)
    np.testing.assert_allclose(out, [a, h], rtol=1e-10)


@pytest.mark.parametrize("n_classes", [1, 3, 10])
def test_compiled_temperature_pass_matches_the_numpy_transcription(n_classes):
    from ._calibration_reference import score_targets, temperature_pass_reference

    rng = np.random.default_rng(n_classes)
    n = 500
    F = rng.standard_normal((n, n_classes)) * rng.uniform(0.1, 8.0, (n, 1))
    F[::37] = np.inf  # rows with a non-finite score are skipped
    labels = rng.integers(0, max(n_classes, 2), n)
    T = score_targets(labels, n_classes)
    w = rng.uniform(0.0, 3.0, n)
    got = temperature_pass(new_calibration(), F, T, w)
    want = temperature_pass_reference(new_calibration(), F, T, w)
    if n_classes == 1:  # the same libm exp, the same operations in the same order
        np.testing.assert_array_equal(got, want)
    else:
        # NumPy's exp and dot products round differently from the loop's: each row's
        # step differs by a few ulps, carried through n rows of a contracting update
        np.testing.assert_allclose(got, want, rtol=n * 16 * np.finfo(float).eps)


def test_temperature_pass_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match="do not match"):
        temperature_pass(new_calibration(), np.zeros((5, 2)), np.ones((4, 2)), np.ones(5))
    with pytest.raises(ValueError, match="do not match"):
        temperature_pass(new_calibration(), np.zeros((5, 1)), np.ones((5, 1)), np.ones(6))


# ------------------------------------------------------------------ calibration="platt"
def _binary_targets(labels):
    return np.where(labels == 1, 1.0, -1.0)[:, None]


def test_compiled_platt_pass_matches_the_numpy_transcription():
    from ._calibration_reference import platt_pass_reference

    rng = np.random.default_rng(11)
    n = 500
    f = rng.standard_normal(n) * rng.uniform(0.1, 8.0, n)
    f[::37] = np.inf  # rows with a non-finite score are skipped
    labels = (rng.random(n) < 0.2).astype(int)
    w = rng.uniform(0.0, 3.0, n)
    start = new_calibration("platt", 1)
    got = calibration_pass(start, f[:, None], _binary_targets(labels), w)
    want = platt_pass_reference(start, f[:, None], _binary_targets(labels), w)
    # the loop solves the 2 x 2 system by Cramer's rule on the rescaled curvature,
    # NumPy by LU: a few ulps a row, carried through n rows of a contracting update
    np.testing.assert_allclose(got, want, rtol=n * 64 * np.finfo(float).eps)
    np.testing.assert_array_equal(start, new_calibration("platt", 1))  # pure


def test_platt_is_the_online_newton_step_of_a_two_parameter_logistic_regression():
    """Transcription: H += c p(1−p) x xᵀ, θ −= H⁻¹ c (p − y) x, x = (f, 1), from θ = (1, 0)."""
    rng = np.random.default_rng(0)
    f = rng.standard_normal(50) * 3
    y = (rng.random(50) < 1 / (1 + np.exp(-(0.5 * f - 1)))).astype(int)
    w = rng.uniform(0.5, 2.0, 50)
    theta, H = np.array([1.0, 0.0]), 0.3 * np.eye(2)
    for fi, yi, wi in zip(f, y, w, strict=True):
        x = np.array([fi, 1.0])
        p = 1 / (1 + np.exp(-theta @ x))
        H += wi * p * (1 - p) * np.outer(x, x)
        theta = theta - np.linalg.solve(H, wi * (p - yi) * x)
        theta[0] = max(theta[0], 1e-6)  # the slope stays positive
    out = calibration_pass(new_calibration("platt", 1), f[:, None], _binary_targets(y), w)
    np.testing.assert_allclose(out, [*theta, H[0, 0], H[0, 1], H[1, 1]], rtol=1e-10)


def test_platt_intercept_corrects_a_shifted_score():
    """Margins shifted by +2 on a ~10 % stream: the map learns a ≈ 1, b ≈ −2."""
    rng = np.random.default_rng(0)
    n = 4000
    u = rng.standard_normal(n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * u - 2.5)))).astype(int)
    f = 2 * u - 2.5 + 2.0  # the learner's score: the true log-odds plus 2
    a, b = calibration_pass(
        new_calibration("platt", 1), f[:, None], _binary_targets(y), np.ones(n)
    )[:2]
    # the maximum-likelihood (a, b) is within ~3 standard errors (0.06, 0.1) of (1, -2)
    assert abs(a - 1.0) < 0.2 and abs(b + 2.0) < 0.3


def test_platt_steps_survive_extreme_row_weights():
    f = np.array([[3.0], [-2.0], [0.5], [4.0]])
    T = np.array([[1.0], [-1.0], [-1.0], [1.0]])
    out = calibration_pass(new_calibration("platt", 1), f, T, np.full(4, 1e150))
    assert np.all(np.isfinite(out)) and out[0] > 0


def test_platt_pass_refuses_a_map_of_the_wrong_layout():
    with pytest.raises(ValueError, match="do not match"):
        calibration_pass(np.zeros(4), np.zeros((5, 1)), np.ones((5, 1)), np.ones(5))
    with pytest.raises(ValueError, match="do not match"):
        calibration_pass(new_calibration("platt", 1), np.zeros((5, 1)), np.ones((5, 1)), np.ones(4))


@pytest.mark.parametrize("Est", CLASSIFIERS)
@pytest.mark.parametrize("calibration", ["platt", "temperature", None])
@pytest.mark.parametrize("data", ["imbalanced breast cancer", "digits"])
def test_predict_decision_function_and_proba_agree(Est, calibration, data):
    if data == "digits":
        X, y = load_digits(return_X_y=True)
    else:
        X, y = _imbalanced_breast_cancer()
    clf = Est(calibration=calibration).partial_fit(X[:300], y[:300], classes=np.unique(y))
    pred, proba, dec = clf.predict(X), clf.predict_proba(X), clf.decision_function(X)
    if dec.ndim == 1:
        np.testing.assert_array_equal(pred, clf.classes_[(dec > 0).astype(int)])
    else:
        np.testing.assert_array_equal(pred, clf.classes_[dec.argmax(axis=1)])
    if calibration is not None:  # the paper's one-vs-rest link is normalised: no argmax promise
        np.testing.assert_array_equal(pred, clf.classes_[proba.argmax(axis=1)])
    if calibration == "platt" and dec.ndim == 1:
        np.testing.assert_allclose(dec, np.log(proba[:, 1] / proba[:, 0]), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_platt_decision_ranks_rows_as_the_linear_score(Est):
    X, y = _imbalanced_breast_cancer()
    # one learner (forgetting_factor=1.0): a mixture of two does not rank as either
    clf = Est(calibration="platt", forgetting_factor=1.0).fit(X, y)
    linear = np.ravel(clf._raw_decision(X))
    assert roc_auc_score(y, clf.decision_function(X)) == roc_auc_score(y, linear)
    other = Est(calibration="temperature", forgetting_factor=1.0).fit(X, y)
    np.testing.assert_array_equal(other.decision_function(X), np.ravel(other._raw_decision(X)))


def test_rfdson_platt_log_loss_matches_the_class_frequency_on_a_one_percent_stream():
    """Generated, 1 % positives (margins with ROC AUC ≈ 0.55): the intercept takes over."""
    X, y = _generated(0.99)
    out, freqs = {}, []
    for calibration in ("platt", "temperature"):
        per_order = []
        for seed in range(3):
            order = np.random.default_rng(seed).permutation(len(y))
            est = RFDSONClassifier(calibration=calibration)
            proba, freq, scored = _prequential(est, X[order], y[order])
            per_order.append(log_loss(scored, proba, labels=[0, 1]))
            freqs.append(log_loss(scored, freq, labels=[0, 1]))
        out[calibration] = np.mean(per_order)
    # measured: 0.0775 against the frequency's 0.0773 (the temperature map: 0.11);
    # bound: the regret of a two-parameter online Newton step, ~log(n)/n per row
    assert out["platt"] <= np.mean(freqs) + np.log(len(scored)) / len(scored)
    assert out["platt"] < 0.8 * out["temperature"]


# ------------------------------------------------------------ edge cases of the maps
def test_scores_beyond_the_soft_bound_keep_their_order():
    """Rows far outside the data: C tanh(f / C) alone ties every score past ~19 C."""
    X, y = load_digits(return_X_y=True)
    clf = RFDSONClassifier().fit(X[:600], y[:600])
    far = 100.0 * X[600:900]
    pred, proba = clf.predict(far), clf.predict_proba(far)
    np.testing.assert_array_equal(pred, clf.classes_[proba.argmax(axis=1)])
    Xb, yb = _imbalanced_breast_cancer()
    binary = RFDSONClassifier(calibration="platt").fit(Xb, yb)
    raw = np.ravel(binary._raw_decision(30.0 * Xb))
    dec = binary.decision_function(30.0 * Xb)
    assert np.abs(raw).max() > 40  # the scores do pass the bound
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(dec[order]) > 0) or np.all(np.diff(raw[order]) == 0)
    assert roc_auc_score(yb, dec) == roc_auc_score(yb, raw)


@pytest.mark.parametrize("scale_features", [True, False])
def test_a_first_row_of_weight_zero_is_not_seen(scale_features):
    X, y = _imbalanced_breast_cancer()
    kw = {"scale_features": scale_features}
    w = np.r_[np.zeros(3), np.ones(len(y) - 3)]
    a = RFDSONClassifier(**kw).fit(X, y, sample_weight=w)
    b = RFDSONClassifier(**kw).fit(X[3:], y[3:])
    np.testing.assert_array_equal(a._state.calibration, b._state.calibration)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.cumulative_loss_ == b.cumulative_loss_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("Est", CLASSIFIERS)
def test_a_loss_without_probabilities_learns_no_map(Est):
    X, y = _imbalanced_breast_cancer()
    clf = Est(loss="hinge", calibration="platt").fit(X, y)
    assert clf._state.calibration is None
    raw = np.ravel(clf._raw_decision(X))
    np.testing.assert_array_equal(clf.decision_function(X), raw)


@pytest.mark.parametrize("Est", CLASSIFIERS)
@pytest.mark.parametrize("calibration", ["platt", "temperature"])
def test_log_probabilities_are_finite_for_confident_rows(Est, calibration):
    import warnings

    X, y = _imbalanced_breast_cancer()
    kw = {"bound": None} if Est is RFDSONClassifier else {}
    clf = Est(calibration=calibration, **kw).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_p = clf.predict_log_proba(20.0 * X)
    assert np.all(np.isfinite(log_p))
    # the same probabilities where predict_proba can resolve them: its 1 − σ(z) has an
    # absolute error of a few ulps of 1 (how many depends on SciPy's expit), so a tiny
    # probability is compared in absolute terms only through the rows' sums
    proba = clf.predict_proba(20.0 * X)
    exact = np.exp(log_p)
    # log p = z − logsumexp(0, z) carries the rounding of z (about eps |z|) into exp
    z = np.abs(log_p[:, 1] - log_p[:, 0])  # the calibrated log-odds
    assert np.all(np.abs(exact.sum(axis=1) - 1.0) <= 4 * np.finfo(float).eps * (1.0 + z))
    resolved = proba > 1e-6
    np.testing.assert_allclose(exact[resolved], proba[resolved], rtol=1e-9)
    np.testing.assert_array_equal(exact.argmax(axis=1), proba.argmax(axis=1))
