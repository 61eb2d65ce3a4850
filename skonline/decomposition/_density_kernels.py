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
by :func:`skonline.decomposition._capping_fast.spectral_step`.
"""

from __future__ import annotations

import numpy as np

from ._density_fast import rank_one_eigh

__all__ = [
    "dense_from_eigen",
    "log_eigenvalues_from_dense",
    "meg_eigen_step",
    "rank_one_eigh",
    "sign_fixed",
]


def meg_eigen_step(
    U: np.ndarray,
    a: np.ndarray,
    learning_rate: float,
    *,
    z: np.ndarray | None = None,
    G: np.ndarray | None = None,
    method: str = "eigh",
) -> tuple[np.ndarray, np.ndarray]:
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
        For a rank-one ``z``: LAPACK's dense ``eigh`` or :func:`rank_one_eigh`
        (compiled: :mod:`skonline.decomposition._density_fast`).

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
        assert G is not None  # exactly one of z and G, checked above
        M = -learning_rate * 0.5 * (G + G.T)
    M[np.diag_indices_from(M)] += a
    mu, Q = np.linalg.eigh(M)
    return U @ Q, mu


def dense_from_eigen(U: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``U diag(w) Uᵀ`` (symmetrised)."""
    D = (U * w) @ U.T
    return 0.5 * (D + D.T)


def log_eigenvalues_from_dense(
    D: np.ndarray, *, lower: float = 1e-300
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvectors and log-eigenvalues of a dense density matrix.

    Eigenvalues are clipped below at ``lower`` (rounding can make tiny ones
    negative) and renormalised to sum one.
    """
    lam, U = np.linalg.eigh(0.5 * (D + D.T))
    lam = np.maximum(lam, lower)
    return U, np.log(lam) - np.log(lam.sum())


def sign_fixed(V: np.ndarray) -> np.ndarray:
    """Flip each column so that its largest-magnitude entry is positive (``svd_flip``)."""
    V = np.array(V, dtype=np.float64)
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs
