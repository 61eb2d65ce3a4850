# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled pass of the Frequent Directions sketches (dense rows, Gram-block compactions).

One ordered pass over the rows of a dense batch (Luo et al. 2019, Algorithms
4/5 with the doubling buffer; 1/2 with a single buffer). Each row is written
into the sketch's buffer, centred by the running mean when asked (Welford: the
row ``r_t = sqrt((t-1)/t) (x_t - μ_{t-1})``, so that ``Σ r_t r_tᵀ`` is exactly
the centred scatter of the rows seen). When the buffer is full it is compacted
through its Gram matrix, built block by block:

* the first ``n_orth`` rows are the sketch left by the previous compaction;
  they are orthogonal with known squared norms, so their block of the Gram
  matrix is diagonal and is never recomputed;
* only the cross block (new rows x sketch rows, one ``dgemm``) and the new
  rows' own block (one ``dsyrk``) are computed;
* one ``dsyevd`` of the Gram matrix gives the new rows
  ``diag(sqrt(kept / λ)) Uᵀ [B; X]`` (one ``dgemm``).

No Python runs between compactions. The caller passes a :class:`SketchBuffer`
(its own copies of the state arrays: buffer, squared norms, mean, per-feature
sums of squares, and the counters), updated in place, and the
:class:`ShrinkRule` of the compactions.
"""

from libc.math cimport fabs, floor, isfinite, sqrt
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from scipy.linalg.cython_blas cimport dgemm, dsyrk
from scipy.linalg.cython_lapack cimport dsyevd

from ..utils._shrink cimport (
    VARIANT_FD, VARIANT_ISVD, VARIANT_PFD, n_kept, shrink_delta, shrunk_value,
)

import numpy as np

ctypedef fused floating_in:
    float
    double

#: Index type of the CSR products: scipy's int32 when the matrix fits, int64 beyond.
ctypedef fused index_t:
    int
    long long

#: Variant codes of the shrink step (``utils/_shrink.pxd``).
VARIANT_CODES = {"fd": VARIANT_FD, "pfd": VARIANT_PFD, "isvd": VARIANT_ISVD}

cdef enum:
    DONE = 0
    FALLBACK = 1  # Gram matrix not finite or eigensolver failure: compact by SVD

#: Status codes returned by :func:`gram_pass`.
STATUS_DONE = DONE
STATUS_FALLBACK = FALLBACK


cdef inline void welford_row(const floating_in* x, Py_ssize_t stride, int d, double* row,
                             double* mean, double* m2, long long t, bint center) noexcept nogil:
    """Write row ``t`` (1-based count) into ``row``: centred by Welford, or copied."""
    cdef int j
    cdef double c, inv, delta, v
    if center:
        c = sqrt((t - 1.0) / t)
        inv = 1.0 / t
        if stride == 1:
            for j in range(d):
                delta = x[j] - mean[j]
                mean[j] += delta * inv
                v = c * delta
                row[j] = v
                m2[j] += v * v
        else:
            for j in range(d):
                delta = x[j * stride] - mean[j]
                mean[j] += delta * inv
                v = c * delta
                row[j] = v
                m2[j] += v * v
    else:
        if stride == 1:
            for j in range(d):
                v = x[j]
                row[j] = v
                m2[j] += v * v
        else:
            for j in range(d):
                v = x[j * stride]
                row[j] = v
                m2[j] += v * v


cdef inline bint all_zero(const double* row, int d) noexcept nogil:
    cdef int j
    for j in range(d):
        if row[j] != 0.0:
            return False
    return True


cdef int shrink(const double* lam, int n_values, int m, int variant, int pfd_q,
                double* kept, double* delta_out) noexcept nogil:
    """The shrink step (``utils/_shrink.pxd``) on ``lam`` (descending, clipped at 0).

    Returns the number ``k`` of kept values; ``kept[:k]`` and ``delta_out``
    as :func:`skonline.decomposition._frequent_directions_kernels.shrunk_squares`.
    """
    cdef int i, k = n_kept(n_values, m)
    cdef double top = lam[0] if n_values > 0 else 0.0
    cdef double delta = shrink_delta(lam[m - 1] if n_values >= m else 0.0, n_values, m, top)
    for i in range(k):
        kept[i] = shrunk_value(lam[i], i, delta, m, variant, pfd_q)
    delta_out[0] = delta
    return k


def shrink_squares(const double[::1] lam, ShrinkRule rule):
    """The shrink step on squared singular values ``lam`` (descending, non-negative).

    The Python face of ``utils/_shrink.pxd`` (through
    :func:`~skonline.decomposition._frequent_directions_kernels.shrunk_squares`):
    returns ``(kept, delta)``, ``kept`` a new array of ``min(m - 1, len(lam))``
    values.
    """
    cdef int m = rule.m, n_values = lam.shape[0], k = n_kept(n_values, m)
    cdef double delta = 0.0
    kept = np.empty(k if k > 0 else 0, dtype=np.float64)
    cdef double[::1] out = kept
    if n_values > 0:
        shrink(&lam[0], n_values, m, rule.code, rule.pfd_q, &out[0] if k > 0 else NULL, &delta)
    return kept, delta


cdef struct GramWork:
    # The work space of one compaction of a ``cap x d`` buffer through its Gram matrix.
    double* G        # cap x cap: the Gram matrix, then its eigenvectors
    double* w        # cap: its eigenvalues (ascending)
    double* work     # dsyevd's work space
    int lwork
    int* iwork
    int liwork
    double* lam      # cap: the squared singular values, descending
    double* kept     # cap: the kept values after the shrink
    double* W        # cap x cap: the rotation onto the kept directions
    double* rows     # cap x d: the new rows


cdef int gram_work_alloc(GramWork* ws, int cap, int d) noexcept nogil:
    """Size every buffer of ``ws`` from the buffer's shape; 0, or -1 when out of memory."""
    ws.lwork = 1 + 6 * cap + 2 * cap * cap
    ws.liwork = 3 + 5 * cap
    ws.G = <double*> malloc(<size_t> cap * cap * sizeof(double))
    ws.w = <double*> malloc(<size_t> cap * sizeof(double))
    ws.work = <double*> malloc(<size_t> ws.lwork * sizeof(double))
    ws.iwork = <int*> malloc(<size_t> ws.liwork * sizeof(int))
    ws.lam = <double*> malloc(<size_t> cap * sizeof(double))
    ws.kept = <double*> malloc(<size_t> cap * sizeof(double))
    ws.W = <double*> malloc(<size_t> cap * cap * sizeof(double))
    ws.rows = <double*> malloc(<size_t> cap * d * sizeof(double))
    if ws.G and ws.w and ws.work and ws.iwork and ws.lam and ws.kept and ws.W and ws.rows:
        return 0
    return -1


cdef void gram_work_free(GramWork* ws) noexcept nogil:
    free(ws.G); free(ws.w); free(ws.work); free(ws.iwork)
    free(ws.lam); free(ws.kept); free(ws.W); free(ws.rows)


cdef int compact(double* buf, int d, int cap, int n_orth, double* squares, int m,
                 int variant, int pfd_q, GramWork* ws, double* delta_out) noexcept nogil:
    """Compact the full buffer in place; returns the number of rows kept, or -1 (fallback).

    ``buf`` is row major ``cap x d``: to BLAS, a column-major ``d x cap``
    matrix whose columns are the rows. Small matrices are column major.
    """
    cdef double* G = ws.G
    cdef double* w = ws.w
    cdef double* lam = ws.lam
    cdef double* kept = ws.kept
    cdef double* W = ws.W
    cdef int ng = cap, r = n_orth, b = cap - n_orth, i, j, k, n_values, info = 0
    cdef int top
    cdef double one = 1.0, zero = 0.0, scale, big
    memset(G, 0, ng * ng * sizeof(double))
    for i in range(r):
        G[i + i * ng] = squares[i]
    if r > 0 and b > 0:  # G[r:, :r] = X_new · Bᵀ
        dgemm(b"T", b"N", &b, &r, &d, &one, buf + r * d, &d, buf, &d, &zero, G + r, &ng)
    if b > 0:  # lower triangle of G[r:, r:] = X_new · X_newᵀ
        dsyrk(b"L", b"T", &b, &d, &one, buf + r * d, &d, &zero, G + r + r * ng, &ng)
    for j in range(ng):
        for i in range(j, ng):
            if not isfinite(G[i + j * ng]):
                return -1
    dsyevd(b"V", b"L", &ng, G, &ng, w, ws.work, &ws.lwork, ws.iwork, &ws.liwork, &info)
    if info != 0:
        return -1
    n_values = ng if ng < d else d
    for i in range(n_values):  # descending, clipped at 0
        lam[i] = w[ng - 1 - i] if w[ng - 1 - i] > 0.0 else 0.0
    k = shrink(lam, n_values, m, variant, pfd_q, kept, delta_out)
    for i in range(k):  # W[:, i] = ±sqrt(kept_i / λ_i) u_i, largest |u_ij| positive
        top = ng - 1 - i
        scale = sqrt(kept[i] / lam[i]) if lam[i] > 0.0 else 0.0
        big = 0.0
        for j in range(ng):
            if fabs(G[j + top * ng]) > fabs(big):
                big = G[j + top * ng]
        if big < 0.0:
            scale = -scale
        for j in range(ng):
            W[j + i * ng] = scale * G[j + top * ng]
    if k > 0:  # rows (d x k, column major) = bufᵀ W
        dgemm(b"N", b"N", &d, &k, &ng, &one, buf, &d, W, &ng, &zero, ws.rows, &d)
        memcpy(buf, ws.rows, k * d * sizeof(double))
    for i in range(k):
        squares[i] = kept[i]
    return k


cdef class ShrinkRule:
    """The shrink rule of a sketch's compactions: sketch size ``m``, variant, PFD's ``beta``.

    ``variant`` is ``"fd"`` (also RFD's and CFD's sketch), ``"pfd"`` or
    ``"isvd"``; ``code`` and ``pfd_q`` (PFD's number of shrunk values,
    ``max(1, floor(beta · m))``) are what ``utils/_shrink.pxd`` takes.
    """

    cdef readonly int m
    cdef readonly str variant
    cdef readonly double beta
    cdef readonly int code
    cdef readonly int pfd_q

    def __init__(self, int m, str variant="fd", double beta=0.2):
        if variant not in VARIANT_CODES:
            raise ValueError(f"unknown variant {variant!r}")
        self.m = m
        self.variant = variant
        self.beta = beta
        self.code = VARIANT_CODES[variant]
        self.pfd_q = max(1, <int> floor(beta * m))


cdef class SketchBuffer:
    """A sketch being filled by a pass: the caller's own copies of a state's arrays.

    ``buffer`` (capacity x d): rows ``[0, n_rows)`` hold the sketch, the first
    ``n_orth`` of them orthogonal with squared norms ``squares[:n_orth]``;
    ``mean`` and ``m2`` (d,): the running mean and per-feature sums of the
    squared streamed rows; ``count``: the rows seen. The passes update all of
    them in place; assigning an array attribute rebinds the typed view too.
    """

    cdef double[:, ::1] B
    cdef double[::1] sq
    cdef double[::1] mu
    cdef double[::1] ss
    cdef object _buffer, _squares, _mean, _m2
    cdef public Py_ssize_t n_rows
    cdef public Py_ssize_t n_orth
    cdef public long long count

    def __init__(self, buffer, squares, mean, m2, Py_ssize_t n_rows=0, Py_ssize_t n_orth=0,
                 long long count=0):
        self.buffer = buffer
        self.squares = squares
        self.mean = mean
        self.m2 = m2
        self.n_rows = n_rows
        self.n_orth = n_orth
        self.count = count

    @property
    def buffer(self):
        return self._buffer

    @buffer.setter
    def buffer(self, value):
        self.B = value
        self._buffer = value

    @property
    def squares(self):
        return self._squares

    @squares.setter
    def squares(self, value):
        self.sq = value
        self._squares = value

    @property
    def mean(self):
        return self._mean

    @mean.setter
    def mean(self, value):
        self.mu = value
        self._mean = value

    @property
    def m2(self):
        return self._m2

    @m2.setter
    def m2(self, value):
        self.ss = value
        self._m2 = value


def gram_pass(
    SketchBuffer sketch,
    ShrinkRule rule,
    const floating_in[:, :] X,
    Py_ssize_t start,
    bint center,
    bint skip_zero_rows,
    double[::1] deltas,
):
    """Stream rows ``X[start:]`` into the sketch; compact through the Gram matrix when full.

    Parameters
    ----------
    sketch : SketchBuffer
        Updated in place (buffer, squared norms, mean, sums of squares,
        ``n_rows``, ``n_orth``, ``count``).
    rule : ShrinkRule
        The shrink rule of the compactions (``m - 1`` rows kept per compaction).
    X : ndarray of shape (n, d), float32 or float64, any strides
    start : int
        First row of ``X`` to stream.
    center : bool
        Stream Welford rows (centred by the running mean) instead of the rows.
    skip_zero_rows : bool
        Do not append rows that are exactly zero (after centring).
    deltas : ndarray
        Receives the shrinkage ``δ`` of each compaction (large enough for all).

    Returns
    -------
    n_deltas, stop, status : tuple
        ``status`` is :data:`STATUS_DONE` when every row was streamed, or
        :data:`STATUS_FALLBACK` when a compaction could not be done through the
        Gram matrix: the buffer is then full and unchanged, the rows up to
        ``stop`` have been streamed, and the caller compacts by SVD and calls
        again from ``stop``.
    """
    cdef int d = sketch.B.shape[1], cap = sketch.B.shape[0]
    cdef Py_ssize_t n = X.shape[0], i
    cdef Py_ssize_t stride = X.strides[1] // sizeof(floating_in)
    cdef int k, n_deltas = 0, status = DONE
    cdef int m = rule.m, variant = rule.code, pfd_q = rule.pfd_q
    cdef Py_ssize_t stop = n
    cdef Py_ssize_t n_rows = sketch.n_rows, n_orth = sketch.n_orth
    cdef long long count = sketch.count
    cdef double delta
    cdef double* buf = &sketch.B[0, 0]
    cdef double* sq = &sketch.sq[0]
    cdef double* mu = &sketch.mu[0]
    cdef double* ss = &sketch.ss[0]
    cdef GramWork ws
    if gram_work_alloc(&ws, cap, d) != 0:
        gram_work_free(&ws)
        raise MemoryError()
    try:
        with nogil:
            for i in range(start, n):
                if n_rows == cap:  # full on entry: the previous call stopped for a fallback
                    status = FALLBACK
                    stop = i
                    break
                count += 1
                welford_row(&X[i, 0], stride, d, buf + n_rows * d, mu, ss, count, center)
                if skip_zero_rows and all_zero(buf + n_rows * d, d):
                    continue
                n_rows += 1
                if n_rows == cap:
                    k = compact(buf, d, cap, <int> n_orth, sq, m, variant, pfd_q, &ws, &delta)
                    if k < 0:
                        status = FALLBACK
                        stop = i + 1
                        break
                    deltas[n_deltas] = delta
                    n_deltas += 1
                    n_rows = k
                    n_orth = k
    finally:
        gram_work_free(&ws)
        sketch.n_rows, sketch.n_orth, sketch.count = n_rows, n_orth, count
    return n_deltas, stop, status


def welford_rows(SketchBuffer sketch, const floating_in[:, :] X, bint center):
    """The rows a pass streams (Welford-centred or copied), as a new float64 array.

    The same arithmetic as :func:`gram_pass`, row by row; the sketch's
    ``mean``, ``m2`` and ``count`` are updated in place (its buffer is not
    touched).
    """
    cdef int d = X.shape[1]
    cdef Py_ssize_t n = X.shape[0], i
    cdef Py_ssize_t stride = X.strides[1] // sizeof(floating_in)
    cdef long long count = sketch.count
    out = np.empty((n, d), dtype=np.float64)
    cdef double[:, ::1] R = out
    if n == 0 or d == 0:
        return out
    with nogil:
        for i in range(n):
            count += 1
            welford_row(&X[i, 0], stride, d, &R[i, 0], &sketch.mu[0], &sketch.ss[0], count,
                        center)
    sketch.count = count
    return out


def csr_times_transpose(const index_t[::1] indptr, const index_t[::1] indices,
                        const double[::1] data, const double[:, ::1] D):
    """``X Dᵀ`` for CSR ``X`` (b x d) and dense row-major ``D`` (r x d): ``O(nnz · r)``.

    Never forms ``Dᵀ`` (``scipy.sparse`` would copy it to C order).
    """
    cdef Py_ssize_t b = indptr.shape[0] - 1, r = D.shape[0], i, p, k
    cdef long long j
    cdef double v
    out = np.zeros((b, r), dtype=np.float64)
    cdef double[:, ::1] O = out
    with nogil:
        for i in range(b):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                v = data[p]
                for k in range(r):
                    O[i, k] += v * D[k, j]
    return out


def add_transpose_times_csr(double[:, ::1] out, const double[:, ::1] M,
                            const index_t[::1] indptr, const index_t[::1] indices,
                            const double[::1] data):
    """``out += Mᵀ X`` in place for CSR ``X`` (b x d), ``M`` (b x k), ``out`` (k x d)."""
    cdef Py_ssize_t b = indptr.shape[0] - 1, kk = M.shape[1], i, p, k
    cdef long long j
    cdef double v
    with nogil:
        for i in range(b):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                v = data[p]
                for k in range(kk):
                    out[k, j] += M[i, k] * v


def csr_times_dense(const index_t[::1] indptr, const index_t[::1] indices,
                    const double[::1] data, const double[:, ::1] V):
    """``X V`` for CSR ``X`` (b x d) and C-ordered ``V`` (d x p): ``O(nnz · p)``."""
    cdef Py_ssize_t b = indptr.shape[0] - 1, p = V.shape[1], i, q, k
    cdef double v
    cdef double* orow
    cdef const double* vrow
    out = np.zeros((b, p), dtype=np.float64)
    cdef double[:, ::1] O = out
    if b == 0 or p == 0:
        return out
    with nogil:
        for i in range(b):
            orow = &O[i, 0]
            for q in range(indptr[i], indptr[i + 1]):
                vrow = &V[indices[q], 0]  # a row of p contiguous values: the loop below vectorises
                v = data[q]
                for k in range(p):
                    orow[k] += v * vrow[k]
    return out


def csr_transpose_times_dense(const index_t[::1] indptr, const index_t[::1] indices,
                              const double[::1] data, const double[:, ::1] W, Py_ssize_t d):
    """``Xᵀ W`` for CSR ``X`` (b x d) and ``W`` (b x p), as a C-ordered (d x p) array."""
    cdef Py_ssize_t b = indptr.shape[0] - 1, p = W.shape[1], i, q, k
    cdef double v
    cdef double* orow
    cdef const double* wrow
    out = np.zeros((d, p), dtype=np.float64)
    cdef double[:, ::1] O = out
    if b == 0 or p == 0:
        return out
    with nogil:
        for i in range(b):
            wrow = &W[i, 0]
            for q in range(indptr[i], indptr[i + 1]):
                orow = &O[indices[q], 0]
                v = data[q]
                for k in range(p):
                    orow[k] += v * wrow[k]
    return out


def csr_gram_times_vector(const index_t[::1] indptr, const index_t[::1] indices,
                          const double[::1] data, const double[::1] v, double[::1] out):
    """``out += Xᵀ(X v)`` in place for CSR ``X`` (b x d): one pass over the non-zeros.

    Each row's dot product ``x_iᵀv`` and its update ``out += (x_iᵀv) x_i`` read
    the row once from memory (the second read hits the cache): half the
    traffic of ``Xᵀ`` times ``X v`` as two products.
    """
    cdef Py_ssize_t b = indptr.shape[0] - 1, i
    cdef long long q
    cdef double t
    with nogil:
        for i in range(b):
            t = 0.0
            for q in range(indptr[i], indptr[i + 1]):
                t += data[q] * v[indices[q]]
            if t != 0.0:
                for q in range(indptr[i], indptr[i + 1]):
                    out[indices[q]] += t * data[q]


def csr_gram(const index_t[::1] indptr, const index_t[::1] indices, const double[::1] data):
    """``X Xᵀ`` (b x b) for CSR ``X`` with sorted indices: merged sparse dot products."""
    cdef Py_ssize_t b = indptr.shape[0] - 1, i, j
    cdef long long p, q, pe, qe
    cdef double s
    out = np.zeros((b, b), dtype=np.float64)
    cdef double[:, ::1] O = out
    with nogil:
        for i in range(b):
            for j in range(i + 1):
                p, pe = indptr[i], indptr[i + 1]
                q, qe = indptr[j], indptr[j + 1]
                s = 0.0
                while p < pe and q < qe:
                    if indices[p] == indices[q]:
                        s += data[p] * data[q]
                        p += 1
                        q += 1
                    elif indices[p] < indices[q]:
                        p += 1
                    else:
                        q += 1
                O[i, j] = s
                O[j, i] = s
    return out


def csr_column_sums(const index_t[::1] indptr, const index_t[::1] indices,
                    const double[::1] data, double[::1] total, double[::1] squares):
    """``total += Xᵀ1`` and ``squares += (X∘X)ᵀ1`` in place: ``O(nnz)``."""
    cdef Py_ssize_t b = indptr.shape[0] - 1, i
    cdef long long q, j
    cdef double v
    with nogil:
        for i in range(b):
            for q in range(indptr[i], indptr[i + 1]):
                j = indices[q]
                v = data[q]
                total[j] += v
                squares[j] += v * v
