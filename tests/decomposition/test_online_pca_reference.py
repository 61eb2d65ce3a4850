"""Textbook transcriptions of the online-PCA algorithms against the fast estimators.

The references below follow the papers' pseudo-code literally: a dense density
matrix ``W``, ``scipy.linalg.logm``/``expm`` for the matrix exponentiated
gradient step, an explicit eigendecomposition of the result, the capping loop of
Algorithm 3 (Yuan & Lamperski) / Algorithm 4 (Warmuth & Kuzmin) with the
normaliser erratum corrected, and dense mixtures. They are slow (``O(n³)`` matrix
functions per row) and only run on tiny ``n``; the estimators work on
(eigenvectors, log-eigenvalues) and never form ``logm``/``expm``.
"""

import numpy as np
import pytest
from scipy.linalg import expm, logm

from skonline import AdaptiveOnlinePCA, RandomizedOnlinePCA
from skonline.datasets import make_switching_subspaces

RTOL = 1e-10


# --------------------------------------------------------------------- references
def textbook_cap(w, d):
    """Algorithm 3 (Y&L) / 4 (W&K), with the normaliser Σ_{l>i} w↓_l (erratum E2 / A1)."""
    w = np.asarray(w, dtype=float)
    if w.max() <= 1.0 / d:
        return w.copy()
    order = np.argsort(-w, kind="stable")
    s = w[order]
    i = 1
    while True:
        out = s.copy()
        out[:i] = 1.0 / d
        out[i:] = (d - i) / d * s[i:] / s[i:].sum()
        if out.max() <= 1.0 / d * (1 + 1e-12):
            break
        i += 1
    res = np.empty_like(out)
    res[order] = out
    return res


def _eig_sym(A):
    lam, U = np.linalg.eigh((A + A.T) / 2)
    return lam, U


def _rebuild(U, w):
    return (U * w) @ U.T


def _floor(v, eps):
    if eps > 0:
        v = np.maximum(v, eps)
        v = v / v.sum()
    return v


def textbook_adaptive_pca(X, k, eta, alpha, floor=0.0):
    """Yuan & Lamperski Algorithm 4, eq. (14a)-(14c), W_1 = I/n; expected losses and W_T."""
    n = X.shape[1]
    W = np.eye(n) / n
    losses = []
    for x in X:
        losses.append((n - k) * x @ W @ x)
        V = expm(logm(W).real - eta * np.outer(x, x))
        V /= np.trace(V)  # (14a)
        v, U = _eig_sym(V)
        v = _floor(np.clip(v, 0, None) / np.clip(v, 0, None).sum(), floor)
        w_hat = alpha / n + (1 - alpha) * v  # (14b) fixed share before capping
        W = _rebuild(U, textbook_cap(w_hat, n - k))  # (14c)
    return np.array(losses), W


def textbook_incremental_pca(X, k, eta, mixing=None, alpha=0.0, floor=0.0):
    """Warmuth & Kuzmin Algorithm 5 plus the §8 mixing updates (after capping), W^0 = I/n."""
    n = X.shape[1]
    W = np.eye(n) / n
    past_sum = W.copy()  # Σ_{q=0}^{t-1} W^q of the pre-mixing capped posteriors, W^0 = I/n
    losses = []
    for t, x in enumerate(X, start=1):
        losses.append((n - k) * x @ W @ x)
        Wh = expm(logm(W).real - eta * np.outer(x, x))
        Wh /= np.trace(Wh)
        v, U = _eig_sym(Wh)
        v = _floor(np.clip(v, 0, None) / np.clip(v, 0, None).sum(), floor)
        Wc = _rebuild(U, textbook_cap(v, n - k))
        if mixing == "uniform":
            W = (1 - alpha) * Wc + alpha * np.eye(n) / n
        elif mixing == "past":
            W = (1 - alpha) * Wc + alpha * past_sum / t  # eq. (20), divisor t counts q = 0..t-1
            past_sum = past_sum + Wc
        else:
            W = Wc
    return np.array(losses), W


def textbook_cumulative_pca(X, k, eta, center=False, mean_prior=0.0, floor=0.0):
    """Warmuth & Kuzmin Algorithm 6 (centered) and its uncentered version, eqs. (14)-(16)."""
    n = X.shape[1]
    W = np.eye(n) / n
    m = np.zeros(n)
    C = np.zeros((n, n))
    losses = []
    for t, x in enumerate(X, start=1):
        y = x - m if center else x
        losses.append((n - k) * y @ W @ y)
        if center:
            c = (mean_prior + t - 1) / (mean_prior + t)
            C = C + c * np.outer(x - m, x - m)  # (16), with m^{t-1}
            m = m - (m - x) / (mean_prior + t)  # (15)
        else:
            C = C + np.outer(x, x)
        Wh = expm(-np.log(n) * np.eye(n) - eta * C)
        Wh /= np.trace(Wh)
        v, U = _eig_sym(Wh)
        v = _floor(np.clip(v, 0, None) / np.clip(v, 0, None).sum(), floor)
        W = _rebuild(U, textbook_cap(v, n - k))
    return np.array(losses), W, m


# ---------------------------------------------------------------------- fixtures
def _stream(n=5, rows=24, seed=0):
    X, _, _ = make_switching_subspaces(
        n_segments=3, segment_length=rows // 3, n_features=n, rank=2, random_state=seed
    )
    return X


def _density(est):
    U = est.density_eigenvectors_
    return (U * est.density_eigenvalues_) @ U.T


def _assert_matches(est, losses, W):
    np.testing.assert_allclose(est.loss_history_, losses, rtol=RTOL, atol=1e-13)
    np.testing.assert_allclose(_density(est), W, rtol=0, atol=RTOL * np.abs(W).max())
    assert np.isclose(est.cumulative_loss_, losses.sum(), rtol=RTOL)


# ------------------------------------------------------------------------- tests
def test_textbook_cap_is_the_papers_vectors():
    np.testing.assert_allclose(textbook_cap(np.array([1, 2, 4]) / 7, 2), [1 / 6, 1 / 3, 1 / 2])
    np.testing.assert_allclose(textbook_cap([0.5, 0.3, 0.1, 0.1], 3), [1 / 3, 1 / 3, 1 / 6, 1 / 6])


@pytest.mark.parametrize("solver", ["dense", "bulk", "secular"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("k", "eta", "alpha"), [(2, 1.0, 1e-5), (1, 3.0, 0.05), (3, 0.5, 0.2)])
def test_adaptive_pca_matches_textbook(seed, k, eta, alpha, solver):
    X = _stream(seed=seed)
    losses, W = textbook_adaptive_pca(X, k, eta, alpha)
    est = AdaptiveOnlinePCA(
        n_components=k,
        learning_rate=eta,
        fixed_share=alpha,
        eigenvalue_floor=0.0,
        keep_history=True,
        row_norm="none",
        solver=solver,
        center=False,
    ).fit(X)
    _assert_matches(est, losses, W)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    ("mixing", "alpha", "solver"),
    [
        (None, 0.0, "dense"),
        (None, 0.0, "secular"),
        ("uniform", 0.01, "dense"),
        ("uniform", 0.01, "bulk"),
        ("past", 0.01, "dense"),
        ("past", 0.2, "dense"),
    ],
)
def test_incremental_pca_matches_textbook(seed, mixing, alpha, solver):
    X = _stream(seed=seed)
    losses, W = textbook_incremental_pca(X, 2, 1.0, mixing=mixing, alpha=alpha)
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=1.0,
        update="incremental",
        mixing=mixing,
        mixing_rate=alpha,
        eigenvalue_floor=0.0,
        keep_history=True,
        row_norm="none",
        solver=solver,
        center=False,
    ).fit(X)
    _assert_matches(est, losses, W)


@pytest.mark.parametrize("solver", ["dense", "secular"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("center", "mean_prior"), [(False, 0.0), (True, 0.0), (True, 3.0)])
def test_cumulative_pca_matches_textbook(seed, center, mean_prior, solver):
    X = _stream(seed=seed) + (0.3 if center else 0.0)  # an offset the centered variant learns
    losses, W, m = textbook_cumulative_pca(X, 2, 0.7, center=center, mean_prior=mean_prior)
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=0.7,
        update="cumulative",
        center=center,
        mean_prior=mean_prior,
        eigenvalue_floor=0.0,
        keep_history=True,
        row_norm="none",
        solver=solver,
    ).fit(X)
    _assert_matches(est, losses, W)
    if center:
        np.testing.assert_allclose(est.mean_, m, rtol=RTOL, atol=1e-14)


def test_floor_semantics_match_textbook():
    # Large eta drives eigenvalues far below the floor: the floor then binds.
    X = _stream(seed=4)
    losses, W = textbook_incremental_pca(X, 2, 8.0, floor=1e-6)
    est = RandomizedOnlinePCA(
        n_components=2,
        learning_rate=8.0,
        eigenvalue_floor=1e-6,
        keep_history=True,
        row_norm="none",
        center=False,
    ).fit(X)
    _assert_matches(est, losses, W)
    # ... and removing it changes the answer (the test can fail)
    exact, _ = textbook_incremental_pca(X, 2, 8.0, floor=0.0)
    assert not np.allclose(exact, losses, rtol=1e-6)


def test_reference_detects_a_wrong_order_of_mixing_and_capping():
    # Negative control: Y&L mix before capping, W&K after. The two orders differ only
    # while the cap binds: rank-2 unit rows in n = 5 with k = 1 leave three untouched
    # directions whose weights hit the cap 1/(n-k).
    rng = np.random.default_rng(5)
    X = rng.standard_normal((24, 2)) @ rng.standard_normal((2, 5))
    X /= np.linalg.norm(X, axis=1)[:, None]
    adaptive, W = textbook_adaptive_pca(X, 1, 8.0, 0.2)
    wk_uniform, _ = textbook_incremental_pca(X, 1, 8.0, mixing="uniform", alpha=0.2)
    assert np.isclose(np.linalg.eigvalsh(W).max(), 1 / 4)  # the cap binds
    assert not np.allclose(adaptive, wk_uniform, rtol=1e-3)
    est = AdaptiveOnlinePCA(
        n_components=1,
        learning_rate=8.0,
        fixed_share=0.2,
        eigenvalue_floor=0.0,
        keep_history=True,
        row_norm="none",
        center=False,
    ).fit(X)
    _assert_matches(est, adaptive, W)
