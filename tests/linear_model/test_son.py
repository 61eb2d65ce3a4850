"""RFDSONClassifier / RFDSONRegressor: the properties the paper states or implies.

The literal transcription of Algorithm 6 lives in ``test_son_reference.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.preprocessing import StandardScaler
from skonline.linear_model._son_fast import _SketchOps

import skonline
from skonline import RobustFrequentDirections
from skonline.linear_model import RFDSONClassifier as DefaultRFDSONClassifier
from skonline.linear_model import (
    _losses,
    _son_kernels,
)
from skonline.linear_model._son_kernels import new_curvature

from ._son_paper_settings import RFDSONClassifier, RFDSONRegressor


class _Recorder:
    """Collect the online predictions p_t = w_tᵀx_t through the metrics hook."""

    def __init__(self, monkeypatch, cls):
        self.predictions = []
        original = cls._linear_pass

        def record(est, state, X, T, sample_weight):
            new, decided = original(est, state, X, T, sample_weight)
            self.predictions.append(decided.copy())
            return new, decided

        monkeypatch.setattr(cls, "_linear_pass", record)


def test_fd_son_with_a_large_sketch_equals_full_on(binary_problem):
    X, y = binary_problem(d=6)
    kw = {"alpha0": 0.7, "fit_intercept": False, "loss": "log_loss"}
    fd = RFDSONClassifier(sketch="fd", sketch_size=10, **kw).fit(X, y)  # m > d: no shrink
    full = RFDSONClassifier(sketch="full", **kw).fit(X, y)
    assert fd.shrinkage_[0] == 0.0
    np.testing.assert_allclose(fd.coef_, full.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fd.cumulative_loss_, full.cumulative_loss_, rtol=1e-10)


def test_rfd_son_sketch_is_the_rfd_sketch_of_its_gradients(binary_problem):
    X, y = binary_problem(n=200, d=10)
    m = 4
    son = RFDSONClassifier(sketch_size=m, buffer_init="empty", fit_intercept=False)
    rows = []
    for t in range(len(X)):  # the sketch rows sqrt(μ + η_t) g_t, from the online predictions
        if t:
            z = float(son.decision_function(X[t : t + 1])[0])
        else:
            z = 0.0
        p = min(max(z, -1.0), 1.0)
        target = 1.0 if y[t] == 1 else -1.0
        g = 2.0 * (p - target) * X[t]
        rows.append(np.sqrt(1.0 / 8.0 + 1.0 / (t + 1)) * g)
        son.partial_fit(X[t : t + 1], y[t : t + 1], classes=[0, 1])
    rfd = RobustFrequentDirections(sketch_size=m, center=False).fit(np.array(rows))
    scale = np.max(np.abs(rfd.sketch_.T @ rfd.sketch_))
    np.testing.assert_allclose(
        son._state.curvature.gram(0), rfd.sketch_.T @ rfd.sketch_, atol=1e-10 * scale
    )
    np.testing.assert_allclose(son.alpha_[0], rfd.alpha_, rtol=1e-10)
    assert son.alpha_[0] - 0.0 == son.shrinkage_[0] / 2
    assert son.n_compactions_[0] == rfd.n_compactions_


def test_zero_row_schedule_of_algorithm_6(binary_problem):
    X, y = binary_problem(n=5 + 6 * 3, d=10)
    son = RFDSONClassifier(sketch_size=5, fit_intercept=False).fit(X, y)
    # first compaction after m = 5 gradients, then one every m + 1 = 6
    assert son.n_compactions_[0] == 4
    empty = RFDSONClassifier(sketch_size=5, fit_intercept=False, buffer_init="empty").fit(X, y)
    assert empty.n_compactions_[0] == 3  # after 2m = 10, then every 6: t = 10, 16, 22


def _sketch_ops(d, m, alpha0):
    curvature = new_curvature("sketch", 1, d, m=m, alpha0=alpha0, zero_rows=False)
    return curvature, _SketchOps(curvature)


def _tau(z, C):
    return np.sign(z) * max(abs(z) - C, 0.0)


@pytest.mark.parametrize("alpha0", [0.0, 0.3])
def test_solves_and_projection_match_dense_linear_algebra(alpha0):
    rng = np.random.default_rng(3)
    d, m = 9, 3
    curvature, ops = _sketch_ops(d, m, alpha0)
    for _ in range(11):  # compactions at rows 6 and 10 (2m, then every m + 1), one row after
        ops.append(np.sqrt(0.5) * rng.standard_normal(d))
    alpha = curvature.alpha[0]
    H = curvature.gram(0) + alpha * np.eye(d)
    assert alpha > 0 and curvature.n_compactions[0] == 2
    g, x, u = rng.standard_normal((3, d))
    np.testing.assert_allclose(ops.solve(g), np.linalg.solve(H, g), rtol=1e-9)
    z = float(u @ x)
    C = abs(z) / 3
    w = ops.project(u, x, C)
    h = np.linalg.solve(H, x)
    np.testing.assert_allclose(w, u - _tau(z, C) * h / (x @ h), rtol=1e-9)
    assert abs(w @ x) == pytest.approx(C)


def test_singular_branch_uses_the_null_space_and_the_pseudo_inverse():
    rng = np.random.default_rng(4)
    d = 10
    basis = np.linalg.qr(rng.standard_normal((d, 2)))[0].T  # gradients in a 2-dim subspace
    curvature, ops = _sketch_ops(d, 3, 0.0)
    for _ in range(12):
        ops.append(rng.standard_normal(2) @ basis)
    assert curvature.n_compactions[0] > 0 and curvature.alpha[0] == 0.0  # rank 2 < m: α stays 0
    gram = curvature.gram(0)
    H_pinv = np.linalg.pinv(gram)
    g = rng.standard_normal(2) @ basis
    np.testing.assert_allclose(ops.solve(g), H_pinv @ g, rtol=1e-7)
    u = rng.standard_normal(d)
    # x with a null-space component: the corrected w₂ moves along (I − P)x only
    x = rng.standard_normal(d)
    w = ops.project(u, x, 0.1)
    assert abs(w @ x) == pytest.approx(0.1)
    assert (w - u) @ gram @ (w - u) == pytest.approx(0.0, abs=1e-9)  # H-distance 0
    # x inside the row space: w₁ with the pseudo-inverse
    x = rng.standard_normal(2) @ basis
    z = float(u @ x)
    w = ops.project(u, x, 0.1)
    h = H_pinv @ x
    np.testing.assert_allclose(w, u - _tau(z, 0.1) * h / (x @ h), rtol=1e-6)


def test_rank_deficient_stream_keeps_alpha_zero_and_learns():
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((400, 3))
    X = Z @ rng.standard_normal((3, 15))
    y = (Z[:, 0] > 0).astype(int)
    clf = RFDSONClassifier(sketch_size=5, fit_intercept=False).fit(X, y)
    assert clf.n_compactions_[0] > 10
    assert clf.alpha_[0] < 1e-10 * clf.shrinkage_[0] + 1e-10
    assert clf.online_error_rate_ < 0.15


def test_predictions_respect_the_constraint_at_every_step(monkeypatch, binary_problem):
    rec = _Recorder(monkeypatch, RFDSONClassifier)
    X, y = binary_problem(n=400, d=12, conditioning=4)
    RFDSONClassifier(sketch_size=4, bound=0.5).fit(X, y)
    p = np.concatenate(rec.predictions)
    assert np.max(np.abs(p)) <= 0.5 * (1 + 1e-12)
    assert np.max(np.abs(p)) > 0.49  # the constraint is active


def test_online_error_rate_is_test_then_train(monkeypatch, binary_problem):
    rec = _Recorder(monkeypatch, RFDSONClassifier)
    X, y = binary_problem(n=250)
    clf = RFDSONClassifier(sketch_size=4).fit(X, y)
    p = np.concatenate(rec.predictions)[:, 0]
    mistakes = int(np.sum((p >= 0).astype(int) != y))  # tie p = 0 predicts classes_[1]
    assert clf.n_mistakes_ == mistakes
    assert clf.online_error_rate_ == mistakes / 250


@pytest.mark.parametrize("loss", ["squared_error", "log_loss", "hinge", "smooth_hinge"])
def test_losses_match_their_derivatives(loss):
    for y in (-1.0, 1.0):
        for p in np.linspace(-1.5, 1.5, 13):
            if loss in ("hinge", "smooth_hinge") and y * p in (0.0, 1.0):
                continue  # kinks
            _, deriv = _losses.loss_and_derivative(loss, p, y)
            h = 1e-6
            numeric = (
                _losses.loss_and_derivative(loss, p + h, y)[0]
                - _losses.loss_and_derivative(loss, p - h, y)[0]
            ) / (2 * h)
            assert deriv == pytest.approx(numeric, abs=1e-5)
    assert _son_kernels.auto_mu("squared_error", 2.0) == 1 / 32
    assert _son_kernels.auto_mu("log_loss", 1.0) == pytest.approx(np.exp(-1))
    assert (
        _son_kernels.auto_mu("hinge", 1.0) == 0.0
        and _son_kernels.auto_mu("squared_error", None) == 0.0
    )
    # without a bound: a floor for the logistic loss, 0 for the others
    assert _son_kernels.auto_mu("log_loss", None) == _son_kernels.UNBOUNDED_LOG_LOSS_MU == 0.05
    assert _son_kernels.auto_mu("hinge", None) == 0.0


def test_default_classifier_has_no_bound_and_a_curvature_floor():
    """The default: no projection, ``mu`` 0.05, the map reading ``5 tanh(f / 5)``."""
    from skonline.linear_model import _son

    clf = DefaultRFDSONClassifier()
    assert clf.bound is None and clf._mu() == 0.05
    assert DefaultRFDSONClassifier(bound=2.0)._mu() == pytest.approx(np.exp(-2.0))
    f = np.array([[-300.0], [-5.0], [0.0], [0.3], [7.0], [1e6]])
    C = _son.CALIBRATION_MARGIN
    expected = (1 - _son.SOFT_BOUND_SLOPE) * C * np.tanh(f / C) + _son.SOFT_BOUND_SLOPE * f
    np.testing.assert_array_equal(_son._soft_bound(f, None), expected)
    np.testing.assert_array_equal(_son._soft_bound(f, 5.0), expected)
    # nothing clips the learner: its scores pass the former bound 2, and the paper's link
    # is then σ(f) of the raw scores (with bound=2 it stays within σ(±2))
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    raw = DefaultRFDSONClassifier(calibration=None).fit(X, y)
    f = raw.decision_function(X)
    assert np.abs(f).max() > 4.0
    np.testing.assert_allclose(raw.predict_proba(X)[:, 1], 1 / (1 + np.exp(-f)), rtol=1e-12)
    capped = DefaultRFDSONClassifier(calibration=None, bound=2.0).fit(X, y).predict_proba(X)
    assert capped.max() <= 1 / (1 + np.exp(-2.0)) + 1e-12


def test_multiclass_one_vs_rest_one_sketch_per_class():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    order = np.random.default_rng(0).permutation(len(y))
    clf = RFDSONClassifier(sketch_size=3, loss="log_loss").fit(X[order], y[order])
    assert clf.coef_.shape == (3, 4) and clf._state.curvature.q_dim.shape == (3,)
    assert clf.score(X, y) > 0.8
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.decision_function(X).shape == (150, 3)
    binary = RFDSONClassifier().fit(X[:100], y[:100])
    assert binary.decision_function(X[:5]).shape == (5,)
    # squared loss on ±1 labels estimates 2 P(y = 1 | x) − 1
    proba = binary.predict_proba(X[:100])
    f = np.clip(binary.decision_function(X[:100]), -1, 1)
    np.testing.assert_allclose(proba[:, 1], (f + 1) / 2)
    assert not hasattr(RFDSONClassifier(loss="hinge").fit(X[:100], y[:100]), "predict_proba")


def _route_rtol(n_rows, est=None):
    """Relative agreement of the CSR (factored) and dense routes after ``n_rows`` rows.

    Both routes compute the same quantities in another association order, and
    the factored append takes ``ρ² = ‖b‖² − ‖c‖²`` only where it loses at most
    ``1 / FACTORED_MIN_GROWTH = 100`` ulps; a row's iterate therefore differs by
    at most ``100·eps`` relative, amplified by the solve with ``H`` (its
    condition number ``κ = (λ_max(S) + α) / α``, from ``est``'s final sketch),
    and these differences add up over the rows.
    """
    kappa = 1.0
    if est is not None and est._state.curvature.kind == "sketch":
        curvature = est._state.curvature
        for k in range(curvature.q_dim.shape[0]):
            q = int(curvature.q_dim[k])
            top = np.linalg.eigvalsh(curvature.S[k, :q, :q]).max() if q else 0.0
            kappa = max(kappa, (top + curvature.alpha[k]) / curvature.alpha[k])
    return n_rows * 100 * np.finfo(np.float64).eps * kappa


def test_csr_equals_dense_and_splits_equal_fit(binary_problem):
    X, y = binary_problem(n=200, d=10)
    X[X < 0.3] = 0.0
    dense = RFDSONClassifier(sketch_size=4).fit(X, y)
    csr = RFDSONClassifier(sketch_size=4).fit(sp.csr_matrix(X), y)
    rtol = _route_rtol(200)
    scale = np.abs(dense.coef_).max()
    np.testing.assert_allclose(csr.coef_, dense.coef_, rtol=0, atol=rtol * scale)
    streamed = RFDSONClassifier(sketch_size=4)
    for start in range(0, 200, 37):
        streamed.partial_fit(
            sp.csr_matrix(X[start : start + 37]), y[start : start + 37], classes=[0, 1]
        )
    np.testing.assert_allclose(streamed.coef_, dense.coef_, rtol=0, atol=rtol * scale)
    assert streamed.cumulative_loss_ == pytest.approx(dense.cumulative_loss_, rel=rtol)


def _sparse_stream(n, d, density, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.nnz)
    y = (X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


SPARSE_ROUTE_CASES = {
    "rfd": {},
    "fd": {"sketch": "fd"},
    "diag": {"sketch": "diag"},
    "rfd-m3": {"sketch_size": 3},
    "hinge": {"loss": "hinge"},
    "hessian": {"curvature": "hessian"},
    "forgetting": {"forgetting_factor": 0.99},
    "diag-forgetting": {"sketch": "diag", "forgetting_factor": 0.99},
    "rfd0": {"alpha0": 0.0},
    "no-intercept": {"fit_intercept": False},
    "skip-zero-rows": {"loss": "hinge", "skip_zero_rows": True},
}


@pytest.mark.parametrize("params", SPARSE_ROUTE_CASES.values(), ids=SPARSE_ROUTE_CASES.keys())
def test_sparse_route_matches_dense_route(params):
    # CSR rows take the factored sketch (Luo et al. 2016, Section 5): per row
    # the work of the non-zeros, the same iterates as the dense rows.
    n = 1500
    X, y = _sparse_stream(n, 120, 0.05)
    dense = DefaultRFDSONClassifier(**params)
    sparse = DefaultRFDSONClassifier(**params)
    for start in range(0, n, 400):  # state carried across calls (explicit between them)
        part = slice(start, start + 400)
        dense.partial_fit(X[part].toarray(), y[part], classes=[0, 1])
        sparse.partial_fit(X[part], y[part], classes=[0, 1])
    scale = np.abs(dense.coef_).max()
    rtol = _route_rtol(n, dense)
    # κ of the final sketch can understate the path's sensitivity (FD's constant α does
    # not settle on this stream, see the user guide): the dense route's own movement when
    # every input moves by 1 ulp (the largest of three such changes), times the 100 ulps a
    # factored row may lose, bounds the difference of the routes too
    sensitivity, loss_sensitivity = 0.0, 0.0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        signs = rng.choice([-1.0, 1.0], X.shape)
        nudged = X.toarray() * (1.0 + signs * np.finfo(np.float64).eps)
        moved = DefaultRFDSONClassifier(**params)
        for start in range(0, n, 400):
            part = slice(start, start + 400)
            moved.partial_fit(nudged[part], y[part], classes=[0, 1])
        sensitivity = max(sensitivity, np.abs(moved.coef_ - dense.coef_).max())
        loss_sensitivity = max(
            loss_sensitivity, abs(moved.cumulative_loss_ - dense.cumulative_loss_)
        )
    atol = max(rtol * scale, 100 * sensitivity)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=atol)
    # the prequential loss, by the same rule (its own movement under the 1-ulp changes)
    assert sparse.cumulative_loss_ == pytest.approx(
        dense.cumulative_loss_,
        rel=max(rtol, 1e-9),
        abs=100 * loss_sensitivity,
    )
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_wide_sparse_rows_run_on_their_columns(fit_intercept):
    # At d = 20000 with a few non-zeros a row, a batch touches a small share of
    # the columns: the pass runs on those (and the basis's) alone; the columns
    # outside keep their weights and zero basis entries, as on the dense route.
    n = 600
    X, y = _sparse_stream(n, 20000, 0.0005, seed=2)
    params = {"sketch_size": 5, "fit_intercept": fit_intercept}
    dense = DefaultRFDSONClassifier(**params)
    sparse = DefaultRFDSONClassifier(**params)
    for start in range(0, n, 200):
        part = slice(start, start + 200)
        dense.partial_fit(X[part].toarray(), y[part], classes=[0, 1])
        sparse.partial_fit(X[part], y[part], classes=[0, 1])
    scale = np.abs(dense.coef_).max()
    np.testing.assert_allclose(
        sparse.coef_, dense.coef_, rtol=0, atol=_route_rtol(n, dense) * scale
    )
    # the basis is stored on the columns the rows touched (and the intercept's)
    curvature = sparse._state.curvature
    touched = np.union1d(X.indices, [X.shape[1]] if fit_intercept else [])
    np.testing.assert_array_equal(curvature.columns, touched)
    # the same curvature H − αI = Qᵀ S Q (a basis row's sign is arbitrary), on probes
    probes = np.random.default_rng(0).standard_normal((curvature.n_coords, 3))

    def apply(c):
        q = int(c.q_dim[0])
        Q = c.on_every_column().Q[0, :q]
        return Q.T @ (c.S[0, :q, :q] @ (Q @ probes))

    reference = apply(dense._state.curvature)
    np.testing.assert_allclose(
        apply(curvature),
        reference,
        rtol=0,
        atol=_route_rtol(n, dense) * np.abs(reference).max(),
    )
    # a dense batch afterwards continues on every column, as the dense route
    dense.partial_fit(X[:50].toarray(), y[:50])
    sparse.partial_fit(X[:50].toarray(), y[:50])
    assert sparse._state.curvature.columns is None
    np.testing.assert_allclose(
        sparse.coef_, dense.coef_, rtol=0, atol=_route_rtol(n + 50, dense) * scale
    )


def test_sparse_route_near_the_span_falls_back_exactly():
    # Rows inside the sketch's span (ρ ≪ ‖b‖) are appended on the explicit
    # basis: a stream of few directions matches the dense route as closely.
    rng = np.random.default_rng(3)
    basis = sp.random(4, 300, density=0.05, random_state=3).toarray()
    X = sp.csr_matrix(
        rng.standard_normal((600, 4)) @ basis
        + 1e-9 * rng.standard_normal((600, 300)) * (basis.sum(axis=0) != 0)
    )
    y = (X @ rng.standard_normal(300) > 0).astype(int)
    dense = DefaultRFDSONClassifier(sketch_size=6).fit(X.toarray(), y)
    sparse = DefaultRFDSONClassifier(sketch_size=6).fit(X, y)
    scale = np.abs(dense.coef_).max()
    np.testing.assert_allclose(
        sparse.coef_, dense.coef_, rtol=0, atol=_route_rtol(600, dense) * scale
    )


def test_csr_unsorted_and_duplicate_indices_equal_canonical_csr():
    X, y = _sparse_stream(400, 80, 0.08, seed=1)
    # each entry split into two duplicates (halves), indices of every row reversed
    rows, data, indices = [], [], []
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        cols, vals = X.indices[lo:hi][::-1], X.data[lo:hi][::-1]
        indices.extend(np.repeat(cols, 2))
        data.extend(np.repeat(vals / 2, 2))
        rows.append(2 * (hi - lo))
    indptr = np.concatenate([[0], np.cumsum(rows)])
    messy = sp.csr_matrix((np.array(data), np.array(indices), indptr), shape=X.shape)
    assert not messy.has_canonical_format
    for params in ({}, {"sketch": "diag"}):
        canonical = DefaultRFDSONClassifier(**params).fit(X, y)
        odd = DefaultRFDSONClassifier(**params).fit(messy, y)
        np.testing.assert_array_equal(odd.coef_, canonical.coef_)
        dense = DefaultRFDSONClassifier(**params).fit(X.toarray(), y)
        scale = np.abs(dense.coef_).max()
        np.testing.assert_allclose(
            odd.coef_, dense.coef_, rtol=0, atol=_route_rtol(400, dense) * scale
        )


@pytest.mark.slow
@pytest.mark.parametrize("sketch_size", [10, 20])
def test_sparse_route_drift_over_a_long_stream(sketch_size):
    # The requirement for the default (RFD): within 1e-8 relative of
    # the dense route over 10^5 rows at d = 1000, 5 % non-zeros (measured: 6e-13).
    # FD (fixed alpha) and diagonal AdaGrad are not held to it: on this stream
    # their dense route moves by more than that between two CPU kernels of
    # OpenBLAS (fd 8e-11, diag 0.15 after 3·10^4 rows), and the CSR route
    # stays within that spread (fd 2.5e-11).
    n = 100_000
    X, y = _sparse_stream(n, 1000, 0.05)
    dense = DefaultRFDSONClassifier(sketch_size=sketch_size)
    sparse = DefaultRFDSONClassifier(sketch_size=sketch_size)
    for start in range(0, n, 5000):
        part = slice(start, start + 5000)
        dense.partial_fit(X[part].toarray(), y[part], classes=[0, 1])
        sparse.partial_fit(X[part], y[part], classes=[0, 1])
    drift = np.abs(sparse.coef_ - dense.coef_).max() / np.abs(dense.coef_).max()
    assert drift <= 1e-8


def test_sample_weight_scales_the_gradient(binary_problem):
    X, y = binary_problem(n=150)
    plain = RFDSONClassifier(sketch_size=4).fit(X, y)
    ones = RFDSONClassifier(sketch_size=4).fit(X, y, sample_weight=np.ones(150))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    w = np.ones(150)
    w[::3] = 0.0
    zero = RFDSONClassifier(sketch_size=4).fit(X, y, sample_weight=w)
    removed = RFDSONClassifier(sketch_size=4).fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(zero.coef_, removed.coef_)  # weight 0 = row not seen
    assert zero.n_samples_seen_ == 100 and zero.cumulative_loss_ == removed.cumulative_loss_
    doubled = RFDSONClassifier(sketch_size=4).fit(X, y, sample_weight=2 * np.ones(150))
    assert not np.allclose(doubled.coef_, plain.coef_)
    with pytest.raises(ValueError, match="Negative values"):
        RFDSONClassifier().fit(X, y, sample_weight=-np.ones(150))


def test_baselines_need_a_positive_alpha0(binary_problem):
    X, y = binary_problem(n=20)
    for sketch in ("fd", "full", "diag"):
        with pytest.raises(ValueError, match="alpha0 > 0"):
            RFDSONClassifier(sketch=sketch).fit(X, y)
    RFDSONClassifier(sketch="rfd", alpha0=0.0).fit(X, y)


def test_max_iter_shuffle_and_warm_start(binary_problem):
    X, y = binary_problem(n=120)
    one = RFDSONClassifier(sketch_size=4).fit(X, y)
    two = RFDSONClassifier(sketch_size=4, max_iter=2).fit(X, y)
    assert two.n_samples_seen_ == 240 and two.n_iter_ == 2
    warm = RFDSONClassifier(sketch_size=4, warm_start=True).fit(X, y).fit(X, y)
    np.testing.assert_array_equal(warm.coef_, two.coef_)
    a = RFDSONClassifier(max_iter=2, shuffle=True, random_state=0).fit(X, y)
    b = RFDSONClassifier(max_iter=2, shuffle=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, one.coef_)


def test_regressor_squared_and_huber(linear_problem):
    X, s = linear_problem(n=600, d=8, noise=0.0)
    y = np.clip(s / 20, -1, 1)
    for loss in ("squared_error", "huber"):
        reg = RFDSONRegressor(loss=loss, sketch_size=4).fit(X, y)
        assert reg.score(X, y) > 0.9, loss
        assert reg.coef_.shape == (8,) and isinstance(reg.intercept_, float)
    reg = RFDSONRegressor(bound=0.2).fit(X, y)
    assert np.max(np.abs(reg.predict(X))) <= 0.2
    unbounded = RFDSONRegressor(bound=None).fit(X, 3 * y)
    assert np.max(np.abs(unbounded.predict(X))) > 1.0


def test_changed_parameters_mid_stream_are_refused_without_touching_state(binary_problem):
    import pickle

    X, y = binary_problem(n=60)
    clf = RFDSONClassifier(sketch_size=4).partial_fit(X, y, classes=[0, 1])
    before = pickle.dumps(clf)
    for params in (
        {"sketch_size": 5},
        {"fit_intercept": False},
        {"sketch": "fd", "alpha0": 1.0},
        {"intercept_scaling": 2.0},
    ):
        clf.set_params(**params)
        with pytest.raises(ValueError, match="call fit"):
            clf.partial_fit(X, y)
        clf.set_params(
            sketch_size=4, fit_intercept=True, sketch="rfd", alpha0=0.0, intercept_scaling=1.0
        )
        assert pickle.dumps(clf) == before
    clf.set_params(sketch_size=5).fit(X, y)  # fit starts again


# ------------------------------------------------- curvature="auto" and alpha0_
def test_auto_curvature_is_gradient_for_classifier_and_hessian_for_regressor():
    from sklearn.datasets import load_diabetes

    from skonline.linear_model import RFDSONClassifier as Clf
    from skonline.linear_model import RFDSONRegressor as Reg

    X, y = load_iris(return_X_y=True)
    auto, grad = Clf().fit(X, y), Clf(curvature="gradient").fit(X, y)
    np.testing.assert_array_equal(auto.coef_, grad.coef_)
    Xr, yr = load_diabetes(return_X_y=True)
    auto, hess = Reg().fit(Xr, yr), Reg(curvature="hessian").fit(Xr, yr)
    np.testing.assert_array_equal(auto.coef_, hess.coef_)
    # with sketch="diag", "auto" is AdaGrad's gradient rows; "hessian" stays refused
    diag, grad = Reg(sketch="diag").fit(Xr, yr), Reg(sketch="diag", curvature="gradient")
    np.testing.assert_array_equal(diag.coef_, grad.fit(Xr, yr).coef_)
    with pytest.raises(ValueError, match="curvature='gradient'"):
        Reg(sketch="diag", curvature="hessian").fit(Xr, yr)


def test_diagonal_auto_alpha0_is_in_gradient_units():
    # AdaGrad's D = alpha0 + sqrt(Σ g²): the prior of "auto" is the root of the
    # prior rows' mean squared gradient per coordinate, not a squared gradient
    # (which made the prior hundreds of times too strong: R² 0.006 on diabetes)
    from sklearn.datasets import load_diabetes

    from skonline.linear_model import RFDSONRegressor as Reg

    X, y = load_diabetes(return_X_y=True)
    reg = Reg(sketch="diag", scale_features=False, center_target=False).fit(X, y)
    x0 = np.append(X[0], 1.0)  # intercept column
    g2 = (2.0 * y[0]) ** 2 * (x0 @ x0) / x0.size  # squared loss: l'(0; y) = -2 y
    np.testing.assert_allclose(reg.alpha0_, np.sqrt(Reg._prior_rows * g2), rtol=1e-12)
    assert Reg(sketch="diag").fit(X, y).score(X, y) > 0.4
    assert Reg(sketch="diag", alpha0=2.5).fit(X, y).alpha0_ == 2.5


@pytest.mark.parametrize("Est", ["classifier", "regressor"])
def test_auto_alpha0_counts_the_coordinates_a_row_touches(Est):
    # a prior worth one row on the coordinates it touches: columns that stay zero
    # (the unused buckets of a hashed text) do not dilute it, CSR and dense agree,
    # and rows without zeros keep the prior of every coordinate bit for bit
    import scipy.sparse as sp

    from skonline.linear_model import RFDSONClassifier, RFDSONRegressor

    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = (X[:, 0] > 0).astype(int) if Est == "classifier" else X @ rng.standard_normal(6)
    make = RFDSONClassifier if Est == "classifier" else RFDSONRegressor
    base = make().fit(X, y).alpha0_
    wide = np.hstack([X, np.zeros((40, 500))])
    assert make().fit(wide, y).alpha0_ == base
    assert make().fit(sp.csr_matrix(wide), y).alpha0_ == base
    full = rng.standard_normal((40, 6))
    est = make(scale_features=False).fit(full, y)
    kwargs = {"classes": np.array([0, 1])} if Est == "classifier" else {}
    # without scale_features the prior is the first row's
    ref = make(scale_features=False).partial_fit(full[:1], y[:1], **kwargs)
    assert est.alpha0_ == ref.alpha0_


def test_auto_alpha0_lets_wide_sparse_rows_learn():
    # hashed-text-like rows: 4 topics over a shared Zipf-like vocabulary of 3000
    # words hashed into 2^14 columns, about 30 words a row, unit norm. A prior
    # divided by every column (0.0015) let the first steps overfit (prequential
    # accuracy 0.91 on this stream); per touched coordinate it learns as alpha0=1
    import scipy.sparse as sp

    from skonline.linear_model import RFDSONClassifier

    rng = np.random.default_rng(1)
    n, vocab, d = 4000, 3000, 2**14
    base = rng.dirichlet(np.full(vocab, 0.05))
    topics = [0.6 * base + 0.4 * rng.dirichlet(np.full(vocab, 0.02)) for _ in range(4)]
    bucket = rng.integers(0, d, vocab)
    y = rng.integers(0, 4, n)
    rows = np.zeros((n, d))
    for i, label in enumerate(y):
        np.add.at(rows[i], bucket[rng.choice(vocab, max(3, rng.poisson(30)), p=topics[label])], 1.0)
    X = sp.csr_matrix(rows / np.linalg.norm(rows, axis=1, keepdims=True))
    scores = {}
    for name, est in (("auto", RFDSONClassifier()), ("one", RFDSONClassifier(alpha0=1.0))):
        hits = 0
        for i in range(0, n, 100):
            if i:
                hits += int(np.sum(est.predict(X[i : i + 100]) == y[i : i + 100]))
            est.partial_fit(X[i : i + 100], y[i : i + 100], classes=np.arange(4))
        scores[name] = hits / (n - 100)
    assert scores["auto"] >= scores["one"] - 0.01, scores
    assert scores["auto"] > 0.95, scores


@pytest.mark.parametrize("huge", [1e15, 1e100])
def test_full_guards_its_state_against_one_huge_row_as_rfd_does(huge):
    # FULL-ON kept H⁻¹ by Sherman–Morrison: one huge row left it wrong by eps·‖H⁻¹‖
    # along that row, the next step was 1e10 (MAE 0.05 -> 3e10) and from a 1e100 row
    # on every clean batch raised FloatingPointError. It now runs on the sketches'
    # factored form and singular-case rule: with d < sketch_size RFD-SON never shrinks
    # and keeps the same H, so both make the same predictions, before and after.
    rng = np.random.default_rng(0)
    d = 5
    w = rng.standard_normal(d)
    X = rng.standard_normal((10_000, d))
    y = X @ w + 0.05 * rng.standard_normal(10_000)
    batches = [rng.standard_normal((100, d)) for _ in range(20)]
    X_test = rng.standard_normal((2000, d))
    mae = {}
    for sketch in ("rfd", "full"):
        # the defaults but one learner: the claim is about H, which a mixture of two
        # learners weighs by their (rounding-level different) predictions
        reg = skonline.RFDSONRegressor(sketch=sketch, forgetting_factor=1.0).partial_fit(X, y)
        assert np.mean(np.abs(reg.predict(X_test) - X_test @ w)) < 0.05
        reg.partial_fit(np.full((1, d), huge), [0.0])
        for Xb in batches:  # every later clean batch is accepted
            reg.partial_fit(Xb, Xb @ w)
        predictions = reg.predict(X_test)
        assert np.isfinite(reg.coef_).all()
        mae[sketch] = np.mean(np.abs(predictions - X_test @ w))
    assert mae["full"] < 0.2  # usable (the targets have unit scale)
    np.testing.assert_allclose(mae["full"], mae["rfd"], rtol=1e-6)


@pytest.mark.parametrize("cls", [skonline.RFDSONClassifier, skonline.RFDSONRegressor])
def test_float32_rows_near_the_float32_maximum_are_learned(cls):
    # the defaults (scale_features) divide each feature by a power of two, so rows multiplied by
    # 2**125 (entries up to ~0.9 of float32's maximum) give the same model as the
    # rows themselves. The root-mean-square of the first rows was computed in the
    # input's float32 and overflowed: the batch was refused (FloatingPointError).
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5)).astype(np.float32)
    y = (
        (X[:, 0] > 0).astype(int)
        if cls is skonline.RFDSONClassifier
        else X[:, 0].astype(np.float64)
    )
    big = X * np.float32(2.0**125)
    assert np.abs(big).max() > 0.1 * np.finfo(np.float32).max
    small_fit, big_fit = cls().fit(X, y), cls().fit(big, y)
    assert np.array_equal(big_fit.predict(big), small_fit.predict(X))
    assert np.array_equal(big_fit.coef_ * 2.0**125, small_fit.coef_)


@pytest.mark.parametrize("loss", ["log_loss", "hinge"])
def test_csr_rows_without_entries_and_no_intercept_touch_no_column(loss):
    # no stored entry, no intercept, no basis yet: the pass has no column to run on;
    # it must learn what the dense zeros learn (the malformed-input fuzz found an
    # out-of-bounds read here in the bounds-checked build)
    X = sp.csr_matrix((6, 5))
    y = np.array([0, 1, 0, 1, 0, 1])
    sparse = DefaultRFDSONClassifier(loss=loss, fit_intercept=False).partial_fit(
        X, y, classes=[0, 1]
    )
    dense = DefaultRFDSONClassifier(loss=loss, fit_intercept=False).partial_fit(
        X.toarray(), y, classes=[0, 1]
    )
    np.testing.assert_array_equal(sparse.coef_, dense.coef_)
    assert sparse.cumulative_loss_ == dense.cumulative_loss_


def test_full_curvature_too_large_for_the_machine_raises_a_hint_and_stays_unfitted():
    """``sketch="full"`` on hashed-text widths: a clear ``MemoryError`` before any allocation."""
    X = sp.random(20, 2**20, density=1e-4, format="csr", random_state=0)
    y = np.arange(20) % 2
    est = DefaultRFDSONClassifier(sketch="full")
    with pytest.raises(MemoryError, match="sketch='rfd'"):
        est.partial_fit(X, y, classes=[0, 1])
    assert not hasattr(est, "n_features_in_")
    DefaultRFDSONClassifier(sketch="rfd").partial_fit(X, y, classes=[0, 1])  # the hint works


@pytest.mark.parametrize("cls", [skonline.RFDSONClassifier, skonline.RFDSONRegressor])
@pytest.mark.parametrize(
    "params", [{}, {"sketch": "diag", "alpha0": 1.0}, {"scale_features": False}]
)
def test_duplicate_csr_entries_are_the_matrix_they_stand_for(cls, params):
    """Each value stored as two halves: the prior, the scales and every step read the sum."""
    rng = np.random.default_rng(0)
    X = sp.random(300, 20, density=0.2, format="csr", random_state=rng) * 8.0
    y = (X @ rng.standard_normal(20) > 0).astype(int)
    halves = sp.csr_matrix(  # every entry stored twice, each holding half the value
        (
            np.repeat(X.data / 2, 2),
            np.repeat(X.indices, 2),
            np.r_[0, np.cumsum(2 * np.diff(X.indptr))],
        ),
        shape=X.shape,
    )
    assert halves.nnz == 2 * X.nnz
    np.testing.assert_array_equal(halves.toarray(), X.toarray())
    kw = {"classes": [0, 1]} if cls is skonline.RFDSONClassifier else {}
    a, b = cls(**params), cls(**params)
    for start in range(0, 300, 50):
        a.partial_fit(X[start : start + 50], y[start : start + 50], **kw)
        b.partial_fit(halves[start : start + 50], y[start : start + 50], **kw)
    assert a.alpha0_ == b.alpha0_
    assert a.cumulative_loss_ == b.cumulative_loss_
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_auto_alpha0_grows_with_the_coordinates_beyond_the_sketch():
    # rows touching c coordinates put about c - m of them outside a sketch of m directions:
    # the classifier's prior counts max(1, (c - m) / 5) rows; the same rows touching at most
    # m + 5 coordinates, the exact curvature and the regressor keep a prior of one row
    import scipy.sparse as sp

    from skonline.linear_model import RFDSONClassifier, RFDSONRegressor

    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 200))
    X[rng.random(X.shape) < 0.8] = 0.0  # about 40 non-zeros a row
    y = (X[:, 0] > 0).astype(int)
    kwargs = {"scale_features": False}
    est = RFDSONClassifier(**kwargs).partial_fit(X[:1], y[:1], classes=[0, 1])
    touched = np.count_nonzero(X[0]) + 1  # the intercept column
    growth = max(1.0, (touched - 10) / 5.0)
    assert growth > 4
    plain = type("Plain", (RFDSONClassifier,), {"_coords_per_prior_row": None})
    one_row = plain(**kwargs).partial_fit(X[:1], y[:1], classes=[0, 1]).alpha0_
    np.testing.assert_allclose(est.alpha0_, growth * one_row, rtol=1e-15)
    csr = RFDSONClassifier(**kwargs).partial_fit(sp.csr_matrix(X[:1]), y[:1], classes=[0, 1])
    assert csr.alpha0_ == est.alpha0_
    # warm-up rows (scale_features): the mean over the first ten rows, any split
    whole = RFDSONClassifier().fit(X, y)
    split = RFDSONClassifier()
    for part in np.array_split(np.arange(60), 7):
        split.partial_fit(X[part], y[part], classes=[0, 1])
    assert split.alpha0_ == whole.alpha0_
    mean_touched = np.mean(np.count_nonzero(X[:10], axis=1) + 1)
    unscaled = plain().fit(X, y).alpha0_
    np.testing.assert_allclose(whole.alpha0_, (mean_touched - 10) / 5.0 * unscaled, rtol=1e-15)
    # narrow rows, the exact curvature, the regressor: unchanged
    assert (
        RFDSONClassifier(**kwargs).fit(X[:, :12], y).alpha0_
        == plain(**kwargs).fit(X[:, :12], y).alpha0_
    )
    assert (
        RFDSONClassifier(sketch="full").fit(X, y).alpha0_ == plain(sketch="full").fit(X, y).alpha0_
    )
    assert RFDSONRegressor._coords_per_prior_row is None
