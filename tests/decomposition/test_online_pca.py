"""AdaptiveOnlinePCA and RandomizedOnlinePCA: invariants, equivalences and the bounds."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

from skonline.datasets import make_switching_subspaces
from skonline.decomposition import (
    AdaptiveOnlinePCA,
    AdaptiveSubsetHedge,
    OnlineVarianceMinimizer,
    RandomizedOnlinePCA,
)
from skonline.decomposition._online_pca_kernels import theory_static_learning_rate

from ._capping_reference import cap


# ------------------------------------------------------------------ streams
def switching_stream(seed, n=20, k=2, seg=200, n_seg=3):
    """Yuan & Lamperski §6.1: rank-k Gaussians on random subspaces, rows clipped to norm 1."""
    X, _, _ = make_switching_subspaces(n_seg, seg, n, k, random_state=seed)
    return X


def ball_stream(seed, n=8, T=300, radius=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((T, n)) * np.linspace(1.0, 0.1, n)
    norms = np.linalg.norm(X, axis=1)
    return X / np.maximum(norms, 1.0)[:, None] * radius


def best_losses(X, d):
    """Loss of the best rank-k subspace on every prefix: sum of the d smallest eigenvalues."""
    S = np.zeros((X.shape[1], X.shape[1]))
    out = []
    for x in X:
        S += np.outer(x, x)
        out.append(np.linalg.eigvalsh(S)[:d].sum())
    return np.array(out)


def interval_comparators(X, d, grid):
    """B_{r:s} (the best subspace's loss on [r, s]) for r, s on a grid (0-based, inclusive)."""
    n = X.shape[1]
    prefix = np.zeros((X.shape[0] + 1, n, n))
    np.cumsum(np.einsum("ti,tj->tij", X, X), axis=0, out=prefix[1:])
    out = {}
    for r in grid:
        for s in grid:
            if s >= r:
                out[r, s] = np.linalg.eigvalsh(prefix[s + 1] - prefix[r])[:d].sum()
    return out


# --------------------------------------------------------------- invariants
ESTIMATORS = [
    AdaptiveOnlinePCA(
        n_components=2, fixed_share=1e-3, center=False, row_norm="none", learning_rate=1.0
    ),
    AdaptiveOnlinePCA(
        n_components=2,
        fixed_share=0.0,
        eigenvalue_floor=0.0,
        center=False,
        row_norm="none",
        learning_rate=1.0,
    ),
    RandomizedOnlinePCA(n_components=2, center=False, row_norm="none"),
    RandomizedOnlinePCA(n_components=3, update="cumulative", center=False, row_norm="none"),
    RandomizedOnlinePCA(
        n_components=2, update="cumulative", center=True, mean_prior=2.0, row_norm="none"
    ),
    RandomizedOnlinePCA(
        n_components=2, mixing="uniform", mixing_rate=0.01, center=False, row_norm="none"
    ),
    RandomizedOnlinePCA(
        n_components=2, mixing="past", mixing_rate=0.01, center=False, row_norm="none"
    ),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_per_step_invariants(est):
    X = switching_stream(0, n=10, seg=40)
    n, k = 10, est.n_components
    est = pickle.loads(pickle.dumps(est))
    for x in X:
        est.partial_fit(x[None])
        w = est.density_eigenvalues_
        assert np.all(w > 0) and np.all(np.diff(w) >= 0)
        assert abs(w.sum() - 1) < 1e-12
        assert w.max() <= (1 + 1e-12) / (n - k)
        U = est.density_eigenvectors_
        assert np.max(np.abs(U.T @ U - np.eye(n))) < 1e-10
        if isinstance(est, AdaptiveOnlinePCA) and est.fixed_share_ > 0:
            assert w.min() >= est.fixed_share_ / n * (1 - 1e-12)
    C = est.components_
    np.testing.assert_allclose(C @ C.T, np.eye(k), atol=1e-12)
    assert np.all(C[np.arange(k), np.argmax(np.abs(C), axis=1)] > 0)  # sign-fixed


def test_first_and_second_trial_closed_form():
    n, k, eta = 7, 2, 0.9
    rng = np.random.default_rng(0)
    x1 = rng.standard_normal(n)
    x1 /= np.linalg.norm(x1)
    x2 = rng.standard_normal(n) / 3
    est = RandomizedOnlinePCA(
        n_components=k, learning_rate=eta, keep_history=True, center=False, row_norm="none"
    )
    est.fit(np.vstack([x1, x2]))
    e = np.exp(-eta)
    u2 = (x1 @ x2) ** 2
    expected = [(n - k) / n, (n - k) * (e * u2 + x2 @ x2 - u2) / (e + n - 1)]
    np.testing.assert_allclose(est.loss_history_, expected, rtol=1e-13)


def test_adaptive_alpha0_equals_static_exactly():
    X = switching_stream(1, seg=100)
    kw = dict(n_components=2, learning_rate=1.0, keep_history=True)
    for floor in (0.0, 1e-16, 1e-10 / 18):
        a = AdaptiveOnlinePCA(
            fixed_share=0.0, eigenvalue_floor=floor, **kw, center=False, row_norm="none"
        ).fit(X)
        r = RandomizedOnlinePCA(eigenvalue_floor=floor, **kw, center=False, row_norm="none").fit(X)
        assert np.array_equal(a.loss_history_, r.loss_history_)
        assert a.cumulative_loss_ == r.cumulative_loss_


def test_adaptive_differs_from_wk_uniform_mixing():
    """Same alpha, different order (before vs after capping): different learners."""
    X = switching_stream(2, seg=60)
    a = AdaptiveOnlinePCA(
        n_components=2, fixed_share=0.05, center=False, row_norm="none", learning_rate=1.0
    ).fit(X)
    r = RandomizedOnlinePCA(
        n_components=2, mixing="uniform", mixing_rate=0.05, center=False, row_norm="none"
    ).fit(X)
    assert abs(a.cumulative_loss_ - r.cumulative_loss_) > 1e-6


def test_diagonal_losses_match_subset_hedge():
    """Rows on the coordinate axes: Alg. 4 is Alg. 1 with l = x² (in the eigenbasis)."""
    rng = np.random.default_rng(3)
    n, k, T = 8, 3, 200
    X = np.zeros((T, n))
    X[np.arange(T), rng.integers(0, n, T)] = rng.uniform(0.2, 1.0, T)
    for alpha in (0.0, 1e-3):
        pca = AdaptiveOnlinePCA(
            n_components=k,
            fixed_share=alpha,
            eigenvalue_floor=0.0,
            keep_history=True,
            center=False,
            row_norm="none",
            learning_rate=1.0,
        ).fit(X)
        hedge = AdaptiveSubsetHedge(n_kept=k, fixed_share=alpha, keep_history=True).fit(X**2)
        np.testing.assert_allclose(pca.loss_history_, hedge.loss_history_, rtol=1e-11)
        np.testing.assert_allclose(
            pca.density_eigenvalues_, np.sort(hedge.weights_), rtol=1e-10, atol=1e-300
        )
        W = pca.density_matrix_
        np.testing.assert_allclose(np.diag(W), hedge.weights_, rtol=1e-9, atol=1e-15)


def test_k_equals_n_minus_1_is_the_variance_minimizer():
    X = ball_stream(4, n=6, T=150)
    pca = AdaptiveOnlinePCA(
        n_components=5,
        learning_rate=0.7,
        fixed_share=1e-3,
        keep_history=True,
        center=False,
        row_norm="none",
    )
    ovm = OnlineVarianceMinimizer(learning_rate=0.7, fixed_share=1e-3, keep_history=True)
    pca.fit(X)
    ovm.fit(X)
    np.testing.assert_allclose(pca.loss_history_, ovm.loss_history_, rtol=1e-12)
    np.testing.assert_allclose(pca.density_eigenvalues_, ovm.density_eigenvalues_, rtol=1e-10)


@pytest.mark.parametrize(
    "est",
    [
        AdaptiveOnlinePCA(
            n_components=2, fixed_share=1e-3, center=False, row_norm="none", learning_rate=1.0
        ),
        RandomizedOnlinePCA(n_components=2, update="cumulative", center=True, row_norm="none"),
        RandomizedOnlinePCA(
            n_components=2, mixing="past", mixing_rate=0.01, center=False, row_norm="none"
        ),
    ],
    ids=repr,
)
def test_rotation_equivariance(est):
    X = switching_stream(5, n=9, seg=50)
    O, _ = np.linalg.qr(np.random.default_rng(6).standard_normal((9, 9)))
    a = pickle.loads(pickle.dumps(est)).set_params(keep_history=True).fit(X)
    b = pickle.loads(pickle.dumps(est)).set_params(keep_history=True).fit(X @ O.T)
    np.testing.assert_allclose(a.loss_history_, b.loss_history_, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(b.density_matrix_, O @ a.density_matrix_ @ O.T, atol=1e-10)


def test_expected_loss_is_the_mean_sampled_loss():
    X = switching_stream(7, seg=80)
    est = AdaptiveOnlinePCA(
        n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
    ).fit(X[:170])  # mid-transition: W is mixed
    x = X[175]
    expected = est.expected_loss(x[None])[0]
    rng = np.random.default_rng(0)
    for sampler in ("decomposition", "systematic"):
        est.set_params(sampler=sampler)
        losses = []
        for _ in range(3000):
            C = est.sample_projection(rng)
            losses.append(x @ x - np.sum((C @ x) ** 2))
        losses = np.array(losses)
        se = losses.std() / np.sqrt(losses.size)
        assert se > 1e-3 * expected  # the draws really vary
        assert abs(losses.mean() - expected) < 3 * se


def test_realized_loss_recording_matches_expectation():
    X = switching_stream(8, seg=100)
    totals = []
    for seed in range(40):
        est = RandomizedOnlinePCA(
            n_components=2,
            record_realized_loss=True,
            random_state=seed,
            center=False,
            row_norm="none",
        )
        est.fit(X)
        totals.append(est.cumulative_realized_loss_)
    totals = np.array(totals)
    se = totals.std() / np.sqrt(totals.size)
    assert abs(totals.mean() - est.cumulative_loss_) < 3.5 * se


def test_orientation_components_are_the_smallest_eigenvalues():
    """The kept subspace is the bottom-k of W: the wrong (top-k) choice pays ~all the energy."""
    X = switching_stream(9)
    est = AdaptiveOnlinePCA(
        n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
    )
    right = wrong = 0.0
    for x in X:
        if est.__dict__.get("n_features_in_"):
            C = est.components_
            right += x @ x - np.sum((C @ x) ** 2)
            top = est.density_eigenvectors_[:, -2:]
            wrong += x @ x - np.sum((top.T @ x) ** 2)
        est.partial_fit(x[None])
    energy = np.sum(X**2)
    assert right < 0.15 * est.cumulative_loss_ + est.cumulative_loss_
    assert right < 0.1 * wrong
    assert wrong > 0.9 * energy


def test_expected_loss_matches_bookkeeping_and_leaves_state():
    X = switching_stream(10, seg=30)
    est = RandomizedOnlinePCA(
        n_components=2, update="cumulative", center=True, row_norm="none"
    ).fit(X[:50])
    before = pickle.dumps(est)
    pred = est.expected_loss(X[50:51])[0]
    assert pickle.dumps(est) == before
    c0 = est.cumulative_loss_
    est.partial_fit(X[50:51])
    assert est.cumulative_loss_ - c0 == pytest.approx(pred, rel=1e-12)
    np.testing.assert_allclose(
        est.expected_loss(X[:5], prepared=False), est.expected_loss(X[:5]), rtol=1e-12
    )  # rows of norm <= 1: raw = prepared


# ------------------------------------------------------------- Alg. 6
def test_centered_mean_and_scatter():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 5)) * 0.2 + 0.3
    eta = 0.8
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=eta,
        update="cumulative",
        center=True,
        eigenvalue_floor=0,
        row_norm="none",
    ).fit(X)
    np.testing.assert_allclose(est.mean_, X.mean(axis=0), rtol=1e-13)
    Xc = X - X.mean(axis=0)
    gamma = np.linalg.eigvalsh(Xc.T @ Xc)  # Lemma 7: C^t is the centred scatter
    w = cap(np.exp(-eta * gamma - logsumexp(-eta * gamma)), 3)
    np.testing.assert_allclose(est.density_eigenvalues_, np.sort(w), rtol=1e-10)
    top = np.linalg.eigh(Xc.T @ Xc)[1][:, -2:]
    P = est.components_.T @ est.components_
    np.testing.assert_allclose(P, top @ top.T, atol=1e-8)
    # eq. (11)-(12) with a prior pseudo-count
    m0, prior = np.full(5, 3.0), 3.0
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=eta,
        update="cumulative",
        center=True,
        mean_prior=prior,
        initial_mean=m0,
        eigenvalue_floor=0,
        row_norm="none",
    ).fit(X)
    m = (prior * m0 + X.sum(axis=0)) / (prior + len(X))
    np.testing.assert_allclose(est.mean_, m, rtol=1e-13)
    C = prior * np.outer(m0 - m, m0 - m) + (X - m).T @ (X - m)
    gamma = np.linalg.eigvalsh(C)
    w = cap(np.exp(-eta * gamma - logsumexp(-eta * gamma)), 3)
    np.testing.assert_allclose(est.density_eigenvalues_, np.sort(w), rtol=1e-9)


def test_infinite_mean_prior_clamps_the_mean():
    X = ball_stream(26, n=5, T=40, radius=0.4) + 0.2
    m0 = np.full(5, 0.2)
    est = RandomizedOnlinePCA(
        update="cumulative",
        center=True,
        mean_prior=np.inf,
        initial_mean=m0,
        keep_history=True,
        row_norm="none",
        n_components=1,
    ).fit(X)
    np.testing.assert_array_equal(est.mean_, m0)
    ref = RandomizedOnlinePCA(
        update="cumulative", keep_history=True, center=False, row_norm="none", n_components=1
    ).fit(X - m0)
    np.testing.assert_allclose(est.loss_history_, ref.loss_history_, rtol=1e-12)


@pytest.mark.parametrize("floor", [0.0, 1e-16])
def test_large_eta_cumulative_is_follow_the_leader(floor):
    X = switching_stream(12, n=10, seg=60)
    # the cumulative update applies no floor (a floor would tie every non-top direction)
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=1e3,
        update="cumulative",
        eigenvalue_floor=floor,
        center=False,
        row_norm="none",
    ).fit(X)
    top = np.linalg.eigh(X.T @ X)[1][:, -2:]
    np.testing.assert_allclose(est.components_.T @ est.components_, top @ top.T, atol=1e-8)


@pytest.mark.parametrize(
    ("solver", "center"), [("dense", False), ("bulk", True), ("secular", False)]
)
def test_cumulative_floor_keeps_the_order_of_small_directions(solver, center):
    """Issue 10, defect 1: the default floor must not tie the kept directions.

    With ``eigenvalue_floor=1e-16`` applied to ``softmax(-eta C)``, every
    direction whose weight falls 36.8 nats (``ln 1e16``) below the largest was
    floored to the same value: after about ``36.8 / (eta · variance gap)`` rows
    the kept directions and the next one tied, ``components_`` became an
    arbitrary pick among them and the expected loss about twice the optimum.
    The default must follow the exact (floor 0) update over 20 000 rows.
    """
    n, k, T, eta = 5, 2, 20_000, 1.0
    rng = np.random.default_rng(30)
    X = rng.standard_normal((T, n)) * np.sqrt([0.3, 0.2, 0.1, 0.05, 0.02])
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    kw = dict(n_components=k, learning_rate=eta, update="cumulative", center=center, solver=solver)
    default = RandomizedOnlinePCA(keep_history=True, **kw, row_norm="none").fit(X)  # floor 1e-16
    exact = RandomizedOnlinePCA(eigenvalue_floor=0.0, keep_history=True, **kw, row_norm="none").fit(
        X
    )
    np.testing.assert_array_equal(default.loss_history_, exact.loss_history_)
    np.testing.assert_array_equal(default.density_log_eigenvalues_, exact.density_log_eigenvalues_)
    # the kept directions keep their order: no tie among the k + 1 smallest weights
    assert np.all(np.diff(default.density_log_eigenvalues_[: k + 1]) > 0)
    # and they are the top-k eigenvectors of the (centred) scatter (Lemma 7). The basis is
    # rotated by T rank-one updates, each exact to eps relative to ||C||; a subspace moves by
    # the error over the eigengap.
    Xc = X - X.mean(axis=0) if center else X
    lam, V = np.linalg.eigh(Xc.T @ Xc)
    tol = T * np.finfo(float).eps * lam[-1] / (lam[-k] - lam[-k - 1])
    P = default.components_.T @ default.components_
    np.testing.assert_allclose(P, V[:, -k:] @ V[:, -k:].T, rtol=0, atol=tol)
    if not center:  # Theorem 6 (the uncentred Alg. 6 has Alg. 5's bound), rows of norm <= 1
        d = n - k
        L = lam[:d].sum()
        assert default.cumulative_loss_ <= (eta * L + d * np.log(n / d)) / (1 - np.exp(-eta))


def test_incremental_equals_cumulative_without_capping():
    """Alg. 5 and uncentred Alg. 6 coincide while no eigenvalue hits the cap."""
    X = ball_stream(13, n=6, T=40, radius=0.3)
    kw = dict(n_components=3, learning_rate=0.5, eigenvalue_floor=0, keep_history=True)
    a = RandomizedOnlinePCA(**kw, center=False, row_norm="none").fit(X)
    b = RandomizedOnlinePCA(update="cumulative", **kw, center=False, row_norm="none").fit(X)
    assert a.density_eigenvalues_.max() < 1 / 3
    np.testing.assert_allclose(a.loss_history_, b.loss_history_, rtol=1e-10)


def test_past_mixing_first_step_is_uniform_mixing():
    X = switching_stream(14, n=8, seg=5)
    a = RandomizedOnlinePCA(
        n_components=2, mixing="past", mixing_rate=0.1, center=False, row_norm="none"
    ).fit(X[:1])
    b = RandomizedOnlinePCA(
        n_components=2, mixing="uniform", mixing_rate=0.1, center=False, row_norm="none"
    ).fit(X[:1])
    np.testing.assert_allclose(a.density_eigenvalues_, b.density_eigenvalues_, rtol=1e-12)
    a.partial_fit(X[1:])
    b.partial_fit(X[1:])
    assert not np.allclose(a.density_eigenvalues_, b.density_eigenvalues_, rtol=1e-6)


# ------------------------------------------------------------------ bounds
@pytest.mark.parametrize("eta,alpha", [(1.0, 1e-5), (5.0, 1e-4), (0.3, 1e-2)])
def test_per_interval_inequality(eta, alpha):
    """(1 - e^-eta) A_rs - eta B_rs <= (n-k)[ln(n/alpha) + (s-r+1) ln(1/(1-alpha))]."""
    X = switching_stream(15, seg=100)
    n, k = 20, 2
    d = n - k
    est = AdaptiveOnlinePCA(
        n_components=k,
        learning_rate=eta,
        fixed_share=alpha,
        eigenvalue_floor=0,
        keep_history=True,
        center=False,
        row_norm="none",
    ).fit(X)
    A = np.r_[0.0, np.cumsum(est.loss_history_)]
    grid = [*range(0, 300, 5), 299]
    B = interval_comparators(X, d, grid)
    slack = min(
        d * (np.log(n / alpha) + (s - r + 1) * np.log(1 / (1 - alpha)))
        - ((1 - np.exp(-eta)) * (A[s + 1] - A[r]) - eta * B[r, s])
        for (r, s) in B
    )
    assert slack >= 0


def test_static_warmuth_kuzmin_inequality_is_tight():
    """alpha = 0: (1-e^-eta) A_1s - eta B_1s <= (n-k) ln(n/(n-k)) for every s, nearly tight."""
    X = switching_stream(16)
    n, k = 20, 2
    for eta in (1.0, 0.19):
        est = RandomizedOnlinePCA(
            n_components=k,
            learning_rate=eta,
            eigenvalue_floor=0,
            keep_history=True,
            center=False,
            row_norm="none",
        ).fit(X)
        A = np.cumsum(est.loss_history_)
        B = best_losses(X, n - k)
        slack = (n - k) * np.log(n / (n - k)) - ((1 - np.exp(-eta)) * A - eta * B)
        assert slack.min() >= 0
        assert slack.min() < 0.5  # the bound is sharp on this stream


def test_theorem3_adaptive_regret_bound():
    X = switching_stream(17)
    n, k, T = 20, 2, 600
    d = n - k
    L = best_losses(X, d)[-1]
    est = AdaptiveOnlinePCA(
        n_components=k,
        learning_rate="auto",
        fixed_share="auto",
        horizon=T,
        loss_bound=L,
        eigenvalue_floor=0,
        keep_history=True,
        center=False,
        row_norm="none",
    ).fit(X)
    D = d * np.log(n * (1 + d * T)) + 1
    assert est.fixed_share_ == pytest.approx(1 / (T * d + 1))
    assert est.learning_rate_ == pytest.approx(np.log1p(np.sqrt(2 * D / L)))
    A = np.r_[0.0, np.cumsum(est.loss_history_)]
    grid = [*range(0, T, 10), T - 1]
    B = interval_comparators(X, d, grid)
    regret = max(A[s + 1] - A[r] - B[r, s] for (r, s) in B)
    assert regret <= np.sqrt(2 * L * D) + D
    assert regret > 0


@pytest.mark.parametrize("eta", [0.12, 1.0])
def test_theorem6_static_bound(eta):
    X = switching_stream(18, seg=150)
    n, k = 20, 2
    est = RandomizedOnlinePCA(
        n_components=k, learning_rate=eta, eigenvalue_floor=0, center=False, row_norm="none"
    ).fit(X)
    L = best_losses(X, n - k)[-1]
    bound = (eta * L + (n - k) * np.log(n / (n - k))) / (1 - np.exp(-eta))
    assert est.cumulative_loss_ <= bound


@pytest.mark.parametrize("eta", [0.05, 0.2, 1.0, 5.0])
def test_corollary9_centered_bound(eta):
    rng = np.random.default_rng(19)
    n, k, T = 8, 2, 300
    center = rng.uniform(-0.5, 0.5, n)
    X = center + ball_stream(19, n=n, T=T, radius=0.5)  # pairwise distances <= 1
    R = np.linalg.norm(X, axis=1).max()
    est = RandomizedOnlinePCA(
        n_components=k,
        learning_rate=eta,
        update="cumulative",
        center=True,
        eigenvalue_floor=0,
        row_norm="none",
    ).fit(X)
    Xc = X - X.mean(axis=0)
    L = np.linalg.eigvalsh(Xc.T @ Xc)[: n - k].sum()
    d = n - k
    bound = (eta * L + d * np.log(n / d)) / (1 - np.exp(-eta)) + np.log(T) + R**2
    assert est.cumulative_loss_ <= bound


# ----------------------------------------------------------- behaviour
def test_adaptive_tracks_switches_better_than_static():
    X = switching_stream(20)
    ada = AdaptiveOnlinePCA(
        n_components=2, learning_rate=1.0, fixed_share=1e-5, center=False, row_norm="none"
    ).fit(X)
    exact = RandomizedOnlinePCA(
        n_components=2, eigenvalue_floor=0, center=False, row_norm="none"
    ).fit(X)
    floored = RandomizedOnlinePCA(
        n_components=2, eigenvalue_floor=1e-10 / 18, center=False, row_norm="none"
    ).fit(X)
    assert 20 < ada.cumulative_loss_ < 35
    assert ada.cumulative_loss_ < 0.6 * floored.cumulative_loss_
    assert ada.cumulative_loss_ < 0.35 * exact.cumulative_loss_


def test_log_domain_survives_alpha0_eta5():
    """The float-domain implementation crashes here (eigenvalues underflow to 0)."""
    X = switching_stream(21, seg=150)
    est = RandomizedOnlinePCA(
        n_components=2, learning_rate=5.0, eigenvalue_floor=0, center=False, row_norm="none"
    ).fit(X * 3)
    assert np.all(np.isfinite(est.density_log_eigenvalues_))
    assert est.density_log_eigenvalues_.min() < -745  # below the smallest double
    assert np.isfinite(est.cumulative_loss_)


def test_transform_modes():
    X = switching_stream(22, n=10, seg=60)
    base = dict(n_components=2)
    det = RandomizedOnlinePCA(**base, center=False, row_norm="none").fit(X)
    mode = RandomizedOnlinePCA(transform_mode="mode", **base, center=False, row_norm="none").fit(X)
    avg = RandomizedOnlinePCA(transform_mode="average", **base, center=False, row_norm="none").fit(
        X
    )
    smp = RandomizedOnlinePCA(
        transform_mode="sample", random_state=0, **base, center=False, row_norm="none"
    ).fit(X)
    np.testing.assert_allclose(det.transform(X), X @ det.components_.T)
    for est in (mode, avg, smp):
        Z = est.transform(X[:7])
        assert Z.shape == (7, 2)
        np.testing.assert_allclose(est.inverse_transform(Z).shape, (7, 10))
    np.testing.assert_array_equal(smp.transform(X[:3]), smp.transform(X[:3]))  # int seed
    Wbar = avg.average_density_
    assert abs(np.trace(Wbar) - 1) < 1e-12
    assert np.linalg.eigvalsh(Wbar).max() <= 1 / 8 + 1e-12


def test_row_norm_options():
    X = np.array([[3.0, 0, 0], [0, 0.5, 0]])
    clip = RandomizedOnlinePCA(
        row_norm="clip", keep_history=True, center=False, n_components=1
    ).fit(X)
    none = RandomizedOnlinePCA(
        row_norm="none", keep_history=True, center=False, n_components=1
    ).fit(X)
    np.testing.assert_allclose(clip.loss_history_[0], 2 / 3)
    np.testing.assert_allclose(none.loss_history_[0], 9 * 2 / 3)
    assert clip.max_row_norm_seen_ == 3.0
    with pytest.raises(ValueError, match="norm"):
        AdaptiveOnlinePCA(
            row_norm="error", center=False, learning_rate=1.0, fixed_share=1e-5, n_components=1
        ).fit(X)
    est = AdaptiveOnlinePCA(
        row_norm="error", center=False, learning_rate=1.0, fixed_share=1e-5, n_components=1
    ).fit(X[1:])
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match="norm"):
        est.partial_fit(X)
    assert pickle.dumps(est) == before


def test_errors():
    X = np.random.default_rng(0).standard_normal((10, 3)) / 3
    with pytest.raises(ValueError, match="3 feature"):
        AdaptiveOnlinePCA(
            n_components=3, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
        ).fit(X)
    with pytest.raises(ValueError, match="centred"):
        RandomizedOnlinePCA(center=True, row_norm="error", n_components=1).fit(X)
    with pytest.raises(ValueError, match="incremental"):
        RandomizedOnlinePCA(
            update="cumulative",
            mixing="past",
            mixing_rate=0.1,
            center=False,
            row_norm="none",
            n_components=1,
        ).fit(X)
    with pytest.raises(ValueError, match="learning_rate"):
        RandomizedOnlinePCA(learning_rate="auto").fit(X)  # the static tuning is not offered
    with pytest.raises(ValueError, match="eigenvalue_floor"):
        AdaptiveOnlinePCA(
            eigenvalue_floor=0.5,
            center=False,
            row_norm="none",
            learning_rate=1.0,
            fixed_share=1e-5,
            n_components=1,
        ).fit(X)
    est = RandomizedOnlinePCA(center=False, row_norm="none", n_components=1).fit(X)
    est.set_params(n_components=2)
    with pytest.raises(ValueError, match="changed"):
        est.partial_fit(X)


def test_rates_set_mid_stream_take_effect():
    """Numeric rates set between calls apply from the next row; "auto" stays as resolved."""
    X = switching_stream(28, n=6, seg=20)
    kw = dict(n_components=2, keep_history=True, center=False, row_norm="none")
    fixed = dict(learning_rate=1.0, fixed_share=1e-5)
    est = AdaptiveOnlinePCA(**kw, **fixed).fit(X[:30])
    est.set_params(learning_rate=3.0, fixed_share=0.1).partial_fit(X[30:])
    assert (est.learning_rate_, est.fixed_share_) == (3.0, 0.1)
    same = AdaptiveOnlinePCA(**kw, **fixed).fit(X)
    assert not np.allclose(est.loss_history_[31:], same.loss_history_[31:], rtol=1e-6)
    np.testing.assert_array_equal(est.loss_history_[:31], same.loss_history_[:31])
    r = RandomizedOnlinePCA(**kw).fit(X[:30])
    assert r.set_params(learning_rate=0.3).partial_fit(X[30:]).learning_rate_ == 0.3
    # with horizon and loss_bound, "auto" is resolved once (Theorem 3) and kept
    auto = AdaptiveOnlinePCA(
        fixed_share="auto", learning_rate="auto", horizon=60, loss_bound=10.0, **kw
    ).partial_fit(X[:30])
    alpha, eta = auto.fixed_share_, auto.learning_rate_
    auto.set_params(horizon=1000).partial_fit(X[30:])
    assert (auto.fixed_share_, auto.learning_rate_) == (alpha, eta)
    # without them, the doubling trick: re-tuned at rows 1, 2, 4, …; partial_fit and
    # fit of the same rows agree (the epochs follow the rows seen, not the calls)
    streamed = AdaptiveOnlinePCA(**kw).partial_fit(X[:30]).partial_fit(X[30:])
    d = 4
    assert X.shape[0] == 60
    assert streamed.fixed_share_ == pytest.approx(1 / (64 * d + 1))  # last epoch: T = 2 · 32
    whole = AdaptiveOnlinePCA(**kw, horizon=None).partial_fit(X)
    np.testing.assert_array_equal(streamed.loss_history_, whole.loss_history_)


def test_auto_tuning():
    X = switching_stream(23, seg=50)
    kw = dict(n_components=2, learning_rate="auto", fixed_share="auto", center=False)
    # T and L given: Theorem 3's values
    est = AdaptiveOnlinePCA(**kw, row_norm="none", horizon=150, loss_bound=150.0).fit(X)
    d, T = 18, 150
    D = d * np.log(20 * (1 + d * T)) + 1
    assert est.fixed_share_ == pytest.approx(1 / (T * d + 1))
    assert est.learning_rate_ == pytest.approx(np.log1p(np.sqrt(2 * D / T)))
    # L unknown: the last epoch (rows 128-149) is tuned with the learner's own loss
    # rate over the first 128 rows, extrapolated to T = 150 rows
    auto = AdaptiveOnlinePCA(**kw, row_norm="none", horizon=150, keep_history=True).fit(X)
    L = max(1.0, auto.loss_history_[:128].sum() * T / 128)
    assert auto.learning_rate_ == pytest.approx(np.log1p(np.sqrt(2 * D / L)))
    # the paper's Fig. 4 learning rate of the static algorithm (eq. 3, L = 567)
    assert theory_static_learning_rate(20, 2, 567.0) == pytest.approx(0.12, abs=0.005)


def test_history_is_off_by_default():
    X = switching_stream(24, n=6, seg=30)
    est = AdaptiveOnlinePCA(
        center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5, n_components=1
    ).fit(X)
    assert not hasattr(est, "loss_history_")
    est = AdaptiveOnlinePCA(
        keep_history=True,
        center=False,
        row_norm="none",
        learning_rate=1.0,
        fixed_share=1e-5,
        n_components=1,
    ).fit(X)
    assert est.loss_history_.shape == (90,)
    assert est.loss_history_.sum() == pytest.approx(est.cumulative_loss_)


@pytest.mark.parametrize(
    "est",
    [
        AdaptiveOnlinePCA(
            n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
        ),
        RandomizedOnlinePCA(
            n_components=2, record_realized_loss=True, random_state=0, center=False, row_norm="none"
        ),
        OnlineVarianceMinimizer(),
        AdaptiveSubsetHedge(n_kept=2),
    ],
    ids=lambda est: type(est).__name__,
)
def test_keep_history_set_mid_stream_is_refused_before_the_batch(est):
    """Issue 10, defect 4: ``set_params(keep_history=True)`` mid-stream.

    The next ``partial_fit`` used to apply the batch, then fail with an
    ``AttributeError`` on the missing history; every retry applied it again
    (rows counted 40 -> 80 -> 120). ``keep_history`` is now fixed at the first
    call: the error names it and comes before anything is applied.
    """
    X = switching_stream(31, n=6, seg=40)
    est = pickle.loads(pickle.dumps(est)).partial_fit(X[:40])
    before = pickle.dumps(est)
    for _ in range(3):  # retries never apply the batch
        est.set_params(keep_history=True)
        with pytest.raises(ValueError, match="keep_history"):
            est.partial_fit(X[40:80])
        assert est.n_samples_seen_ == 40
        assert pickle.dumps(est.set_params(keep_history=False)) == before
    est.set_params(keep_history=True).fit(X)  # fit starts a new stream with the history
    assert est.loss_history_.shape == (120,)
    assert est.loss_history_.sum() == pytest.approx(est.cumulative_loss_, rel=1e-12)


def test_sparse_input_matches_dense():
    sp = pytest.importorskip("scipy.sparse")
    X = switching_stream(25, n=8, seg=20)
    X[np.abs(X) < 0.1] = 0
    a = AdaptiveOnlinePCA(
        n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
    ).fit(X)
    b = AdaptiveOnlinePCA(
        n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
    ).fit(sp.csr_matrix(X))
    assert a.cumulative_loss_ == b.cumulative_loss_
    np.testing.assert_allclose(a.transform(X), b.transform(sp.csr_matrix(X)), atol=1e-14)


# ------------------------------------------------------------ bulk solver
def low_rank_stream(seed, n=60, rank=5, T=120):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((n, rank)))[0]
    X = rng.standard_normal((T, rank)) @ basis.T * 0.5
    return X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


@pytest.mark.parametrize(
    "params",
    [
        dict(cls=AdaptiveOnlinePCA, n_components=2, fixed_share=1e-3),
        dict(cls=AdaptiveOnlinePCA, n_components=3, fixed_share=0.0, eigenvalue_floor=0.0),
        dict(cls=RandomizedOnlinePCA, n_components=2, mixing="uniform", mixing_rate=0.01),
        dict(cls=RandomizedOnlinePCA, n_components=2, update="cumulative"),
        dict(cls=RandomizedOnlinePCA, n_components=2, update="cumulative", center=True),
        dict(cls=RandomizedOnlinePCA, n_components=57, learning_rate=3.0),  # d = 3 < bulk
    ],
    ids=lambda p: repr({k: v for k, v in p.items() if k != "cls"}),
)
@pytest.mark.parametrize("stream", ["low rank", "full rank"])
@pytest.mark.parametrize("solver", ["bulk", "secular"])
def test_bulk_solver_matches_dense(params, stream, solver):
    params = dict(params)
    cls = params.pop("cls")
    if stream == "low rank":
        X = low_rank_stream(0)
    else:  # the span fills all n directions mid-stream
        X = np.vstack([low_rank_stream(1, n=60, rank=5, T=40), ball_stream(2, n=60, T=80)])
    dense = cls(solver="dense", keep_history=True, **params).fit(X)
    bulk = cls(solver=solver, keep_history=True, **params).fit(X)
    np.testing.assert_allclose(bulk.loss_history_, dense.loss_history_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(bulk.density_matrix_, dense.density_matrix_, atol=1e-12)
    np.testing.assert_allclose(
        bulk.density_log_eigenvalues_, dense.density_log_eigenvalues_, rtol=1e-10
    )
    np.testing.assert_allclose(
        bulk.expected_loss(X[:9]), dense.expected_loss(X[:9]), rtol=1e-10, atol=1e-14
    )
    assert bulk._state.basis.shape[1] == (5 if stream == "low rank" else 60)
    k = bulk.n_components_
    Pb, Pd = bulk.components_.T @ bulk.components_, dense.components_.T @ dense.components_
    w = dense.density_eigenvalues_
    if w[k] - w[k - 1] > 1e-8 * w[k]:  # the kept subspace is unique
        np.testing.assert_allclose(Pb, Pd, atol=1e-8)


def test_bulk_kept_directions_outside_the_span():
    """Before k directions carry data, the kept subspace includes bulk directions."""
    X = low_rank_stream(3, n=12, rank=1, T=10)
    est = RandomizedOnlinePCA(n_components=3, solver="bulk", center=False, row_norm="none").fit(X)
    C = est.components_
    np.testing.assert_allclose(C @ C.T, np.eye(3), atol=1e-12)
    assert est._state.basis.shape[1] == 1
    u = est._state.basis[:, 0]
    assert abs(abs(C[0] @ u) - 1) < 1e-12  # the data direction first (smallest weight)
    np.testing.assert_allclose(C[1:] @ u, 0, atol=1e-12)
    for mode in ("mode", "sample"):
        est.set_params(transform_mode=mode, random_state=0)
        Z = est.transform(X)
        assert Z.shape == (10, 3)


def test_bulk_solver_rejects_dense_only_options():
    X = low_rank_stream(4, n=8, T=10)
    with pytest.raises(ValueError, match="bulk"):
        RandomizedOnlinePCA(
            solver="bulk",
            mixing="past",
            mixing_rate=0.1,
            center=False,
            row_norm="none",
            n_components=1,
        ).fit(X)
    with pytest.raises(ValueError, match="bulk"):
        AdaptiveOnlinePCA(
            solver="bulk",
            transform_mode="average",
            center=False,
            row_norm="none",
            learning_rate=1.0,
            fixed_share=1e-5,
            n_components=1,
        ).fit(X)
    est = RandomizedOnlinePCA(
        mixing="past", mixing_rate=0.1, center=False, row_norm="none", n_components=1
    ).fit(X)  # auto -> dense
    assert est._state.basis is None


def test_bulk_memory_follows_the_span():
    X = low_rank_stream(5, n=200, rank=4, T=300)
    est = AdaptiveOnlinePCA(
        n_components=2, center=False, row_norm="none", learning_rate=1.0, fixed_share=1e-5
    ).fit(X)
    assert est._state.basis.shape == (200, 4) and est._state.rotation.shape == (4, 4)
    assert est.density_eigenvalues_.shape == (200,)


def test_auto_solver_switches_to_secular_and_stays_exact():
    """solver="auto": eigh while the span is small, the secular update from 64 dimensions on."""
    X = np.vstack([low_rank_stream(6, n=70, rank=10, T=30), ball_stream(7, n=70, T=200)])
    kw = dict(n_components=3, fixed_share=1e-4, keep_history=True)
    auto = AdaptiveOnlinePCA(**kw, center=False, row_norm="none").fit(X)
    dense = AdaptiveOnlinePCA(solver="dense", **kw, center=False, row_norm="none").fit(X)
    assert auto._state.basis.shape[1] == 70
    np.testing.assert_allclose(auto.loss_history_, dense.loss_history_, rtol=1e-9)
    np.testing.assert_allclose(auto.density_matrix_, dense.density_matrix_, atol=1e-12)
    R = auto._state.rotation
    assert np.max(np.abs(R.T @ R - np.eye(70))) < 1e-12


@pytest.mark.parametrize("solver", ["secular", "auto"])
def test_secular_update_below_rounding(solver):
    """Rows so small that every component of the rank-one update deflates (the update is
    below rounding), zero rows, then normal rows again: still the dense result."""
    X = ball_stream(29, n=70, T=90) * 0.5
    X = np.vstack([X, 1e-9 * X[:4], 1e-13 * X[:4], np.zeros((2, 70)), X[:4]])
    kw = dict(n_components=3, fixed_share=0.0, eigenvalue_floor=0.0, learning_rate=5.0)
    dense = AdaptiveOnlinePCA(
        solver="dense", keep_history=True, **kw, center=False, row_norm="none"
    ).fit(X)
    est = AdaptiveOnlinePCA(
        solver=solver, keep_history=True, **kw, center=False, row_norm="none"
    ).fit(X)
    assert est._state.basis.shape[1] == 70  # the secular update is in use (auto: span >= 64)
    np.testing.assert_allclose(est.loss_history_, dense.loss_history_, rtol=1e-9, atol=1e-30)
    np.testing.assert_allclose(est.density_matrix_, dense.density_matrix_, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["dense", "secular"])
def test_long_stream_stays_orthonormal_and_exact(solver):
    """10^4 rows: the periodic re-orthonormalisation keeps the basis orthonormal."""
    rng = np.random.default_rng(27)
    n = 70
    X = rng.standard_normal((10_000, n)) * np.r_[np.ones(3), np.full(n - 3, 0.1)] / 4
    est = AdaptiveOnlinePCA(
        n_components=3,
        solver=solver,
        center=False,
        row_norm="none",
        learning_rate=1.0,
        fixed_share=1e-5,
    ).fit(X)
    U = est.density_eigenvectors_
    assert np.max(np.abs(U.T @ U - np.eye(n))) < 1e-12
    w = est.density_eigenvalues_
    assert abs(w.sum() - 1) < 1e-12 and w.max() <= (1 + 1e-12) / (n - 3)
    top = np.linalg.eigh(X.T @ X)[1][:, -3:]
    P = est.components_.T @ est.components_
    assert np.linalg.norm(P - top @ top.T) < 0.3  # it finds the stationary top-3 subspace


# ------------------------------------------------- drop-in defaults (issue 15)
def test_defaults_are_a_centred_scaled_self_tuned_learner():
    from sklearn.datasets import load_digits

    X = load_digits().data
    for est in (AdaptiveOnlinePCA(), RandomizedOnlinePCA()):
        est.fit(X)
        assert est.n_components_ == 10  # min(10, n_features - 1)
        np.testing.assert_allclose(est.mean_, X.mean(axis=0), rtol=1e-12, atol=1e-12)
        assert est.transform(X).shape == (X.shape[0], 10)
        # transform is affine: centred by mean_, inverse_transform adds it back
        np.testing.assert_allclose(est.transform(est.mean_[None, :]), 0.0, atol=1e-9)
    assert AdaptiveOnlinePCA().fit(X[:, :5]).n_components_ == 4
    assert AdaptiveOnlinePCA().get_params()["learning_rate"] == "auto"


def test_scaled_rows_make_the_learner_unit_free():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 8)) * np.linspace(2, 0.2, 8) + 1.0
    for cls in (AdaptiveOnlinePCA, RandomizedOnlinePCA):
        small = cls(n_components=2, keep_history=True).fit(X)
        large = cls(n_components=2, keep_history=True).fit(1e4 * X)
        # the rows the update sees are the same: the same density matrix and losses
        np.testing.assert_allclose(large.density_matrix_, small.density_matrix_, atol=1e-12)
        np.testing.assert_allclose(large.loss_history_, small.loss_history_, rtol=1e-9)
        np.testing.assert_allclose(large.mean_, 1e4 * small.mean_, rtol=1e-12)
        # and the largest row fed had norm 1: the bound's assumption holds
        fed = X - np.vstack([np.zeros(8), np.cumsum(X, axis=0)[:-1] / np.arange(1, 200)[:, None]])
        np.testing.assert_allclose(small.max_row_norm_seen_, np.linalg.norm(X, axis=1).max())
        assert np.linalg.norm(fed, axis=1).max() > 1
    # expected_loss scores a row as the next update would see it
    est = AdaptiveOnlinePCA(n_components=2).fit(X)
    assert np.all(est.expected_loss(1e6 * X[:5]) <= est.n_features_in_ - 2 + 1e-9)


def test_unscaled_rows_above_norm_one_warn_once():
    X = np.random.default_rng(0).standard_normal((40, 5)) * 3
    est = AdaptiveOnlinePCA(n_components=2, row_norm="none")
    with pytest.warns(UserWarning, match="norm"):
        est.partial_fit(X[:20])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.partial_fit(X[20:])  # warned once per stream
        AdaptiveOnlinePCA(n_components=2, row_norm="none").fit(X / 100)  # rows below 1
    with pytest.raises(ValueError, match="centred"):
        AdaptiveOnlinePCA(n_components=2, row_norm="error").fit(X / 100)


def test_centred_incremental_update_is_the_update_on_centred_rows():
    """center=True feeds x_t − m_{t−1} to the uncentred algorithm: the same learner."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((120, 6)) * 0.2 + 0.5
    Y = X - np.vstack([np.zeros(6), np.cumsum(X, axis=0)[:-1] / np.arange(1, 120)[:, None]])
    kw = dict(n_components=2, row_norm="none", learning_rate=1.0, keep_history=True)
    for cls, extra in ((AdaptiveOnlinePCA, {"fixed_share": 1e-3}), (RandomizedOnlinePCA, {})):
        centred = cls(center=True, **kw, **extra).fit(X)
        plain = cls(center=False, **kw, **extra).fit(Y)
        np.testing.assert_allclose(centred.loss_history_, plain.loss_history_, rtol=1e-10)
        np.testing.assert_allclose(centred.density_matrix_, plain.density_matrix_, atol=1e-12)


# ------------------------------------------------- variance read-outs, score
VARIANCE_ESTIMATORS = [
    AdaptiveOnlinePCA(n_components=2),
    AdaptiveOnlinePCA(n_components=2, solver="dense"),
    AdaptiveOnlinePCA(n_components=3, center=False, row_norm="clip"),
    RandomizedOnlinePCA(n_components=2, update="cumulative"),
]


def spread_stream(seed, n_rows=300, n=8, scales=(5.0, 3.0, 1.0), noise=0.5, shift=2.0):
    rng = np.random.default_rng(seed)
    spread = np.r_[scales, np.full(n - len(scales), noise)]
    return (
        rng.standard_normal((n_rows, n)) * spread @ np.linalg.qr(rng.standard_normal((n, n)))[0]
        + shift
    )


@pytest.mark.parametrize("est", VARIANCE_ESTIMATORS, ids=repr)
def test_explained_variance_is_the_scatter_along_the_components(est):
    X = spread_stream(0)
    if est.row_norm == "clip":
        X = X / 40  # rows of norm below 1: the clipped rows are the rows
        assert np.linalg.norm(X, axis=1).max() < 1
    est.fit(X)
    V = est.components_
    Xc = X - X.mean(axis=0) if est.center else X
    dof = len(X) - 1 if est.center else len(X)
    expected = np.einsum("ij,ij->j", V.T, Xc.T @ Xc @ V.T) / dof
    np.testing.assert_allclose(est.explained_variance_, expected, rtol=1e-10)
    total = np.sum(Xc**2) / dof
    np.testing.assert_allclose(est.explained_variance_ratio_, expected / total, rtol=1e-10)
    k, n = V.shape
    np.testing.assert_allclose(est.noise_variance_, (total - expected.sum()) / (n - k), rtol=1e-10)
    # the learner found the top directions: close to PCA's ratio
    top = np.linalg.eigvalsh(Xc.T @ Xc)[::-1][:k] / np.sum(Xc**2)
    assert est.explained_variance_ratio_.sum() > 0.95 * top.sum()


def test_explained_variance_is_in_the_data_units():
    X = spread_stream(1)
    small = AdaptiveOnlinePCA(n_components=2).fit(X)
    large = AdaptiveOnlinePCA(n_components=2).fit(1e3 * X)  # row_norm="scale": the same W
    np.testing.assert_allclose(large.explained_variance_, 1e6 * small.explained_variance_)
    np.testing.assert_allclose(large.explained_variance_ratio_, small.explained_variance_ratio_)


@pytest.mark.parametrize("est", VARIANCE_ESTIMATORS, ids=repr)
def test_score_is_the_probabilistic_pca_log_likelihood(est):
    from scipy.stats import multivariate_normal

    X = spread_stream(2)
    if est.row_norm == "clip":
        X = X / 40
    est.fit(X[:250])
    cov = est.get_covariance()
    np.testing.assert_allclose(est.get_precision() @ cov, np.eye(X.shape[1]), atol=1e-10)
    expected = multivariate_normal(est.mean_, cov).logpdf(X[250:])
    np.testing.assert_allclose(est.score_samples(X[250:]), expected, rtol=1e-10)
    assert est.score(X[250:]) == pytest.approx(expected.mean(), rel=1e-10)


def test_expected_loss_of_the_raw_rows_is_the_former_score():
    X = spread_stream(3)  # rows of norm well above 1
    est = AdaptiveOnlinePCA(n_components=2).fit(X)
    Y = X[:5] - est.mean_
    former = (X.shape[1] - 2) * np.einsum("ij,jk,ik->i", Y, est.density_matrix_, Y)
    np.testing.assert_allclose(est.expected_loss(X[:5], prepared=False), former, rtol=1e-10)
    assert np.all(est.expected_loss(X[:5]) < former)  # the prepared rows have norm <= 1


def test_grid_search_picks_the_true_number_of_components():
    """The compression loss always prefers more components; the likelihood does not."""
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    n = 50
    X = rng.standard_normal((400, 5)) @ (3 * rng.standard_normal((5, n)))
    X += rng.standard_normal((400, n)) + 1.0
    grid = {"n_components": [1, 5, 20, 40]}
    search = GridSearchCV(AdaptiveOnlinePCA(), grid, cv=3).fit(X)
    assert search.best_params_ == {"n_components": 5}

    def neg_compression_loss(est, X, y=None):  # what score was before 0.1.0
        return -est.expected_loss(X, prepared=False).mean()

    loss = GridSearchCV(AdaptiveOnlinePCA(), grid, cv=3, scoring=neg_compression_loss).fit(X)
    assert loss.best_params_ == {"n_components": 40}


@pytest.mark.parametrize("cls", [AdaptiveOnlinePCA, RandomizedOnlinePCA])
def test_the_large_row_warning_reports_the_largest_row_of_the_call(cls):
    """``row_norm="none"``: one warning per call, with the call's largest norm (not a segment's)."""
    X = np.random.default_rng(0).standard_normal((64, 6)) * 0.05
    X[0, 0] = 1.5  # the first row already above 1
    X[40, 1] = 50.0  # a larger one in a later re-tuning segment of the same call
    with pytest.warns(UserWarning, match=r"rows of norm up to 50 ") as record:
        cls(2, row_norm="none", center=False).fit(X)
    assert sum("reached the update" in str(w.message) for w in record) == 1
