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
    """Orthonormal basis of the top-``k`` eigenvectors of a PSD matrix ``C``.

    Deterministic where the top-``k`` subspace is not unique because ``C`` has
    rank below ``k``: the directions of the null space are completed with the
    standard basis vectors ``e_1, e_2, …`` in order (projected and
    orthonormalised), so ``C = 0`` gives ``span(e_1, …, e_k)`` as in Warmuth &
    Kuzmin's Follow the Leader (their §8, A14).

    Parameters
    ----------
    C : ndarray of shape (n_features, n_features)
        A symmetric positive semi-definite matrix (e.g. a scatter matrix).
    n_components : int
        ``k``, the dimension of the subspace.

    Returns
    -------
    basis : ndarray of shape (n_features, n_components)
        Orthonormal columns, the eigenvectors of the ``k`` largest eigenvalues
        first.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import top_subspace
    >>> top_subspace(np.diag([0.0, 3.0, 1.0]), 1).ravel().round(6).tolist()
    [0.0, 1.0, 0.0]
    >>> top_subspace(np.zeros((3, 3)), 2).round(6).tolist()  # rank 0: e_1, e_2
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
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

    The uncentred compression loss of both online-PCA papers: the squared
    distance of each row to the subspace spanned by ``basis``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows.
    basis : ndarray of shape (n_features, k)
        Orthonormal columns (e.g. ``components_.T`` of a fitted estimator).

    Returns
    -------
    losses : ndarray of shape (n_samples,)
        The loss of each row (non-negative).

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import compression_losses
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> compression_losses(X, np.array([[1.0], [0.0]])).tolist()
    [16.0, 0.0]
    """
    X = check_array(X, dtype=np.float64)
    Z = X @ basis
    return np.maximum(np.einsum("ij,ij->i", X, X) - np.einsum("ij,ij->i", Z, Z), 0.0)


def best_fixed_projection_losses(X, n_components):
    """Per-row losses of the best fixed projection in hindsight (eq. 2 of Yuan & Lamperski).

    ``P*`` projects onto the top-``k`` eigenvectors of the uncentered
    ``Σ_t x_t x_tᵀ`` over all rows; the total of the returned losses is the sum
    of the ``n − k`` smallest eigenvalues of that matrix.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The whole stream.
    n_components : int
        ``k``, the rank of the projection, in ``[1, n_features)``.

    Returns
    -------
    losses : ndarray of shape (n_samples,)
        ``‖x_t − P* x_t‖²`` for every row; their sum is the comparator of the
        regret.

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
        The whole stream.
    n_components : int
        ``k``, the rank of each projection, in ``[1, n_features)``.
    segments : array-like of shape (n_samples,)
        Segment label of each row; rows sharing a label share the projection
        only within one contiguous run (a revisited label is a new segment).

    Returns
    -------
    losses : ndarray of shape (n_samples,)
        The loss of each row under the best fixed projection of its segment.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import best_partition_losses
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> best_partition_losses(X, 1, segments=[0, 0, 1, 1]).tolist()
    [0.0, 0.0, 0.0, 0.0]
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
        The stream, in order.
    n_components : int
        ``k``, the rank of the projection, in ``[1, n_features)``.
    skip_first : bool, default=False
        Record a zero loss for the first ``k`` rows, as Yuan & Lamperski's
        published notebook does (their Fig. 1); off by default (Warmuth &
        Kuzmin's definition).

    Returns
    -------
    losses : ndarray of shape (n_samples,)
        The loss of each row, projected before it is added to the past.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import follow_the_leader_losses
    >>> X = np.tile([0.0, 0.0, 1.0], (3, 1))  # one direction, repeated
    >>> follow_the_leader_losses(X, 1).tolist()  # missed once, then learned
    [1.0, 0.0, 0.0]
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

    Warmuth & Kuzmin's transition time after a shift is the first row at which
    the overlap with the new segment's subspace exceeds 0.9.

    Parameters
    ----------
    A : array-like of shape (n_features, k)
        Orthonormal basis of the first subspace (e.g. ``components_.T``).
    B : array-like of shape (n_features, k)
        Orthonormal basis of the second subspace.

    Returns
    -------
    overlap : float
        The mean squared cosine of the principal angles, in ``[0, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import subspace_overlap
    >>> E = np.eye(3)
    >>> subspace_overlap(E[:, :2], E[:, 1:])  # one of two directions shared
    0.5
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    return float(np.linalg.norm(A.T @ B) ** 2 / A.shape[1])
