"""Frequent-Directions kernels shared by the sketches and the sketched Newton learners.

Pure functions on arrays (they never write into their inputs), except
:func:`append_rows`, which fills the sketch's own preallocated buffer.

Notation follows Luo et al., "Robust Frequent Directions with Application in
Online Learning" (JMLR 2019): ``m`` is the sketch size, a compaction of a buffer
``B̂`` with squared singular values ``λ_1 ≥ λ_2 ≥ …`` keeps ``m - 1`` directions
and subtracts ``δ = λ_m`` from each (the SHRINK step of Algorithms 1, 2, 4, 5).
"""

from __future__ import annotations

import contextlib
import math
import threading

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from threadpoolctl import ThreadpoolController

__all__ = [
    "append_rows",
    "apply_inverse",
    "compact",
    "gram_eigenbasis",
    "shrunk_squares",
    "single_blas_thread",
    "sketch_solve",
    "thin_svd",
]


_CONTROLLER: ThreadpoolController | None = None
_DEPTH = 0  # open contexts of the main thread (they nest)


@contextlib.contextmanager
def single_blas_thread():
    """Context manager limiting BLAS to one thread (a few µs to enter).

    The sketches make many small BLAS/LAPACK calls (a ``2m x 2m`` eigensolver,
    ``2m x d`` products). Measured on 2 cores: one thread is 1.2x (d = 1000)
    to 2x (SVD route) faster than OpenBLAS's default, and does not collapse
    when other processes load the machine.

    The BLAS thread limit is process-wide, and OpenBLAS does not let a
    thread raise a limit that another thread lowered. So only the main thread
    sets and restores the limit (the outermost of nested contexts); in any
    other thread the context changes nothing. Threads training at once thus
    never leave the process on one BLAS thread.
    """
    global _CONTROLLER, _DEPTH
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    limiter = None
    if _DEPTH == 0:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
        limiter = _CONTROLLER.limit(limits=1, user_api="blas")
    _DEPTH += 1
    try:
        yield
    finally:
        _DEPTH -= 1
        if limiter is not None:
            limiter.restore_original_limits()


def thin_svd(B):
    """Thin SVD ``B = U diag(s) Vt`` with the ``gesdd`` driver, ``gesvd`` as fallback.

    ``gesdd`` occasionally fails to converge; ``gesvd`` is slower but robust.
    """
    try:
        return sla.svd(B, full_matrices=False, check_finite=False, lapack_driver="gesdd")
    except np.linalg.LinAlgError:  # pragma: no cover - rare LAPACK failure
        return sla.svd(B, full_matrices=False, check_finite=False, lapack_driver="gesvd")


def shrunk_squares(sq, m, variant="fd", beta=0.2):
    """Squared singular values kept by one compaction, and the shrinkage ``δ``.

    Parameters
    ----------
    sq : ndarray of shape (r,)
        Squared singular values of the buffer, in decreasing order.
    m : int
        Sketch size; at most ``m - 1`` values are kept.
    variant : {"fd", "pfd", "isvd"}
        ``"fd"`` subtracts ``δ = λ_m`` from every kept value (Alg. 1/4; RFD
        uses the same sketch). ``"pfd"`` (parameterized FD, Desai et al. 2016)
        shrinks only the last ``q = max(1, floor(beta * m))`` of the ``m``
        values (``q = 1`` is greedy truncation). ``"isvd"`` truncates without
        shrinking (Alg. 8, no guarantee).
    beta : float
        PFD's proportion of shrunk values.

    Returns
    -------
    kept : ndarray of shape (min(m - 1, r),)
        New squared singular values (non-negative).
    delta : float
        ``λ_m``, or 0 when the buffer has fewer than ``m`` values (a buffer of
        fewer than ``m`` rows is kept whole, as in Algorithm 1 before row ``m``).
    """
    sq = np.maximum(sq, 0.0)
    delta = float(sq[m - 1]) if sq.shape[0] >= m else 0.0
    if sq.shape[0] and delta <= sq.shape[0] * np.finfo(np.float64).eps * float(sq[0]):
        delta = 0.0  # numerically rank < m: rounding noise is not shrinkage (α stays 0)
    k = min(m - 1, sq.shape[0])
    top = sq[:k]
    if variant == "fd":
        # λ_i − λ_m can round below 0 when values tie: clip at 0.
        kept = np.maximum(top - delta, 0.0)
    elif variant == "pfd":
        q = max(1, math.floor(beta * m))
        kept = top.copy()
        first_shrunk = m - q  # 0-based index of the first affected value
        kept[first_shrunk:] = np.maximum(top[first_shrunk:] - delta, 0.0)
    elif variant == "isvd":
        kept = top.copy()
    else:  # pragma: no cover - guarded by parameter validation
        raise ValueError(f"unknown variant {variant!r}")
    return kept, delta


def compact(Bhat, m, variant="fd", beta=0.2, method="gram"):
    """One compaction (SHRINK) of a buffer: at most ``m - 1`` orthogonal rows remain.

    Parameters
    ----------
    Bhat : ndarray of shape (r, d)
        The buffer rows (read only).
    m : int
        Sketch size.
    variant, beta
        See :func:`shrunk_squares`.
    method : {"gram", "svd"}
        ``"svd"``: thin SVD of ``Bhat`` (LAPACK ``gesdd``), the textbook route.
        ``"gram"``: eigendecomposition of the ``r x r`` Gram matrix
        ``Bhat Bhat^T = U Λ U^T``; the new rows are
        ``diag(sqrt(kept / λ)) U_k^T Bhat``, which equals
        ``diag(sqrt(kept)) V_k^T`` without forming ``V`` by a division. It is
        several times faster on the short, wide buffers of FD and reproduces
        the SVD route's ``B^T B`` to rounding relative to ``‖Bhat‖_2^2``. If the
        Gram matrix overflows or the eigensolver fails, the SVD route is used.

    Returns
    -------
    rows : ndarray of shape (k, d), k = min(m - 1, r, d)
        ``diag(sqrt(kept)) V_k^T`` — orthogonal rows.
    kept : ndarray of shape (k,)
        Their squared norms.
    delta : float
        The subtracted ``σ_m^2`` (0 when the buffer has rank < m).
    """
    if method == "gram":
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            G = Bhat @ Bhat.T
        if np.all(np.isfinite(G)):
            try:
                lam, U = sla.eigh(G, check_finite=False, driver="evd")
            except np.linalg.LinAlgError:  # pragma: no cover - LAPACK failure
                pass
            else:
                # Only min(r, d) eigenvalues can be nonzero: keep as many as the
                # thin SVD has, so both routes keep the same number of rows.
                n_values = min(Bhat.shape)
                lam = np.maximum(lam[::-1][:n_values], 0.0)
                U = U[:, ::-1][:, :n_values]
                kept, delta = shrunk_squares(lam, m, variant, beta)
                k = kept.shape[0]
                positive = lam[:k] > 0
                scale = np.zeros(k)
                scale[positive] = np.sqrt(kept[positive] / lam[:k][positive])
                rows = scale[:, None] * (U[:, :k].T @ Bhat)
                return rows, kept, delta
        # Overflowing Gram matrix or failed eigensolver: the SVD route below.
    _, s, Vt = thin_svd(Bhat)
    kept, delta = shrunk_squares(s * s, m, variant, beta)
    rows = np.sqrt(kept)[:, None] * Vt[: kept.shape[0]]
    return rows, kept, delta


def append_rows(buffer, n_rows, X, m, *, variant="fd", beta=0.2, method="gram"):
    """Stream the rows of ``X`` into a sketch buffer, compacting when it is full.

    The buffer is the sketch's own storage (``capacity x d``, float64) and is
    updated in place; ``X`` is only read. Rows are copied in slices of at most
    ``capacity - n_rows`` rows, so a compaction happens exactly when the buffer
    holds ``capacity`` rows, whatever the batch size: the result does not depend
    on how a stream is split into batches. CSR input is densified one slice at
    a time (never the whole batch), so memory stays ``O(capacity · d)``.

    Parameters
    ----------
    buffer : ndarray of shape (capacity, d)
        Rows ``[0, n_rows)`` hold the current sketch.
    n_rows : int
        Number of filled rows.
    X : ndarray or CSR matrix of shape (n, d)
    m : int
        Sketch size; ``capacity`` is ``2 m`` (Alg. 4/5) or ``m`` (Alg. 1/2).
    variant, beta, method
        See :func:`compact`.

    Returns
    -------
    n_rows : int
        Filled rows after the pass.
    deltas : list of float
        The shrinkage ``δ`` of each compaction, in order.
    """
    with single_blas_thread():
        return _append_rows(buffer, n_rows, X, m, variant, beta, method)


def _append_rows(buffer, n_rows, X, m, variant, beta, method):
    capacity = buffer.shape[0]
    n = X.shape[0]
    deltas = []
    start = 0
    sparse = sp.issparse(X)
    while start < n:
        take = min(n - start, capacity - n_rows)
        if take <= 0:
            raise ValueError(
                f"a sketch of capacity {capacity} rows cannot hold the {n_rows} rows that "
                f"sketch size {m} keeps after a compaction"
            )
        stop = start + take
        target = buffer[n_rows : n_rows + take]
        if sparse:
            target[...] = X[start:stop].toarray()
        else:
            target[...] = X[start:stop]
        n_rows += take
        start = stop
        if n_rows == capacity:
            rows, _, delta = compact(buffer, m, variant, beta, method)
            k = rows.shape[0]
            buffer[:k] = rows
            buffer[k:] = 0.0  # keep unused rows canonical (deterministic pickles)
            n_rows = k
            deltas.append(delta)
    return n_rows, deltas


def gram_eigenbasis(G, n_features, alpha, rtol=1e-12):
    """Eigenbasis of a sketch's Gram matrix ``G = BBᵀ`` for solves with ``BᵀB + αI``.

    Returns ``(W, s, nonsingular)``: ``V = Bᵀ W`` has orthonormal columns (the
    right singular vectors of ``B`` with nonzero singular values), ``s`` holds
    their squared singular values, and ``nonsingular`` tells whether
    ``α > rtol · λ_max(G)``. Eigenvalues below ``max(rtol, r·eps) · λ_max``
    count as zero: kept, they carry rounding error that a pseudo-inverse
    amplifies.
    """
    r = G.shape[0]
    if r:
        lam, U = np.linalg.eigh(G)
    else:
        lam, U = np.zeros(0), np.zeros((0, 0))
    lam_max = max(float(lam.max(initial=0.0)), 0.0)
    eps_cut = max(r, n_features) * np.finfo(np.float64).eps
    keep = lam > max(rtol, eps_cut) * lam_max
    s = lam[keep]
    W = U[:, keep] / np.sqrt(s)
    return W, s, bool(alpha > 0 and alpha > rtol * lam_max)


def apply_inverse(B, alpha, basis, V, BV):
    """``(BᵀB + αI)⁻¹ V``, or ``(BᵀB)⁺ V`` when the basis says singular.

    ``V = V_B + V_⊥`` splits into the sketch's row space and its
    complement: ``H⁻¹V = V_B (Σ² + α)⁻¹ V_Bᵀ V + (V − V_B V_BᵀV) / α``. Unlike the
    Woodbury form ``(V − Bᵀ(BBᵀ + αI)⁻¹BV)/α`` (Luo et al. 2019, Appendix A), whose cancellation
    loses about ``κ(H)²·eps``, this loses ``κ(H)·eps``.

    Parameters
    ----------
    B : ndarray of shape (r, d)
    alpha : float
    basis : tuple
        :func:`gram_eigenbasis` of ``BBᵀ``.
    V : ndarray of shape (d,) or (d, k)
    BV : ndarray
        ``B @ V``.
    """
    W, s, nonsingular = basis
    C = W.T @ BV  # V_Bᵀ V
    col = (lambda a: a[:, None]) if C.ndim == 2 else (lambda a: a)
    if nonsingular:
        return B.T @ (W @ (col(1.0 / (s + alpha) - 1.0 / alpha) * C)) + V / alpha
    return B.T @ (W @ (col(1.0 / s) * C))


def sketch_solve(B, alpha, V, *, rtol=1e-12):
    """Solve ``(BᵀB + αI) Z = V`` without forming a ``d x d`` matrix.

    Treated as singular (FD sketches, RFD before its first shrinkage) when
    ``α ≤ rtol · λ_max(BBᵀ)``: then the Moore–Penrose pseudo-inverse
    (Luo et al. 2019, Appendix A, case ``α = 0``). Cost ``O(r d k + r³)`` for
    ``r`` sketch rows and ``k`` right-hand sides. See :func:`apply_inverse`.

    Parameters
    ----------
    B : ndarray of shape (r, d)
    alpha : float
    V : ndarray of shape (d,) or (d, k)
    rtol : float, default=1e-12
    """
    basis = gram_eigenbasis(B @ B.T, B.shape[1], alpha, rtol)
    return apply_inverse(B, alpha, basis, V, B @ V)
