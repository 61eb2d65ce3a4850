"""FrequentDirections / RobustFrequentDirections against the paper.

Luo et al., "Robust Frequent Directions with Application in Online Learning"
(JMLR 2019). The functions ``textbook_fd`` below are literal transcriptions of
Algorithms 1/2 (one SVD per row) and 4/5 (doubling buffer); the fast kernel is
compared with them on the same stream.
"""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from skonline import FrequentDirections, RobustFrequentDirections
from skonline.decomposition._frequent_directions_kernels import compact, shrunk_squares
from skonline.evaluation import _sketch_metrics, covariance_error


# --------------------------------------------------------------- references
def textbook_fd(A, m, *, doubling=True, robust=False, alpha0=0.0):
    """Literal Alg. 1/2 (``doubling=False``) or Alg. 4/5 (``doubling=True``).

    Returns (B, alpha, number of SVDs).
    """
    d = A.shape[1]
    B = np.zeros((0, d))
    alpha = alpha0
    n_svd = 0
    full = 2 * m if doubling else m
    for a in A:
        Bhat = np.vstack([B, a])  # B̂^(t-1) = [B^(t-1); a^(t)ᵀ]
        if Bhat.shape[0] == full:
            _, s, Vt = np.linalg.svd(Bhat, full_matrices=False)
            sigma_m2 = s[m - 1] ** 2 if len(s) >= m else 0.0
            k = min(m - 1, len(s))
            B = np.sqrt(np.maximum(s[:k] ** 2 - sigma_m2, 0.0))[:, None] * Vt[:k]
            if robust:
                alpha = alpha + sigma_m2 / 2.0
            n_svd += 1
        else:
            B = Bhat
    return B, alpha, n_svd


def tail_bound(A, m):
    """min over k < m of ‖A − A_k‖_F² / (m − k) (FD's bound, eq. 1)."""
    s2 = np.linalg.svd(A, compute_uv=False) ** 2
    return min(s2[k:].sum() / (m - k) for k in range(m))


def estimate(est):
    """The sketched scatter ``BᵀB + αI`` as a dense matrix (through the operator)."""
    return est.covariance_operator() @ np.eye(est.n_features_in_)


def spectral(M):
    e = np.linalg.eigvalsh(M)
    return max(abs(e[0]), abs(e[-1]))


# ------------------------------------------------------ faithful, then fast
@pytest.mark.parametrize("buffer", ["double", "single"])
@pytest.mark.parametrize("compaction", ["gram", "svd"])
@pytest.mark.parametrize("m", [2, 5, 9])
def test_fast_kernel_matches_textbook(buffer, compaction, m, low_rank_plus_noise):
    A = low_rank_plus_noise(n=157, d=23)
    B_ref, alpha_ref, n_svd = textbook_fd(A, m, doubling=buffer == "double", robust=True)
    rfd = RobustFrequentDirections(
        center=False, sketch_size=m, buffer=buffer, compaction=compaction
    ).fit(A)
    B = rfd.sketch_
    scale = np.sum(A * A)
    np.testing.assert_allclose(B.T @ B, B_ref.T @ B_ref, rtol=0, atol=1e-10 * scale)
    assert abs(rfd.alpha_ - alpha_ref) <= 1e-10 * scale
    assert rfd.n_compactions_ == n_svd
    assert B.shape[0] == B_ref.shape[0]


def test_rank_deficient_and_wide_buffers_match_textbook():
    rng = np.random.default_rng(3)
    # rank 2 < m: sigma_m = 0 at every compaction, alpha stays at alpha0 = 0
    A = rng.standard_normal((80, 2)) @ rng.standard_normal((2, 12))
    rfd = RobustFrequentDirections(center=False, sketch_size=4).fit(A)
    B_ref, alpha_ref, _ = textbook_fd(A, 4, robust=True)
    np.testing.assert_allclose(rfd.sketch_.T @ rfd.sketch_, B_ref.T @ B_ref, atol=1e-9)
    assert rfd.alpha_ < 1e-10 * np.sum(A * A) and alpha_ref < 1e-10 * np.sum(A * A)
    # d < 2m: more buffer rows than columns; the sketch is then (nearly) exact
    A = rng.standard_normal((50, 3))
    rfd = RobustFrequentDirections(center=False, sketch_size=5).fit(A)
    np.testing.assert_allclose(estimate(rfd), A.T @ A, atol=1e-9)


def test_doubling_schedule_counts():
    # Algorithm 4 (Appendix A) compacts at t = 2m + j(m + 1): T = 3000, m = 5 gives
    # floor((T - 2m)/(m + 1)) + 1 = 499 compactions.
    A = np.random.default_rng(0).standard_normal((3000, 8))
    fd = FrequentDirections(center=False, sketch_size=5).fit(A)
    assert fd.n_compactions_ == 499
    single = FrequentDirections(center=False, sketch_size=5, buffer="single").fit(A[:100])
    assert single.n_compactions_ == 100 - 5 + 1  # one SVD per row from t = m on


@pytest.mark.parametrize("variant", ["fd", "pfd", "isvd"])
def test_gram_compaction_equals_svd_compaction(variant):
    rng = np.random.default_rng(7)
    buffers = [
        rng.standard_normal((10, 30)),  # generic
        rng.standard_normal((10, 2)) @ rng.standard_normal((2, 30)),  # rank deficient
        rng.standard_normal((10, 4)),  # more rows than columns
        np.vstack([rng.standard_normal((6, 30)), np.zeros((4, 30))]),  # zero rows
    ]
    if variant == "fd":
        # All ties: FD shrinks every tied direction to zero, so BᵀB is unique. For
        # PFD/iSVD the kept subspace among tied values is arbitrary (not comparable).
        buffers.append(np.vstack([np.eye(30)[:5] * 3.0, np.eye(30)[5:10] * 3.0]))
    for Bhat in buffers:
        rows_g, kept_g, delta_g = compact(Bhat, 5, variant, 0.4, method="gram")
        rows_s, kept_s, delta_s = compact(Bhat, 5, variant, 0.4, method="svd")
        scale = np.linalg.norm(Bhat, 2) ** 2
        np.testing.assert_allclose(rows_g.T @ rows_g, rows_s.T @ rows_s, atol=1e-12 * scale)
        assert abs(delta_g - delta_s) <= 1e-12 * scale
        np.testing.assert_allclose(kept_g, kept_s, atol=1e-12 * scale)


def test_compact_does_not_write_into_its_input():
    Bhat = np.random.default_rng(0).standard_normal((8, 12))
    before = Bhat.copy()
    compact(Bhat, 4)
    compact(Bhat, 4, method="svd")
    np.testing.assert_array_equal(Bhat, before)


# ------------------------------------------------------------ guarantees
@pytest.mark.parametrize("m", [4, 8, 16])
def test_fd_bound_and_psd(m, low_rank_plus_noise):
    A = low_rank_plus_noise()
    fd = FrequentDirections(center=False, sketch_size=m).fit(A)
    B = fd.sketch_
    D = A.T @ A - B.T @ B
    eig = np.linalg.eigvalsh(D)
    fro2 = np.sum(A * A)
    assert eig[0] >= -1e-9 * fro2  # Lemma 4 (16): AᵀA − BᵀB ⪰ 0
    assert eig[-1] <= fd.shrinkage_ * (1 + 1e-9)  # AᵀA − BᵀB ⪯ ΔI
    s2 = np.linalg.svd(A, compute_uv=False) ** 2
    for k in range(m):  # eq. (1) for every k < m, through Δ (Lemma 5)
        assert fd.shrinkage_ <= s2[k:].sum() / (m - k) * (1 + 1e-9)
    assert m * fd.shrinkage_ <= fro2 - np.sum(B * B) + 1e-9 * fro2  # (22)


@pytest.mark.parametrize("m", [4, 8, 16])
def test_rfd_bound_is_half_of_fd(m, low_rank_plus_noise):
    A = low_rank_plus_noise()
    fd = FrequentDirections(center=False, sketch_size=m).fit(A)
    rfd = RobustFrequentDirections(center=False, sketch_size=m).fit(A)
    np.testing.assert_array_equal(rfd.sketch_, fd.sketch_)  # the same B
    assert rfd.alpha_ == rfd.shrinkage_ / 2  # exact: halving is exact in binary
    err_fd = spectral(A.T @ A - estimate(fd))
    err_rfd = spectral(A.T @ A - estimate(rfd))
    assert err_rfd <= rfd.alpha_ * (1 + 1e-9)  # Theorem 3 / Corollary 2
    assert err_rfd <= tail_bound(A, m) / 2 * (1 + 1e-9)
    # Paper Fig. 1: the error is about half of FD's on low-rank + noise data
    assert 0.45 <= err_rfd / err_fd <= 0.55


def test_rfd_with_alpha0_targets_shifted_matrix_and_conditioning(low_rank_plus_noise):
    A = low_rank_plus_noise(seed=4)
    alpha0 = 5.0
    m = 6
    rfd = RobustFrequentDirections(center=False, sketch_size=m, alpha0=alpha0).fit(A)
    fd = FrequentDirections(center=False, sketch_size=m).fit(A)
    np.testing.assert_allclose(rfd.alpha_, alpha0 + rfd.shrinkage_ / 2, rtol=1e-12)
    M = A.T @ A + alpha0 * np.eye(A.shape[1])
    assert spectral(M - estimate(rfd)) <= rfd.shrinkage_ / 2 * (1 + 1e-9)
    # Theorem 4: κ(M_RFD) ≤ κ(M_FD) and ≤ κ(M)
    kappa = np.linalg.cond
    M_fd = estimate(fd) + alpha0 * np.eye(A.shape[1])
    assert kappa(estimate(rfd)) <= kappa(M_fd) * (1 + 1e-9)
    assert kappa(estimate(rfd)) <= kappa(M) * (1 + 1e-9)


def test_greedy_failure_fixture_appendix_f():
    """Appendix F (corrected: Ã ∈ R^{(m-1+s) x d}, Ã₁ a = 0): iSVD drops every copy of a."""
    m, s, d, lam, eps = 4, 200, 10, 1.0, 1e-3
    A1 = np.zeros((m - 1, d))
    A1[np.arange(m - 1), np.arange(m - 1)] = lam  # smallest singular value λ
    a = np.zeros(d)
    a[m] = lam - eps  # ‖a‖ = λ − ε and Ã₁ a = 0
    A = np.vstack([A1, np.tile(a, (s, 1))])
    cov = A.T @ A
    isvd = FrequentDirections(center=False, sketch_size=m, variant="isvd", buffer="single").fit(A)
    fd = FrequentDirections(center=False, sketch_size=m, buffer="single").fit(A)
    rfd = RobustFrequentDirections(center=False, sketch_size=m, buffer="single").fit(A)
    err_isvd = spectral(cov - estimate(isvd))
    np.testing.assert_allclose(err_isvd, s * (lam - eps) ** 2, rtol=1e-9)  # all of A₂ lost
    bound = tail_bound(A, m)
    assert spectral(cov - estimate(fd)) <= bound * (1 + 1e-9)
    assert spectral(cov - estimate(rfd)) <= bound / 2 * (1 + 1e-9)
    assert err_isvd > 10 * bound


def test_pfd_limits_and_cfd(low_rank_plus_noise):
    A = low_rank_plus_noise(seed=5)
    m = 6
    fd = FrequentDirections(center=False, sketch_size=m).fit(A)
    pfd_full = FrequentDirections(center=False, sketch_size=m, variant="pfd", beta=1.0).fit(A)
    np.testing.assert_allclose(pfd_full.sketch_, fd.sketch_, atol=1e-12)  # β = 1 is FD
    pfd_one = FrequentDirections(center=False, sketch_size=m, variant="pfd", beta=0.1).fit(A)
    isvd = FrequentDirections(center=False, sketch_size=m, variant="isvd").fit(A)
    np.testing.assert_allclose(pfd_one.sketch_, isvd.sketch_, atol=1e-12)  # q = 1 is iSVD
    kept, delta = shrunk_squares(np.array([9.0, 7.0, 5.0, 3.0, 2.0, 1.0]), 5, "pfd", 0.4)
    # q = floor(0.4 * 5) = 2 affected values (i = 4, 5): the 4th is shrunk, the 5th dropped
    np.testing.assert_allclose(kept, [9.0, 7.0, 5.0, 3.0 - 2.0])
    assert delta == 2.0
    cfd = FrequentDirections(center=False, sketch_size=m, variant="cfd").fit(A)
    np.testing.assert_array_equal(cfd.sketch_, fd.sketch_)
    B = fd.sketch_
    Vt = np.linalg.svd(B, full_matrices=False)[2]
    expected = B.T @ B + fd.shrinkage_ * Vt.T @ Vt
    np.testing.assert_allclose(estimate(cfd), expected, atol=1e-9 * np.sum(A * A))
    cov = A.T @ A
    err = {v: spectral(cov - estimate(e)) for v, e in [("fd", fd), ("cfd", cfd)]}
    err_rfd = spectral(cov - estimate(RobustFrequentDirections(center=False, sketch_size=m).fit(A)))
    assert err["cfd"] <= cfd.shrinkage_ * (1 + 1e-9)  # same bound as FD
    assert err_rfd <= err["cfd"] and err_rfd <= err["fd"]  # paper Fig. 1


# ------------------------------------------------------------ streaming
def test_any_split_is_bit_identical_and_csr_agrees(low_rank_plus_noise):
    A = low_rank_plus_noise(n=300)
    ref = RobustFrequentDirections(center=False, sketch_size=7).fit(A)
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, 300), size=25, replace=False))
    est = RobustFrequentDirections(center=False, sketch_size=7)
    for part in np.split(A, cuts):
        est.partial_fit(part)
    np.testing.assert_array_equal(est.sketch_, ref.sketch_)
    assert est.alpha_ == ref.alpha_ and est.n_compactions_ == ref.n_compactions_
    csr = RobustFrequentDirections(center=False, sketch_size=7, sparse_solver="exact")
    A_csr = sp.csr_matrix(A)
    for start, stop in zip(np.r_[0, cuts], np.r_[cuts, 300], strict=True):
        csr.partial_fit(A_csr[start:stop])
    # CSR rows are compacted at the same rows through sparse products: the
    # same sketch up to rounding (eps · ‖A‖² per Gram entry, n_compactions steps)
    assert csr.n_compactions_ == ref.n_compactions_
    tol = csr.n_compactions_ * A.shape[1] * np.finfo(float).eps * np.sum(A * A)
    np.testing.assert_allclose(estimate(csr), estimate(ref), rtol=0, atol=tol)


def test_csr_input_is_never_densified_as_a_whole():
    # 5000 x 20000 would be 800 MB dense; the sketch needs 2 * 8 rows of 20000.
    X = sp.random(5000, 20000, density=1e-4, format="csr", random_state=0)
    tracemalloc.start()
    fd = FrequentDirections(center=False, sketch_size=8).fit(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 30e6, f"peak {peak / 1e6:.0f} MB"
    assert fd.n_samples_seen_ == 5000


def test_skip_zero_rows_keeps_covariance_with_fewer_compactions(low_rank_plus_noise):
    A = low_rank_plus_noise(n=200)
    Z = np.insert(A, np.arange(0, 200, 2), 0.0, axis=0)  # interleave 100 zero rows
    plain = FrequentDirections(center=False, sketch_size=5).fit(Z)
    skip = FrequentDirections(center=False, sketch_size=5, skip_zero_rows=True).fit(Z)
    direct = FrequentDirections(center=False, sketch_size=5).fit(A)
    np.testing.assert_array_equal(skip.sketch_, direct.sketch_)
    assert skip.n_compactions_ < plain.n_compactions_
    assert skip.n_samples_seen_ == 300
    skip_csr = FrequentDirections(
        center=False, sketch_size=5, skip_zero_rows=True, sparse_solver="exact"
    ).fit(sp.csr_matrix(Z))
    assert skip_csr.n_compactions_ == direct.n_compactions_
    np.testing.assert_allclose(skip_csr.sketch_, direct.sketch_, rtol=0, atol=1e-12 * np.sum(A * A))


def test_merge_of_disjoint_streams_keeps_the_bound(low_rank_plus_noise):
    A = low_rank_plus_noise(n=500, seed=9)
    m = 6
    left = RobustFrequentDirections(center=False, sketch_size=m).fit(A[:230])
    right = RobustFrequentDirections(center=False, sketch_size=m).fit(A[230:])
    right_before = pickle.dumps(right)
    merged = pickle.loads(pickle.dumps(left)).merge(right)
    assert pickle.dumps(right) == right_before  # merge does not touch its argument
    assert merged.n_samples_seen_ == 500
    assert merged.n_compactions_ >= left.n_compactions_ + right.n_compactions_
    np.testing.assert_allclose(merged.alpha_, merged.shrinkage_ / 2, rtol=1e-12)
    D = A.T @ A - (merged.sketch_.T @ merged.sketch_)
    eig = np.linalg.eigvalsh(D)
    assert eig[0] >= -1e-9 * np.sum(A * A)
    assert eig[-1] <= merged.shrinkage_ * (1 + 1e-9)
    assert merged.shrinkage_ <= tail_bound(A, m) * (1 + 1e-9)
    assert spectral(A.T @ A - estimate(merged)) <= merged.shrinkage_ / 2 * (1 + 1e-9)


def test_merge_rejects_incompatible_sketches(low_rank_plus_noise):
    A = low_rank_plus_noise(n=50)
    fd = FrequentDirections(center=False, sketch_size=5).fit(A)
    with pytest.raises(ValueError, match="sketch_size"):
        fd.merge(FrequentDirections(center=False, sketch_size=6).fit(A))
    with pytest.raises(ValueError, match="features"):
        fd.merge(FrequentDirections(center=False, sketch_size=5).fit(A[:, :10]))
    with pytest.raises(TypeError):
        fd.merge(RobustFrequentDirections(center=False, sketch_size=5).fit(A))
    with pytest.raises(ValueError, match="variant"):
        fd.merge(FrequentDirections(center=False, sketch_size=5, variant="cfd").fit(A))


# ------------------------------------------------------ solves and score
def test_solve_matches_dense_linear_algebra(low_rank_plus_noise):
    A = low_rank_plus_noise(n=300, d=30)
    rng = np.random.default_rng(1)
    V = rng.standard_normal((30, 3))
    rfd = RobustFrequentDirections(center=False, sketch_size=6).fit(A)
    assert rfd.alpha_ > 0
    np.testing.assert_allclose(rfd.solve(V), np.linalg.solve(estimate(rfd), V), rtol=1e-8)
    np.testing.assert_allclose(rfd.solve(np.eye(30)) @ estimate(rfd), np.eye(30), atol=1e-8)
    fd = FrequentDirections(center=False, sketch_size=6).fit(A)  # singular: pseudo-inverse
    np.testing.assert_allclose(
        fd.solve(V[:, 0]), np.linalg.pinv(estimate(fd)) @ V[:, 0], rtol=1e-6, atol=1e-12
    )
    low = RobustFrequentDirections(center=False, sketch_size=6).fit(
        A[:8]
    )  # no compaction: alpha = 0
    assert low.alpha_ == 0.0
    np.testing.assert_allclose(
        low.solve(V), np.linalg.pinv(estimate(low)) @ V, rtol=1e-6, atol=1e-12
    )
    with pytest.raises(ValueError, match="n_features"):
        rfd.solve(np.ones(29))
    op = rfd.covariance_operator()
    np.testing.assert_allclose(op @ V[:, 0], estimate(rfd) @ V[:, 0])


def test_score_is_negative_relative_covariance_error(monkeypatch, low_rank_plus_noise):
    A = low_rank_plus_noise(n=400, d=30)
    rfd = RobustFrequentDirections(center=False, sketch_size=6).fit(A)
    expected = covariance_error(A, rfd.sketch_, rfd.alpha_)
    np.testing.assert_allclose(rfd.score(A), -expected, rtol=1e-12)
    np.testing.assert_allclose(rfd.score(sp.csr_matrix(A)), -expected, rtol=1e-12)
    monkeypatch.setattr(_sketch_metrics, "DENSE_MAX_FEATURES", 5)  # force the Lanczos path
    # ARPACK's stopping test: Ritz residual <= tol * |value|, so an eigenvalue lies
    # within that relative distance of the value returned
    np.testing.assert_allclose(rfd.score(A), -expected, rtol=_sketch_metrics.LANCZOS_TOL)
    fd = FrequentDirections(center=False, sketch_size=6).fit(A)
    assert rfd.score(A) > fd.score(A)


@pytest.mark.parametrize("cls", [FrequentDirections, RobustFrequentDirections])
@pytest.mark.parametrize("sparse", [False, True])
def test_covariance_error_agrees_with_the_sketch_on_centring(cls, sparse, low_rank_plus_noise):
    """A centred sketch compared with uncentred data: the right number or a clear warning."""
    A = low_rank_plus_noise(n=400, d=30) + 5.0
    X = sp.csr_matrix(A) if sparse else A
    est = cls(sketch_size=6).fit(A)  # centred by default
    right = covariance_error(X, est)  # the estimator: its mean_, sketch_ and alpha_
    np.testing.assert_allclose(right, -est.score(A), rtol=1e-10)
    np.testing.assert_allclose(
        covariance_error(X, est.sketch_, est.alpha_, mean=est.mean_), right, rtol=1e-12
    )
    with pytest.warns(UserWarning, match="centred data") as record:
        wrong = covariance_error(X, est.sketch_, est.alpha_)
    assert wrong > 10 * right
    assert f"{right:.3g}" in str(record[0].message)  # the message gives the right number
    with pytest.raises(ValueError, match="read from the fitted estimator"):
        covariance_error(X, est, mean=est.mean_)
    # an uncentred sketch of the same data, or a centred one of centred data: no warning
    plain = cls(sketch_size=6, center=False).fit(A)
    centred = A - A.mean(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(
            covariance_error(X, plain), covariance_error(X, plain.sketch_, plain.alpha_)
        )
        covariance_error(centred, cls(sketch_size=6).fit(centred).sketch_)


# ------------------------------------------------- estimator behaviour
def test_components_transform_and_inverse(low_rank_plus_noise):
    A = low_rank_plus_noise(n=300, d=20, rank=3, noise=0.01)
    fd = FrequentDirections(center=False, sketch_size=8, n_components=3).fit(A)
    C = fd.components_
    np.testing.assert_allclose(C @ C.T, np.eye(3), atol=1e-10)
    Z = fd.transform(A)
    assert Z.shape == (300, 3)
    rel = np.linalg.norm(A - fd.inverse_transform(Z)) / np.linalg.norm(A)
    assert rel < 0.01  # the rank-3 signal is recovered
    assert fd.transform(A.astype(np.float32)).dtype == np.float32
    assert fd.singular_values_.shape == (3,)
    assert np.all(np.diff(fd.singular_values_) <= 0)
    with pytest.raises(ValueError, match="n_components_=3"):
        fd.inverse_transform(np.ones((2, 4)))
    # RFD's transform is FD's: the same B
    rfd = RobustFrequentDirections(center=False, sketch_size=8, n_components=3).fit(A)
    np.testing.assert_array_equal(rfd.transform(A), Z)


def test_components_before_enough_rows_are_zero_padded():
    fd = FrequentDirections(center=False, sketch_size=10, n_components=4).fit(np.eye(6)[:2] * 3)
    C = fd.components_
    assert C.shape == (4, 6)
    np.testing.assert_array_equal(C[2:], 0.0)
    np.testing.assert_array_equal(fd.singular_values_, [3.0, 3.0, 0.0, 0.0])


def test_parameter_consistency_errors_keep_state(low_rank_plus_noise):
    A = low_rank_plus_noise(n=60, d=10)
    with pytest.raises(ValueError, match=r"at most min\(sketch_size - 1"):
        FrequentDirections(center=False, sketch_size=4, n_components=4).fit(A)
    with pytest.raises(ValueError, match=r"n_features\) = 10"):
        FrequentDirections(center=False, sketch_size=20, n_components=12).fit(A)
    fd = FrequentDirections(center=False, sketch_size=4).fit(A)
    before = pickle.dumps(fd)
    fd.set_params(sketch_size=5)
    with pytest.raises(ValueError, match="call fit"):
        fd.partial_fit(A)
    fd.set_params(sketch_size=4, variant="pfd")
    with pytest.raises(ValueError, match="call fit"):
        fd.partial_fit(A)
    fd.set_params(variant="fd")
    assert pickle.dumps(fd) == before
    fd.set_params(sketch_size=5).fit(A)  # fit starts a new sketch
    assert fd.sketch_.shape[0] <= 2 * 5 - 1


def test_error_messages_name_the_problem(low_rank_plus_noise):
    A = low_rank_plus_noise(n=60, d=10)
    fd = FrequentDirections(center=False, sketch_size=4).fit(A)
    bad = A.copy()
    bad[0, 0] = 1e300
    with pytest.raises(ValueError, match="too large"):
        fd.partial_fit(bad)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fd.partial_fit(bad)
    with pytest.raises(ValueError, match="10 features"):
        fd.partial_fit(A[:, :9])
    with pytest.raises(ValueError, match="0 sample"):
        fd.partial_fit(A[:0])


# --------------------------------------------------- robustness (review)
def test_float32_csr_input(low_rank_plus_noise):
    A = low_rank_plus_noise(n=100, d=12)
    A32 = A.astype(np.float32)
    dense = RobustFrequentDirections(center=False, sketch_size=4).fit(A32)
    csr = RobustFrequentDirections(center=False, sketch_size=4, sparse_solver="exact")
    csr = csr.fit(sp.csr_matrix(A32))
    np.testing.assert_allclose(csr.sketch_, dense.sketch_, rtol=0, atol=1e-12 * np.sum(A * A))
    assert csr.transform(sp.csr_matrix(A32[:3])).dtype == np.float32


def test_failed_compaction_leaves_state_untouched(monkeypatch, low_rank_plus_noise):
    from skonline.decomposition import _frequent_directions_kernels as _sketch

    A = low_rank_plus_noise(n=200, d=12)
    rfd = RobustFrequentDirections(center=False, sketch_size=4).fit(A[:50])
    before = pickle.dumps(rfd)
    real = _sketch.gram_pass

    def flaky(*args, **kwargs):
        real(*args, **kwargs)  # the pass writes into its own copies, then fails
        raise np.linalg.LinAlgError("simulated LAPACK failure")

    monkeypatch.setattr(_sketch, "gram_pass", flaky)
    with pytest.raises(np.linalg.LinAlgError):
        rfd.partial_fit(A[50:])
    assert pickle.dumps(rfd) == before
    with pytest.raises(np.linalg.LinAlgError):
        rfd.fit(A)  # a failed fit keeps the fitted sketch too
    assert pickle.dumps(rfd) == before


def test_failed_eigensolver_falls_back_to_svd(monkeypatch):
    from skonline.decomposition import _frequent_directions_kernels as _sketch

    Bhat = np.random.default_rng(0).standard_normal((8, 40))
    expected = compact(Bhat, 4, method="svd")

    def broken(*args, **kwargs):
        raise np.linalg.LinAlgError("simulated")

    monkeypatch.setattr(_sketch.sla, "eigh", broken)
    rows, _, delta = compact(Bhat, 4)
    np.testing.assert_array_equal(rows, expected[0])
    assert delta == expected[2]


def test_stream_whose_squares_would_overflow_is_refused():
    # Every entry passes the per-entry guard (1e150), but the squared mass of
    # sketch plus batch would overflow the Gram matrix: refused, state intact.
    fd = FrequentDirections(center=False, sketch_size=4).fit(np.ones((20, 2000)))
    before = pickle.dumps(fd)
    with pytest.raises(ValueError, match="squared Frobenius norm"):
        fd.partial_fit(np.full((10, 2000), 1e149))
    assert pickle.dumps(fd) == before


def test_gram_and_svd_follow_the_same_schedule_when_d_is_small():
    A = np.random.default_rng(1).standard_normal((200, 3))
    for buffer in ("double", "single"):
        g = RobustFrequentDirections(center=False, sketch_size=8, buffer=buffer).fit(A)
        s = RobustFrequentDirections(
            center=False, sketch_size=8, buffer=buffer, compaction="svd"
        ).fit(A)
        assert g.n_compactions_ == s.n_compactions_
        assert g.sketch_.shape == s.sketch_.shape
        assert g.alpha_ == s.alpha_ == 0.0  # rank 3 < m: nothing is ever shrunk
        np.testing.assert_allclose(estimate(g), A.T @ A, rtol=1e-10)


def test_merge_refuses_a_changed_sketch_size_instead_of_looping(low_rank_plus_noise):
    A = low_rank_plus_noise(n=60, d=30)
    small = RobustFrequentDirections(center=False, sketch_size=5).fit(A)
    small.set_params(sketch_size=20)
    with pytest.raises(ValueError, match="call fit"):
        small.merge(RobustFrequentDirections(center=False, sketch_size=20).fit(A))


def test_solve_rejects_scalars_and_warns_for_huge_covariance(monkeypatch, low_rank_plus_noise):
    from skonline.decomposition import _frequent_directions as module

    rfd = RobustFrequentDirections(center=False, sketch_size=4).fit(low_rank_plus_noise(n=50, d=10))
    with pytest.raises(ValueError, match="shape"):
        rfd.solve(1.0)
    monkeypatch.setattr(module, "_DENSE_WARN_FEATURES", 5)
    with pytest.warns(UserWarning, match="dense 10 x 10"):
        rfd.get_covariance()
    with pytest.warns(UserWarning, match="dense 10 x 10"):
        rfd.get_precision()


# --------------------------------------------------------- cached read-outs
def test_read_outs_share_one_svd_per_committed_state(monkeypatch, low_rank_plus_noise):
    from skonline.decomposition import _frequent_directions_kernels as kernels

    A = low_rank_plus_noise(n=120, d=10)
    calls = {"n": 0}
    real = kernels.thin_svd

    def counting(B):
        calls["n"] += 1
        return real(B)

    monkeypatch.setattr(kernels, "thin_svd", counting)
    for est in (FrequentDirections(sketch_size=4, variant="cfd"), RobustFrequentDirections()):
        est.fit(A[:60])
        before = pickle.dumps(est)
        calls["n"] = 0
        expected = est.components_.copy()
        est.explained_variance_ratio_, est.noise_variance_, est.transform(A[:3])
        est.get_covariance(), est.get_precision(), est.solve(np.ones(10)), est.score(A)
        assert calls["n"] == 1
        assert pickle.dumps(est) == before  # the cache is not part of the pickle
        assert pickle.loads(pickle.dumps(est))._state.__dict__.keys() == (
            type(est)().fit(A[:60])._state.__dict__.keys()
        )
        est.partial_fit(A[60:])  # a new state: its own SVD, of the new sketch
        fresh = type(est)(**est.get_params()).fit(A)
        np.testing.assert_array_equal(est.components_, fresh.components_)
        assert not np.array_equal(est.components_, expected)
        assert calls["n"] == 3


# ------------------------------------------------------------- wide sketches
@pytest.mark.parametrize("b, d", [(1, 4), (3, 12), (20, 1000), (56, 5000)])
def test_wide_svd_is_as_accurate_as_lapack_gesdd(b, d):
    """The QR route for wide sketches: backward stable like ``gesdd`` (values over 12 decades)."""
    from skonline.decomposition import _frequent_directions_kernels as kernels

    rng = np.random.default_rng(b)
    B = (rng.standard_normal((b, b)) * np.logspace(0, -12, b)) @ rng.standard_normal((b, d))
    B[-1] *= 0.0 if b > 1 else 1.0  # a zero row, as a compacted sketch has
    assert d >= kernels.WIDE_RATIO * b
    U, s, Vt = kernels.thin_svd(B)
    s0 = np.linalg.svd(B, compute_uv=False)
    eps = np.finfo(np.float64).eps
    # Householder QR, a small SVD and reflectors applied: errors of a few (b + d) eps ||B||
    tol = 10 * (b + np.sqrt(d)) * eps * s0[0]
    assert Vt.shape == (b, d) and U.shape == (b, b)
    np.testing.assert_allclose(s, s0, rtol=0, atol=tol)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(b), rtol=0, atol=10 * (b + np.sqrt(d)) * eps)
    np.testing.assert_allclose(U.T @ U, np.eye(b), rtol=0, atol=10 * b * eps)
    np.testing.assert_allclose((U * s) @ Vt, B, rtol=0, atol=tol)


def test_components_are_computed_once_per_state_and_handed_out_as_copies(
    monkeypatch, low_rank_plus_noise
):
    from skonline.decomposition import _frequent_directions as module

    A = low_rank_plus_noise(n=120, d=10)
    calls = {"n": 0}
    real = module.error_along_components

    def counting(*args):
        calls["n"] += 1
        return real(*args)

    monkeypatch.setattr(module, "error_along_components", counting)
    est = RobustFrequentDirections(n_components=3).fit(A)
    first = est.transform(A[:5])
    for _ in range(3):
        np.testing.assert_array_equal(est.transform(A[:5]), first)
    est.inverse_transform(first), est.explained_variance_
    assert calls["n"] == 1
    components = est.components_
    components[0] *= -1.0  # the user's copy: the estimator does not change
    np.testing.assert_array_equal(est.transform(A[:5]), first)
    est.partial_fit(A[:10])  # a new state: computed again
    est.transform(A[:5])
    assert calls["n"] == 2
