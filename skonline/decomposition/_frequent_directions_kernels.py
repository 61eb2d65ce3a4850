"""Frequent Directions kernels: the passes of the sketches, their compactions and solves.

Pure functions on arrays (they never write into their inputs), except the
passes (:func:`dense_pass`, :func:`sparse_pass`, :func:`randomized_sparse_pass`,
:func:`stacked_rows_pass`), which fill the buffer, the squared norms, the mean
and the per-feature sums of squares of the caller's own copy of a sketch state.

A sketch buffer holds ``n_rows`` rows; the first ``n_orth`` are the sketch left
by the last compaction, orthogonal with known squared norms (``squares``), so
their block of the Gram matrix is diagonal. Rows streamed with centring are
Welford rows ``r_t = sqrt((t-1)/t)(x_t − μ_{t−1})``: ``Σ_t r_t r_tᵀ`` is exactly
the centred scatter ``(A − 1μᵀ)ᵀ(A − 1μᵀ)``, and its singular values are those of
the centred matrix, so Frequent Directions' bound holds for the centred matrix
unchanged.

Notation follows Luo et al., "Robust Frequent Directions with Application in
Online Learning" (JMLR 2019): ``m`` is the sketch size, a compaction of a buffer
``B̂`` with squared singular values ``λ_1 ≥ λ_2 ≥ …`` keeps ``m - 1`` directions
and subtracts ``δ = λ_m`` from each (the SHRINK step of Algorithms 1, 2, 4, 5).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.utils import gen_batches
from sklearn.utils.extmath import svd_flip

from ..base import OnlineState
from ..utils._blas import single_blas_thread
from ..utils._random import copy_generator
from ..utils._rows import BLOCK_ROWS, canonical_csr
from ._frequent_directions_fast import (
    STATUS_DONE,
    VARIANT_CODES,
    ShrinkRule,
    SketchBuffer,
    add_transpose_times_csr,
    csr_column_sums,
    csr_gram,
    csr_gram_times_vector,
    csr_times_dense,
    csr_times_transpose,
    csr_transpose_times_dense,
    gram_pass,
    shrink_squares,
    welford_rows,
)

__all__ = [
    "PendingRows",
    "ShrinkRule",
    "SketchBuffer",
    "SketchState",
    "WelfordBlock",
    "apply_inverse",
    "block_statistics",
    "compact",
    "compact_with_block",
    "dense_pass",
    "error_along_components",
    "finished_state",
    "gram_eigenbasis",
    "merge_states",
    "randomized_sparse_pass",
    "settle_pending",
    "shrunk_squares",
    "sketch_pass",
    "sketch_solve",
    "sketch_svd",
    "sparse_pass",
    "stacked_rows_pass",
    "thin_svd",
]


def thin_svd(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin SVD ``B = U diag(s) Vt`` (float64 ``B``), ``gesdd`` with ``gesvd`` as fallback.

    ``gesdd`` occasionally fails to converge; ``gesvd`` is slower but robust.
    A wide ``B`` (a sketch: ``2m`` rows, ``d >= WIDE_RATIO · 2m`` columns)
    goes through :func:`_wide_svd`, which is faster and as stable.
    """
    if B.shape[0] > 0 and B.shape[1] >= WIDE_RATIO * B.shape[0]:
        return _wide_svd(B)
    return _dense_svd(B)


def _dense_svd(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's thin SVD: ``gesdd``, ``gesvd`` when it fails to converge."""
    try:
        return sla.svd(B, full_matrices=False, check_finite=False, lapack_driver="gesdd")
    except np.linalg.LinAlgError:  # pragma: no cover - rare LAPACK failure
        return sla.svd(B, full_matrices=False, check_finite=False, lapack_driver="gesvd")


#: :func:`thin_svd` factors ``B`` through the QR of ``Bᵀ`` when it has at
#: least this many times more columns than rows. Measured (one BLAS thread,
#: singular values over 12 decades): 1.1-2.2 x faster than ``gesdd`` from
#: ``d = 200`` (``b = 20, 56``) on, 2.7 x at ``56 x 2^20`` (3.5 s against 9.4 s).
WIDE_RATIO = 4


def _wide_svd(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin SVD of a wide ``B`` (``b x d``, ``b <= d``) through the Householder QR of ``Bᵀ``.

    ``Bᵀ = QR`` (``dgeqrf``), the small SVD ``Rᵀ = U diag(s) Wᵀ``, then
    ``Vt = (QW)ᵀ`` with ``Q`` applied as its reflectors (``dormqr``), never
    formed: ``B = Rᵀ Qᵀ = U diag(s) (QW)ᵀ``. Every step is backward stable,
    as ``gesdd`` is (singular values within a few ``ε σ₁``, rows of ``Vt``
    orthonormal to rounding), and the ``d``-long work is two passes of
    blocked Householder updates instead of a bidiagonalisation of ``B``.
    """
    b, d = B.shape
    qr, tau, _, info = sla.lapack.dgeqrf(B.T)
    if info != 0:  # pragma: no cover - only for illegal arguments
        raise np.linalg.LinAlgError(f"dgeqrf failed (info={info})")
    U, s, Wt = _dense_svd(np.triu(qr[:b]).T)  # b x b
    C = np.zeros((d, b), order="F")
    C[:b] = Wt.T
    lwork = int(sla.lapack.dormqr("L", "N", qr, tau, C, -1)[1][0])
    QW, _, info = sla.lapack.dormqr("L", "N", qr, tau, C, max(lwork, b), overwrite_c=1)
    if info != 0:  # pragma: no cover - only for illegal arguments
        raise np.linalg.LinAlgError(f"dormqr failed (info={info})")
    return U, s, QW.T


def sketch_svd(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(s, Vt)``: the thin SVD of the sketch rows ``B``, signs fixed by ``svd_flip``.

    What every read-out of a sketch (components, variances, CFD's estimate)
    is computed from. Columns that are zero in every row are left out of the
    factorisation when they are at least half of them (:data:`TOUCHED_FRACTION`)
    and the others at least as many as the rows (the same number of values).
    """
    if B.shape[0] == 0:
        return np.zeros(0), np.zeros((0, B.shape[1]))
    columns = np.flatnonzero(np.any(B != 0.0, axis=0))
    if not B.shape[0] <= columns.size <= TOUCHED_FRACTION * B.shape[1]:
        U, s, Vt = thin_svd(B)
        U, Vt = svd_flip(U, Vt, u_based_decision=False)
        return s, Vt
    # a sketch of hashed rows: the SVD of its non-zero columns, zeros elsewhere
    # (svd_flip's sign rule reads the largest entries: the same on the columns used)
    U, s, Vt_used = thin_svd(np.ascontiguousarray(B[:, columns]))
    U, Vt_used = svd_flip(U, Vt_used, u_based_decision=False)
    Vt = np.zeros((Vt_used.shape[0], B.shape[1]))
    Vt[:, columns] = Vt_used
    return s, Vt


#: ``error_along_components``: a direction whose ``σ_i²`` is at least this many
#: times the sketch's median ``σ²`` counts as one that stayed in the sketch ...
PERSISTENT_TO_MEDIAN = 12.0
#: ... and one at most this many times as one that churns; the weight of the
#: persistent shrinkage grows with ``log σ_i²`` in between.
CHURNING_TO_MEDIAN = 3.0


def error_along_components(
    s: np.ndarray,
    Vt: np.ndarray,
    m2: np.ndarray,
    shrinkage: float,
    k: int,
    residual: float = 0.0,
) -> np.ndarray:
    """The sketch's estimated error ``e_i ≈ v_iᵀ(S − BᵀB)v_i`` along its top ``k`` directions.

    For Frequent Directions ``0 ⪯ S − BᵀB ⪯ Δ·I``, so the exact eigenvalue
    ``λ_i(S)`` lies in ``[σ_i², σ_i² + Δ]`` (Weyl), and so does
    ``σ_i² + e_i`` for every ``e_i`` in ``[0, Δ]`` returned here: the estimate
    is within ``Δ`` of the exact value whatever the data. Within that
    interval, two facts the sketch knows:

    * a direction that stays in the sketch loses exactly ``δ`` at every
      compaction, so its error is the compactions' part of ``Δ``
      (``Δ − residual``: the certified residuals of randomized sparse blocks
      are mass left outside the range found, not subtracted from the kept
      directions). A direction has stayed when it stands far above the
      churn at the bottom of the sketch: ``σ_i²`` at least
      :data:`PERSISTENT_TO_MEDIAN` times the median ``σ²`` of the sketch's
      non-zero rows;
    * the diagonal of the residual ``S − BᵀB`` is known exactly (``m2``
      minus the diagonal of ``BᵀB``), and ``d_i = Σ_j V_ij² (S − BᵀB)_jj``
      is the error along ``v_i`` when the residual is diagonal in the
      features (exact for coordinate-aligned residuals: one-hot and TF-IDF
      rows; the average residual variance for rotated ones).

    ``e_i = min(Δ, max(d_i, w_i (Δ − residual)))`` with ``w_i`` rising from 0
    at :data:`CHURNING_TO_MEDIAN` times the median to 1 at
    :data:`PERSISTENT_TO_MEDIAN` times it (linear in ``log σ_i²``). Each
    component's estimate depends on the sketch only, not on ``k``. Measured
    in the user guide ("Variances read from a sketch"): the sum over the top
    ``k`` within 20 % of the variance along the components on flat, decaying,
    low-rank, one-hot and TF-IDF data (dense and CSR), except one flat
    spectrum (0.82); single components of a rotated decaying spectrum near
    the sketch's cut can be 2-5× too low (their error is not visible in the
    diagonal).

    Parameters
    ----------
    s, Vt : ndarray
        The sketch's singular values and right singular vectors (all rows).
    m2 : ndarray of shape (d,)
        Exact per-feature sums of squares of the streamed (centred) rows.
    shrinkage : float
        ``Δ``.
    k : int
        Number of directions.
    residual : float, default=0.0
        The part of ``Δ`` that is certified residuals of randomized blocks.

    Returns
    -------
    errors : ndarray of shape (k,)
        ``e_i`` in ``[0, Δ]`` (0 beyond the sketch's rank, and when ``Δ = 0``).
    """
    out = np.zeros(k)
    r = min(k, Vt.shape[0])
    if shrinkage <= 0.0 or r == 0:
        return out
    squares = s * s
    # where m2 is 0 the residual is 0 (clipped): only the other columns count,
    # a few thousand of 2^20 on hashed text
    used = np.flatnonzero(m2)
    V2 = np.square(Vt[:, used])
    residual_diagonal = np.maximum(m2[used] - squares @ V2, 0.0)
    diagonal = V2[:r] @ residual_diagonal
    persistent = max(shrinkage - residual, 0.0)
    nonzero = squares[squares > 0.0]
    if persistent > 0.0 and nonzero.size:
        median = float(np.median(nonzero))
        with np.errstate(divide="ignore"):
            height = np.log(squares[:r] / (CHURNING_TO_MEDIAN * median))
        weight = np.clip(height / np.log(PERSISTENT_TO_MEDIAN / CHURNING_TO_MEDIAN), 0.0, 1.0)
        diagonal = np.maximum(diagonal, weight * persistent)
    out[:r] = np.minimum(diagonal, shrinkage)
    return out


def shrunk_squares(
    sq: np.ndarray, m: int, variant: str = "fd", beta: float = 0.2
) -> tuple[np.ndarray, float]:
    """Squared singular values kept by one compaction, and the shrinkage ``δ``.

    The rule is compiled once (``utils/_shrink.pxd``) for every kernel that
    compacts a sketch; this is its Python face.

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
    if variant not in VARIANT_CODES:  # pragma: no cover - guarded by parameter validation
        raise ValueError(f"unknown variant {variant!r}")
    lam = np.ascontiguousarray(np.maximum(sq, 0.0), dtype=np.float64)
    return shrink_squares(lam, ShrinkRule(m, variant, beta))


def eigenvector_signs(U: np.ndarray) -> np.ndarray:
    """``U`` with each column's largest-magnitude entry made positive.

    The sign of an eigenvector is arbitrary; fixing it makes the sketch rows
    the same whichever way the Gram matrix was computed (dense or sparse rows).
    """
    idx = np.argmax(np.abs(U), axis=0)
    signs = np.where(U[idx, np.arange(U.shape[1])] < 0, -1.0, 1.0)
    return U * signs


def compact(
    Bhat: np.ndarray, m: int, variant: str = "fd", beta: float = 0.2, method: str = "gram"
) -> tuple[np.ndarray, np.ndarray, float]:
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
                rows = scale[:, None] * (eigenvector_signs(U[:, :k]).T @ Bhat)
                return rows, kept, delta
        # Overflowing Gram matrix or failed eigensolver: the SVD route below.
    _, s, Vt = thin_svd(Bhat)
    kept, delta = shrunk_squares(s * s, m, variant, beta)
    rows = np.sqrt(kept)[:, None] * Vt[: kept.shape[0]]
    return rows, kept, delta


# ----------------------------------------------------------------- the passes
#: Rows of a dense batch are centred (Welford) at most this many at a time by the
#: SVD route (memory ``O(block · d)``).
WELFORD_BLOCK_ROWS = 4096


def max_compactions(n_rows: int, n: int, capacity: int, m: int) -> int:
    """Upper bound on the compactions of ``n`` rows streamed into a buffer of ``n_rows``."""
    per = max(capacity - (m - 1), 1)
    return (n_rows + n) // per + 2


def compact_buffer_svd(sketch: SketchBuffer, rule: ShrinkRule) -> float:
    """Compact the full buffer in place by the SVD route; returns the shrinkage ``δ``."""
    rows, kept, delta = compact(sketch.buffer, rule.m, rule.variant, rule.beta, method="svd")
    k = rows.shape[0]
    sketch.buffer[:k] = rows
    sketch.squares[:k] = kept
    sketch.n_rows = sketch.n_orth = k
    return delta


def dense_pass(
    sketch: SketchBuffer,
    X: np.ndarray,
    rule: ShrinkRule,
    *,
    method: str = "gram",
    center: bool = True,
    skip_zero_rows: bool = False,
) -> list[float]:
    """Stream the rows of a dense batch into a sketch (in place).

    Each row is written into the buffer (Welford-centred with ``center``:
    ``r_t = sqrt((t-1)/t)(x_t - μ_{t-1})``, whose outer products sum to the
    centred scatter exactly); a full buffer is compacted. ``"gram"`` runs the
    compiled pass (:func:`skonline.decomposition._frequent_directions_fast.gram_pass`:
    Gram blocks of the new rows only, one ``dsyevd`` per compaction), with the
    SVD route for a compaction whose Gram matrix is not finite or whose
    eigensolver fails; ``"svd"`` compacts by a thin SVD of the buffer (the
    textbook route).

    ``sketch`` (a :class:`SketchBuffer`: the caller's own copies of the state
    arrays) is updated in place; ``X`` is only read. A compaction happens
    exactly when the buffer is full, so any split of a stream into batches
    gives the same sketch bit for bit.

    Returns
    -------
    deltas : list of float
        The shrinkage ``δ`` of each compaction, in order.
    """
    with single_blas_thread(X.shape[0] * X.shape[1]):
        if method == "gram":
            return _gram_dense_pass(sketch, X, rule, center, skip_zero_rows)
        deltas: list[float] = []
        for sl in gen_batches(X.shape[0], WELFORD_BLOCK_ROWS):
            R = welford_rows(sketch, X[sl], center)
            _append_dense_rows(sketch, R, rule, skip_zero_rows, deltas)
        return deltas


def _gram_dense_pass(
    sketch: SketchBuffer, X: np.ndarray, rule: ShrinkRule, center: bool, skip: bool
) -> list[float]:
    out = np.empty(max_compactions(sketch.n_rows, X.shape[0], sketch.buffer.shape[0], rule.m))
    deltas = []
    start = 0
    while True:
        n_done, stop, status = gram_pass(sketch, rule, X, start, center, skip, out)
        deltas.extend(out[:n_done].tolist())
        if status == STATUS_DONE:
            return deltas
        # The Gram matrix overflowed or the eigensolver failed: this compaction by SVD.
        deltas.append(compact_buffer_svd(sketch, rule))
        start = stop


def _append_dense_rows(
    sketch: SketchBuffer, R: np.ndarray, rule: ShrinkRule, skip: bool, deltas: list[float]
) -> None:
    """Append already-streamed rows ``R`` (SVD route), compacting when the buffer is full."""
    capacity = sketch.buffer.shape[0]
    if skip and R.shape[0]:
        R = R[np.any(R != 0, axis=1)]
    start, n = 0, R.shape[0]
    while start < n:
        take = min(n - start, capacity - sketch.n_rows)
        sketch.buffer[sketch.n_rows : sketch.n_rows + take] = R[start : start + take]
        sketch.n_rows += take
        start += take
        if sketch.n_rows == capacity:
            deltas.append(compact_buffer_svd(sketch, rule))


def stacked_rows_pass(sketch: SketchBuffer, rows: np.ndarray, rule: ShrinkRule) -> list[float]:
    """Append rows that are already sketch rows (a merge, a randomized block), in place.

    The rows are not centred again and do not count as samples: the sketch's
    buffer and counters change, its mean, sums of squares and count do not.
    Returns the shrinkages of the compactions.
    """
    d = sketch.buffer.shape[1]
    scratch = SketchBuffer(
        sketch.buffer, sketch.squares, np.zeros(d), np.zeros(d), sketch.n_rows, sketch.n_orth
    )
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    deltas = dense_pass(scratch, rows, rule, center=False)
    sketch.n_rows, sketch.n_orth = scratch.n_rows, scratch.n_orth
    return deltas


# --------------------------------------------------- implicit Welford rows of a block
class CsrRows:
    """Consecutive rows of a canonical CSR matrix as plain arrays (int32 or int64 indices).

    The compiled sparse products of :mod:`skonline.decomposition._frequent_directions_fast` work on
    these; no ``scipy.sparse`` object is built per block.
    """

    def __init__(
        self,
        indptr: np.ndarray,
        indices: np.ndarray,
        data: np.ndarray,
        n_cols: int,
        start: int = 0,
        stop: int | None = None,
    ) -> None:
        stop = indptr.shape[0] - 1 if stop is None else stop
        p0, p1 = indptr[start], indptr[stop]
        self.indptr = indptr[start : stop + 1] - p0
        self.indices = indices[p0:p1]
        self.data = data[p0:p1]
        self.shape = (stop - start, n_cols)

    @classmethod
    def from_csr(cls, X: sp.csr_matrix) -> CsrRows:
        """The rows of ``X``, sharing its arrays: scipy's int32 indices are kept
        (a quarter less memory traffic per pass), anything else becomes int64."""
        both_int32 = X.indptr.dtype == np.int32 and X.indices.dtype == np.int32
        index = np.int32 if both_int32 else np.int64
        return cls(
            X.indptr.astype(index, copy=False),
            X.indices.astype(index, copy=False),
            X.data,
            X.shape[1],
        )

    def rows(self, start: int, stop: int) -> CsrRows:
        return CsrRows(self.indptr, self.indices, self.data, self.shape[1], start, stop)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.indptr, self.indices, self.data

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def toarray(self) -> np.ndarray:
        out = np.zeros(self.shape)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out

    def add_column_sums(self, total: np.ndarray, squares: np.ndarray) -> None:
        """``total += Xᵀ1``, ``squares += (X∘X)ᵀ1`` in place."""
        csr_column_sums(*self.arrays, total, squares)


class PendingRows:
    """CSR rows streamed but not yet compressed: the open block of the randomized solver.

    Held in the state between calls, so that a block is compressed only once
    it holds its full budget of non-zeros (:func:`block_budget`), however the
    stream is cut into calls. One chunk per call, ``(row_nnz, indices,
    data)`` with int64 row lengths and indices; chunks are never written
    into, so a new record shares its predecessor's chunks (appending a call
    costs the call's non-zeros, not the block's). Memory: fewer non-zeros
    than the block budget plus one row.

    The values are input rows, checked finite and bounded by the batch
    validation before they get here; the record has no ``__dict__``
    (``__slots__``), so the commit-time finiteness walk of a new state does
    not scan them again at every call (which would cost the whole open block
    per row when rows arrive one at a time).

    Attributes
    ----------
    chunks : tuple of (ndarray, ndarray, ndarray)
        ``(row_nnz, indices, data)`` of each call's rows, in stream order.
    n_rows : int
        Rows held.
    nnz : int
        Non-zeros held.
    squares : float
        ``Σ x²`` over the held entries (for the magnitude check of the next call).
    """

    __slots__ = ("chunks", "n_rows", "nnz", "squares")

    def __init__(
        self,
        chunks: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...] = (),
        n_rows: int = 0,
        nnz: int = 0,
        squares: float = 0.0,
    ) -> None:
        self.chunks = chunks
        self.n_rows = n_rows
        self.nnz = nnz
        self.squares = squares

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    @classmethod
    def of(cls, X: CsrRows) -> PendingRows:
        """The rows of ``X`` alone (copied: the caller's arrays are not retained)."""
        return cls().appended(X)

    def appended(self, X: CsrRows) -> PendingRows:
        """A new record holding these rows followed by those of ``X``."""
        if X.shape[0] == 0:
            return self
        chunk = (np.diff(X.indptr).astype(np.int64), X.indices.astype(np.int64), X.data.copy())
        return PendingRows(
            chunks=(*self.chunks, chunk),
            n_rows=self.n_rows + X.shape[0],
            nnz=self.nnz + X.nnz,
            squares=self.squares + float(X.data @ X.data),
        )

    def rows(self, n_cols: int, then: CsrRows | None = None) -> CsrRows:
        """The held rows (followed by those of ``then``) as one :class:`CsrRows`."""
        parts = list(self.chunks)
        if then is not None:
            parts.append((np.diff(then.indptr), then.indices, then.data))
        lengths = [np.zeros(1, dtype=np.int64)] + [part[0] for part in parts]
        indptr = np.cumsum(np.concatenate(lengths))
        indices = np.concatenate([np.zeros(0, dtype=np.int64)] + [part[1] for part in parts])
        data = np.concatenate([np.zeros(0)] + [part[2] for part in parts])
        return CsrRows(indptr, indices, data, n_cols)


class WelfordBlock:
    """The Welford rows of consecutive raw rows ``X`` (sparse), never formed densely.

    For rows ``x_1 … x_b`` following ``t0`` rows of sum ``s0``, row ``i`` is
    ``r_i = c_i (x_i − (s0 + Σ_{j<i} x_j) / (t0 + i − 1))`` with
    ``c_i = sqrt((t0+i−1)/(t0+i))``: ``R = T X + u s0ᵀ`` with ``T`` lower
    triangular (a diagonal scaling and a prefix sum) and ``u = −c / (t0+i−1)``.
    Products with ``R`` and ``Rᵀ`` cost ``O(nnz(X))`` per column plus ``O(b + d)``.
    Without centring ``R = X``.

    Parameters
    ----------
    X : CsrRows
        The raw rows.
    t0 : int
        Rows seen before them.
    s0 : ndarray of shape (d,)
        The sum of those rows.
    center : bool
    """

    def __init__(self, X: CsrRows, t0: int, s0: np.ndarray, center: bool) -> None:
        self.X = X
        self.center = center
        self.t0 = t0
        self.s0 = np.asarray(s0, dtype=np.float64)
        b = X.shape[0]
        t = t0 + np.arange(1, b + 1, dtype=np.float64)
        if center:
            self.c = np.sqrt((t - 1.0) / t)
            self.inv = np.where(t > 1.0, 1.0 / np.maximum(t - 1.0, 1.0), 0.0)

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def _t(self, M: np.ndarray) -> np.ndarray:
        """``T M`` along the rows of ``M`` (prefix sums, exclusive)."""
        prefix = np.cumsum(M, axis=0)
        prefix = np.concatenate([np.zeros_like(M[:1]), prefix[:-1]], axis=0)
        return _col(self.c, M) * (M - _col(self.inv, M) * prefix)

    def _t_transpose(self, M: np.ndarray) -> np.ndarray:
        """``Tᵀ M``: the reverse, exclusive prefix sums."""
        y = _col(self.inv * self.c, M) * M
        suffix = np.cumsum(y[::-1], axis=0)[::-1]
        suffix = np.concatenate([suffix[1:], np.zeros_like(M[:1])], axis=0)
        return _col(self.c, M) * M - suffix

    def u(self) -> np.ndarray:
        return -self.c * self.inv

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """``R @ V`` for ``V`` of shape (d, p) or (d,)."""
        V2 = np.ascontiguousarray(V, dtype=np.float64).reshape(self.shape[1], -1)
        XV = csr_times_dense(*self.X.arrays, V2)
        if self.center:
            XV = self._t(XV) + np.multiply.outer(self.u(), self.s0 @ V2)
        return XV if np.ndim(V) == 2 else XV[:, 0]

    def rmatmat(self, W: np.ndarray) -> np.ndarray:
        """``Rᵀ @ W`` for ``W`` of shape (b, p) or (b,)."""
        W2 = np.asarray(W, dtype=np.float64).reshape(self.shape[0], -1)
        M = W2 if not self.center else self._t_transpose(W2)
        out = csr_transpose_times_dense(*self.X.arrays, np.ascontiguousarray(M), self.shape[1])
        if self.center:
            out += np.multiply.outer(self.s0, self.u() @ W2)
        return out if np.ndim(W) == 2 else out[:, 0]

    def times_transpose(self, D: np.ndarray) -> np.ndarray:
        """``R Dᵀ`` for dense ``D`` (r x d), never copying ``Dᵀ``."""
        XD = csr_times_transpose(*self.X.arrays, D)
        if not self.center:
            return XD
        return self._t(XD) + np.outer(self.u(), D @ self.s0)

    def transpose_weights(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(c, M)`` with ``Wᵀ R = Mᵀ X + c s0ᵀ`` (``M = TᵀW``, ``c = uᵀW``)."""
        if not self.center:
            return np.zeros(W.shape[1]), W
        return self.u() @ W, self._t_transpose(W)

    def add_transpose_times(self, out: np.ndarray, M: np.ndarray) -> None:
        """``out += Mᵀ X`` in place (``O(nnz · k)``)."""
        add_transpose_times_csr(out, np.ascontiguousarray(M), *self.X.arrays)

    def scatter_times(self, v: np.ndarray) -> np.ndarray:
        """``RᵀR v`` for ``v`` of shape (d,), in one pass over the non-zeros.

        ``RᵀR`` is what the block adds to the centred scatter (Chan et al.):
        ``XᵀX − b μ_b μ_bᵀ + (t0 b / (t0 + b)) (μ_b − μ_0)(μ_b − μ_0)ᵀ`` with
        ``μ_b`` the block's mean and ``μ_0 = s0 / t0``, so ``XᵀX v`` is one
        fused pass (:func:`csr_gram_times_vector`) instead of ``Xᵀ`` times
        ``X v``. Its rounding error is at most about ``eps · nnz_row ·
        ‖X‖_F²`` (uncentred), see :meth:`scatter_rounding`.
        """
        out = np.zeros(self.shape[1])
        csr_gram_times_vector(*self.X.arrays, np.ascontiguousarray(v, dtype=np.float64), out)
        for direction, weight in self._scatter_terms():
            out += (weight * float(direction @ v)) * direction
        return out

    def _scatter_terms(self) -> tuple[tuple[np.ndarray, float], ...]:
        """The rank-one centring terms ``(u, w)`` of :meth:`scatter_times` (computed once)."""
        cached = getattr(self, "_scatter_cache", None)
        if cached is None:
            cached = ()
            if self.center:
                b, t0 = self.shape[0], self.t0
                col_sum, _ = self.column_sums()
                mean_b = col_sum / b
                cached = ((mean_b, -float(b)),)
                if t0 > 0:
                    delta = mean_b - self.s0 / t0
                    cached += ((delta, t0 * b / (t0 + b)),)
            self._scatter_cache = cached
        return cached

    def column_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """``(Xᵀ1, (X∘X)ᵀ1)`` of the raw rows (computed once)."""
        cached = getattr(self, "_column_sums", None)
        if cached is None:
            col_sum, col_sq = np.zeros(self.shape[1]), np.zeros(self.shape[1])
            self.X.add_column_sums(col_sum, col_sq)
            cached = self._column_sums = (col_sum, col_sq)
        return cached

    def scatter_rounding(self) -> float:
        """A bound on the rounding error of :meth:`scatter_times` in the spectral norm.

        Each entry of ``XᵀXv`` sums at most ``b · nnz_row`` products, and
        the centring terms are rank one: ``4 · (nnz of the longest row + b) ·
        eps · (‖X‖_F² + b ‖μ_b‖² + t0 ‖μ_b − μ_0‖²)`` bounds the error of the
        cancellation however large the uncentred entries are.
        """
        col_sum, col_sq = self.column_sums()
        b = self.shape[0]
        size = float(np.sum(col_sq))
        if self.center:
            mean_b = col_sum / b
            size += b * float(mean_b @ mean_b)
            if self.t0 > 0:
                delta = mean_b - self.s0 / self.t0
                size += self.t0 * float(delta @ delta)
        longest = int(np.max(np.diff(self.X.indptr), initial=0))
        return 4.0 * (longest + b) * np.finfo(np.float64).eps * size

    def product_rounding(self, p: int = 0) -> float:
        """A bound on the rounding error of ``R(Rᵀw)`` (unit ``w``) in the spectral norm.

        Both products are implicit (``R = TX + u s0ᵀ``): sums of at most
        ``K = longest row + 2b + d + p`` products each (the prefix sums of
        ``T``, the sparse rows, the dot with ``s0``; ``p`` for a projection
        on ``p`` orthonormal columns), so the error is at most ``2 K eps``
        times ``‖ |T||X| + |u||s0|ᵀ ‖_F²``. Row ``i`` of ``|T||X|`` is at most
        ``‖x_i‖`` plus the mean norm of the rows before it, whence
        ``‖|T||X|‖_F² ≤ 2 (2 + ln b) ‖X‖_F²``; ``Σ u_i² ≤ 2 / t0``. Without
        centring ``R = X`` and ``K = longest row + b + p``.
        """
        _, col_sq = self.column_sums()
        b, d = self.shape
        longest = int(np.max(np.diff(self.X.indptr), initial=0))
        fro2 = float(np.sum(col_sq))
        if not self.center:
            return 2.0 * (longest + b + p) * np.finfo(np.float64).eps * fro2
        size = 4.0 * (2.0 + math.log(max(b, 1))) * fro2
        if self.t0 > 0:
            size += 4.0 * float(self.s0 @ self.s0) / self.t0
        return 2.0 * (longest + 2 * b + d + p) * np.finfo(np.float64).eps * size

    def gram(self) -> np.ndarray:
        """``R Rᵀ`` (b x b)."""
        Y = csr_gram(*self.X.arrays)
        if not self.center:
            return Y
        TY = self._t(self._t(Y).T)  # T Y Tᵀ (Y symmetric)
        xs = csr_times_dense(*self.X.arrays, self.s0[:, None])[:, 0]
        u = self.u()
        Txs = self._t(xs)
        return TY + np.outer(Txs, u) + np.outer(u, Txs) + float(self.s0 @ self.s0) * np.outer(u, u)

    def dense(self) -> np.ndarray:
        """``R`` as a dense array (small blocks only)."""
        Xd = self.X.toarray()
        if not self.center:
            return Xd
        return self._t(Xd) + np.multiply.outer(self.u(), self.s0)


def _col(v: np.ndarray, M: np.ndarray) -> np.ndarray:
    return v[:, None] if M.ndim == 2 else v


def chan_update(
    mean: np.ndarray,
    m2: np.ndarray,
    count: int,
    col_sum: np.ndarray,
    col_sq: np.ndarray,
    b: int,
    center: bool,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Mean, per-feature sums of squares and count after ``b`` rows of column sums ``col_sum``
    and column sums of squares ``col_sq`` (Chan et al.'s merge; new arrays)."""
    total = count + b
    if b == 0:
        return mean.copy(), m2.copy(), count
    if not center:
        return mean.copy(), m2 + col_sq, total
    block_mean = col_sum / b
    block_m2 = np.maximum(col_sq - b * block_mean * block_mean, 0.0)
    delta = block_mean - mean
    return mean + delta * (b / total), m2 + block_m2 + delta * delta * (count * b / total), total


def block_statistics(
    X: CsrRows, mean: np.ndarray, m2: np.ndarray, count: int, center: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    """Mean, per-feature sums of squares and count after the rows of ``X`` (a :class:`CsrRows`).

    Returns new arrays; equal, up to rounding, to the Welford recursion of
    :func:`dense_pass`.
    """
    col_sum, col_sq = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    X.add_column_sums(col_sum, col_sq)
    return chan_update(mean, m2, count, col_sum, col_sq, X.shape[0], center)


def compact_with_block(
    sketch: SketchBuffer,
    block: WelfordBlock,
    keep: np.ndarray,
    rule: ShrinkRule,
    *,
    out: np.ndarray | None = None,
) -> tuple[int, float]:
    """Compact the sketch's rows together with the rows ``keep`` of a Welford block (in place).

    The Gram matrix of ``[D; R_keep]`` (``D = buffer[:n_rows]``) is built from
    its blocks: diagonal for the ``n_orth`` orthogonal rows, sparse products
    with the block (:class:`WelfordBlock`, ``O(nnz)`` per sketch row). The new
    rows ``diag(sqrt(kept/λ)) Uᵀ [D; R]`` are one dense product with ``D``
    (the centring's rank-one part ``(uᵀW) s0ᵀ`` rides along as one more row)
    plus a sparse one. They are written into ``buffer[:k]``, or into
    ``out[:k]`` when given (``buffer`` is then left as it was, but for its
    row ``n_rows``); the kept squared norms into ``squares[:k]``. Returns
    ``(k, delta)``; the sketch's counters are the caller's to set.
    """
    buffer, squares = sketch.buffer, sketch.squares
    n_rows, n_orth = sketch.n_rows, sketch.n_orth
    m, variant, beta = rule.m, rule.variant, rule.beta
    d = buffer.shape[1]
    D = buffer[:n_rows]
    r, b = n_orth, keep.size
    ng = n_rows + b
    G = np.zeros((ng, ng))
    G[np.arange(r), np.arange(r)] = squares[:r]
    if n_rows > r:
        A = D[r:]
        G[r:n_rows, :r] = A @ D[:r].T
        G[:r, r:n_rows] = G[r:n_rows, :r].T
        G[r:n_rows, r:n_rows] = A @ A.T
    G_rd = block.times_transpose(D)[keep]
    G[n_rows:, :n_rows] = G_rd
    G[:n_rows, n_rows:] = G_rd.T
    G[n_rows:, n_rows:] = block.gram()[np.ix_(keep, keep)]
    lam = None
    if np.all(np.isfinite(G)):
        try:
            lam, U = sla.eigh(G, check_finite=False, driver="evd")
        except np.linalg.LinAlgError:  # pragma: no cover - LAPACK failure
            lam = None
    target = buffer if out is None else out
    if lam is None:  # the SVD route on the materialised rows
        stacked = np.vstack([D, block.dense()[keep]])
        rows, kept, delta = compact(stacked, m, variant, beta, method="svd")
        k = rows.shape[0]
        target[:k] = rows
        squares[:k] = kept
        return k, delta
    n_values = min(ng, d)
    lam = np.maximum(lam[::-1][:n_values], 0.0)
    U = U[:, ::-1][:, :n_values]
    kept, delta = shrunk_squares(lam, m, variant, beta)
    k = kept.shape[0]
    scale = np.zeros(k)
    pos = lam[:k] > 0
    scale[pos] = np.sqrt(kept[pos] / lam[:k][pos])
    W = eigenvector_signs(U[:, :k]) * scale
    W_block = np.zeros((block.shape[0], k))
    W_block[keep] = W[n_rows:]
    coef, M = block.transpose_weights(W_block)
    # rows = W_Dᵀ D + coef s0ᵀ + Mᵀ X: the s0 row goes into the free row n_rows
    buffer[n_rows] = block.s0
    weights = np.vstack([W[:n_rows], coef[None, :]]).T
    if out is None:
        rows = weights @ buffer[: n_rows + 1]
        block.add_transpose_times(rows, M)
        buffer[:k] = rows
    else:
        np.matmul(weights, buffer[: n_rows + 1], out=out[:k])
        block.add_transpose_times(out[:k], M)
    buffer[n_rows] = 0.0
    squares[:k] = kept
    return k, delta


def _kept_rows(X: sp.csr_matrix, count: int, center: bool, skip: bool) -> np.ndarray:
    """Rows of a CSR batch that a pass appends (``skip_zero_rows`` drops the zero rows)."""
    n = X.shape[0]
    if not skip:
        return np.ones(n, dtype=bool)
    if center:  # only the very first row of a stream has a zero Welford row for sure
        keep = np.ones(n, dtype=bool)
        if count == 0 and n:
            keep[0] = False
        return keep
    return np.diff(X.indptr) > 0


def sparse_pass(
    sketch: SketchBuffer,
    X: sp.csr_matrix,
    rule: ShrinkRule,
    *,
    center: bool = True,
    skip_zero_rows: bool = False,
) -> list[float]:
    """Stream the rows of a CSR batch into a sketch, keeping them sparse (in place).

    The same compaction schedule as :func:`dense_pass` (a compaction when the
    buffer would be full), so CSR and dense input give the same sketch up to
    rounding; but the rows of a compaction are never densified: the Gram
    matrix and the new rows come from products with the sparse block
    (:func:`compact_with_block`), ``O(nnz · sketch_size)`` for the new rows'
    part. Centring is implicit (:class:`WelfordBlock`). The rows left over at
    the end of the call (fewer than a compaction needs) are written into the
    buffer densely, as :func:`dense_pass` writes them.

    Returns the shrinkages of the compactions; the sketch gets new ``mean``
    and ``m2`` arrays, its buffer and squared norms are updated in place.
    """
    buffer = sketch.buffer
    capacity, d = buffer.shape
    count, mean = sketch.count, sketch.mean
    keep_all = _kept_rows(X, count, center, skip_zero_rows)
    kept_before = np.concatenate([[0], np.cumsum(keep_all)])
    rows = CsrRows.from_csr(X)
    s_prev = count * mean  # the running sum before this call
    call_sum, call_sq = np.zeros(d), np.zeros(d)
    spare = np.empty_like(buffer)
    deltas = []
    start, n = 0, X.shape[0]
    with single_blas_thread(X.shape[0] * X.shape[1]):
        while start < n:
            need = capacity - sketch.n_rows
            # the block ends at the row that fills the buffer
            stop = int(np.searchsorted(kept_before, kept_before[start] + need, side="left"))
            if stop > n:
                break
            Xb = rows.rows(start, stop)
            block = WelfordBlock(Xb, count + start, s_prev + call_sum, center)
            keep = np.flatnonzero(keep_all[start:stop])
            k, delta = compact_with_block(sketch, block, keep, rule, out=spare)
            sketch.buffer, spare = spare, sketch.buffer
            deltas.append(delta)
            sketch.n_rows = sketch.n_orth = k
            Xb.add_column_sums(call_sum, call_sq)
            start = stop
        if sketch.buffer is not buffer:
            buffer[: sketch.n_rows] = sketch.buffer[: sketch.n_rows]
            sketch.buffer = buffer
        sketch.mean, sketch.m2, sketch.count = chan_update(
            mean, sketch.m2, count, call_sum, call_sq, start, center
        )
        if start < n:  # the rest fits in the buffer: written densely, as dense_pass would
            rest = rows.rows(start, n).toarray()
            deltas += dense_pass(sketch, rest, rule, center=center, skip_zero_rows=skip_zero_rows)
    return deltas


# ------------------------------------------------- randomized sparse blocks
#: A randomized block holds about this many non-zeros per sketch-buffer entry
#: (``RANDOMIZED_BLOCK_NNZ · capacity · d``): Ghashami, Liberty & Phillips
#: (2016) compress a block once its non-zeros reach the size of the sketch.
RANDOMIZED_BLOCK_NNZ = 1.0
#: The last block of a call, shorter than the budget, is compressed only if it
#: holds at least this many buffers of rows (else compacted exactly): on TF-IDF
#: rows, blocks of 2 buffers failed the stable-rank test and cost 2-10x the
#: exact pass, blocks of 6 or more were accurate and faster.
RANDOMIZED_TAIL_ROWS = 4
#: Extra columns of the randomized range finder and its power iterations.
RANGE_OVERSAMPLE = 10
RANGE_POWER_ITERATIONS = 1
#: Lanczos steps of the residual check, and its relative margin ``ε``: the
#: largest Ritz value divided by ``1 − ε`` is an upper bound on the residual's
#: squared norm unless the Krylov estimate from a random start is more than
#: ``ε`` short, which has probability at most ``1.648 · sqrt(d) · exp(−(2q − 1)
#: sqrt(ε))`` (Kuczyński & Woźniakowski 1992): with ``q = 30`` and ``ε = 0.1``,
#: below ``2e-6`` for ``d ≤ 20000`` and ``1.3e-5`` for ``d = 10⁶``.
RESIDUAL_LANCZOS_STEPS = 30
RESIDUAL_MARGIN = 0.1
#: The residual certificate runs in the row space (``b x b``) when the block
#: has fewer rows than columns and at most this many non-zeros per column.
#: Measured per Lanczos step (p = 30): the two sparse passes of the row space
#: cost about 3x the fused column-space pass per non-zero, the column space
#: about 0.6 ns per column and projection: 100 rows x 2^15 columns (2800
#: non-zeros) 0.08 ms against 0.31 ms, 2000 x 2^15 (56 000) 0.55 against
#: 0.44 ms plus its reorthogonalisation, 4000 x 20 000 (800 000) 4.4 against 1.4 ms.
ROW_SPACE_NNZ_PER_COLUMN = 1.0
#: A Gram-Schmidt pass that leaves less than this fraction of the vector's
#: norm lost digits to cancellation and is repeated (``1/sqrt(2)``, DGKS).
REORTHOGONALISE_BELOW = 1.0 / math.sqrt(2.0)


def largest_eigenvalue_bound(
    apply: Callable[[np.ndarray], np.ndarray],
    d: int,
    rng: np.random.Generator,
    steps: int = RESIDUAL_LANCZOS_STEPS,
) -> float:
    """Lanczos (full reorthogonalisation) on a PSD operator from a Gaussian start.

    Returns the largest Ritz value divided by ``1 − RESIDUAL_MARGIN``: an upper
    bound on the largest eigenvalue with high probability (see
    :data:`RESIDUAL_MARGIN`), never below the largest Ritz value.
    """
    n_steps = min(steps, d)
    basis = np.zeros((n_steps + 1, d))
    v = rng.standard_normal(d)
    basis[0] = v / np.linalg.norm(v)
    alphas: list[float] = []
    betas: list[float] = []
    for j in range(n_steps):
        w = apply(basis[j])
        alphas.append(float(basis[j] @ w))
        Q = basis[: j + 1]
        # full reorthogonalisation: classical Gram-Schmidt, repeated when it
        # cancelled more than REORTHOGONALISE_BELOW of the norm (Daniel, Gragg,
        # Kaufman & Stewart 1976: twice is enough)
        before = float(np.linalg.norm(w))
        w -= Q.T @ (Q @ w)
        beta = float(np.linalg.norm(w))
        if beta < REORTHOGONALISE_BELOW * before:
            w -= Q.T @ (Q @ w)
            beta = float(np.linalg.norm(w))
        if beta <= 1e-14 * max(abs(alphas[-1]), 1e-300):
            break
        betas.append(beta)
        basis[j + 1] = w / beta
    k = len(alphas)
    T = np.diag(alphas) + np.diag(betas[: k - 1], 1) + np.diag(betas[: k - 1], -1)
    top = float(np.linalg.eigvalsh(T)[-1]) if k else 0.0
    return max(top, 0.0) / (1.0 - RESIDUAL_MARGIN)


def _orthonormal_columns(Y: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the columns of ``Y`` (economic Householder QR)."""
    Q, _ = sla.qr(Y, mode="economic", check_finite=False)
    return Q


def randomized_block_rows(
    block: WelfordBlock, fro2: float, m: int, rng: np.random.Generator
) -> tuple[np.ndarray, float] | None:
    """Compress a Welford block by a randomized range finder; certify the residual.

    Returns ``(P, residual)`` with ``P = Zᵀ R`` (``p`` rows, ``Z`` an
    orthonormal basis found from ``R Ω``) and ``residual`` an upper bound
    (with high probability) on ``‖R − Z Zᵀ R‖₂²``; or ``None`` when the
    residual's stable rank is below ``m``, i.e. ``‖R − ZZᵀR‖_F² < m ·
    residual`` (then the block must be compacted exactly). ``fro2`` is
    ``‖R‖_F²``.

    Why the stable rank: Frequent Directions' bound follows from every step
    removing at least ``m`` times its spectral error in squared Frobenius
    norm. Replacing ``R`` by ``P`` is such a step (its error ``Rᵀ(I − ZZᵀ)R``
    is positive semi-definite, of trace ``‖R‖_F² − ‖P‖_F²``), so the sketch
    keeps FD's bound whenever this holds.
    """
    b, d = block.shape
    p = min(m + RANGE_OVERSAMPLE, b, d)
    for attempt in range(3):
        Z = _orthonormal_columns(block.matmat(rng.standard_normal((d, p))))
        for _ in range(RANGE_POWER_ITERATIONS + attempt):
            # one power step R(RᵀZ), orthonormalised in the short (b x p) space only:
            # RᵀZ has orthonormal-column input, so its columns lose no digits
            Z = _orthonormal_columns(block.matmat(block.rmatmat(Z)))
        P = block.rmatmat(Z).T
        tail = fro2 - float(np.sum(P * P))
        residual = _residual_bound(block, Z, P, rng)
        rounding = max(b, d) * np.finfo(np.float64).eps * fro2
        if residual <= rounding or m * residual <= tail:
            return P, residual
        p = min(2 * p, b, d)
    return None


def _residual_bound(
    block: WelfordBlock, Z: np.ndarray, P: np.ndarray, rng: np.random.Generator
) -> float:
    """A certified bound on ``‖R − ZZᵀR‖₂²`` (``P = ZᵀR``), in the shorter of the block's spaces.

    ``Rᵀ(I − ZZᵀ)R`` (d x d) and ``(I − ZZᵀ)RRᵀ(I − ZZᵀ)`` (b x b) are ``MᵀM``
    and ``MMᵀ`` for ``M = (I − ZZᵀ)R``: the same non-zero eigenvalues. Lanczos
    runs in the row space when the block has fewer rows than columns and at
    most :data:`ROW_SPACE_NNZ_PER_COLUMN` non-zeros per column (an open block
    read out early on wide rows): a step then costs two sparse passes and
    ``O(b·p + d)`` instead of the fused pass and ``O(p·d)`` of projections
    and reorthogonalisation on ``d``-long vectors, and the failure
    probability of the Krylov estimate (``∝ sqrt(n)``) is smaller. Each route
    adds the rounding bound of the products it computes.
    """
    b, d = block.shape
    if b < d and block.X.nnz <= ROW_SPACE_NNZ_PER_COLUMN * d:

        def row_gram(w: np.ndarray) -> np.ndarray:
            w = w - Z @ (Z.T @ w)
            y = block.matmat(block.rmatmat(w))
            return y - Z @ (Z.T @ y)

        return largest_eigenvalue_bound(row_gram, b, rng) + block.product_rounding(Z.shape[1])

    def residual_gram(v: np.ndarray) -> np.ndarray:
        # Rᵀ(I − ZZᵀ)R v = RᵀR v − Pᵀ(P v): one fused pass over the block
        return block.scatter_times(v) - P.T @ (P @ v)

    return largest_eigenvalue_bound(residual_gram, d, rng) + block.scatter_rounding()


def block_budget(capacity: int, n_features: int) -> float:
    """Non-zeros of a randomized block: ``RANDOMIZED_BLOCK_NNZ · capacity · n_features``."""
    return RANDOMIZED_BLOCK_NNZ * capacity * n_features


#: A randomized block runs on the columns it can change (those the sketch,
#: its mean or its sums of squares have touched, and the block's own) when
#: these are at most this fraction of all: hashed text touches a few
#: thousand of 2^18-2^20 columns, and the dense work of a block (the range
#: finder's Gaussian matrix, the projected rows, the compactions, the
#: certificate's vectors) is then that of the columns in use, not of ``d``.
TOUCHED_FRACTION = 0.5


def touched_columns(sketch: SketchBuffer, X: CsrRows) -> np.ndarray | None:
    """The sorted columns a block of rows ``X`` can change, or ``None`` when they are most of them.

    Every other column is zero in the sketch's rows, its mean and its sums of
    squares, and stays zero: the block's pass on the touched columns alone
    gives the same sketch (up to the summation order of the products).
    """
    d = sketch.buffer.shape[1]
    touched = (sketch.mean != 0.0) | (sketch.m2 != 0.0)
    if sketch.n_rows:
        touched |= np.any(sketch.buffer[: sketch.n_rows] != 0.0, axis=0)
    touched[X.indices] = True
    columns = np.flatnonzero(touched)
    return columns if columns.size <= TOUCHED_FRACTION * d else None


def _restricted(sketch: SketchBuffer, X: CsrRows, columns: np.ndarray) -> SketchBuffer:
    """A :class:`SketchBuffer` on copies of ``sketch``'s arrays restricted to ``columns``."""
    return SketchBuffer(
        np.ascontiguousarray(sketch.buffer[:, columns]),
        sketch.squares.copy(),
        sketch.mean[columns],
        sketch.m2[columns],
        sketch.n_rows,
        sketch.n_orth,
        sketch.count,
    )


def _columns_of(X: CsrRows, columns: np.ndarray) -> CsrRows:
    """The rows ``X`` with their column indices renumbered into ``columns`` (holding them all)."""
    indices = np.searchsorted(columns, X.indices).astype(X.indices.dtype, copy=False)
    return CsrRows(X.indptr, indices, X.data, columns.size)


def _expand_into(whole: SketchBuffer, part: SketchBuffer, columns: np.ndarray) -> None:
    """Write the restricted pass ``part`` back into ``whole``, in place.

    ``whole``'s rows below its ``n_rows`` are zero outside ``columns`` (they
    are not touched); the rows above may hold what an earlier block of the
    pass left there, so they are cleared before the new rows are written.
    """
    whole.buffer[whole.n_rows :] = 0.0
    whole.buffer[:, columns] = part.buffer
    mean, m2 = whole.mean.copy(), whole.m2.copy()
    mean[columns], m2[columns] = part.mean, part.m2
    whole.squares, whole.mean, whole.m2 = part.squares, mean, m2
    whole.n_rows, whole.n_orth, whole.count = part.n_rows, part.n_orth, part.count


def randomized_sparse_pass(
    sketch: SketchBuffer,
    X: CsrRows,
    rule: ShrinkRule,
    *,
    rng: np.random.Generator,
    center: bool = True,
    final: bool = True,
) -> tuple[list[float], int, list[float]]:
    """Stream a CSR batch by randomized blocks (sparse Frequent Directions).

    Ghashami, Liberty & Phillips (2016): consecutive rows are gathered into
    blocks of about ``capacity · d`` non-zeros; each block ``R`` is replaced
    by ``p = sketch_size + 10`` rows ``Zᵀ R`` from a randomized range finder
    (two power iterations, ``O(nnz · p)``), which are then streamed into the
    dense sketch. A block's residual ``‖R − ZZᵀR‖₂²`` is estimated by the power
    method and added to the shrinkage; a block is accepted only if its
    residual's stable rank is at least ``m`` (else it is compacted exactly,
    :func:`compact_with_block` in buffer-sized pieces). Then every step removes
    ``m`` times its error, and FD's bound ``‖AᵀA − BᵀB‖₂ ≤ Δ ≤ ‖A − A_k‖_F²/(m − k)``
    holds whenever the residual estimates are upper bounds (with high
    probability). The time follows ``nnz``, not ``n · d``.

    A block ends at the row whose non-zeros reach the budget
    (:func:`block_budget`), counted from the first row after the last
    compressed block, so the blocks do not depend on how the stream is cut
    into calls. With ``final=False`` an incomplete last block is left alone
    (the caller keeps its rows, :class:`PendingRows`); with ``final=True`` it
    is compressed, or compacted exactly when short. ``X`` holds the rows
    from the start of the open block, ``sketch.count`` counts the rows
    before it.

    Returns the shrinkages (and certified residuals) in order, the index of
    the first row left alone (``X.shape[0]`` when ``final``) and the
    certified residuals alone (also among the shrinkages); the sketch gets
    new ``mean`` and ``m2`` arrays, its buffer and squared norms are updated
    in place.
    """
    capacity, d = sketch.buffer.shape
    m = rule.m
    budget = block_budget(capacity, d)
    indptr = X.indptr
    rows = X
    deltas: list[float] = []
    residuals: list[float] = []
    start, n = 0, X.shape[0]
    with single_blas_thread(X.shape[0] * X.shape[1]):
        while start < n:
            stop = int(np.searchsorted(indptr, indptr[start] + budget, side="left"))
            if stop > n and not final:
                break  # the open block: its rows wait for the next call
            stop = min(max(stop, start + 1), n)
            whole, Xb = sketch, rows.rows(start, stop)
            columns = touched_columns(sketch, Xb)
            if columns is not None:  # the block's work on the columns it can change
                sketch, Xb = _restricted(whole, Xb, columns), _columns_of(Xb, columns)
            count, mean, m2 = sketch.count, sketch.mean, sketch.m2
            block = WelfordBlock(Xb, count, count * mean, center)
            new_moments = block_statistics(Xb, mean, m2, count, center)
            fro2 = float(np.sum(new_moments[1]) - np.sum(m2))
            b = stop - start
            if b <= capacity - sketch.n_rows:
                compressed = None  # fits in the buffer as it is: no need to compress
            elif Xb.nnz < budget and b < RANDOMIZED_TAIL_ROWS * capacity:
                # A short last block (a small partial_fit batch): its residual
                # rarely reaches stable rank m, and the attempts cost more than
                # the exact compactions (measured: 2-10x on TF-IDF rows).
                compressed = None
            else:
                compressed = randomized_block_rows(block, max(fro2, 0.0), m, rng)
            if compressed is None:
                deltas += _exact_block(sketch, block, np.arange(b), rule)
            else:
                P, residual = compressed
                deltas += stacked_rows_pass(sketch, P, rule)
                deltas.append(residual)
                residuals.append(residual)
            sketch.mean, sketch.m2, sketch.count = new_moments
            if columns is not None:
                _expand_into(whole, sketch, columns)
                sketch = whole
            start = stop
    return deltas, start, residuals


def _exact_block(
    sketch: SketchBuffer, block: WelfordBlock, keep: np.ndarray, rule: ShrinkRule
) -> list[float]:
    """A Welford block through exact compactions, at most a buffer's worth of rows at a time.

    The sketch's buffer and counters change; its mean, sums of squares and
    count are the caller's to update.
    """
    buffer = sketch.buffer
    capacity = buffer.shape[0]
    deltas: list[float] = []
    if keep.size < capacity - sketch.n_rows:  # fits, the buffer not full: dense rows appended
        rows = block.dense()[keep]
        k = rows.shape[0]
        buffer[sketch.n_rows : sketch.n_rows + k] = rows
        sketch.n_rows += k
        return deltas
    # pieces of consecutive rows, each filling the buffer (the last one appended)
    Xb = block.X
    n = Xb.shape[0]
    partial = np.zeros(block.shape[1])
    start = 0
    while start < n:
        need = capacity - sketch.n_rows
        if need == 0:  # a full buffer (left by an earlier call): compacted first
            deltas.append(compact_buffer_svd(sketch, rule))
            continue
        stop = min(start + need, n)
        piece_rows = Xb.rows(start, stop)
        piece = WelfordBlock(piece_rows, block.t0 + start, block.s0 + partial, block.center)
        if stop - start < need:
            dense = piece.dense()
            buffer[sketch.n_rows : sketch.n_rows + dense.shape[0]] = dense
            sketch.n_rows += dense.shape[0]
        else:
            k, delta = compact_with_block(sketch, piece, np.arange(stop - start), rule)
            deltas.append(delta)
            sketch.n_rows = sketch.n_orth = k
        piece_rows.add_column_sums(partial, np.zeros(block.shape[1]))
        start = stop
    return deltas


def gram_eigenbasis(
    G: np.ndarray, n_features: int, alpha: float, rtol: float = 1e-12
) -> tuple[np.ndarray, np.ndarray, bool]:
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


def apply_inverse(
    B: np.ndarray,
    alpha: float,
    basis: tuple[np.ndarray, np.ndarray, bool],
    V: np.ndarray,
    BV: np.ndarray,
) -> np.ndarray:
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


def sketch_solve(B: np.ndarray, alpha: float, V: np.ndarray, *, rtol: float = 1e-12) -> np.ndarray:
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


# ------------------------------------------------- the state and its passes
@dataclass(kw_only=True, eq=False)
class SketchState(OnlineState):
    """Learned state of a Frequent Directions sketch.

    Attributes
    ----------
    buffer : ndarray of shape (capacity, n_features)
        Rows ``[0, n_rows)`` hold the sketch ``B``; the rest are zeros.
    squares : ndarray of shape (capacity,)
        Squared norms of the first ``n_orth`` rows, which are orthogonal (the
        rows kept by the last compaction); the rest are zeros.
    n_rows, n_orth : int
    sketch_size : int
        The sketch size ``m`` (``"auto"`` resolved at the first call).
    mean : ndarray of shape (n_features,)
        Mean of the rows seen (zeros without centring).
    m2 : ndarray of shape (n_features,)
        Per-feature sums of the squared streamed rows: the diagonal of the
        exact (centred) scatter matrix.
    n_compactions : int
    shrinkage : float
        ``Δ``, the sum of the subtracted ``σ_m²`` (and of the certified
        residuals of randomized sparse blocks).
    residual : float
        The certified residuals' part of ``shrinkage``: mass left outside the
        ranges found, not subtracted from the directions the sketch keeps
        (0 without randomized blocks). Read-outs only
        (:func:`error_along_components`).
    alpha : float
        The ridge term (``alpha0 + Δ/2`` for RFD, 0 for FD).
    rng : numpy.random.Generator or None
        Draws the random test matrices of randomized sparse blocks.
    sparse_solver : {"exact", "randomized"}
        How CSR rows are compacted (the estimator's ``"auto"`` resolved at
        the first call).
    pending : PendingRows or None
        The randomized solver's open block: CSR rows streamed (they count in
        ``n_samples_seen``) but not yet in the sketch, nor in ``mean`` and
        ``m2``, which describe the ``n_samples_seen − pending.n_rows`` rows
        before them. Read-outs use :meth:`settled`.

    Notes
    -----
    A committed state is never written into, so the SVD of its sketch, which
    every read-out needs, is computed once and cached on the object
    (:meth:`svd`), as is the state with its pending rows settled
    (:meth:`settled`). The caches are not part of the state: they are left out
    of pickles and copies, and a state made by :func:`dataclasses.replace`
    starts without them.
    """

    buffer: np.ndarray
    squares: np.ndarray
    n_rows: int = 0
    n_orth: int = 0
    sketch_size: int
    mean: np.ndarray
    m2: np.ndarray
    n_compactions: int = 0
    shrinkage: float = 0.0
    residual: float = 0.0
    alpha: float = 0.0
    rng: np.random.Generator | None = None
    sparse_solver: str = "exact"
    pending: PendingRows | None = None

    @property
    def n_pending(self) -> int:
        """Rows of the open randomized block (0 without one)."""
        return 0 if self.pending is None else self.pending.n_rows

    def settled(self, **shrink: Any) -> SketchState:
        """This state with its pending rows compressed into the sketch (cached, read-only).

        What every read-out uses: the sketch of all the rows seen, the same
        whichever way the stream was cut into calls. ``shrink`` holds the
        keywords of :func:`settle_pending` (the estimator's shrink rule).
        The committed state, its generator included, is not changed.
        """
        if not self.n_pending:
            return self
        cached = self.__dict__.get(_SETTLED_CACHE)
        if cached is None:
            cached = settle_pending(self, **shrink)
            self.__dict__[_SETTLED_CACHE] = cached
        return cached

    def svd(self) -> tuple[np.ndarray, np.ndarray]:
        """``(s, Vt)``: the sign-fixed thin SVD of the sketch rows (cached, read-only)."""
        return self.readout("svd", lambda: sketch_svd(self.buffer[: self.n_rows]))

    def readout(self, key: Any, compute: Callable[[], tuple[np.ndarray, ...]]) -> tuple:
        """``compute()``'s arrays, computed once per state and ``key`` (cached, read-only).

        The SVD and every read-out derived from it; never pickled.
        """
        cache = self.__dict__.setdefault(_READOUT_CACHE, {})
        cached = cache.get(key)
        if cached is None:
            cached = compute()
            for array in cached:
                array.setflags(write=False)
            cache[key] = cached
        return cached

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for cache in (_READOUT_CACHE, _SETTLED_CACHE):  # derived, not learned: never pickled
            state.pop(cache, None)
        return state


#: Attribute of a :class:`SketchState` holding its read-outs by key (never pickled).
_READOUT_CACHE = "_readout_cache"
#: Attribute of a :class:`SketchState` holding its settled state (never pickled).
_SETTLED_CACHE = "_settled_cache"


def _buffer_of(state: SketchState, count: int) -> SketchBuffer:
    """A :class:`SketchBuffer` on copies of the state's arrays (``count`` rows behind them)."""
    return SketchBuffer(
        state.buffer.copy(),
        state.squares.copy(),
        state.mean.copy(),
        state.m2.copy(),
        state.n_rows,
        state.n_orth,
        count,
    )


def settle_pending(
    state: SketchState,
    *,
    variant: str = "fd",
    beta: float = 0.2,
    robust: bool = False,
    center: bool = True,
) -> SketchState:
    """A new state without pending rows: the open block compressed as the last one.

    The block is compressed by the randomized range finder, or compacted
    exactly when it is short (:func:`randomized_sparse_pass` with
    ``final=True``), with a copy of the state's generator.
    """
    if not state.n_pending:
        return state
    assert state.pending is not None and state.rng is not None
    d = state.buffer.shape[1]
    sketch = _buffer_of(state, state.n_samples_seen - state.n_pending)
    rule = ShrinkRule(state.sketch_size, "fd" if variant == "cfd" else variant, beta)
    rng = copy_generator(state.rng)
    assert rng is not None
    deltas, _, residuals = randomized_sparse_pass(
        sketch, state.pending.rows(d), rule, rng=rng, center=center, final=True
    )
    return finished_state(state, sketch, deltas, robust, residuals=residuals, rng=rng, pending=None)


def sketch_pass(
    state: SketchState,
    X: np.ndarray | sp.csr_matrix,
    *,
    variant: str = "fd",
    beta: float = 0.2,
    method: str = "gram",
    robust: bool = False,
    center: bool = True,
    skip_zero_rows: bool = False,
    sparse_solver: str = "exact",
) -> SketchState:
    """Stream the rows of ``X`` into a copy of the sketch; return the new state.

    A pure kernel: ``state`` is never written into. Dense rows go through the
    compiled Gram-block pass (:func:`dense_pass`), CSR rows through the
    sparse-block pass (:func:`sparse_pass`) or the randomized one
    (:func:`randomized_sparse_pass`), which keeps the rows of its open block
    in the state (:class:`PendingRows`) for the next call. Dense rows
    streamed after CSR ones settle the open block first.
    """
    rule = ShrinkRule(state.sketch_size, "fd" if variant == "cfd" else variant, beta)
    if sparse_solver == "randomized" and sp.issparse(X) and method != "svd":
        return _randomized_call(state, CsrRows.from_csr(canonical_csr(X)), rule, robust, center)
    if state.n_pending:  # dense rows after an open CSR block: the block is closed first
        state = settle_pending(state, variant=variant, beta=beta, robust=robust, center=center)
    sketch = _buffer_of(state, state.n_samples_seen)
    rng = state.rng
    options = {"center": center, "skip_zero_rows": skip_zero_rows}
    if not sp.issparse(X):
        deltas = dense_pass(sketch, X, rule, method=method, **options)
    elif method == "svd":  # the textbook route: densified a block of rows at a time
        deltas = []
        for sl in gen_batches(X.shape[0], BLOCK_ROWS):
            deltas += dense_pass(sketch, X[sl].toarray(), rule, method=method, **options)
    else:
        deltas = sparse_pass(sketch, canonical_csr(X), rule, **options)
    return finished_state(state, sketch, deltas, robust, n_samples_seen=sketch.count, rng=rng)


def _randomized_call(
    state: SketchState, X: CsrRows, rule: ShrinkRule, robust: bool, center: bool
) -> SketchState:
    """One call of the randomized solver: the blocks the call completes, the rest kept."""
    pending = state.pending if state.pending is not None else PendingRows()
    n_seen = state.n_samples_seen + X.shape[0]
    capacity, d = state.buffer.shape
    if pending.nnz + X.nnz < block_budget(capacity, d):  # the open block stays open
        return dataclasses.replace(state, pending=pending.appended(X), n_samples_seen=n_seen)
    sketch = _buffer_of(state, state.n_samples_seen - pending.n_rows)
    rng = copy_generator(state.rng)
    assert rng is not None, "the randomized solver's state holds a generator"
    rows = pending.rows(d, then=X) if pending.n_rows else X
    deltas, stop, residuals = randomized_sparse_pass(
        sketch, rows, rule, rng=rng, center=center, final=False
    )
    rest = PendingRows.of(rows.rows(stop, rows.shape[0]))
    return finished_state(
        state,
        sketch,
        deltas,
        robust,
        residuals=residuals,
        n_samples_seen=n_seen,
        rng=rng,
        pending=rest,
    )


def finished_state(
    state: SketchState,
    sketch: SketchBuffer,
    deltas: list[float],
    robust: bool,
    residuals: Sequence[float] = (),
    **fields: Any,
) -> SketchState:
    """The new state after a pass or a merge: unused rows zeroed, shrinkages added.

    ``sketch`` is the :class:`SketchBuffer` the pass filled. ``deltas`` are
    the shrinkages added to ``Δ`` in order (for RFD ``α`` grows by half of
    each, Alg. 5); every one counts as a compaction except those ``fields``
    override. ``residuals`` are those of them that are certified residuals
    (added to ``residual`` as well).
    """
    buffer, squares = sketch.buffer, sketch.squares
    buffer[sketch.n_rows :] = 0.0  # unused rows canonical (deterministic pickles)
    squares[sketch.n_orth :] = 0.0
    shrinkage, alpha, residual = state.shrinkage, state.alpha, state.residual
    for delta in deltas:
        shrinkage += delta
        if robust:
            alpha += delta / 2.0
    for delta in residuals:
        residual += delta
    fields.setdefault("n_compactions", state.n_compactions + len(deltas))
    return dataclasses.replace(
        state,
        buffer=buffer,
        squares=squares,
        n_rows=int(sketch.n_rows),
        n_orth=int(sketch.n_orth),
        mean=sketch.mean,
        m2=sketch.m2,
        shrinkage=shrinkage,
        residual=residual,
        alpha=alpha,
        **fields,
    )


def merge_states(
    first: SketchState,
    second: SketchState,
    *,
    variant: str = "fd",
    beta: float = 0.2,
    robust: bool = False,
    center: bool = True,
) -> SketchState:
    """The sketch of two disjoint streams from their sketches (a new state).

    ``second``'s sketch rows are streamed into a copy of ``first``'s, plus, for
    centred sketches, the mean-correction row
    ``sqrt(n₁n₂/(n₁+n₂)) (μ₁ − μ₂)``: the scatter of the union is
    ``S₁ + S₂ + n₁n₂/(n₁+n₂) (μ₁ − μ₂)(μ₁ − μ₂)ᵀ`` exactly. Shrinkages add up,
    means and per-feature sums of squares combine exactly (Chan et al.).
    """
    n1, n2 = first.n_samples_seen, second.n_samples_seen
    rows = second.buffer[: second.n_rows]
    if center and n1 and n2:
        diff = first.mean - second.mean
        correction = np.sqrt(n1 * n2 / (n1 + n2)) * diff
        rows = np.vstack([rows, correction[None, :]])
    total = n1 + n2
    if center and total:
        diff = second.mean - first.mean
        mean = first.mean + diff * (n2 / total)
        m2 = first.m2 + second.m2 + diff * diff * (n1 * n2 / total)
    else:
        mean, m2 = first.mean.copy(), first.m2 + second.m2
    sketch = SketchBuffer(
        first.buffer.copy(), first.squares.copy(), mean, m2, first.n_rows, first.n_orth
    )
    rule = ShrinkRule(first.sketch_size, "fd" if variant == "cfd" else variant, beta)
    deltas = stacked_rows_pass(sketch, rows, rule)
    return finished_state(
        first,
        sketch,
        [*deltas, second.shrinkage],
        robust,
        residuals=[second.residual],
        n_compactions=first.n_compactions + second.n_compactions + len(deltas),
        n_samples_seen=total,
        rng=copy_generator(first.rng),
    )
