# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled passes of the scale-invariant online learners (Kotłowski, ALT 2017).

One ordered pass over the rows for ``K`` outputs (one-vs-rest, multinomial or
one regression output) that share the feature statistics:

* :func:`sparse_pass` — the coordinate-wise learners on the non-zero entries of
  each row (dense rows are read directly, their zeros skipped; CSR rows by
  their stored entries), ``O(K · nnz)`` per row:

  - ``ALG1``: Algorithm 1 (eq. 5), ``w_i = exp(E_i − log(α n d)) h_i / s_i²``
    with ``E_i = (h_i² + x_i²)/(2α s_i²)`` and ``n = t`` (the paper) or the
    rows in which coordinate ``i`` was non-zero (the per-feature counter);
  - ``DIAG``: Algorithm 2 on each coordinate alone (``S = diag(s²)``),
    ``w_i = exp((h_i²/s_i² − Γ_i)/(2α) − log α) h_i / s_i²`` and
    ``Γ_i += g² x_i²/s_i²``.

  The arithmetic of a row runs in the vectorised loops of ``_row_math.h``
  over its entries laid out contiguously (a dense row without zeros in
  place, any other row gathered), the exponential included (within one ulp
  of libm's; :func:`compiled_exp` exposes it to the tests);
  :func:`coordinate_weights` is the state's read-out at ``x = 0`` in the
  same loops.

* :func:`centered_pass` — the same two learners on features centred at their
  running mean (dense rows; the statistics are those of the data centred at
  the current mean, recomputed from running sums), plus an uncentred
  constant coordinate for the intercept.

* :func:`full_pass_qr` — Algorithm 2 (eq. 7) on the triangular factor ``R``
  of the data matrix (``S = RᵀR``), updated by Givens rotations (BLAS
  ``drot``): appending the row ``x`` to ``[R; xᵀ]`` and rotating it into
  ``R`` carries ``z = R⁻ᵀh`` (so ``hᵀS⁺h = ‖z‖²``) and ``v = R⁻ᵀx`` (so
  ``xᵀS⁺x = ‖v‖²`` and ``xᵀS⁺h = vᵀz``) along, in ``O(d²)`` per row with the
  accuracy of ``R`` (condition number ``κ(X)``), not of ``S⁺`` (``κ(X)²``).
  A zero row of ``R`` at the first position where the rotated row is still
  non-zero means a new direction (the rank grows): the row is moved into
  ``R`` there (leverage 1, prediction 0, Appendix E); a remainder below
  ``rank_tol · ‖x‖²``, or below the storage rounding of the row
  (``storage_tol · ‖x_raw‖²``), there is rounding and is dropped.

Every exponent is clipped at ``max_exponent`` (the rows where that happens are
counted), predictions are clipped to ``±MAX_PREDICTION`` (NaN to 0) before the
loss, and a sample weight ``c`` feeds ``clip(c · g, −1, 1)``. A loss is one of
the codes of ``LOSS_CODES`` (the table of ``_loss.pxd``, normalised by its
Lipschitz constant) or a Python callable ``loss(p, y) -> (value, g)`` (tests,
adversaries).

The callers (``_scale_invariant_kernels.py``) pass copies of the state arrays;
they are updated in place. Scalars are returned.
"""

from libc.math cimport exp, fabs, hypot, log, sqrt
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_blas cimport drot
from scipy.linalg.cython_lapack cimport dtrcon

from ._loss cimport HUBER, MULTINOMIAL, loss_and_derivative, multinomial_loss
from ._rows cimport Rows

import numpy as np

from ._loss import LOSS_CODES

cdef enum:
    ALG1 = 0
    DIAG = 1

#: The code of a Python callable ``loss(p, y) -> (value, g)`` (outside the loss table).
cdef enum:
    CALLABLE = -1

KIND_CODES = {"coordinate": ALG1, "diagonal": DIAG}
CALLABLE_LOSS = CALLABLE

cdef double MAX_PREDICTION = 1e300
#: A centred feature whose squared deviations are at most this fraction of its squares is
#: constant so far (weight 0).
cdef double CONSTANT_TOL = 1e-12
#: The lazy discount of ``sparse_pass`` is taken into the arrays below this.
cdef double RENORMALISE = 1e-16


# ---------------------------------------------------------------- losses
cdef inline double lipschitz_loss(int loss, double p, double y, double epsilon,
                                  double* g) noexcept nogil:
    """``l(p; y)`` of the loss table; writes ``l'(p; y) / L`` into ``g``.

    ``L`` is the Lipschitz constant the learners divide by: ``epsilon`` for
    Huber, 1 for the other losses offered.
    """
    cdef double value = loss_and_derivative(loss, p, y, epsilon, g)
    if loss == HUBER:
        g[0] = g[0] / epsilon
    return value


cdef int row_loss(int loss, object callable_loss, int K, double* p, const double* y,
                  double epsilon, double offset, double* g, double* value) except -1 nogil:
    """Summed loss of the ``K`` outputs at ``p + offset`` into ``value``, derivatives into ``g``.

    ``loss == CALLABLE`` calls ``callable_loss(p + offset, y)`` with the GIL
    (its exceptions propagate).
    """
    cdef int k
    cdef double total = 0.0
    for k in range(K):
        p[k] += offset
    if loss == MULTINOMIAL:
        total = multinomial_loss(K, p, y, g)
    elif loss == CALLABLE:
        with gil:
            total = python_loss(callable_loss, K, p, y, g)
    else:
        for k in range(K):
            total += lipschitz_loss(loss, p[k], y[k], epsilon, &g[k])
    for k in range(K):
        p[k] -= offset
    value[0] = total
    return 0


cdef double python_loss(object loss, int K, double* p, const double* y, double* g) except? -1.0:
    cdef int k
    pa = np.empty(K)
    ya = np.empty(K)
    for k in range(K):
        pa[k] = p[k]
        ya[k] = y[k]
    value, ga = loss(pa, ya)
    ga = np.asarray(ga, dtype=np.float64).reshape(K)
    for k in range(K):
        g[k] = ga[k]
    return float(value)


cdef inline void weigh(int K, double* g, double weight) noexcept nogil:
    """``g ← clip(weight · g, −1, 1)`` (a sample weight on a 1-Lipschitz loss)."""
    cdef int k
    cdef double v
    for k in range(K):
        v = g[k] * weight
        if v > 1.0:
            v = 1.0
        elif v < -1.0:
            v = -1.0
        g[k] = v


cdef inline double finite_prediction(double p) noexcept nogil:
    if p != p:
        return 0.0
    if p > MAX_PREDICTION:
        return MAX_PREDICTION
    if p < -MAX_PREDICTION:
        return -MAX_PREDICTION
    return p


cdef class Stream:
    """Targets, weights, loss and the running scalars of a pass.

    ``learn`` does the bookkeeping every pass shares once a row's predictions
    are made: the loss of ``p`` plus the running target mean
    (``center_target``), the weighted loss sum, and the learner's
    ``clip(c · g, −1, 1)``. ``result()`` returns
    ``(t, total_loss, n_clipped, target_sum, target_count)``.
    """

    cdef const double[:, ::1] T
    cdef const double[::1] sample_weight
    cdef long long t
    cdef double total_loss
    cdef long long n_clipped
    cdef double target_sum
    cdef long long target_count
    cdef bint center_target
    cdef int loss
    cdef object callable_loss
    cdef double alpha
    cdef double epsilon
    cdef double max_exponent

    def __init__(self, const double[:, ::1] T, const double[::1] sample_weight, running,
                 bint center_target, int loss, callable_loss, double alpha, double epsilon,
                 double max_exponent):
        self.T = T
        self.sample_weight = sample_weight
        self.t, self.total_loss, self.n_clipped, self.target_sum, self.target_count = running
        self.center_target = center_target
        self.loss = loss
        self.callable_loss = callable_loss
        self.alpha = alpha
        self.epsilon = epsilon
        self.max_exponent = max_exponent

    def result(self):
        return self.t, self.total_loss, self.n_clipped, self.target_sum, self.target_count

    cdef inline int learn(self, Py_ssize_t row, int K, double* p, double* g) except -1 nogil:
        cdef double value = 0.0
        cdef double offset = self.target_sum / self.target_count if self.target_count > 0 else 0.0
        row_loss(self.loss, self.callable_loss, K, p, &self.T[row, 0], self.epsilon, offset, g,
                 &value)
        if self.center_target:
            self.target_sum += self.T[row, 0]
            self.target_count += 1
        self.total_loss += self.sample_weight[row] * value
        weigh(K, g, self.sample_weight[row])
        return 0


# ------------------------------------------------------- coordinate-wise pass
cdef extern from "_row_math.h" nogil:
    void si_exp_array(int m, const double* x, double* out)
    int si_count_entries(int n, const double* x)
    void si_gather(int m, const int* ids, const double* src, double* dst)
    void si_row_stats(int m, const double* x, double* s2, double* ratio, double* inv, double c)
    double si_row_predict(int m, const double* x, const double* h, const double* gam,
                          const double* inv, const double* count, double norm,
                          const double* ratio, double c, double max_exponent, int* clipped,
                          double* work)
    void si_row_update(int m, const double* x, const double* ratio, double g, double* h,
                       double* gam)
    void si_readout(int d, const double* s2, const double* h, const double* gam,
                    const double* log_norm, double log_norm0, double two_alpha,
                    double max_exponent, double* out)


def sparse_pass(
    int kind,
    double[::1] s2,
    double[:, ::1] H,
    double[:, ::1] gamma,
    double[::1] n_nonzero,
    bint per_feature,
    bint intercept,
    Rows rows,
    Stream stream,
    double[:, ::1] predictions,
    double forgetting=1.0,
    double discount=1.0,
):
    """One ordered pass of Algorithm 1 (``kind = ALG1``) or diagonal Algorithm 2 (``DIAG``).

    With ``intercept`` the state has one more coordinate than the rows have
    columns, the constant 1 (last). ``gamma`` is ``(K, d)`` for ``DIAG``;
    ``n_nonzero`` has ``d`` entries with ``per_feature``. The running
    scalars are continued in ``stream``. With ``forgetting = γ < 1`` (``DIAG``
    only) each row first discounts the statistics of every coordinate,
    ``s² ← γs²``, ``h ← γh``, ``Γ ← γΓ``, lazily: the arrays hold the
    statistics divided by ``discount`` (continued from the state), each row
    multiplies ``discount`` by ``γ`` and reads and writes its own entries
    through it (``O(K nnz)`` per row); when ``discount`` falls below
    ``RENORMALISE`` the arrays take it in (``O(K d)``, once every
    ``log(RENORMALISE)/log(γ)`` rows, at the same rows whatever the split).
    Returns the new ``discount``.

    The arithmetic runs in the SIMD loops of ``_row_math.h`` over the row's
    ``m`` entries (``x² ≠ 0``) laid out contiguously: a dense row without
    zeros in place (its coordinates are the state's), any other row gathered
    into buffers (and its statistics scattered back), the constant
    coordinate as one more block of one entry. Both layouts see the same
    entries in the same order, so a dense row and its CSR form give the same
    bits.
    """
    cdef const double[:, ::1] X = rows.X
    cdef const long long[::1] indptr = rows.indptr
    cdef const int[::1] indices = rows.indices
    cdef const double[::1] data = rows.data
    cdef bint dense = rows.dense
    cdef double max_exponent = stream.max_exponent, alpha = stream.alpha
    cdef int n = stream.T.shape[0]
    cdef int K = H.shape[0]
    cdef int d = s2.shape[0]
    cdef int d_x = d - 1 if intercept else d
    cdef Py_ssize_t row
    cdef long long width = d + 1
    for row in range(0 if dense else n):  # a CSR row holds at most its stored entries
        if indptr[row + 1] - indptr[row] + 1 > width:
            width = indptr[row + 1] - indptr[row] + 1
    cdef int* gathered = <int*> malloc(width * sizeof(int))
    # per entry of a gathered row: its value, s², h and Γ of one output; per entry of any
    # row: x/s², 1/(2α s²), the per-feature counter and work space
    cdef double* val = <double*> malloc(8 * width * sizeof(double))
    cdef double* s2e = val + width
    cdef double* he = val + 2 * width
    cdef double* ge = val + 3 * width
    cdef double* ratio = val + 4 * width
    cdef double* inv = val + 5 * width
    cdef double* count = val + 6 * width
    cdef double* work = val + 7 * width
    cdef double* p = <double*> malloc(2 * K * sizeof(double))
    cdef double* g = p + K
    cdef const int* ids = NULL
    cdef const double* xs = NULL
    cdef const double* hk
    cdef double* gam_k
    cdef int e, m, j, k
    cdef int clipped
    cdef bint in_place
    cdef double row_norm, gk, acc, one = 1.0, ratio_c = 0.0, inv_c = 0.0
    cdef double c = 0.5 / alpha, log_alpha = log(alpha), log_alpha_d = log(alpha * d)
    cdef double* count_e = count if per_feature else NULL
    cdef bint lazy = forgetting != 1.0
    cdef double s2c, hc, gc
    if gathered == NULL or val == NULL or p == NULL:
        free(gathered); free(val); free(p)
        raise MemoryError()
    try:
        with nogil:
            for row in range(n):
                stream.t += 1
                if lazy:
                    discount *= forgetting
                    if discount < RENORMALISE:  # the arrays take the discount in
                        for j in range(d):
                            s2[j] *= discount
                        for k in range(K):
                            for j in range(d):
                                H[k, j] *= discount
                                gamma[k, j] *= discount
                        discount = 1.0
                # the log of the normaliser: α t d (Algorithm 1), α d n_i (per feature: the
                # division by n_i is si_row_predict's), α (the diagonal learner)
                row_norm = log_alpha
                if kind == ALG1:
                    row_norm = log_alpha_d if per_feature else row_norm + log(<double> stream.t * d)
                clipped = 0
                # the row's entries: in place, or gathered (ids, xs)
                in_place = False
                m = 0
                if dense:
                    if d_x > 0:
                        xs = &X[row, 0]
                        m = si_count_entries(d_x, xs)
                        in_place = m == d_x and not lazy  # lazy: through the discount
                        if not in_place:
                            m = rows.gather(row, d_x, gathered, val)
                            ids = gathered
                            xs = val
                else:
                    m = indptr[row + 1] - indptr[row]
                    if m > 0:
                        ids = &indices[indptr[row]]
                        xs = &data[indptr[row]]
                if in_place:
                    si_row_stats(m, xs, &s2[0], ratio, inv, c)
                elif m > 0:
                    si_gather(m, ids, &s2[0], s2e)
                    if lazy:
                        for e in range(m):
                            s2e[e] *= discount
                    si_row_stats(m, xs, s2e, ratio, inv, c)
                    for e in range(m):
                        s2[ids[e]] = s2e[e] / discount if lazy else s2e[e]
                if intercept:
                    if lazy:
                        s2c = s2[d_x] * discount
                        si_row_stats(1, &one, &s2c, &ratio_c, &inv_c, c)
                        s2[d_x] = s2c / discount
                    else:
                        si_row_stats(1, &one, &s2[d_x], &ratio_c, &inv_c, c)
                if per_feature:
                    for e in range(m):
                        j = e if in_place else ids[e]
                        n_nonzero[j] += 1.0
                        count[e] = n_nonzero[j]
                    if intercept:
                        n_nonzero[d_x] += 1.0
                for k in range(K):
                    acc = 0.0
                    if m > 0:
                        gam_k = NULL
                        if in_place:
                            hk = &H[k, 0]
                            if kind == DIAG:
                                gam_k = &gamma[k, 0]
                        else:
                            si_gather(m, ids, &H[k, 0], he)
                            hk = he
                            if kind == DIAG:
                                si_gather(m, ids, &gamma[k, 0], ge)
                                gam_k = ge
                            if lazy:
                                for e in range(m):
                                    he[e] *= discount
                                    ge[e] *= discount
                        acc = si_row_predict(m, xs, hk, gam_k, inv, count_e, row_norm, ratio, c,
                                             max_exponent, &clipped, work)
                    if intercept and lazy:
                        hc = H[k, d_x] * discount
                        gc = gamma[k, d_x] * discount
                        acc += si_row_predict(
                            1, &one, &hc, &gc, &inv_c, NULL, row_norm, &ratio_c, c,
                            max_exponent, &clipped, work,
                        )
                    elif intercept:
                        acc += si_row_predict(
                            1, &one, &H[k, d_x], &gamma[k, d_x] if kind == DIAG else NULL,
                            &inv_c, &n_nonzero[d_x] if per_feature else NULL, row_norm,
                            &ratio_c, c, max_exponent, &clipped, work,
                        )
                    p[k] = finite_prediction(acc)
                    predictions[row, k] = p[k]
                if clipped:
                    stream.n_clipped += 1
                stream.learn(row, K, p, g)
                for k in range(K):
                    gk = g[k]
                    if gk == 0.0:
                        continue
                    if in_place:
                        si_row_update(m, xs, ratio, gk, &H[k, 0],
                                      &gamma[k, 0] if kind == DIAG else NULL)
                    elif lazy:  # the stored entries are the statistics / discount
                        for e in range(m):
                            gamma[k, ids[e]] += gk * gk * (xs[e] * ratio[e]) / discount
                        for e in range(m):
                            H[k, ids[e]] -= gk * xs[e] / discount
                    else:
                        if kind == DIAG:
                            for e in range(m):
                                gamma[k, ids[e]] += gk * gk * (xs[e] * ratio[e])
                        for e in range(m):
                            H[k, ids[e]] -= gk * xs[e]
                    if intercept and lazy:
                        hc = H[k, d_x] * discount
                        gc = gamma[k, d_x] * discount
                        si_row_update(1, &one, &ratio_c, gk, &hc, &gc)
                        H[k, d_x] = hc / discount
                        gamma[k, d_x] = gc / discount
                    elif intercept:
                        si_row_update(1, &one, &ratio_c, gk, &H[k, d_x],
                                      &gamma[k, d_x] if kind == DIAG else NULL)
    finally:
        free(gathered); free(val); free(p)
    return discount


def coordinate_weights(
    const double[::1] s2,
    const double[:, ::1] H,
    const double[:, ::1] gamma,
    const double[::1] log_norm,
    double log_norm0,
    double alpha,
    double max_exponent,
    int n_features,
):
    """``(coef (K, n_features), constant (K,))``: a coordinate-wise state's read-out at ``x = 0``.

    ``w_kj = exp(min(E_kj, max_exponent) − n_j) h_kj / s²_j`` on the seen
    coordinates (0 elsewhere), ``E_kj = h_kj²/(2α s²_j)`` (Algorithm 1,
    ``gamma`` empty) or ``(h_kj²/s²_j − Γ_kj)/(2α)`` (the diagonal learner),
    ``n_j = log_norm[j]``, or ``log_norm0`` when ``log_norm`` is empty. The
    first ``n_features`` coordinates give ``coef``; a last one (the constant
    column, when the state has ``n_features + 1``) gives ``constant`` (else
    0). One SIMD pass per output (``si_readout`` of ``_row_math.h``).
    """
    cdef int K = H.shape[0], d = s2.shape[0], k
    if H.shape[1] != d or (gamma.shape[0] and (gamma.shape[0] != K or gamma.shape[1] != d)):
        raise ValueError("coordinate_weights: H, gamma and s2 disagree in shape")
    if log_norm.shape[0] and log_norm.shape[0] != d:
        raise ValueError("coordinate_weights: log_norm needs one value per coordinate")
    if not 0 <= d - n_features <= 1:
        raise ValueError("coordinate_weights: the state has n_features or n_features + 1 entries")
    coef = np.empty((K, n_features))
    constant = np.zeros(K)
    cdef double[:, ::1] cv = coef
    cdef double[::1] c0 = constant
    cdef int j
    cdef bint diagonal = gamma.shape[0] > 0, per_coordinate = log_norm.shape[0] > 0
    with nogil:
        for k in range(K):
            for j in range(n_features, d):  # the constant column, if any; then the features
                si_readout(1, &s2[j], &H[k, j], &gamma[k, j] if diagonal else NULL,
                           &log_norm[j] if per_coordinate else NULL, log_norm0, 2.0 * alpha,
                           max_exponent, &c0[k])
            if n_features:
                si_readout(n_features, &s2[0], &H[k, 0], &gamma[k, 0] if diagonal else NULL,
                           &log_norm[0] if per_coordinate else NULL, log_norm0, 2.0 * alpha,
                           max_exponent, &cv[k, 0])
    return coef, constant


def centered_pass(
    int kind,
    double[::1] mean,
    double[::1] m2,
    double[::1] sq,
    double[:, ::1] H,
    double[::1] G,
    double[:, ::1] gamma,
    double[::1] gamma0,
    bint fit_intercept,
    Rows rows,
    Stream stream,
    double[:, ::1] predictions,
):
    """Algorithm 1 (``ALG1``) or diagonal Algorithm 2 (``DIAG``) on running-mean-centred features.

    At trial ``t``, after adding the row to the running sums (Welford), the
    statistics are those of the data centred at the current mean ``m``:
    ``s̃² = m2``, ``h̃ = H + m G`` (``H = −Σ g x``, ``G = Σ g``) and
    ``x̃ = x − m``; a feature constant so far (``m2 ≤ 1e-12 Σ x²``) has weight
    0. The intercept is an uncentred constant coordinate (``s² = t``,
    ``h = −G``); ``d`` counts it in Algorithm 1's ``1/(α t d)``. ``X`` holds
    the features only (no intercept column); CSR rows are densified.
    """
    cdef double alpha = stream.alpha, max_exponent = stream.max_exponent
    cdef int n = stream.T.shape[0]
    cdef int K = H.shape[0]
    cdef int d = mean.shape[0]
    cdef int d_aug = d + (1 if fit_intercept else 0)
    cdef double* xrow = <double*> malloc((d + 1) * sizeof(double))
    # per feature: x̃/s̃², 1/(2α s̃²), the output-free part of the exponent, x̃²/s̃²
    cdef double* ratio = <double*> malloc(4 * (d + 1) * sizeof(double))
    cdef double* inv = ratio + (d + 1)
    cdef double* base = ratio + 2 * (d + 1)
    cdef double* lev = ratio + 3 * (d + 1)
    cdef int* live = <int*> malloc((d + 1) * sizeof(int))
    cdef double* p = <double*> malloc(2 * K * sizeof(double))
    cdef double* g = p + K
    cdef Py_ssize_t row
    cdef int e, j, k, m
    cdef double x, xc, r, delta, hc, E, E0, acc, norm, gk
    cdef double inv_two_alpha = 0.5 / alpha, log_alpha = log(alpha), inv_t
    cdef bint clipped
    if xrow == NULL or ratio == NULL or live == NULL or p == NULL:
        free(xrow); free(ratio); free(live); free(p)
        raise MemoryError()
    try:
        with nogil:
            for row in range(n):
                stream.t += 1
                inv_t = 1.0 / <double> stream.t
                rows.copy(row, d, xrow)
                m = 0
                for j in range(d):
                    x = xrow[j]
                    delta = x - mean[j]
                    mean[j] += delta / stream.t
                    m2[j] += delta * (x - mean[j])
                    sq[j] += x * x
                    xc = x - mean[j]
                    if m2[j] > CONSTANT_TOL * sq[j] and xc != 0.0:
                        r = 1.0 / m2[j]
                        ratio[j] = xc * r
                        inv[j] = inv_two_alpha * r
                        base[j] = xc * xc * inv[j]
                        lev[j] = xc * ratio[j]
                        live[m] = j
                        m += 1
                norm = log(alpha * stream.t * d_aug) if kind == ALG1 else log_alpha
                clipped = False
                for k in range(K):
                    acc = 0.0
                    for e in range(m):
                        j = live[e]
                        hc = H[k, j] + G[k] * mean[j]
                        if kind == ALG1:
                            E = hc * hc * inv[j] + base[j]
                        else:
                            E = hc * hc * inv[j] - gamma[k, j] * inv_two_alpha
                        if E > max_exponent:
                            E = max_exponent
                            clipped = True
                        acc += exp(E - norm) * hc * ratio[j]
                    if fit_intercept:
                        if kind == ALG1:
                            E0 = (G[k] * G[k] + 1.0) * inv_t * inv_two_alpha
                        else:
                            E0 = (G[k] * G[k] * inv_t - gamma0[k]) * inv_two_alpha
                        if E0 > max_exponent:
                            E0 = max_exponent
                            clipped = True
                        acc += exp(E0 - norm) * (-G[k] * inv_t)
                    p[k] = finite_prediction(acc)
                    predictions[row, k] = p[k]
                if clipped:
                    stream.n_clipped += 1
                stream.learn(row, K, p, g)
                for k in range(K):
                    gk = g[k]
                    if gk == 0.0:
                        continue
                    if kind == DIAG:
                        for e in range(m):
                            j = live[e]
                            gamma[k, j] += gk * gk * lev[j]
                        if fit_intercept:
                            gamma0[k] += gk * gk * inv_t
                    for j in range(d):
                        H[k, j] -= gk * xrow[j]
                    G[k] += gk
    finally:
        free(xrow); free(ratio); free(live); free(p)


# ------------------------------------------------------------------ full pass
cdef inline void givens(double a, double b, double* c, double* s) noexcept nogil:
    """``c, s`` with ``[c s; −s c] [a; b] = [r; 0]``, ``r = hypot(a, b)``."""
    cdef double r = hypot(a, b)
    c[0] = a / r
    s[0] = b / r


def full_pass_qr(
    double[:, ::1] R,
    double[:, ::1] Z,
    double[::1] gamma,
    double[::1] scale,
    double[::1] ref,
    bint has_ref,
    bint intercept,
    long long rank,
    Rows rows,
    Stream stream,
    double rank_tol,
    double storage_tol,
    double[:, ::1] predictions,
    double forgetting=1.0,
    double[::1] xy=None,
    double[::1] u=None,
    double[::1] ls_predictions=None,
):
    """One ordered pass of Algorithm 2 on the Givens-updated factor ``R`` (module docstring).

    Internal coordinates: with ``intercept`` (a constant column, last, that
    ``X`` does not hold) each feature is shifted by the first row seen
    (``ref``, fixed then; the constant column is not shifted), then each
    coordinate is divided by its first non-zero value (``scale``, fixed
    then): an invertible affine map of the rows, invisible in the
    predictions of Algorithm 2, that keeps ``R`` well scaled and makes the
    internal rows the same, up to one rounding, whatever the units of each
    feature (the same bits for power-of-two units). ``Z`` holds ``z_k = R⁻ᵀh_k``.
    The running scalars are continued in ``stream``. A remainder at a zero
    row of ``R`` is a new direction when its square exceeds ``rank_tol`` times
    the row's squared norm and ``storage_tol`` times the squared norm of the
    row before the shift (each coordinate in its unit): the storage rounding
    of a row in the span is not a direction. Returns ``(rank,
    has_ref, spread)``, ``spread`` the largest ratio of the largest to the
    smallest pivot ``|R_jj|`` after a row of the pass (a lower bound of
    ``κ(R)``). With ``forgetting = γ < 1`` each row first discounts the
    statistics, ``S ← γS``, ``h ← γh``, ``Γ ← γΓ``: ``R ← √γ R``,
    ``z ← √γ z`` (``O(d²)``, as the rotations). ``xy`` (length ``d``, or
    ``None``) accumulates ``Σ_t y_t x_t`` of the first target in internal
    coordinates, discounted like ``S`` (``xy ← γ xy`` first): with ``R`` it
    gives the least-squares read-out ``S⁺ Σ_t y_t x_t``. With ``xy``, ``u``
    (length ``d``) carries ``R⁻ᵀ xy`` through the same rotations and discount
    as ``z``, and ``ls_predictions`` (length ``n``) receives each row's
    least-squares prediction on the rows before it, ``x_tᵀ S'⁺ Σ_{s<t} y_s
    x_s = vᵀu / (1 − ‖v‖²)`` (``S' = S_t − x_t x_tᵀ``, the statistics before
    the row; 0 on a rank increase or a leverage of 1) before ``u += y_t v``
    takes the row in: the read-out's prequential predictions, without its
    fading ridge, in ``O(d)`` a row.
    """
    cdef double alpha = stream.alpha, max_exponent = stream.max_exponent
    cdef int n = stream.T.shape[0]
    cdef int K = Z.shape[0]
    cdef int d = R.shape[0]
    cdef int d_x = d - 1 if intercept else d
    cdef double* x = <double*> malloc(d * sizeof(double))
    cdef double* v = <double*> malloc(d * sizeof(double))
    cdef double* rho = <double*> malloc(K * sizeof(double))
    cdef double* p = <double*> malloc(K * sizeof(double))
    cdef double* a = <double*> malloc(K * sizeof(double))
    cdef double* g = <double*> malloc(K * sizeof(double))
    cdef Py_ssize_t row
    cdef int j, k, first, inc = 1, length
    cdef double c, s, tmp, gam, norm2, raw2, lev, q, E, two_alpha = 2.0 * alpha
    cdef double log_alpha = log(alpha), r_min, r_max, r_abs, spread = 1.0
    cdef bint new_direction, clipped
    cdef bint least_squares = xy is not None
    cdef bint carry = least_squares and u is not None and ls_predictions is not None
    cdef double rho_u = 0.0, a_u
    if least_squares and xy.shape[0] != d:
        raise ValueError(f"xy has {xy.shape[0]} entries, the factor R {d} coordinates")
    if carry and (u.shape[0] != d or ls_predictions.shape[0] != n):
        raise ValueError(
            f"u has {u.shape[0]} entries and ls_predictions {ls_predictions.shape[0]}: "
            f"expected {d} and {n}"
        )
    if x == NULL or v == NULL or rho == NULL or p == NULL or a == NULL or g == NULL:
        free(x); free(v); free(rho); free(p); free(a); free(g)
        raise MemoryError()
    try:
        with nogil:
            for row in range(n):
                stream.t += 1
                if forgetting != 1.0:
                    c = sqrt(forgetting)
                    for j in range(d):
                        for first in range(j, d):
                            R[j, first] *= c
                    for k in range(K):
                        gamma[k] *= forgetting
                        for j in range(d):
                            Z[k, j] *= c
                    if least_squares:
                        for j in range(d):
                            xy[j] *= forgetting
                    if carry:
                        for j in range(d):
                            u[j] *= c
                rows.copy(row, d_x, x)
                for j in range(d_x):  # the row as stored (v is work space until the rotations)
                    v[j] = x[j]
                if intercept:
                    if not has_ref:
                        for j in range(d_x):
                            ref[j] = x[j]
                        has_ref = True
                    for j in range(d_x):
                        x[j] = x[j] - ref[j]
                    x[d_x] = 1.0
                    v[d_x] = 1.0
                norm2 = 0.0
                raw2 = 0.0
                for j in range(d):
                    if x[j] * x[j] == 0.0:  # a square that underflows counts as zero
                        x[j] = 0.0
                        continue
                    if scale[j] == 0.0:
                        scale[j] = x[j]
                    x[j] = x[j] / scale[j]
                    norm2 += x[j] * x[j]
                    tmp = v[j] / scale[j]
                    raw2 += tmp * tmp
                    if least_squares:
                        xy[j] += stream.T[row, 0] * x[j]
                # rotate [R; xᵀ] into R, carrying v (from e_bottom) and z (from [z; 0])
                for j in range(d):
                    v[j] = 0.0
                gam = 1.0
                for k in range(K):
                    rho[k] = 0.0
                rho_u = 0.0
                new_direction = False
                for j in range(d):
                    if x[j] == 0.0:
                        continue
                    if R[j, j] == 0.0:
                        if x[j] * x[j] > rank_tol * norm2 and x[j] * x[j] > storage_tol * raw2:
                            # a new direction: the rest of the row becomes row j of R
                            for first in range(j, d):
                                R[j, first] = x[first]
                            v[j] = gam
                            gam = 0.0
                            for k in range(K):
                                Z[k, j] = rho[k]
                                rho[k] = 0.0
                            if carry:
                                u[j] = rho_u
                                rho_u = 0.0
                            new_direction = True
                            rank += 1
                            break
                        x[j] = 0.0  # rounding of a row in the span: dropped
                        continue
                    givens(R[j, j], x[j], &c, &s)
                    length = d - j
                    drot(&length, &R[j, j], &inc, &x[j], &inc, &c, &s)
                    x[j] = 0.0
                    tmp = v[j]
                    v[j] = c * tmp + s * gam
                    gam = c * gam - s * tmp
                    for k in range(K):
                        tmp = Z[k, j]
                        Z[k, j] = c * tmp + s * rho[k]
                        rho[k] = c * rho[k] - s * tmp
                    if carry:
                        tmp = u[j]
                        u[j] = c * tmp + s * rho_u
                        rho_u = c * rho_u - s * tmp
                r_min = 0.0
                r_max = 0.0
                for j in range(d):
                    r_abs = fabs(R[j, j])
                    if r_abs > r_max:
                        r_max = r_abs
                    if r_abs > 0.0 and (r_abs < r_min or r_min == 0.0):
                        r_min = r_abs
                if r_min > 0.0 and r_max / r_min > spread:
                    spread = r_max / r_min
                lev = 0.0
                for j in range(d):
                    lev += v[j] * v[j]
                if new_direction or lev > 1.0:
                    lev = 1.0
                clipped = False
                for k in range(K):
                    q = 0.0
                    a[k] = 0.0
                    for j in range(d):
                        q += Z[k, j] * Z[k, j]
                        a[k] += Z[k, j] * v[j]
                    if new_direction:
                        a[k] = 0.0  # xᵀS⁺h = 0 on a rank increase (Appendix E)
                    E = (q - gamma[k]) / two_alpha
                    if E > max_exponent:
                        E = max_exponent
                        clipped = True
                    p[k] = finite_prediction(exp(E - log_alpha) * a[k])
                    predictions[row, k] = p[k]
                if clipped:
                    stream.n_clipped += 1
                if carry:  # xᵀS_t⁺b = (1 − lev) xᵀS'⁺b, S' = S_t − xxᵀ: undo the row's own share
                    a_u = 0.0
                    if not new_direction and lev < 1.0:
                        for j in range(d):
                            a_u += u[j] * v[j]
                        a_u = finite_prediction(a_u / (1.0 - lev))
                    ls_predictions[row] = a_u
                    for j in range(d):
                        u[j] += stream.T[row, 0] * v[j]
                stream.learn(row, K, p, g)
                for k in range(K):
                    if g[k] == 0.0:
                        continue
                    for j in range(d):
                        Z[k, j] -= g[k] * v[j]
                    gamma[k] += g[k] * g[k] * lev
    finally:
        free(x); free(v); free(rho); free(p); free(a); free(g)
    return rank, has_ref, spread


def triangular_rcond(double[::1, :] A):
    """LAPACK ``dtrcon``'s reciprocal 1-norm condition number of the upper triangular ``A``.

    ``A`` is Fortran-ordered, as ``scipy.linalg.lapack.dtrcon`` passes it: the
    same call, reached through ``scipy.linalg.cython_lapack`` (present in every
    SciPy the package builds against; the Python wrapper exists only from
    SciPy 1.15). Raises ``ValueError`` on a negative LAPACK ``info``.
    """
    cdef int n = A.shape[0], lda = max(A.shape[0], 1), info = 0
    cdef double rcond = 0.0
    if A.shape[1] != n:
        raise ValueError("triangular_rcond needs a square matrix")
    if n == 0:
        return 1.0
    cdef double[::1] work = np.empty(3 * n)
    cdef int[::1] iwork = np.empty(n, dtype=np.intc)
    with nogil:
        dtrcon(b"1", b"U", b"N", &n, &A[0, 0], &lda, &rcond, &work[0], &iwork[0], &info)
    if info < 0:
        raise ValueError(f"dtrcon: argument {-info} is invalid")
    return rcond


def compiled_loss(str name, double[::1] p, double[::1] y, double epsilon):
    """``(value, g)`` of the compiled loss table at ``p`` (tests compare it with ``_losses``)."""
    cdef int K = p.shape[0]
    g = np.zeros(K)
    cdef double[::1] gv = g
    cdef double[::1] pc = p.copy()
    cdef double value = 0.0
    row_loss(LOSS_CODES[name], None, K, &pc[0], &y[0], epsilon, 0.0, &gv[0], &value)
    return value, g


def compiled_exp(const double[::1] x):
    """``exp`` at ``x`` as the coordinate-wise passes evaluate it (tests compare it with libm)."""
    cdef int m = x.shape[0]
    out = np.empty(m)
    cdef double[::1] ov = out
    if m:
        si_exp_array(m, &x[0], &ov[0])
    return out
