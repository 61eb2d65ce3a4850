"""OnlineVarianceMinimizer (Yuan & Lamperski Alg. 5-6): equivalences and Theorems 4-6."""

import pickle

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from skonline.decomposition import OnlineVarianceMinimizer, _variance_minimizer
from skonline.decomposition._variance_minimizer_kernels import theory_variance_parameters


def regime_stream(seed, n=10, seg=100, n_seg=3):
    """Rows whose minimum-variance direction switches between random directions."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(n_seg):
        Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        scales = np.r_[np.full(n - 1, 0.4), 0.02]
        X = rng.standard_normal((seg, n)) * scales @ Q.T
        norms = np.linalg.norm(X, axis=1)
        parts.append(X / np.maximum(norms, 1.0)[:, None])
    return np.vstack(parts)


def interval_min_eigs(X, grid):
    n = X.shape[1]
    prefix = np.zeros((X.shape[0] + 1, n, n))
    np.cumsum(np.einsum("ti,tj->tij", X, X), axis=0, out=prefix[1:])
    return {
        (r, s): np.linalg.eigvalsh(prefix[s + 1] - prefix[r])[0]
        for r in grid
        for s in grid
        if s >= r
    }


def simplex_qp_lower_bound(S):
    """A certified lower bound on min_{u in simplex} uᵀSu (SLSQP + Frank-Wolfe gap)."""
    n = S.shape[0]
    res = minimize(
        lambda u: u @ S @ u,
        np.full(n, 1 / n),
        jac=lambda u: 2 * S @ u,
        method="SLSQP",
        bounds=[(0, 1)] * n,
        constraints=[{"type": "eq", "fun": lambda u: u.sum() - 1}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    u = np.clip(res.x, 0, None)
    u /= u.sum()
    grad = 2 * S @ u
    gap = grad @ u - grad.min()  # f(u) - f* <= gap by convexity
    return u @ S @ u - gap, gap


# --------------------------------------------------------------- equivalences
@pytest.mark.parametrize("domain", ["sphere", "simplex"])
def test_rows_equal_rank_one_covariances(domain):
    X = regime_stream(0, n=6, seg=30)
    kw = dict(domain=domain, learning_rate=0.8, fixed_share=1e-3, keep_history=True)
    a = OnlineVarianceMinimizer(**kw).fit(X)
    b = OnlineVarianceMinimizer(**kw).partial_fit_covariances(np.einsum("ti,tj->tij", X, X))
    np.testing.assert_allclose(a.loss_history_, b.loss_history_, rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-10)
    assert a.n_samples_seen_ == b.n_samples_seen_ == 90


def test_simplex_step_is_eq31():
    rng = np.random.default_rng(1)
    n = 5
    A = rng.standard_normal((n, n)) / 3
    C = A @ A.T
    est = OnlineVarianceMinimizer(domain="simplex", learning_rate=0.6, fixed_share=0.01)
    est.partial_fit_covariances(C)
    y = np.full(n, 1 / n)
    v = y * np.exp(-0.6 * C @ y)
    v /= v.sum()
    np.testing.assert_allclose(est.weights_, 0.01 / n + 0.99 * v, rtol=1e-13)
    assert est.cumulative_loss_ == pytest.approx(y @ C @ y, rel=1e-14)


def test_sphere_step_is_eq24():
    from scipy.linalg import expm

    rng = np.random.default_rng(2)
    n = 4
    A = rng.standard_normal((n, n)) / 3
    C = A @ A.T
    est = OnlineVarianceMinimizer(learning_rate=0.9, fixed_share=0.05, eigenvalue_floor=0)
    est.partial_fit_covariances(C)
    V = expm(np.log(1 / n) * np.eye(n) - 0.9 * C)
    V /= np.trace(V)
    Y = 0.05 / n * np.eye(n) + 0.95 * V
    U, w = est.density_eigenvectors_, est.density_eigenvalues_
    np.testing.assert_allclose((U * w) @ U.T, Y, atol=1e-13)
    assert est.cumulative_loss_ == pytest.approx(np.trace(C) / n, rel=1e-14)


def test_sphere_finds_the_minimum_variance_direction():
    X = regime_stream(3, n=8, seg=300, n_seg=1)
    est = OnlineVarianceMinimizer(horizon=300).fit(X)
    _w, V = np.linalg.eigh(X.T @ X)
    assert abs(est.direction_ @ V[:, 0]) > 0.99
    assert est.transform(X).shape == (300, 1)
    assert est.score(X) == pytest.approx(-np.mean((X @ est.direction_) ** 2))
    y = est.sample_direction(0)
    assert abs(np.linalg.norm(y) - 1) < 1e-12


def test_doubling_trick_retunes_at_powers_of_two():
    X = regime_stream(4, n=5, seg=20, n_seg=1)
    est = OnlineVarianceMinimizer()
    seen = []
    for x in X:
        est.partial_fit(x[None])
        seen.append(est.learning_rate_)
    for t in (1, 2, 4, 8, 16):
        eta, _ = theory_variance_parameters("sphere", 5, t)
        assert seen[t - 1] == pytest.approx(eta)
    assert seen[3] == seen[6] and seen[6] != seen[7]  # rows 4..7 share an epoch
    fixed = OnlineVarianceMinimizer(horizon=20).fit(X)
    assert fixed.learning_rate_ == pytest.approx(theory_variance_parameters("sphere", 5, 20)[0])


def test_covariance_validation_keeps_state():
    X = regime_stream(5, n=4, seg=10, n_seg=1)
    est = OnlineVarianceMinimizer().fit(X)
    before = pickle.dumps(est)
    bad = [
        np.ones((3, 3)),
        np.array([[1.0, 0.5, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),
        -np.eye(4),
        np.full((4, 4), np.nan),
        np.zeros((0, 4, 4)),
        np.eye(4) * (0.5 + 0.1j),
        np.eye(4) * 1e300,
    ]
    for C in bad:
        with pytest.raises(ValueError):
            est.partial_fit_covariances(C)
        assert pickle.dumps(est) == before


def test_covariances_follow_the_state_contract(monkeypatch):
    """partial_fit_covariances: frozen parameters, one transaction, unfitted stays unfitted."""
    X = regime_stream(11, n=4, seg=10, n_seg=1)
    C = np.einsum("ti,tj->tij", X, X)
    real_pass = _variance_minimizer.variance_pass

    def failing_pass(*args, **kwargs):
        real_pass(*args, **kwargs)
        raise FloatingPointError("simulated failure at the end of the pass")

    est = OnlineVarianceMinimizer()
    with monkeypatch.context() as m:
        m.setattr(_variance_minimizer, "variance_pass", failing_pass)
        with pytest.raises(FloatingPointError, match="simulated"):
            est.partial_fit_covariances(C)
    assert not hasattr(est, "n_features_in_")
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    est.partial_fit_covariances(C[:5])
    before, state = pickle.dumps(est), est._state
    with monkeypatch.context() as m:
        m.setattr(_variance_minimizer, "variance_pass", failing_pass)
        with pytest.raises(FloatingPointError, match="simulated"):
            est.partial_fit_covariances(C[5:])
    assert pickle.dumps(est) == before
    for param, value in (("domain", "simplex"), ("keep_history", True)):
        est.set_params(**{param: value})
        with pytest.raises(ValueError, match=param):
            est.partial_fit_covariances(C[5:])
        est.set_params(**{param: OnlineVarianceMinimizer().get_params()[param]})
        assert pickle.dumps(est) == before
    snapshot = pickle.dumps(state)
    est.partial_fit_covariances(C[5:])
    assert est.n_samples_seen_ == 10
    assert est._state is not state and pickle.dumps(state) == snapshot  # a pure pass


# --------------------------------------------------------------------- bounds
def test_theorem5_explicit_bound_on_every_interval():
    X = regime_stream(6)
    n, T = 10, 300
    est = OnlineVarianceMinimizer(horizon=T, eigenvalue_floor=0, keep_history=True).fit(X)
    ell = np.log(n * (1 + T))
    eta, alpha = est.learning_rate_, est.fixed_share_
    assert eta == pytest.approx(np.sqrt(ell / T)) and alpha == pytest.approx(1 / (T + 1))
    A = np.r_[0.0, np.cumsum(est.loss_history_)]
    grid = [*range(0, T, 5), T - 1]
    B = interval_min_eigs(X, grid)
    regret = max(A[s + 1] - A[r] - B[r, s] for (r, s) in B)
    bound = (np.log(n / alpha) + T * np.log(1 / (1 - alpha))) / eta + eta * T / 2
    assert bound <= 1.5 * np.sqrt(T * ell) + np.sqrt(T / ell)
    assert 0 < regret <= bound


def test_theorem4_bound_with_loss_bound():
    X = regime_stream(7)
    n, T = 10, 300
    L = np.linalg.eigvalsh(X.T @ X)[0]
    est = OnlineVarianceMinimizer(
        horizon=T, loss_bound=L, eigenvalue_floor=0, keep_history=True
    ).fit(X)
    D = np.log(n * (1 + T)) + 1
    assert est.learning_rate_ == pytest.approx(np.log1p(np.sqrt(2 * D / L)))
    A = np.r_[0.0, np.cumsum(est.loss_history_)]
    B = interval_min_eigs(X, [*range(0, T, 10), T - 1])
    regret = max(A[s + 1] - A[r] - B[r, s] for (r, s) in B)
    assert regret <= np.sqrt(2 * L * D) + D


def test_theorem6_simplex_corrected_bound():
    rng = np.random.default_rng(8)
    n, T = 10, 300
    # returns-like rows: three regimes with different low-risk assets
    X = np.vstack(
        [rng.standard_normal((100, n)) * np.where(np.arange(n) == j, 0.05, 0.3) for j in (0, 4, 7)]
    )
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    est = OnlineVarianceMinimizer(domain="simplex", horizon=T, keep_history=True).fit(X)
    E = np.log((1 + T) * n) + 1
    L = T  # the default loss bound
    c = np.sqrt(2 * np.log((1 + T) * n) + 2) / np.sqrt(L)
    assert est.learning_rate_ == pytest.approx(c / (1 + c))
    A = np.r_[0.0, np.cumsum(est.loss_history_)]
    worst = 0.0
    for r, s in [(0, 299), (0, 99), (100, 199), (200, 299), (50, 149), (150, 299)]:
        S = X[r : s + 1].T @ X[r : s + 1]
        lower, gap = simplex_qp_lower_bound(S)
        assert gap < 1e-6
        worst = max(worst, A[s + 1] - A[r] - lower)
    assert worst <= 2 * np.sqrt(2 * L * E) + 2 * E
    # the weights moved to the last regime's low-risk asset
    assert np.argmax(est.weights_) == 7


def test_sphere_weights_stay_floored_by_the_fixed_share():
    X = regime_stream(9, n=6, seg=50)
    est = OnlineVarianceMinimizer(learning_rate=5.0, fixed_share=1e-3, eigenvalue_floor=0).fit(
        X * 3
    )
    assert est.weights_.min() >= 1e-3 / 6 * (1 - 1e-12)
    assert abs(np.exp(logsumexp(np.log(est.weights_))) - 1) < 1e-12


def test_rates_set_mid_stream_take_effect():
    X = regime_stream(10, n=5, seg=20, n_seg=2)
    est = OnlineVarianceMinimizer(learning_rate=0.5, fixed_share=0.01, horizon=40).fit(X[:20])
    est.set_params(learning_rate=0.9, fixed_share=0.2).partial_fit(X[20:])
    assert (est.learning_rate_, est.fixed_share_) == (0.9, 0.2)
    auto = OnlineVarianceMinimizer(horizon=40).fit(X[:20])
    auto.set_params(horizon=10).partial_fit(X[20:])  # "auto" follows the current settings
    assert auto.learning_rate_ == pytest.approx(theory_variance_parameters("sphere", 5, 10)[0])


def test_row_norm_options():
    X = np.array([[2.0, 0, 0], [0, 0.5, 0]])
    with pytest.raises(ValueError, match="norm"):
        OnlineVarianceMinimizer(row_norm="error").fit(X)
    clip = OnlineVarianceMinimizer(row_norm="clip", keep_history=True).fit(X)
    none = OnlineVarianceMinimizer(row_norm="none", keep_history=True).fit(X)
    assert clip.loss_history_[0] == pytest.approx(1 / 3)
    assert none.loss_history_[0] == pytest.approx(4 / 3)


@pytest.mark.parametrize("domain", ["sphere", "simplex"])
def test_inverse_transform_maps_back_to_the_line_of_the_direction(domain):
    X = np.abs(regime_stream(4)) if domain == "simplex" else regime_stream(4)
    est = OnlineVarianceMinimizer(domain=domain, horizon=len(X)).fit(X)
    y = est.direction_
    Z = est.transform(X[:6])
    back = est.inverse_transform(Z)
    assert back.shape == (6, X.shape[1])
    np.testing.assert_allclose(est.transform(back), Z, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(back, np.outer(Z[:, 0], y) / (y @ y), rtol=1e-12)
    if domain == "sphere":  # the orthogonal projection onto the direction
        np.testing.assert_allclose(back, np.outer(X[:6] @ y, y), rtol=1e-10, atol=1e-15)
    with pytest.raises(ValueError, match="expects 1"):
        est.inverse_transform(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        OnlineVarianceMinimizer(domain=domain).inverse_transform(Z)
