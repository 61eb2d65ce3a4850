"""Comparators of online PCA: per-row compression losses of the papers' baselines.

Losses are the uncentered compression loss ``‖x − P x‖²`` of a rank-``k``
orthogonal projection ``P`` (Warmuth & Kuzmin 2008, §2; Yuan & Lamperski 2019,
eq. 1). Every function returns the per-row losses, so cumulative curves are a
``np.cumsum`` away and regret is a difference of two such curves.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_array

__all__ = [
    "best_fixed_projection_losses",
    "best_partition_losses",
    "compression_losses",
    "follow_the_leader_losses",
    "subspace_overlap",
    "top_subspace",
]

#: Eigenvalues below this fraction of the largest count as zero in ``top_subspace``.
_RANK_RTOL = 1e-10


def _check_k(X, n_components):
    X = check_array(X, dtype=np.float64)
    if not 1 <= n_components < X.shape[1]:
        raise ValueError(
            f"n_components={n_components} must be in [1, n_features) with {X.shape[1]} feature(s)."
        )
    return X


def top_subspace(C, n_components):
    """Orthonormal basis (n, k) of the top-``k`` eigenvectors of a PSD matrix ``C``.

    Deterministic where the top-``k`` subspace is not unique because ``C`` has
    rank below ``k``: the directions of the null space are completed with the
    standard basis vectors ``e_1, e_2, …`` in order (projected and
    orthonormalised), so ``C = 0`` gives ``span(e_1, …, e_k)`` as in Warmuth &
    Kuzmin's Follow the Leader (their §8, A14).
    """
    n = C.shape[0]
    lam, U = np.linalg.eigh((C + C.T) / 2.0)
    top = lam.max(initial=0.0)
    keep = [i for i in range(n - 1, -1, -1) if lam[i] > _RANK_RTOL * top and top > 0]
    basis = U[:, keep[:n_components]]
    for j in range(n):
        if basis.shape[1] == n_components:
            break
        e = np.zeros(n)
        e[j] = 1.0
        r = e - basis @ (basis.T @ e)
        r -= basis @ (basis.T @ r)  # second Gram-Schmidt pass
        norm = np.linalg.norm(r)
        if norm > 1e-8:
            basis = np.column_stack([basis, r / norm])
    return basis


def compression_losses(X, basis):
    """``‖x − P x‖²`` per row for the projection ``P = basis basisᵀ``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    basis : ndarray of shape (n_features, k)
        Orthonormal columns (e.g. ``components_.T`` of a fitted estimator).

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    X = check_array(X, dtype=np.float64)
    Z = X @ basis
    return np.maximum(np.einsum("ij,ij->i", X, X) - np.einsum("ij,ij->i", Z, Z), 0.0)


def best_fixed_projection_losses(X, n_components):
    """Per-row losses of the best fixed projection in hindsight (eq. 2 of Yuan & Lamperski).

    ``P*`` projects onto the top-``k`` eigenvectors of the uncentered
    ``Σ_t x_t x_tᵀ`` over all rows; the total of the returned losses is the sum
    of the ``n − k`` smallest eigenvalues of that matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import best_fixed_projection_losses
    >>> X = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.1]])
    >>> best_fixed_projection_losses(X, 2).round(6).tolist()
    [0.0, 0.0, 0.01]
    """
    X = _check_k(X, n_components)
    return compression_losses(X, top_subspace(X.T @ X, n_components))


def best_partition_losses(X, n_components, segments):
    """Per-row losses of the best projection of each segment (known boundaries).

    The comparator of Warmuth & Kuzmin's shifting experiments (Fig. 6): a batch
    uncentered PCA per segment.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
    segments : array-like of shape (n_samples,)
        Segment label of each row; rows sharing a label share the projection
        only within one contiguous run (a revisited label is a new segment).
    """
    X = _check_k(X, n_components)
    segments = np.asarray(segments)
    if segments.shape != (X.shape[0],):
        raise ValueError("segments must have one label per row.")
    out = np.empty(X.shape[0])
    starts = np.flatnonzero(np.r_[True, segments[1:] != segments[:-1]])
    for a, b in zip(starts, np.r_[starts[1:], X.shape[0]], strict=True):
        out[a:b] = best_fixed_projection_losses(X[a:b], n_components)
    return out


def follow_the_leader_losses(X, n_components, *, skip_first=False):
    """Per-row losses of Follow the Leader: the top-``k`` subspace of the past rows.

    At row ``t`` the projection is onto the top-``k`` eigenvectors of
    ``Σ_{s<t} x_s x_sᵀ`` (uncentered), completed deterministically by
    :func:`top_subspace` while the past has rank below ``k`` (so the first row
    is projected on ``span(e_1, …, e_k)``). One ``n x n`` eigendecomposition per
    row.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
    skip_first : bool, default=False
        Record a zero loss for the first ``k`` rows, as Yuan & Lamperski's
        published notebook does (their Fig. 1); off by default (Warmuth &
        Kuzmin's definition).
    """
    X = _check_k(X, n_components)
    n = X.shape[1]
    C = np.zeros((n, n))
    out = np.empty(X.shape[0])
    for t, x in enumerate(X):
        if skip_first and t < n_components:
            out[t] = 0.0
        else:
            z = top_subspace(C, n_components).T @ x
            out[t] = max(float(x @ x - z @ z), 0.0)
        C += np.outer(x, x)
    return out


def subspace_overlap(A, B):
    """``‖Aᵀ B‖_F² / k``: 1 when two k-dimensional subspaces coincide, 0 when orthogonal.

    ``A`` and ``B`` are (n, k) with orthonormal columns (pass
    ``components_.T``). Warmuth & Kuzmin's transition time after a shift is the
    first row at which the overlap with the new segment's subspace exceeds 0.9.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    return float(np.linalg.norm(A.T @ B) ** 2 / A.shape[1])
