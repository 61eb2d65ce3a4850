"""Density-matrix kernels: the log-domain matrix exponentiated-gradient step.

A density matrix ``W = U diag(exp(a)) Uᵀ`` is held as its eigenvectors ``U``
(orthonormal columns) and its log-eigenvalues ``a``; ``W``, ``log W`` and
``exp`` of a matrix are never formed. The matrix exponentiated-gradient step
of Tsuda, Rätsch & Warmuth (2005), used by Warmuth & Kuzmin (2008, Alg. 5) and
Yuan & Lamperski (2019, Alg. 4-5),

    ``V = exp(log W - eta G) / Tr exp(log W - eta G)``,

becomes one symmetric eigendecomposition in the current eigenbasis:
``diag(a) - eta UᵀGU = Q diag(mu) Qᵀ``, so ``V = (UQ) diag(softmax(mu)) (UQ)ᵀ``.
For a rank-one ``G = x xᵀ`` the matrix is diagonal plus rank one. The
softmax, floor, fixed share and capping of ``mu`` are done in the log domain
by :func:`skonline.utils._capping.spectral_step`.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

__all__ = [
    "dense_from_eigen",
    "log_eigenvalues_from_dense",
    "meg_eigen_step",
    "rank_one_eigh",
    "sign_fixed",
]


def rank_one_eigh(dv, z, rho, U=None):
    """Eigendecomposition of ``diag(dv) + rho z zᵀ`` (``rho >= 0``) by the secular equation.

    Bunch-Nielsen-Sorensen with Gu-Eisenstat's stable eigenvectors: after
    deflation (components of ``z`` below ``8 eps · max(spread, rho)`` and
    diagonal entries closer than that, merged by a Householder reflection,
    which handles the large tied eigenspaces of a density matrix), each root
    of ``1 + rho sum_j z_j²/(d_j - lam) = 0`` comes from LAPACK ``dlasd4``
    together with the differences ``d_j - lam_i`` to full relative accuracy;
    ``z`` is recomputed from the roots (Löwner's formula) so the eigenvectors
    ``(d - lam_i)⁻¹ ẑ`` are orthogonal to working accuracy. ``O(m²)`` for
    ``m`` non-deflated entries, plus ``O(n |group|²)`` for the reflections.

    With ``U`` (orthonormal columns), returns ``U Q`` instead of ``Q``; the
    reflections and the secular eigenvectors are applied to ``U`` directly
    (one ``n × m × m`` product, never ``Q`` then ``U Q``).

    Returns
    -------
    lam : ndarray of shape (n,), ascending
    Q : ndarray of shape (n, n), orthonormal eigenvectors (columns), or ``U Q``
    """
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


def meg_eigen_step(U, a, learning_rate, *, z=None, G=None, method="eigh"):
    """Eigendecomposition of ``log W - eta G`` from ``W = U diag(exp a) Uᵀ``.

    Exactly one of ``z`` (``G = (U z)(U z)ᵀ``, i.e. ``z = Uᵀx`` for a row
    ``x``) or ``G`` (a symmetric matrix already expressed in the basis ``U``,
    ``UᵀCU``) is given.

    Parameters
    ----------
    U : ndarray of shape (n, n)
        Orthonormal eigenvectors of ``W`` (columns).
    a : ndarray of shape (n,)
        Log-eigenvalues of ``W``.
    learning_rate : float
    z : ndarray of shape (n,), optional
    G : ndarray of shape (n, n), optional
    method : {"eigh", "secular"}, default="eigh"
        For a rank-one ``z``: LAPACK's dense ``eigh`` or :func:`rank_one_eigh`.

    Returns
    -------
    U_new : ndarray of shape (n, n)
        ``U Q``: the eigenvectors of ``log W - eta G``.
    mu : ndarray of shape (n,)
        Its eigenvalues, ascending (unnormalised log-weights).
    """
    if (z is None) == (G is None):
        raise ValueError("give exactly one of z and G")
    if z is not None and method == "secular" and z.shape[0] > 1:
        # diag(a) - eta z zᵀ = sign(eta) * (diag(sign(eta) a) + |eta| z zᵀ) with a sign flip
        sgn = 1.0 if learning_rate > 0 else -1.0
        lam, UQ = rank_one_eigh(-sgn * a, z, abs(learning_rate), U=U)
        return UQ, -sgn * lam
    if z is not None:
        M = np.multiply.outer(z, -learning_rate * z)
        M = 0.5 * (M + M.T)
    else:
        M = -learning_rate * 0.5 * (G + G.T)
    M[np.diag_indices_from(M)] += a
    mu, Q = np.linalg.eigh(M)
    return U @ Q, mu


def dense_from_eigen(U, w):
    """``U diag(w) Uᵀ`` (symmetrised)."""
    D = (U * w) @ U.T
    return 0.5 * (D + D.T)


def log_eigenvalues_from_dense(D, *, lower=1e-300):
    """Eigenvectors and log-eigenvalues of a dense density matrix.

    Eigenvalues are clipped below at ``lower`` (rounding can make tiny ones
    negative) and renormalised to sum one.
    """
    lam, U = np.linalg.eigh(0.5 * (D + D.T))
    lam = np.maximum(lam, lower)
    return U, np.log(lam) - np.log(lam.sum())


def sign_fixed(V):
    """Flip each column so that its largest-magnitude entry is positive (``svd_flip``)."""
    V = np.array(V, dtype=np.float64)
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs
