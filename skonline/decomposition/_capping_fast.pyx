# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled eigenvalue step of the online PCA family: softmax, floor, fixed share, capping.

The one implementation of the rule, in logs, used by every learner of the
family: online PCA, the variance minimiser and the capped Hedge
(:func:`skonline.decomposition._capping_kernels.capped_hedge_step`). Written
in C loops so that a row of online PCA at small ``n`` is not spent in the
Python overhead of a dozen NumPy calls. The NumPy transcription, the same
operations in the same order, is the reference of the tests
(``tests/decomposition/_capping_reference.py``).
"""

from libc.math cimport INFINITY, exp, fabs, isfinite, log, log1p

import numpy as np

#: Relative tolerance of the capping test.
cdef double TOL = 1e-12


cdef double _logsumexp(const double* a, const double* c, Py_ssize_t n) noexcept nogil:
    """``log(Σ c_i exp(a_i))`` shifted by the maximum (``c`` may be NULL: all ones)."""
    cdef Py_ssize_t i
    cdef double m = -INFINITY, s = 0.0
    for i in range(n):
        if a[i] > m:
            m = a[i]
    if not isfinite(m):
        return m
    for i in range(n):
        s += (1.0 if c == NULL else c[i]) * exp(a[i] - m)
    return m + log(s)


cdef void _normalize(double* a, const double* c, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef double z = _logsumexp(a, c, n)
    for i in range(n):
        a[i] -= z


cdef inline double _logaddexp(double a, double b) noexcept nogil:
    cdef double m
    if a == -INFINITY:
        return b
    if b == -INFINITY:
        return a
    m = a if a > b else b
    return m + log1p(exp(-fabs(a - b)))


cdef void _fixed_share(double* a, const double* c, Py_ssize_t n, double share,
                       double total) noexcept nogil:
    """``v <- share/N + (1 - share) v`` in logs (``N = Σ counts``), renormalised."""
    cdef Py_ssize_t i
    cdef double keep, add
    if share <= 0:
        return
    if share >= 1:
        for i in range(n):
            a[i] = -log(total)
        return
    keep = log1p(-share)
    add = log(share / total)
    for i in range(n):
        a[i] = _logaddexp(keep + a[i], add)
    _normalize(a, c, n)


def spectral_step(mu, int d, double floor=0.0, double share_before_cap=0.0,
                  double share_after_cap=0.0, counts=None):
    """Eigenvalue (or weight) part of one online PCA / capped Hedge update, in logs.

    From unnormalised log-weights ``mu`` (e.g. the eigenvalues of
    ``log W - eta x xᵀ``): softmax, optional floor (``v <- max(v, floor)``,
    renormalised), optional fixed share ``v <- share/n + (1 - share) v``
    (Yuan & Lamperski eq. 14b, before capping), capping at ``1/d`` (eq. 14c,
    Warmuth & Kuzmin Alg. 4: ``min(1/d, gamma v)`` with the ``gamma >= 1``
    that keeps the sum one, the closed form over a stable descending order)
    and optional fixed share after capping (Warmuth & Kuzmin §8). A weight of
    ``exp(-1e4)`` stays representable and ``log 0`` never occurs.

    Parameters
    ----------
    mu : array-like of shape (m,)
        Unnormalised log-weights (never written into).
    d : int
        Cap ``1/d``, ``1 <= d <= n``; ``d == 1`` is the plain simplex.
    floor : float, default=0.0
        Floor on the normalised weights, below ``1/n``; ``0``: none.
    share_before_cap, share_after_cap : float, default=0.0
        Fixed-share rates in ``[0, 1)`` before and after capping.
    counts : array-like of shape (m,), default=None
        Entry ``i`` stands for ``counts[i] >= 1`` equal weights (a repeated
        eigenvalue, never split by the capping); ``n = sum(counts)``.

    Returns
    -------
    log_w : ndarray of shape (m,)
        Logs of the new capped weights.
    """
    out_arr = np.array(mu, dtype=np.float64)
    cdef double[::1] a = out_arr
    cdef Py_ssize_t n = out_arr.shape[0], i, g
    c_arr = None if counts is None else np.ascontiguousarray(counts, dtype=np.float64)
    cdef double[::1] cv
    cdef const double* c = NULL
    cdef double total = <double> n, log_cap = -log(d), top, positive, log_gamma
    if c_arr is not None:
        cv = c_arr
        c = &cv[0]
        total = 0.0
        for i in range(n):
            total += c[i]
    if not 1 <= d <= total:
        raise ValueError(f"the cap size d={d} must be in [1, n={total:g}]")
    if n == 0:
        return out_arr
    _normalize(&a[0], c, n)
    if floor > 0:
        for i in range(n):
            if a[i] < log(floor):
                a[i] = log(floor)
        _normalize(&a[0], c, n)
    _fixed_share(&a[0], c, n, share_before_cap, total)
    # capping (Algorithm 4) on the normalised log-weights
    _normalize(&a[0], c, n)
    top = -INFINITY
    for i in range(n):
        if a[i] > top:
            top = a[i]
    if d == 1 or top <= log_cap + TOL:
        for i in range(n):
            if a[i] > log_cap:
                a[i] = log_cap
    else:
        positive = 0.0
        for i in range(n):
            if isfinite(a[i]):
                positive += 1.0 if c == NULL else c[i]
        if positive < d:
            raise ValueError(f"capping at 1/{d} needs at least {d} positive weights")
        order_arr = np.argsort(-out_arr, kind="stable")
        _cap_sorted(&a[0], c, n, d, log_cap, order_arr)
    if share_after_cap > 0:
        # (1 - a) w + a/n stays in the capped simplex: no re-capping needed
        _fixed_share(&a[0], c, n, share_after_cap, total)
        for i in range(n):
            if a[i] > log_cap:
                a[i] = log_cap
    return out_arr


def fixed_share_step(mu, double share):
    """Softmax then fixed share ``v <- share/n + (1 - share) v``, in logs.

    The first steps of :func:`spectral_step` without floor or capping: the
    exponentiated-gradient step with fixed share on the probability simplex
    (Yuan & Lamperski eq. 31a-b). ``share == 0`` is the softmax alone.

    Parameters
    ----------
    mu : array-like of shape (n,)
        Unnormalised log-weights (never written into).
    share : float
        Fixed-share rate in ``[0, 1)``.

    Returns
    -------
    log_v : ndarray of shape (n,)
        Logs of the new weights.
    """
    out_arr = np.array(mu, dtype=np.float64)
    cdef double[::1] a = out_arr
    cdef Py_ssize_t n = out_arr.shape[0]
    if n == 0:
        return out_arr
    _normalize(&a[0], NULL, n)
    _fixed_share(&a[0], NULL, n, share, <double> n)
    return out_arr


cdef void _cap_sorted(double* a, const double* c, Py_ssize_t n, int d, double log_cap,
                      order_arr):
    """The closed form of capping over a stable descending order (Algorithm 4)."""
    cdef Py_ssize_t[::1] order = order_arr.astype(np.intp)
    s_arr = np.empty(n)
    tail_arr = np.empty(n)
    before_arr = np.empty(n)
    cdef double[::1] s = s_arr, tail = tail_arr, before = before_arr
    cdef Py_ssize_t i, g = -1
    cdef double cs, acc = -INFINITY, n_before = 0.0, log_gamma
    for i in range(n):
        s[i] = a[order[i]]
    for i in range(n - 1, -1, -1):  # tail[i] = log of the weight of groups i, i+1, ...
        cs = 1.0 if c == NULL else c[order[i]]
        acc = _logaddexp(s[i] + log(cs), acc)
        tail[i] = acc
    for i in range(n):
        before[i] = n_before
        n_before += 1.0 if c == NULL else c[order[i]]
    for i in range(n):
        if before[i] < d and log(max(d - before[i], 1e-300)) + s[i] - tail[i] <= TOL:
            g = i
            break
    if g < 0:  # pragma: no cover - impossible for a valid probability vector
        raise ValueError("capping failed: no feasible split")
    log_gamma = log((d - before[g]) / d) - tail[g]
    for i in range(g):
        a[order[i]] = log_cap
    for i in range(g, n):
        a[order[i]] = min(s[i] + log_gamma, log_cap)
