"""ScaleInvariantClassifier / ScaleInvariantRegressor: invariance, estimator behaviour."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_regressors_train
from sklearn.utils.validation import check_is_fitted

from skonline.linear_model import ScaleInvariantClassifier, ScaleInvariantRegressor
from skonline.linear_model._scale_invariant_kernels import (
    coordinate_pass,
    coordinate_readout,
    full_pass,
    full_readout,
    init_state,
)
from skonline.utils._rank_one import pinv_rank_one_update

from ._scale_invariant_tolerances import coordinate_exponent, range_condition, stream_rtol


def _data(n_classes=2, n_samples=2000, seed=0, sparse_zeros=False):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=10,
        n_informative=6,
        n_classes=n_classes,
        random_state=seed,
    )
    if sparse_zeros:
        rng = np.random.default_rng(seed)
        X = X * (rng.random(X.shape) >= 0.3)
    return X, y


def _fit_pair(est, X, X2, y):
    a = est.__class__(**est.get_params()).fit(X, y)
    b = est.__class__(**est.get_params()).fit(X2, y)
    return a, b


# ----------------------------------------------------------------- invariance
@pytest.mark.parametrize("loss", ["log_loss", "hinge"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("time_counter", ["global", "per_feature"])
def test_coordinate_bitwise_invariant_to_power_of_two_scaling(
    loss, n_classes, layout, time_counter
):
    X, y = _data(n_classes, sparse_zeros=True)
    rng = np.random.default_rng(1)
    a = rng.choice([-1.0, 1.0], X.shape[1]) * 2.0 ** rng.integers(-40, 41, X.shape[1])
    Xa = X * a
    if layout == "csr":
        X, Xa = sp.csr_matrix(X), sp.csr_matrix(Xa)
    est = ScaleInvariantClassifier(loss=loss, time_counter=time_counter)
    ref, scaled = _fit_pair(est, X, Xa, y)
    assert np.array_equal(ref.decision_function(X), scaled.decision_function(Xa))
    assert ref.cumulative_loss_ == scaled.cumulative_loss_
    assert np.array_equal(ref.intercept_, scaled.intercept_)
    assert np.array_equal(scaled.coef_ * a, ref.coef_)
    if loss == "log_loss":
        assert np.array_equal(ref.predict_proba(X), scaled.predict_proba(Xa))
    assert ref.score(X, y) > 1.0 / n_classes + 0.1  # it learned something


@pytest.mark.parametrize("n_classes", [2, 3])
def test_coordinate_invariant_to_real_scaling(n_classes):
    X, y = _data(n_classes)
    a = 10.0 ** np.random.default_rng(2).uniform(-8, 8, X.shape[1])
    ref, scaled = _fit_pair(ScaleInvariantClassifier(), X, X * a, y)
    f, fa = ref.decision_function(X), scaled.decision_function(X * a)
    # X * a is rounded (eps/2 per entry) where a power of two would be exact
    tol = stream_rtol(X.shape[0], X.shape[1] + 1, exponent=coordinate_exponent(ref._state, 1.5))
    np.testing.assert_allclose(fa, f, rtol=tol, atol=tol * np.abs(f).max())
    assert np.array_equal(ref.predict(X), scaled.predict(X * a))
    np.testing.assert_allclose(ref.cumulative_loss_, scaled.cumulative_loss_, rtol=tol)


def test_coordinate_dense_and_csr_bitwise_including_non_canonical_csr():
    X, y = _data(3, sparse_zeros=True)
    dense = ScaleInvariantClassifier().fit(X, y)
    csr = sp.csr_matrix(X)
    # the same matrix with every entry split in two duplicates, indices unsorted
    coo = csr.tocoo()
    half = coo.data / 2
    dup = sp.csr_matrix(
        (np.r_[half, coo.data - half], (np.r_[coo.row, coo.row], np.r_[coo.col, coo.col])),
        shape=X.shape,
    )
    dup.has_canonical_format = False
    for Xs in (csr, dup):
        est = ScaleInvariantClassifier().fit(Xs, y)
        assert est.cumulative_loss_ == dense.cumulative_loss_
        assert np.array_equal(est.coef_, dense.coef_)


def _with_intercept(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def _full_rtol(*Xs):
    """``stream_rtol`` of a full-variant pass over each of ``Xs`` (worst conditioning)."""
    n, d = Xs[0].shape
    condition = max(range_condition(_with_intercept(X), start=d + 1) for X in Xs)
    return stream_rtol(n, d + 1, condition)


def _affine(X, seed):
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    while True:
        A = rng.standard_normal((d, d))
        if np.linalg.cond(A) <= 100:
            break
    Z = (X @ A.T) * 10.0 ** rng.uniform(-3, 3, d)
    return Z + 3.0 * rng.standard_normal(d) * Z.std(axis=0)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_full_invariant_to_affine_maps(n_classes, layout):
    X, y = _data(n_classes)
    Xt = _affine(X, 3)
    est = ScaleInvariantClassifier(variant="full")
    ref = ScaleInvariantClassifier(variant="full").fit(X, y)
    fitted = est.fit(sp.csr_matrix(Xt) if layout == "csr" else Xt, y)
    f, ft = ref.decision_function(X), fitted.decision_function(Xt)
    tol = _full_rtol(X, Xt)
    np.testing.assert_allclose(ft, f, rtol=tol, atol=tol * np.abs(f).max())
    assert ref.score(X, y) > 0.7


def test_full_standard_scaler_pipeline_equals_raw():
    X, y = _data(3)
    rng = np.random.default_rng(4)
    X = X * 10.0 ** rng.uniform(-3, 3, X.shape[1])
    # shifts of a few column standard deviations (a shift of 1e4 std or more
    # costs float64 accuracy in S⁺ before the rank is full: equilibration fixes
    # the scale of a column, not its offset)
    X += 3.0 * rng.standard_normal(X.shape[1]) * X.std(axis=0)
    raw = ScaleInvariantClassifier(variant="full").fit(X, y)
    pipe = make_pipeline(StandardScaler(), ScaleInvariantClassifier(variant="full")).fit(X, y)
    f = raw.decision_function(X)
    tol = _full_rtol(X, StandardScaler().fit_transform(X))
    np.testing.assert_allclose(pipe.decision_function(X), f, rtol=tol, atol=tol * np.abs(f).max())
    assert np.array_equal(pipe.predict(X), raw.predict(X))


def test_center_invariant_to_per_feature_affine_maps():
    X, y = _data(2)
    rng = np.random.default_rng(5)
    a = 10.0 ** rng.uniform(-3, 3, X.shape[1])
    b = 3.0 * rng.standard_normal(X.shape[1]) * a
    ref, moved = _fit_pair(ScaleInvariantClassifier(center=True), X, X * a + b, y)
    f = ref.decision_function(X)
    # the centring cancels by a factor (1 + |mean|/std) per feature, squared in h̃²/s̃²
    moved_X = X * a + b
    ratio = np.abs(moved_X.mean(axis=0)) / moved_X.std(axis=0)
    tol = stream_rtol(*X.shape) * (1 + ratio.max()) ** 2
    np.testing.assert_allclose(
        moved.decision_function(moved_X), f, rtol=tol, atol=tol * np.abs(f).max()
    )


# Negative controls: the same comparisons fail where invariance is not claimed.
def test_sgd_is_not_scale_invariant():
    X, y = _data(2)
    a = 10.0 ** np.random.default_rng(6).uniform(-3, 3, X.shape[1])
    sgd = SGDClassifier(random_state=0, max_iter=5, tol=None)
    ref, scaled = sgd.fit(X, y).decision_function(X), None
    scaled = SGDClassifier(random_state=0, max_iter=5, tol=None).fit(X * a, y)
    assert not np.allclose(scaled.decision_function(X * a), ref, rtol=1e-3)


def test_coordinate_variant_is_not_shift_invariant():
    X, y = _data(2)
    b = 3.0 * np.random.default_rng(7).standard_normal(X.shape[1])
    ref, moved = _fit_pair(ScaleInvariantClassifier(), X, X + b, y)
    diff = np.abs(ref.decision_function(X) - moved.decision_function(X + b)).max()
    assert diff > 1e-3


def test_coordinate_variant_is_not_rotation_invariant():
    X, y = _data(2)
    Q = np.linalg.qr(np.random.default_rng(8).standard_normal((10, 10)))[0]
    ref, rot = _fit_pair(ScaleInvariantClassifier(), X, X @ Q, y)
    diff = np.abs(ref.decision_function(X) - rot.decision_function(X @ Q)).max()
    assert diff > 1e-3


def test_full_without_intercept_is_not_shift_invariant():
    X, y = _data(2)
    b = 3.0 * np.random.default_rng(9).standard_normal(X.shape[1])
    ref, moved = _fit_pair(
        ScaleInvariantClassifier(variant="full", fit_intercept=False), X, X + b, y
    )
    diff = np.abs(ref.decision_function(X) - moved.decision_function(X + b)).max()
    assert diff > 1e-3


# --------------------------------------------------------------- estimator API
def test_binary_and_multiclass_shapes_and_proba():
    X, y = _data(3)
    clf = ScaleInvariantClassifier(shuffle=True, random_state=0).fit(X, y)
    assert clf.coef_.shape == (3, 10) and clf.intercept_.shape == (3,)
    assert clf.decision_function(X).shape == (2000, 3)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    Xb, yb = _data(2)
    clf = ScaleInvariantClassifier(variant="full").fit(Xb, yb)
    assert clf.decision_function(Xb).shape == (2000,)
    assert clf.coef_.shape == (1, 10)
    assert clf.n_samples_seen_ == 2000
    assert not hasattr(ScaleInvariantClassifier(loss="hinge"), "predict_proba")


@pytest.mark.parametrize("variant", ["coordinate", "full"])
@pytest.mark.parametrize("loss", ["log_loss", "hinge"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_ovr_outputs_equal_separate_binary_problems(variant, loss, layout):
    # one-vs-rest shares only the feature statistics (s² or S⁺), which depend on X
    # alone: class k's output is exactly the binary learner on (y == k)
    X, y = _data(3, n_samples=600, sparse_zeros=True)
    X = X * 10.0 ** np.random.default_rng(13).uniform(-3, 3, X.shape[1])
    Xf = sp.csr_matrix(X) if layout == "csr" else X
    ovr = ScaleInvariantClassifier(variant=variant, loss=loss).fit(Xf, y)
    # the K-output pass sums in another order than the one-output pass, and computes
    # the logistic derivative with expit instead of exp: a few ulps per row
    if variant == "full":
        tol = _full_rtol(X)
    else:
        tol = stream_rtol(*X.shape, exponent=coordinate_exponent(ovr._state, 1.5))
    total = 0.0
    for k in range(3):
        binary = ScaleInvariantClassifier(variant=variant, loss=loss).fit(Xf, y == k)
        scale = np.abs(binary.coef_).max()
        np.testing.assert_allclose(ovr.coef_[k], binary.coef_[0], rtol=tol, atol=tol * scale)
        np.testing.assert_allclose(ovr.intercept_[k], binary.intercept_[0], rtol=tol)
        f = binary.decision_function(X)
        np.testing.assert_allclose(
            ovr.decision_function(X)[:, k], f, rtol=tol, atol=tol * np.abs(f).max()
        )
        total += binary.cumulative_loss_
    np.testing.assert_allclose(ovr.cumulative_loss_, total, rtol=tol)


def test_multinomial_differs_from_ovr_and_learns():
    X, y = _data(3)
    ovr = ScaleInvariantClassifier(variant="full").fit(X, y)
    mn = ScaleInvariantClassifier(variant="full", multi_class="multinomial").fit(X, y)
    assert not np.allclose(ovr.decision_function(X), mn.decision_function(X))
    np.testing.assert_allclose(mn.predict_proba(X).sum(axis=1), 1.0)
    assert mn.score(X, y) > 0.6


def test_fit_equals_partial_fit_and_max_iter_counts_rows():
    X, y = _data(2)
    est = ScaleInvariantClassifier(max_iter=3).fit(X, y)
    assert est.n_samples_seen_ == 3 * len(X) and est.n_iter_ == 3
    one = ScaleInvariantClassifier().partial_fit(X[:700], y[:700], classes=[0, 1])
    one.partial_fit(X[700:], y[700:])
    assert np.array_equal(one.coef_, ScaleInvariantClassifier().fit(X, y).coef_)


def test_shuffle_permutation_does_not_depend_on_values():
    X, y = _data(2)
    a = 2.0 ** np.arange(10)
    est = ScaleInvariantClassifier(shuffle=True, random_state=3, max_iter=2)
    ref, scaled = _fit_pair(est, X, X * a, y)
    assert np.array_equal(ref.decision_function(X), scaled.decision_function(X * a))


def test_sample_weight_zero_skips_rows_and_weights_scale_gradients():
    X, y = _data(2, n_samples=300)
    w = np.ones(300)
    w[::3] = 0.0
    keep = w > 0
    for variant in ("coordinate", "full"):
        a = ScaleInvariantClassifier(variant=variant).fit(X, y, sample_weight=w)
        b = ScaleInvariantClassifier(variant=variant).fit(X[keep], y[keep])
        assert np.array_equal(a.coef_, b.coef_) and a.n_samples_seen_ == keep.sum()
    half = ScaleInvariantClassifier().fit(X, y, sample_weight=np.full(300, 0.5))
    assert not np.array_equal(half.coef_, ScaleInvariantClassifier().fit(X, y).coef_)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"variant": "full"},
        {"loss": "huber", "epsilon": 1.0},
        {"loss": "epsilon_insensitive", "center": True, "center_target": True},
    ],
)
def test_regressor_passes_scikit_learns_regressors_train(params):
    # The check sets alpha=0.01 when an estimator has an ``alpha`` (a ridge strength);
    # Kotłowski's alpha is named potential_width, so the check runs unchanged.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_regressors_train("ScaleInvariantRegressor", ScaleInvariantRegressor(**params))


def test_regressor_scale_invariant_and_center_target_helps():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((1500, 5))
    y = 150.0 + X @ [30.0, -20.0, 10.0, 0.0, 5.0] + rng.standard_normal(1500)
    a = 2.0 ** rng.integers(-30, 30, 5)
    ref, scaled = _fit_pair(ScaleInvariantRegressor(loss="huber", epsilon=5.0), X, X * a, y)
    assert np.array_equal(ref.predict(X), scaled.predict(X * a))
    plain = ScaleInvariantRegressor().fit(X, y)
    centred = ScaleInvariantRegressor(center_target=True).fit(X, y)
    assert centred.cumulative_loss_ < plain.cumulative_loss_
    assert isinstance(plain.intercept_, float) and plain.coef_.shape == (5,)


@pytest.mark.parametrize("kind", ["coordinate", "full"])
def test_a_linear_loss_overflows_the_potential_into_a_finite_clipped_state(kind):
    # g = -1 on every row (a linear loss whose target is never reached): the exponent
    # t/(2 alpha) passes MAX_EXPONENT = 700 near t = 2100; it is clipped there and
    # the predictions and the read-out stay finite.
    n = 2200
    X = np.ones((n, 1))
    Xk = sp.csr_matrix(X) if kind == "coordinate" else X
    state = init_state(kind, 1, 1, fit_intercept=False)
    kwargs = {} if kind == "coordinate" else {"rank_tol": 1e-10}

    def linear(p, y):
        return float(-p.sum()), -np.ones_like(p)

    new, predictions = (coordinate_pass if kind == "coordinate" else full_pass)(
        state,
        Xk,
        np.zeros((n, 1)),
        np.ones(n),
        potential_width=1.5,
        loss=linear,
        epsilon=0.0,
        **kwargs,
    )
    assert new.n_clipped > 0
    assert np.all(np.isfinite(predictions)) and np.all(predictions[1:] > 0)
    readout = coordinate_readout if kind == "coordinate" else full_readout
    coef, _ = readout(new, potential_width=1.5, fit_intercept=False)
    assert np.all(np.isfinite(coef)) and coef[0, 0] > 1e250


def test_the_estimator_warns_when_the_exponent_is_clipped(monkeypatch):
    import skonline.linear_model._scale_invariant_kernels as kernels

    # Bounded targets and weights keep the exponent far below 700 on real data; a low
    # threshold makes the clipping branch, and its warning, reachable.
    monkeypatch.setattr(kernels, "MAX_EXPONENT", 0.5)
    X, y = _data(2, n_samples=300)
    for variant in ("coordinate", "full"):
        with pytest.warns(UserWarning, match="exceeded"):
            est = ScaleInvariantClassifier(variant=variant).fit(X, y)
        assert est._state.n_clipped > 0
        assert np.all(np.isfinite(est.decision_function(X)))


@pytest.mark.parametrize(
    ("params", "X_kind", "match"),
    [
        ({"potential_width": 1.125}, "dense", "potential_width > 9/8"),
        ({"center": True}, "csr", "densify"),
        ({"center": True, "variant": "full"}, "dense", "coordinate"),
        ({"multi_class": "multinomial", "loss": "hinge"}, "dense", "log_loss"),
    ],
)
def test_bad_parameter_combinations_raise(params, X_kind, match):
    X, y = _data(3, n_samples=50)
    Xf = sp.csr_matrix(X) if X_kind == "csr" else X
    with pytest.raises(ValueError, match=match):
        ScaleInvariantClassifier(**params).fit(Xf, y)


def test_full_potential_width_nine_eighths_is_allowed():
    X, y = _data(2, n_samples=200)
    est = ScaleInvariantClassifier(variant="full", potential_width=9 / 8)
    assert est.fit(X, y).score(X, y) > 0.6


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("variant", "full"),
        ("potential_width", 2.0),
        ("fit_intercept", False),
        ("time_counter", "per_feature"),
        ("center", True),
        ("multi_class", "multinomial"),
    ],
)
def test_changing_state_shaping_parameters_mid_stream_raises(param, value):
    X, y = _data(3, n_samples=100)
    est = ScaleInvariantClassifier().partial_fit(X, y, classes=[0, 1, 2])
    before = pickle.dumps(est)
    est.set_params(**{param: value})
    with pytest.raises(ValueError, match=f"changed since.*{param}"):
        est.partial_fit(X, y)
    est.set_params(**{param: ScaleInvariantClassifier().get_params()[param]})
    assert pickle.dumps(est) == before
    est.set_params(**{param: value}).fit(X, y)  # fit starts a new stream
    assert est.n_samples_seen_ == 100


def test_kernels_never_write_into_their_inputs():
    X, y = _data(2, n_samples=100)
    T = np.where(y == 1, 1.0, -1.0)[:, None]
    Xa = sp.csr_matrix(np.hstack([X, np.ones((100, 1))]))
    for kernel, kind, kwargs in (
        (coordinate_pass, "coordinate", {}),
        (full_pass, "full", {"rank_tol": 1e-10}),
    ):
        state = init_state(kind, 10, 1)
        before = pickle.dumps(state)
        data_before = Xa.data.copy()
        new, _ = kernel(
            state, Xa, T, np.ones(100), potential_width=1.5, loss="log_loss", epsilon=0.0, **kwargs
        )
        assert pickle.dumps(state) == before
        assert np.array_equal(Xa.data, data_before)
        assert new is not state and new.n_samples_seen == 100


def test_online_error_rate_counts_progressive_mistakes():
    X, y = _data(3, n_samples=500)
    clf = ScaleInvariantClassifier(variant="full")
    for start in range(0, 500, 100):
        clf.partial_fit(X[start : start + 100], y[start : start + 100], classes=[0, 1, 2])
    assert 0 < clf.n_mistakes_ < 500
    assert clf.online_error_rate_ == clf.n_mistakes_ / 500
    # the first row is predicted with zero weights: a tie, hence classes_[0]
    first = ScaleInvariantClassifier().partial_fit(X[:1], [1], classes=[0, 1, 2])
    assert first.n_mistakes_ == 1


@pytest.mark.parametrize("n_classes", [2, 3])
def test_full_bitwise_invariant_to_power_of_two_scaling(n_classes):
    # equilibration divides each feature by a power of two fixed at its first
    # non-zero value, so the internal rows are the same bits after x_i -> ±2^k x_i
    X, y = _data(n_classes, n_samples=600)
    rng = np.random.default_rng(11)
    a = rng.choice([-1.0, 1.0], X.shape[1]) * 2.0 ** rng.integers(-40, 41, X.shape[1])
    ref, scaled = _fit_pair(ScaleInvariantClassifier(variant="full"), X, X * a, y)
    assert np.array_equal(ref.decision_function(X), scaled.decision_function(X * a))
    assert ref.cumulative_loss_ == scaled.cumulative_loss_
    assert np.array_equal(scaled.coef_ * a, ref.coef_)


def test_full_rank_deficient_invariance_on_the_training_span():
    rng = np.random.default_rng(12)
    n = 800
    Z = rng.standard_normal((n, 4))
    X = np.hstack([Z, Z[:, :1] * 3.0, np.eye(3)[rng.integers(0, 3, n)]])  # collinear + one-hot
    y = (Z @ [1.0, -1.0, 0.5, 0.0] > 0).astype(int)
    A = rng.standard_normal((8, 8)) + 4 * np.eye(8)
    Xt = X @ A.T + rng.standard_normal(8)
    ref, moved = _fit_pair(ScaleInvariantClassifier(variant="full"), X, Xt, y)
    f = ref.decision_function(X)  # the training rows: in the span
    assert np.all(np.isfinite(f))
    tol = _full_rtol(X, Xt)
    np.testing.assert_allclose(moved.decision_function(Xt), f, rtol=tol, atol=tol * np.abs(f).max())
    assert ref.score(X, y) > 0.8


def test_rank_one_update_refuses_an_indefinite_pseudo_inverse():
    # 1 + xᵀS⁺x <= 0 cannot happen in exact arithmetic; once rounding has made S⁺
    # indefinite (S too ill-conditioned for float64) the update must stop, not
    # take the square root of a negative number or carry on with garbage
    Sp = np.diag([-2.0, 1.0, 1.0])
    P = np.eye(3)
    Sp0, P0 = Sp.copy(), P.copy()
    with pytest.raises(FloatingPointError, match="lost its accuracy"):
        pinv_rank_one_update(Sp, P, np.array([1.0, 0.0, 0.0]), 1e-10)
    assert np.array_equal(Sp, Sp0) and np.array_equal(P, P0)


def test_full_variant_numerical_breakdown_leaves_the_estimator_unchanged(monkeypatch):
    import skonline.linear_model._scale_invariant_kernels as module

    X, y = _data(2, n_samples=60)
    calls = {"n": 0}

    def failing_after(limit):
        def update(*args):
            calls["n"] += 1
            if calls["n"] > limit:
                raise FloatingPointError("1 + xᵀS⁺x = -1 is not positive")
            return pinv_rank_one_update(*args)

        return update

    # failure inside the first batch: the estimator stays unfitted
    monkeypatch.setattr(module, "pinv_rank_one_update", failing_after(10))
    est = ScaleInvariantClassifier(variant="full")
    with pytest.raises(FloatingPointError, match="variant='coordinate'"):
        est.partial_fit(X[:30], y[:30], classes=[0, 1])
    assert not hasattr(est, "n_features_in_")
    # failure mid-stream: the state is byte-identical to before the call
    calls["n"] = 0
    monkeypatch.setattr(module, "pinv_rank_one_update", failing_after(40))
    est.partial_fit(X[:30], y[:30], classes=[0, 1])
    before = pickle.dumps(est)
    with pytest.raises(FloatingPointError, match="not applied"):
        est.partial_fit(X[30:], y[30:])
    assert pickle.dumps(est) == before


def test_full_variant_refuses_very_wide_input():
    X = sp.random(5, 10_000, density=0.001, format="csr", random_state=0)
    with pytest.raises(ValueError, match="limited to"):
        ScaleInvariantClassifier(variant="full").fit(X, [0, 1, 0, 1, 0])


# --------------------------------------------------- defect 3: extreme sample weights
@pytest.mark.parametrize("weight", [1e3, 1e6, 1e10, 1e150])
@pytest.mark.parametrize("variant", ["coordinate", "full"])
@pytest.mark.parametrize("cls", [ScaleInvariantClassifier, ScaleInvariantRegressor])
def test_extreme_sample_weights_keep_weights_and_predictions_finite(cls, variant, weight):
    # A weight c feeds clip(c g, -1, 1): however large, the potential sees at most unit
    # gradients, so nothing overflows and no clipping of the exponent is needed.
    X, y = _data(2, n_samples=300)
    if cls is ScaleInvariantRegressor:
        y = X @ np.linspace(-1.0, 1.0, X.shape[1])
    sw = np.ones(300)
    sw[::2] = weight
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no clipped exponent
        est = cls(variant=variant).fit(X, y, sample_weight=sw)
        scores = est.decision_function(X) if cls is ScaleInvariantClassifier else est.predict(X)
    assert np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.intercept_))
    assert np.all(np.isfinite(scores)) and np.isfinite(est.cumulative_loss_)
    assert np.abs(est.coef_).max() < 1e3  # the scale of unit weights (|coef| ~ 1 here)


@pytest.mark.parametrize("variant", ["coordinate", "full"])
@pytest.mark.parametrize(
    ("cls", "loss"),
    [(ScaleInvariantClassifier, "hinge"), (ScaleInvariantRegressor, "absolute_error")],
)
def test_weights_above_one_saturate_for_unit_slope_losses(cls, loss, variant):
    # hinge and absolute error have |g| in {0, 1}: clip(c g, -1, 1) = g for every c >= 1,
    # so such weights are exactly unit weights, while the weighted loss is still c * loss
    X, y = _data(2, n_samples=300)
    if cls is ScaleInvariantRegressor:
        y = X @ np.linspace(-1.0, 1.0, X.shape[1])
    rng = np.random.default_rng(14)
    big = rng.choice([1.0, 3.0, 1e10], 300)
    heavy = cls(variant=variant, loss=loss).fit(X, y, sample_weight=big)
    unit = cls(variant=variant, loss=loss).fit(X, y)
    assert np.array_equal(heavy.coef_, unit.coef_)
    assert heavy.cumulative_loss_ > unit.cumulative_loss_


# ------------------------------------------ defects 6 and 9: non-numeric targets
@pytest.mark.parametrize("variant", ["coordinate", "full"])
@pytest.mark.parametrize("call", ["partial_fit", "fit"])
def test_non_numeric_targets_leave_the_regressor_unfitted(call, variant):
    X, _ = _data(2, n_samples=5)
    reg = ScaleInvariantRegressor(variant=variant)
    with pytest.raises(ValueError, match="could not convert"):
        getattr(reg, call)(X, np.array(["a"] * 5))
    assert not hasattr(reg, "n_features_in_")
    with pytest.raises(NotFittedError):
        check_is_fitted(reg)


def test_non_numeric_targets_mid_stream_leave_the_state_as_it_was():
    X, y = _data(2, n_samples=40)
    reg = ScaleInvariantRegressor().partial_fit(X[:20], y[:20])
    before = pickle.dumps(reg)
    with pytest.raises(ValueError, match="could not convert"):
        reg.partial_fit(X[20:], np.array(["a"] * 20))
    assert pickle.dumps(reg) == before


@pytest.mark.parametrize("variant", ["coordinate", "full"])
def test_string_targets_are_converted_and_checked_like_scikit_learn(variant):
    X, _ = _data(2, n_samples=60)
    y = X @ np.linspace(-1.0, 1.0, X.shape[1])
    as_floats = ScaleInvariantRegressor(variant=variant).fit(X, y.astype(str).astype(float))
    for y_str in (y.astype(str), y.astype(str).astype(object), y.astype(str).tolist()):
        as_strings = ScaleInvariantRegressor(variant=variant).fit(X, y_str)
        np.testing.assert_array_equal(as_strings.coef_, as_floats.coef_)
    # strings that convert to NaN or infinity are rejected, as the numbers are
    for bad in ("nan", "inf", "1e400"):
        y_bad = y.astype(str)
        y_bad[7] = bad
        reg = ScaleInvariantRegressor(variant=variant)
        with pytest.raises(ValueError, match="NaN or infinity"):
            reg.partial_fit(X, y_bad)
        assert not hasattr(reg, "n_features_in_")
