"""Capping, mixture decomposition, samplers and the log-domain spectral step."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

from skonline.decomposition._capping_kernels import (
    capped_hedge_step,
    mixture_decomposition,
    sample_corner,
    systematic_sample,
)
from skonline.decomposition._density_kernels import meg_eigen_step, rank_one_eigh

from ._capping_reference import cap, log_cap, log_fixed_share, log_floor, spectral_step

EPS = np.finfo(np.float64).eps


def _capped_dirichlet(rng, n, d):
    w = cap(rng.dirichlet(np.full(n, 0.3)) + 1e-3, d)
    return w / w.sum()


# ------------------------------------------------------------------ capping
def test_cap_hand_vectors():
    np.testing.assert_allclose(cap(np.array([1, 2, 4]) / 7, 2), [1 / 6, 1 / 3, 1 / 2], rtol=1e-14)
    np.testing.assert_allclose(
        cap(np.array([0.5, 0.3, 0.1, 0.1]), 3), [1 / 3, 1 / 3, 1 / 6, 1 / 6], rtol=1e-14
    )


def test_cap_notebook_vector():
    w = np.array([1 / 17, 1 / 38, 1 / 36, 1 / 72, 1 / 36, 1 / 33, 1 / 36, 1 / 43, 3 / 48, 1 / 54])
    w /= w.sum()
    np.testing.assert_allclose(
        w,
        [0.18560, 0.08303, 0.08764, 0.04382, 0.08764, 0.09561, 0.08764, 0.07338, 0.19720, 0.05843],
        atol=5e-6,
    )
    out = cap(w, 8)
    expected = [0.125, 0.10090, 0.10650, 0.05325, 0.10650, 0.11618, 0.10650, 0.08916, 0.125, 0.071]
    np.testing.assert_allclose(out, expected, atol=5e-6)
    p, _corners = mixture_decomposition(out, 8)
    assert len(p) == 7


def test_cap_unchanged_when_feasible():
    w = np.array([0.3, 0.3, 0.2, 0.2])
    np.testing.assert_allclose(cap(w, 3), w, rtol=0, atol=1e-16)


@pytest.mark.parametrize("seed", range(20))
def test_cap_properties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    d = int(rng.integers(1, n))
    w = rng.dirichlet(np.full(n, 0.2))
    w[rng.integers(n)] = w[0]  # a tie
    w /= w.sum()
    out = cap(w, d)
    assert abs(out.sum() - 1) < 1e-12
    assert out.max() <= (1 + 1e-12) / d
    # out = min(1/d, gamma w) with one gamma >= 1
    free = out < (1 - 1e-12) / d
    gamma = out[free] / w[free]
    assert np.ptp(gamma) <= 1e-10 * gamma.max() and gamma.min() >= 1 - 1e-12
    # ties stay tied, order preserved, idempotent
    assert np.ptp(out[np.flatnonzero(w == w[0])]) <= 1e-15
    assert np.all(np.diff(out[np.argsort(w, kind="stable")]) >= -1e-15)
    np.testing.assert_allclose(cap(out, d), out, rtol=1e-13)


@pytest.mark.parametrize("seed", range(6))
def test_cap_is_the_kl_projection(seed):
    """Brute force: minimise KL(q, w) over the capped simplex with SLSQP."""
    rng = np.random.default_rng(seed)
    n, d = 6, int(rng.integers(2, 5))
    w = rng.dirichlet(np.full(n, 0.5)) + 1e-3
    w /= w.sum()

    def kl(q):
        q = np.clip(q, 1e-300, None)
        return float(np.sum(q * np.log(q / w)))

    res = minimize(
        kl,
        np.full(n, 1 / n),
        method="SLSQP",
        bounds=[(1e-12, 1 / d)] * n,
        constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    out = cap(w, d)
    assert kl(out) <= res.fun + 1e-9
    np.testing.assert_allclose(out, res.x, atol=1e-5)
    # and no random feasible point is closer
    for _ in range(50):
        q = cap(rng.dirichlet(np.ones(n)), d)
        assert kl(out) <= kl(q) + 1e-12


def test_log_cap_survives_underflow():
    """Weights far below the smallest double keep their relative values."""
    a = np.array([0.0, 0.0, -2000.0, -2001.0, -2002.0])
    out = log_cap(a, 3)
    assert np.all(np.isfinite(out))
    assert abs(logsumexp(out)) < 1e-12
    assert out.max() <= -np.log(3) + 1e-12
    # the two large entries are capped, the tail keeps its log-differences
    np.testing.assert_allclose(out[:2], -np.log(3), atol=1e-14)
    np.testing.assert_allclose(np.diff(out[2:]), [-1.0, -1.0], atol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_log_cap_with_counts_is_the_expanded_cap(seed):
    """An entry with count c stands for c tied weights (the bulk eigenvalue of the low-rank
    solvers), wherever it falls: capped, in the rescaled tail, or both kinds present."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 9))
    counts = rng.integers(1, 6, m).astype(float)
    counts[rng.integers(m)] = 1.0
    w = rng.dirichlet(np.full(m, 0.4)) + 1e-4
    w[0] = w.max() * 2  # a single entry far above the rest: it is capped
    expanded = np.repeat(w, counts.astype(int))
    expanded /= expanded.sum()
    n = expanded.size
    d = int(rng.integers(2, n))
    out = np.exp(log_cap(np.log(w), d, counts=counts))
    np.testing.assert_allclose(np.repeat(out, counts.astype(int)), cap(expanded, d), rtol=1e-12)
    assert abs(out @ counts - 1) < 1e-12


def test_log_cap_needs_enough_positive_weights():
    with np.errstate(divide="ignore"):
        a = np.log(np.array([0.5, 0.5, 0.0, 0.0]))
    with pytest.raises(ValueError, match="positive weights"):
        log_cap(a, 3)


# ---------------------------------------------------------- decomposition
def test_decomposition_hand_vectors():
    p, c = mixture_decomposition([1 / 6, 1 / 3, 1 / 2], 2)
    np.testing.assert_allclose(p, [2 / 3, 1 / 3], rtol=1e-14)
    assert [set(x) for x in c.tolist()] == [{1, 2}, {0, 2}]
    p, c = mixture_decomposition([0.25] * 4, 2)
    np.testing.assert_allclose(p, [0.5, 0.5], rtol=1e-14)
    assert [set(x) for x in c.tolist()] == [{0, 1}, {2, 3}]
    p, c = mixture_decomposition([0.5, 0.3, 0.2], 1)  # d = 1 is Hedge
    np.testing.assert_allclose(p, [0.5, 0.3, 0.2], rtol=1e-14)
    assert c.ravel().tolist() == [0, 1, 2]


@pytest.mark.parametrize("seed", range(25))
def test_decomposition_reconstructs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 41))
    d = int(rng.integers(1, n))
    w = _capped_dirichlet(rng, n, d)
    p, corners = mixture_decomposition(w, d)
    assert len(p) <= n
    assert np.all(p > 0) and abs(p.sum() - 1) < 1e-12
    assert corners.shape == (len(p), d)
    assert all(np.unique(c).size == d for c in corners)
    recon = np.zeros(n)
    for pj, cj in zip(p, corners, strict=True):
        recon[cj] += pj / d
    np.testing.assert_allclose(recon, w, atol=1e-12, rtol=0)
    z = rng.standard_normal(n)
    exp_corners = sum(pj * np.sum(z[cj] ** 2) for pj, cj in zip(p, corners, strict=True))
    np.testing.assert_allclose(exp_corners, d * np.sum(w * z**2), rtol=1e-12)


def test_decomposition_rejects_infeasible():
    with pytest.raises(ValueError):
        mixture_decomposition([0.8, 0.1, 0.1], 2)


# ------------------------------------------------------------------ samplers
@pytest.mark.parametrize("sampler", ["systematic", "decomposition"])
def test_sampler_marginals(sampler):
    rng = np.random.default_rng(0)
    n, d = 8, 3
    w = _capped_dirichlet(rng, n, d)
    draws = 20000
    counts = np.zeros(n)
    for _ in range(draws):
        S = sample_corner(w, d, rng, sampler=sampler)
        assert S.size == d and np.unique(S).size == d
        counts[S] += 1
    pi = d * w
    # chi-square on the inclusion counts (each indicator is Bernoulli(pi_i))
    var = draws * pi * (1 - pi)
    ok = var > 0
    z = (counts[ok] - draws * pi[ok]) / np.sqrt(var[ok])
    assert np.max(np.abs(z)) < 4.5
    assert np.all(counts[pi >= 1 - 1e-12] == draws)  # capped entries always drawn


def test_systematic_exactly_d_distinct_at_caps():
    rng = np.random.default_rng(1)
    w = cap(np.array([10.0, 10, 10, 1, 1, 1, 1]) / 34, 4)
    for _ in range(500):
        S = systematic_sample(w, 4, rng)
        assert np.unique(S).size == 4
        assert {0, 1, 2} <= set(S.tolist())


# --------------------------------------------------------------- log steps
def test_fixed_share_and_floor():
    rng = np.random.default_rng(2)
    v = rng.dirichlet(np.ones(6))
    out = np.exp(log_fixed_share(np.log(v), 0.1))
    np.testing.assert_allclose(out, 0.1 / 6 + 0.9 * v, rtol=1e-13)
    assert np.array_equal(log_fixed_share(np.log(v), 0.0), np.log(v))
    vv = np.array([0.5, 0.5 - 1e-20, 1e-20])
    fl = np.exp(log_floor(np.log(vv), 1e-10))
    # floored, then renormalised: the sum grew by at most n * floor
    assert fl.min() >= 1e-10 / (1 + 3e-10) and abs(fl.sum() - 1) < 1e-15


def test_spectral_step_order():
    """Fixed share before capping (Yuan & Lamperski) vs after (Warmuth & Kuzmin §8)."""
    mu = np.log(np.array([0.7, 0.2, 0.05, 0.05]))
    d, a = 2, 0.2
    before = np.exp(spectral_step(mu, d, share_before_cap=a))
    after = np.exp(spectral_step(mu, d, share_after_cap=a))
    v = np.exp(mu)
    np.testing.assert_allclose(before, cap(a / 4 + (1 - a) * v, d), rtol=1e-13)
    np.testing.assert_allclose(after, a / 4 + (1 - a) * cap(v, d), rtol=1e-13)
    assert not np.allclose(before, after)


def test_capped_hedge_step_matches_formula():
    rng = np.random.default_rng(3)
    n, d = 7, 4
    w = _capped_dirichlet(rng, n, d)
    loss = rng.uniform(size=n)
    out = np.exp(capped_hedge_step(np.log(w), loss, 0.7, d, fixed_share=0.01))
    v = w * np.exp(-0.7 * loss)
    v /= v.sum()  # erratum E1: the normaliser includes w
    np.testing.assert_allclose(out, cap(0.01 / n + 0.99 * v, d), rtol=1e-12)


# ---------------------------------------------------------------- MEG step
def test_meg_step_first_trial_closed_form():
    """From W = I/n with ||x|| = 1: spectrum {e^-eta, 1, ..., 1} / (e^-eta + n - 1)."""
    n, eta = 6, 0.8
    x = np.random.default_rng(4).standard_normal(n)
    x /= np.linalg.norm(x)
    a = np.full(n, -np.log(n))
    U, mu = meg_eigen_step(np.eye(n), a, eta, z=x)
    w = np.exp(spectral_step(mu, 2))
    expected = np.sort(np.r_[np.exp(-eta), np.ones(n - 1)] / (np.exp(-eta) + n - 1))
    np.testing.assert_allclose(np.sort(w), expected, rtol=1e-12)
    j = np.argmin(w)
    assert abs(abs(U[:, j] @ x) - 1) < 1e-12
    assert np.allclose(U.T @ U, np.eye(n), atol=1e-13)


def test_meg_step_matches_expm_logm():
    from scipy.linalg import expm, logm

    rng = np.random.default_rng(5)
    n = 5
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = rng.dirichlet(np.ones(n))
    W = (Q * lam) @ Q.T
    x = rng.standard_normal(n) / 2
    eta = 1.3
    V = expm(logm(W).real - eta * np.outer(x, x))
    V /= np.trace(V)
    U, mu = meg_eigen_step(Q, np.log(lam), eta, z=Q.T @ x)
    w = np.exp(mu - logsumexp(mu))
    np.testing.assert_allclose((U * w) @ U.T, V, atol=1e-12)
    # the same through a full matrix G = UᵀCU
    C = np.outer(x, x)
    _U2, mu2 = meg_eigen_step(Q, np.log(lam), eta, G=Q.T @ C @ Q)
    np.testing.assert_allclose(mu2, mu, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_rank_one_eigh_matches_eigh(seed):
    """Secular solver: ties (deflated by reflections), zero components, huge spreads."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    dv = np.abs(rng.standard_normal(n)) * 10 ** rng.uniform(0, 3)
    dv[: n // 3] = dv[0]  # a tied eigenspace
    if n > 4:
        dv[3] = dv[2] * (1 + 1e-15)  # a near tie
    z = rng.standard_normal(n)
    z[rng.integers(n)] = 0.0
    rho = 10 ** rng.uniform(-3, 1)
    A = np.diag(dv) + rho * np.outer(z, z)
    lam, Q = rank_one_eigh(dv, z, rho)
    ref = np.linalg.eigvalsh(A)
    scale = np.abs(ref).max()
    np.testing.assert_allclose(lam, ref, atol=1e-13 * scale)
    assert np.max(np.abs(Q.T @ Q - np.eye(n))) < 1e-12
    assert np.max(np.abs(A @ Q - Q * lam)) < 1e-12 * scale


@pytest.mark.parametrize("kind", ["graded z", "clustered", "all deflated"])
@pytest.mark.parametrize("seed", range(6))
def test_rank_one_eigh_hard_cases(kind, seed):
    """Components of z near the deflation threshold, clusters of diagonal entries a few ulps
    to 1e-10 apart, and an update below rounding (every component deflated)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 120))
    dv = np.sort(rng.standard_normal(n)) * 10 ** rng.uniform(-1, 2)
    z = rng.standard_normal(n)
    rho = 10 ** rng.uniform(-3, 1)
    if kind == "graded z":
        z *= 10 ** rng.uniform(-15, 0, n)
    elif kind == "clustered":
        base = rng.standard_normal(n // 8 + 1)
        dv = np.sort(np.resize(np.repeat(base, 8), n) * (1 + rng.standard_normal(n) * 1e-13))
    else:
        rho = 1e-20
    A = np.diag(dv) + rho * np.outer(z, z)
    lam, Q = rank_one_eigh(dv, z, rho)  # RuntimeWarnings are errors in the test suite
    ref = np.linalg.eigvalsh(A)
    scale = np.abs(ref).max()
    np.testing.assert_allclose(lam, ref, atol=1e-13 * scale)
    assert np.max(np.abs(Q.T @ Q - np.eye(n))) < 1e-11
    assert np.max(np.abs(A @ Q - Q * lam)) < 1e-11 * scale


def test_secular_meg_step_matches_eigh():
    rng = np.random.default_rng(9)
    n = 30
    U = np.linalg.qr(rng.standard_normal((n, n)))[0]
    a = np.log(rng.dirichlet(np.ones(n)))
    a[:10] = a[0]
    z = rng.standard_normal(n) / 4
    for eta in (0.7, -0.7):  # the incremental step and the cumulative (positive) update
        U1, mu1 = meg_eigen_step(U, a, eta, z=z)
        U2, mu2 = meg_eigen_step(U, a, eta, z=z, method="secular")
        o1, o2 = np.argsort(mu1), np.argsort(mu2)
        np.testing.assert_allclose(mu2[o2], mu1[o1], atol=1e-13)
        W1 = (U1 * np.exp(mu1)) @ U1.T
        W2 = (U2 * np.exp(mu2)) @ U2.T
        np.testing.assert_allclose(W2, W1, atol=1e-13)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_counts", [False, True])
def test_compiled_spectral_step_matches_the_python_one(seed, with_counts):
    """The compiled per-row step does the Python one's operations in the same order."""
    from skonline.decomposition._capping_fast import spectral_step as compiled

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    counts = np.r_[np.ones(n - 1), rng.integers(1, 40)] if with_counts else None
    total = n if counts is None else counts.sum()
    for d in (1, 2, int(total) - 1):
        for kw in (
            {},
            {"floor": 1e-16},
            {"share_before_cap": 1e-5},
            {"floor": 1e-3 / total, "share_before_cap": 0.1, "share_after_cap": 0.05},
        ):
            mu = rng.standard_normal(n) * 10 ** rng.uniform(-2, 3)
            ref = spectral_step(mu, d, counts=counts, **kw)
            out = compiled(mu, d, counts=counts, **kw)
            # log-weights agree to n · eps relative where the weights are not negligible
            np.testing.assert_allclose(np.exp(out), np.exp(ref), rtol=0, atol=4 * n * EPS)
    with pytest.raises(ValueError, match="cap size"):
        compiled(np.zeros(3), 4)


@pytest.mark.parametrize("share", [0.0, 1e-5, 0.3])
def test_compiled_fixed_share_step_matches_the_python_one(share):
    """The simplex step (softmax then fixed share) is the first half of the spectral step."""
    from skonline.decomposition._capping_fast import fixed_share_step

    from ._capping_reference import log_normalize

    rng = np.random.default_rng(7)
    for n in (2, 5, 40):
        mu = rng.standard_normal(n) * 10 ** rng.uniform(-2, 3)
        ref = log_fixed_share(log_normalize(mu), share)
        out = fixed_share_step(mu, share)
        np.testing.assert_allclose(np.exp(out), np.exp(ref), rtol=0, atol=4 * n * EPS)
