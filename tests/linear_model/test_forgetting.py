"""Forgetting (``forgetting_factor``) of the linear learners: drifting streams."""

import itertools
import pickle

import numpy as np
import pytest

import skonline
from skonline.datasets import make_drifting_stream
from skonline.linear_model import _scale_invariant_kernels as _sik
from skonline.linear_model._scale_invariant_kernels import (
    DEFLATE_CONDITION,
    DEFLATE_GROWTH,
    DEFLATE_KEEP,
    MAX_CONDITION,
    deflate,
    deflation_period,
    full_condition,
)
from skonline.linear_model._son_kernels import new_curvature, son_pass

LEARNERS = [
    lambda g: skonline.RFDSONRegressor(forgetting_factor=g),
    lambda g: skonline.RFDSONRegressor(sketch="full", forgetting_factor=g),
    lambda g: skonline.RFDSONRegressor(sketch="diag", curvature="gradient", forgetting_factor=g),
    lambda g: skonline.ScaleInvariantRegressor(forgetting_factor=g),
    lambda g: skonline.ScaleInvariantRegressor(variant="diagonal", forgetting_factor=g),
]


def _stream(n=600, task="regression", seed=0):
    X, y, _ = make_drifting_stream(n, 5, task=task, n_concepts=2, random_state=seed)
    return X, y


def _prequential_mae(model, X, y, batch=10):
    errors = []
    for i in range(0, len(y), batch):
        if i:
            errors.append(np.abs(model.predict(X[i : i + batch]) - y[i : i + batch]))
        model.partial_fit(X[i : i + batch], y[i : i + batch])
    return float(np.mean(np.concatenate(errors)))


@pytest.mark.parametrize("make", LEARNERS)
def test_forgetting_is_split_invariant(make):
    # the discount runs per row inside the pass: any split of the stream gives the same model
    X, y = _stream(300)
    one = make(0.97).partial_fit(X, y)
    rows = make(0.97)
    for i in range(len(y)):
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_array_equal(one.predict(X), rows.predict(X))
    np.testing.assert_array_equal(one.coef_, rows.coef_)


@pytest.mark.parametrize("make", LEARNERS)
def test_forgetting_one_is_the_paper_algorithm(make):
    # forgetting_factor=1.0 runs exactly the undiscounted pass (same bits)
    X, y = _stream(300)
    a = make(1.0).partial_fit(X, y)
    b = make(1.0)
    b.set_params(forgetting_factor=1)
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_son_kernel_discount_matches_the_textbook_recursion():
    # exponentially weighted recursive least squares: H_t = γ H_{t−1} + 2 x xᵀ with
    # H_0 = α₀ I (the prior is discounted too), u_t = u_{t−1} − H_t⁻¹ g_t
    rng = np.random.default_rng(0)
    n, d, gamma, alpha0 = 40, 4, 0.9, 0.5
    X = rng.standard_normal((n, d))
    T = (X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n))[:, None]
    curvature = new_curvature("full", 1, d, m=d, alpha0=alpha0)
    U, *_ = son_pass(
        np.zeros((1, d)), curvature, X, 0.0, T, np.ones(n), 0, 0.0,
        loss="squared_error", bound=None, mu=0.0, learning_rate=1.0, epsilon=1.0,
        skip_zero_rows=False, rtol=1e-12, curvature_rows="hessian", forgetting=gamma,
    )  # fmt: skip
    H = alpha0 * np.eye(d)
    u = np.zeros(d)
    for x, t in zip(X, T[:, 0], strict=True):
        g = 2.0 * (u @ x - t) * x
        H = gamma * H + 2.0 * np.outer(x, x)
        u = u - np.linalg.solve(H, g)
    # a few solves of a matrix with condition number below 1e3: agreement to 1e-10
    np.testing.assert_allclose(U[0], u, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(
    "make, gamma, ratio",
    [(LEARNERS[0], 0.98, 0.7), (LEARNERS[3], 0.995, 0.9)],
    ids=["RFDSONRegressor", "ScaleInvariantRegressor"],
)
def test_forgetting_follows_a_concept_switch(make, gamma, ratio):
    # after the switch, the learner that forgets tracks the new concept; the one that
    # does not averages the two (measured on this stream, scale-invariant learner: MAE
    # 0.43 at 0.995 against 0.51 without forgetting)
    X, y = _stream(1200)
    forget = _prequential_mae(make(gamma), X, y)
    keep = _prequential_mae(make(1.0), X, y)
    assert forget < ratio * keep


def test_forgetting_pickles_and_is_live():
    X, y = _stream(200)
    model = skonline.RFDSONRegressor(forgetting_factor=0.98).partial_fit(X[:100], y[:100])
    clone = pickle.loads(pickle.dumps(model))
    model.partial_fit(X[100:], y[100:])
    clone.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(model.predict(X), clone.predict(X))


@pytest.mark.parametrize(
    "params", [{"variant": "coordinate"}, {"variant": "diagonal", "center": True}]
)
def test_scale_invariant_forgetting_needs_algorithm_2(params):
    X, y = _stream(50)
    with pytest.raises(ValueError, match="forgetting_factor"):
        skonline.ScaleInvariantRegressor(forgetting_factor=0.9, **params).fit(X, y)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_diagonal_discount_is_lazy_and_matches_the_eager_transcription(layout):
    """The diagonal learner's arrays hold the statistics over a running discount; the
    eager transcription discounts every coordinate before each row (s², h, Γ ← γ·) and
    runs the undiscounted pass on the row. γ = 0.9 takes the discount into the arrays
    every 350 rows: 1000 rows cross it twice."""
    import copy

    import scipy.sparse as sp

    from skonline.linear_model._scale_invariant_kernels import (
        coordinate_readout,
        diagonal_pass,
        init_state,
    )

    rng = np.random.default_rng(0)
    n, d, gamma = 1000, 6, 0.9
    X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-3, 3, d)
    X[rng.random((n, d)) < 0.3] = 0.0
    score = (X / np.abs(X).max(axis=0)) @ rng.standard_normal(d)
    T = np.where(score + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)[:, None]
    kw = {"potential_width": 1.5, "loss": "log_loss", "epsilon": 0.0}
    Xin = sp.csr_matrix(X) if layout == "csr" else X
    lazy, p_lazy = diagonal_pass(
        init_state("diagonal", d, 1), Xin, T, np.ones(n), forgetting=gamma, **kw
    )
    assert 0.9**350 < lazy.discount < 1.0  # taken in twice, 300 rows ago
    eager, p_eager = init_state("diagonal", d, 1), []
    for t in range(n):
        discounted = copy.copy(eager)
        discounted.s2, discounted.H = eager.s2 * gamma, eager.H * gamma
        discounted.gamma = eager.gamma * gamma
        eager, p = diagonal_pass(discounted, X[t : t + 1], T[t : t + 1], np.ones(1), **kw)
        p_eager.append(p[0, 0])
    # each statistic differs by a few roundings a row; the discount fades the old ones
    # (a sum of eps/(1 - γ)), and the predictions carry them through exp(E), |E| < 1
    tol = 64 * np.finfo(float).eps / (1 - gamma)
    np.testing.assert_allclose(p_lazy[:, 0], p_eager, rtol=tol, atol=tol * np.abs(p_eager).max())
    coef_lazy, b_lazy = coordinate_readout(lazy, potential_width=1.5)
    coef_eager, b_eager = coordinate_readout(eager, potential_width=1.5)
    np.testing.assert_allclose(coef_lazy, coef_eager, rtol=tol)
    np.testing.assert_allclose(b_lazy, b_eager, rtol=tol)


def test_switching_a_lazily_discounted_learner_to_one_takes_the_discount_in():
    """After rows at γ < 1 the arrays hold the statistics over the discount; a pass at
    γ = 1 takes it into the arrays first (else new rows would weigh ``discount`` each)."""
    import copy

    rng = np.random.default_rng(0)
    X = rng.standard_normal((2200, 5)) * 10.0 ** rng.uniform(-2, 2, 5)
    w = rng.standard_normal(5)
    y = np.concatenate([X[:200] @ w, X[200:] @ -w])
    switched = skonline.ScaleInvariantRegressor(variant="diagonal", forgetting_factor=0.9)
    switched.partial_fit(X[:200], y[:200])
    assert switched._state.discount < 1e-9
    folded = copy.deepcopy(switched)
    state = folded._state
    state.s2, state.H, state.gamma = (a * state.discount for a in (state.s2, state.H, state.gamma))
    state.discount = 1.0
    for est in (switched, folded):
        est.set_params(forgetting_factor=1.0).partial_fit(X[200:], y[200:])
    assert switched._state.discount == 1.0
    np.testing.assert_array_equal(switched.coef_, folded.coef_)
    # it learned the new concept (a learner whose new rows weighed 1e-9 did not: R² < 0)
    assert switched.score(X[1200:], y[1200:]) > 0.9


def _silent_feature_stream(task, n, silent=(50, None), seed=0):
    """Four features; the last is 0 on the rows ``silent[0]:silent[1]``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    X[silent[0] : silent[1], 3] = 0.0
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.standard_normal(n)
    if task == "regression":
        return X, y, skonline.ScaleInvariantRegressor, {}
    return X, (y > 0).astype(int), skonline.ScaleInvariantClassifier, {"classes": [0, 1]}


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_discounted_algorithm_2_takes_every_batch_after_a_feature_falls_silent(task):
    """A feature silent after row 50: its direction decays in the discounted factor (until
    the condition number passed MAX_CONDITION, about 2600 rows at 0.98 and 11000 at 0.995,
    every batch was refused). The periodic deflation forgets the decayed direction instead:
    the discounted learner alone and the mixture take every batch and keep learning."""
    n = 3000 if task == "regression" else 12000
    X, y, Est, kw = _silent_feature_stream(task, n)
    for forgetting in (Est._auto_forgetting, "auto"):
        est = Est(forgetting_factor=forgetting)
        for i in range(0, n, 100):
            est.partial_fit(X[i : i + 100], y[i : i + 100], **kw)
        assert est.n_samples_seen_ == n
        assert est.score(X[-1000:], y[-1000:]) > 0.9
        learner = est._state if forgetting != "auto" else est._state.drift
        # the silent direction is gone from the discounted factor: one rank less
        assert learner.rank == 4
        assert full_condition(learner) < MAX_CONDITION / DEFLATE_GROWTH
        if forgetting == "auto":
            assert est._state.rank == 5  # the paper's learner keeps every direction


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_deflation_is_split_invariant(task):
    # the checks fall on rows counted from the stream's start, whatever the calls
    X, y, Est, kw = _silent_feature_stream(task, 2500, silent=(100, 2000))
    one = Est(forgetting_factor=0.98).partial_fit(X, y, **kw)
    parts = Est(forgetting_factor=0.98)
    cuts = np.r_[0, np.sort(np.random.default_rng(1).choice(np.arange(1, 2500), 40, False)), 2500]
    for a, b in itertools.pairwise(cuts):
        parts.partial_fit(X[a:b], y[a:b], **kw)
    assert one._state.rank == parts._state.rank
    for name in ("R", "Z", "gamma", "xy", "u"):
        a, b = getattr(one._state, name), getattr(parts._state, name)
        if a is None:
            assert b is None
        else:
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(one.coef_, parts.coef_)


def test_a_forgotten_feature_is_learned_again_when_it_returns():
    X, y, Est, _ = _silent_feature_stream("regression", 6000, silent=(200, 3000))
    est = Est(forgetting_factor=0.98)
    ranks = []
    for i in range(0, 6000, 100):
        est.partial_fit(X[i : i + 100], y[i : i + 100])
        ranks.append(est._state.rank)
    assert min(ranks) == 4 and ranks[-1] == 5  # dropped while silent, back after
    np.testing.assert_allclose(est.coef_, [1.0, -2.0, 0.5, 3.0], atol=0.05)


def test_deflate_keeps_the_kept_directions_and_the_learner_sums(monkeypatch):
    X, y, Est, _ = _silent_feature_stream("regression", 3000, silent=(100, None))
    est = Est(forgetting_factor=0.98, readout="least_squares")
    # the state the pass would deflate: its own checks off while the silent direction decays
    monkeypatch.setattr(_sik, "DEFLATE_CONDITION", np.inf)
    for i in range(0, 3000, 100):
        est.partial_fit(X[i : i + 100], y[i : i + 100])
        if full_condition(est._state) > DEFLATE_CONDITION:
            break
    state = est._state
    assert full_condition(state) > DEFLATE_CONDITION
    before = _copy_full(state)
    assert deflate(state)
    piv = np.flatnonzero(np.diag(before.R) != 0.0)
    _, sigma, Vt = np.linalg.svd(before.R[piv], full_matrices=False)
    keep = sigma >= DEFLATE_KEEP * sigma[0]
    assert 0 < keep.sum() < keep.size and state.rank == keep.sum()
    V = Vt[keep]
    S_kept = V.T @ (sigma[keep, None] ** 2 * V)
    d = state.R.shape[0]
    eps = np.finfo(np.float64).eps
    scale = sigma[0] ** 2
    # the rebuilt factor: S without the forgotten directions, in echelon form
    np.testing.assert_allclose(state.R.T @ state.R, S_kept, rtol=0, atol=10 * d * eps * scale)
    for j in range(d):
        row = state.R[j]
        assert np.all(row[:j] == 0.0)
        assert (row[j] != 0.0) == np.any(row != 0.0)
    # the sums: h and xy projected on the kept directions (h = Rᵀz, xy = Rᵀu)
    project = V.T @ V
    h_before = before.Z @ before.R
    np.testing.assert_allclose(
        state.Z @ state.R, h_before @ project, rtol=0, atol=1e3 * d * eps * np.abs(h_before).max()
    )
    np.testing.assert_allclose(
        state.xy, project @ before.xy, rtol=0, atol=1e3 * d * eps * np.abs(before.xy).max()
    )
    np.testing.assert_allclose(
        state.R.T @ state.u, state.xy, rtol=0, atol=1e3 * d * eps * np.abs(before.xy).max()
    )
    np.testing.assert_array_equal(state.gamma, before.gamma)  # Γ is the learner's, unchanged


def test_deflation_period():
    assert deflation_period(1.0) == 0
    for gamma in (0.5, 0.9, 0.98, 0.999):
        period = deflation_period(gamma)
        # over one period a silent direction loses at most DEFLATE_GROWTH against the others
        assert gamma ** (period / 2) >= 1 / DEFLATE_GROWTH > gamma ** ((period + 1) / 2)
    assert deflation_period(1e-6) == 1


def _copy_full(state):
    from skonline.base import copy_arrays

    return copy_arrays(state, ())


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_auto_restarts_a_discounted_learner_whose_pass_fails(task, monkeypatch):
    """The safety net under the deflation: with the checks off, the discounted learner alone
    refuses batches once the silent direction has decayed; the mixture restarts it as a copy
    of the paper's learner instead, so no batch is refused."""
    monkeypatch.setattr(_sik, "DEFLATE_CONDITION", np.inf)
    n = 3000 if task == "regression" else 12000
    X, y, Est, kw = _silent_feature_stream(task, n)
    alone = Est(forgetting_factor=Est._auto_forgetting)
    refused = 0
    for i in range(0, n, 100):
        try:
            alone.partial_fit(X[i : i + 100], y[i : i + 100], **kw)
        except FloatingPointError:
            refused += 1
    assert refused > 0  # the failure the mixture must absorb
    auto = Est(forgetting_factor="auto")
    for i in range(0, n, 100):
        auto.partial_fit(X[i : i + 100], y[i : i + 100], **kw)
    assert auto.n_samples_seen_ == n and auto._state.drift is not None
    assert auto._state.drift.rank == 5  # restarted from the paper's learner: nothing deflated
    assert auto.score(X[-1000:], y[-1000:]) > 0.9


@pytest.mark.parametrize(
    "case", ["no intercept", "zero in the first row", "three classes", "float32", "one-hot"]
)
def test_deflation_of_a_coordinate_whose_internal_value_is_zero(case):
    """A silent coordinate whose internal value is exactly 0 (no intercept, or 0 in the first
    row, the origin of the internal coordinates) leaves a rounding-sized column in the kept
    directions: it must not become a pivot of the rebuilt factor (found by review: a pivot
    of 1e-19 and every later batch refused)."""
    rng = np.random.default_rng(0)
    n = 4000
    X = rng.standard_normal((n, 4))
    if case == "one-hot":  # a category that stops appearing; the first row is another one
        X[:, 3] = (rng.random(n) < 0.3).astype(float)
        X[0, 3] = 0.0
    X[150:, 3] = 0.0
    if case != "no intercept":
        X[0, 3] = 0.0
    y = X @ np.array([1.0, -2.0, 0.5, 3.0])
    kw = {"fit_intercept": case != "no intercept"}
    if case == "float32":
        X = X.astype(np.float32)
    if case == "three classes":
        est, fit = skonline.ScaleInvariantClassifier(forgetting_factor=0.98), {"classes": [0, 1, 2]}
        y = np.digitize(y, [-1.0, 1.0])
    else:
        est, fit = skonline.ScaleInvariantRegressor(forgetting_factor=0.98, **kw), {}
    ranks = []
    for i in range(0, n, 100):
        est.partial_fit(X[i : i + 100], y[i : i + 100], **fit)  # none refused
        ranks.append(est._state.rank)
        assert full_condition(est._state) < MAX_CONDITION / DEFLATE_GROWTH
    assert min(ranks) == max(ranks) - 1  # the silent direction left the factor


def test_nearly_collinear_features_are_not_deflated(monkeypatch):
    """Data whose own condition number stays below DEFLATE_CONDITION: a weak but live
    direction (x2 = x1 + 1e-9 noise, the target along x2 − x1) keeps its place, so the
    model is the one without any deflation check, bit for bit."""
    rng = np.random.default_rng(0)
    x1 = rng.standard_normal(3000)
    X = np.c_[x1, x1 + 1e-9 * rng.standard_normal(3000), rng.standard_normal(3000)]
    y = (
        X @ np.array([1.0, 1.0, -1.0])
        + 1e3 * (X[:, 1] - X[:, 0])
        + 0.01 * rng.standard_normal(3000)
    )
    models = []
    for condition in (DEFLATE_CONDITION, np.inf):
        monkeypatch.setattr(_sik, "DEFLATE_CONDITION", condition)
        model = skonline.ScaleInvariantRegressor(forgetting_factor=0.98)
        for i in range(0, 3000, 100):
            model.partial_fit(X[i : i + 100], y[i : i + 100])
        models.append(model)
    checked, unchecked = models
    np.testing.assert_array_equal(checked._state.R, unchecked._state.R)
    np.testing.assert_array_equal(checked.coef_, unchecked.coef_)


def test_deflation_beside_nearly_collinear_live_features():
    """A feature falls silent beside two nearly collinear live ones (x1 = x0 + 2e-10 noise,
    the target along their difference): the rebuilt factor's pivots are measured at the
    fraction the deflation keeps, so the weak live direction does not make a pivot that
    leaves the triangle past DEFLATE_CONDITION (found by review: the deflation was refused
    at every check and every batch after row 2700 refused)."""
    rng = np.random.default_rng(0)
    n = 8000
    X = rng.standard_normal((n, 4))
    X[:, 1] = X[:, 0] + 10**-9.65 * rng.standard_normal(n)
    X[150:, 3] = 0.0
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 1e3 * (X[:, 1] - X[:, 0])
    y += 0.01 * rng.standard_normal(n)
    est = skonline.ScaleInvariantRegressor(forgetting_factor=0.98)
    for i in range(0, n, 100):
        est.partial_fit(X[i : i + 100], y[i : i + 100])  # none refused
    assert full_condition(est._state) < MAX_CONDITION / DEFLATE_GROWTH
    assert est.score(X[-1000:], y[-1000:]) > 0.99
