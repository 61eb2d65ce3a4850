"""The compiled secular-equation eigen-update against its textbook transcription.

``textbook_rank_one_eigh`` below is the Python implementation the compiled
kernel (:mod:`skonline.decomposition._density_fast`) replaced, line for line: the
deflation by Householder reflections, one LAPACK ``dlasd4`` call per root
(scipy's Python wrapper), Löwner's ``ẑ`` in logarithms. The compiled kernel
forms ``ẑ`` as a product of ratios (as LAPACK's ``dlasd8``) and must agree to
rounding: eigenvalues to ``n · eps`` relative to the spread, eigenvectors to
``n · eps`` over the smallest relative gap (they are compared through the
reconstructed matrix, which is insensitive to rotations inside ties).
"""

import numpy as np
import pytest
from scipy.linalg import lapack
from skonline.decomposition._density_fast import rank_one_eigh

from skonline import AdaptiveOnlinePCA

EPS = np.finfo(np.float64).eps


def textbook_rank_one_eigh(dv, z, rho, U=None):
    """The Python secular update the compiled kernel replaced (same algorithm, same order)."""
    dv = np.asarray(dv, dtype=np.float64)
    n = dv.shape[0]
    order = np.argsort(dv, kind="stable")
    d = dv[order]
    u = np.array(z, dtype=np.float64)[order]
    nz = float(np.sqrt(u @ u))
    r = rho * nz * nz
    Qs = (np.eye(n) if U is None else np.asarray(U, dtype=np.float64))[:, order]
    lam = d.copy()
    if r > 0:
        u /= nz
        shift = d[0]
        ds = d - shift
        tol = 8 * np.finfo(np.float64).eps * max(ds[-1], r)
        active = np.flatnonzero(r * np.abs(u) > tol)
        keep = []
        start = 0
        while start < active.size:
            stop = start + 1
            while stop < active.size and ds[active[stop]] - ds[active[start]] <= tol:
                stop += 1
            g = active[start:stop]
            if g.size > 1:  # (near-)equal diagonal entries: rotate z onto one of them
                ug = u[g]
                ng = float(np.sqrt(ug @ ug))
                v = ug.copy()
                sgn = 1.0 if ug[-1] >= 0 else -1.0
                v[-1] += sgn * ng
                H = np.eye(g.size) - (2.0 / (v @ v)) * np.outer(v, v)
                Qs[:, g] = Qs[:, g] @ H
                u[g] = 0.0
                u[g[-1]] = -sgn * ng
            keep.append(g[-1])
            start = stop
        J = np.asarray(keep, dtype=np.intp)
        uJ = u[J]
        nJ = float(np.sqrt(uJ @ uJ))
        rJ = r * nJ * nJ
        if rJ <= 0:  # every component deflated: the update is below rounding
            srt = np.argsort(lam, kind="stable")
            return lam[srt], Qs[:, srt]
        uJ = uJ / nJ
        D = np.sqrt(ds[J])
        m = J.size
        Delta = np.empty((m, m))  # Delta[i, j] = D_j² - lam_i
        lamJ = np.empty(m)
        for i in range(m):
            delta, sigma, work, info = lapack.dlasd4(i, D, uJ, rJ)
            if info != 0:
                raise np.linalg.LinAlgError(f"dlasd4 did not converge (info={info})")
            Delta[i] = delta * work
            lamJ[i] = sigma * sigma
        diff = (D[:, None] - D[None, :]) * (D[:, None] + D[None, :])
        np.fill_diagonal(diff, 1.0)
        logz2 = np.log(np.abs(Delta)).sum(axis=0) - np.log(np.abs(diff)).sum(axis=0)
        zhat = np.where(uJ >= 0, 1.0, -1.0) * np.exp(0.5 * (logz2 - np.log(rJ)))
        S = zhat[:, None] / Delta.T  # S[j, i] = ẑ_j / (D_j² - lam_i)
        S /= np.sqrt(np.einsum("ji,ji->i", S, S))
        Qs[:, J] = Qs[:, J] @ S
        lam[J] = lamJ + shift
    srt = np.argsort(lam, kind="stable")
    return lam[srt], Qs[:, srt]


def _case(kind, n, rng):
    dv = rng.standard_normal(n) * 10 ** rng.uniform(-1, 2)
    z = rng.standard_normal(n)
    if kind == "ties":  # a large tied eigenspace, as a density matrix has
        dv[: n // 2] = dv[0]
        dv[n // 2 : n // 2 + 3] = dv[n // 2] * (1 + 1e-15)
    elif kind == "deflated z":
        z[rng.choice(n, size=n // 3, replace=False)] = 0.0
    elif kind == "graded z":
        z *= 10 ** rng.uniform(-15, 0, n)
    return dv, z, 10 ** rng.uniform(-3, 1)


@pytest.mark.parametrize("kind", ["generic", "ties", "deflated z", "graded z"])
@pytest.mark.parametrize("n", [1, 2, 7, 40, 130])
@pytest.mark.parametrize("with_basis", [False, True])
def test_compiled_secular_update_matches_the_transcription(kind, n, with_basis):
    rng = np.random.default_rng(n)
    dv, z, rho = _case(kind, n, rng)
    U = np.linalg.qr(rng.standard_normal((n + 5, n)))[0] if with_basis else None
    lam, Q = rank_one_eigh(dv, z, rho, U=U)
    lam_ref, Q_ref = textbook_rank_one_eigh(dv, z, rho, U=U)
    scale = max(np.abs(lam_ref).max(), 1e-300)
    np.testing.assert_allclose(lam, lam_ref, rtol=0, atol=8 * n * EPS * scale)
    # the same matrix: Q diag(lam) Qᵀ (insensitive to rotations inside ties)
    np.testing.assert_allclose(
        (Q * lam) @ Q.T, (Q_ref * lam_ref) @ Q_ref.T, rtol=0, atol=8 * n * EPS * scale
    )
    basis = np.eye(n) if U is None else U
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), rtol=0, atol=8 * n * EPS)
    A = basis @ (np.diag(dv) + rho * np.outer(z, z)) @ basis.T
    np.testing.assert_allclose(A @ Q, Q * lam, rtol=0, atol=8 * n * EPS * scale)


def test_compiled_update_keeps_the_inputs_and_handles_no_update():
    rng = np.random.default_rng(0)
    dv, z = rng.standard_normal(6), rng.standard_normal(6)
    U = np.linalg.qr(rng.standard_normal((9, 6)))[0]
    saved = dv.copy(), z.copy(), U.copy()
    lam, Q = rank_one_eigh(dv, z, 0.0, U=U)  # rho = 0: a sort
    for a, b in zip(saved, (dv, z, U), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(lam, np.sort(dv))
    np.testing.assert_array_equal(Q, U[:, np.argsort(dv, kind="stable")])


def test_secular_and_dense_solvers_give_the_same_learner():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 30)) * np.linspace(1, 0.1, 30)
    X /= np.linalg.norm(X, axis=1).max()
    dense = AdaptiveOnlinePCA(n_components=3, solver="dense").fit(X)
    secular = AdaptiveOnlinePCA(n_components=3, solver="secular").fit(X)
    np.testing.assert_allclose(secular.cumulative_loss_, dense.cumulative_loss_, rtol=1e-10)
    np.testing.assert_allclose(secular.density_matrix_, dense.density_matrix_, atol=1e-12)
