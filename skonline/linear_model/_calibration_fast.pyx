# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online temperature scaling, compiled: the per-row loop of ``_linear.temperature_pass``.

The Python layer (:func:`skonline.linear_model._linear.temperature_pass`)
checks the shapes and makes every array C-contiguous float64 / uint8 before
calling; the loop sizes nothing from its input and allocates no buffer.
"""

from libc.math cimport exp, isfinite


def temperature_steps(
    double a,
    double h,
    const double[:, ::1] scores,
    const unsigned char[:, ::1] positive,
    const double[::1] weight,
    double min_slope,
):
    """``(a, h)`` after one Newton step per row on the log-loss of ``σ(a f)`` / ``softmax(a f)``.

    Binary (one score per row): ``h += c p(1 − p) f²``, ``a −= c (p − y) f / h``.
    Several classes: ``h += c Var_p(f)``, ``a −= c (E_p[f] − Σ_{k: y_k} f_k) / h``.
    ``a`` is kept at least ``min_slope``; rows with a non-finite score are skipped.
    """
    cdef Py_ssize_t n = scores.shape[0], K = scores.shape[1], i, k
    cdef double f, z, p, c, e, step, zmax, total, mean, second, fy
    cdef bint finite
    if K == 1:
        for i in range(n):
            f = scores[i, 0]
            if not isfinite(f):
                continue
            c = weight[i]
            z = a * f
            if z >= 0:
                p = 1.0 / (1.0 + exp(-z))
            else:
                e = exp(z)
                p = e / (1.0 + e)
            h += c * p * (1.0 - p) * f * f
            step = a - c * (p - (1.0 if positive[i, 0] else 0.0)) * f / h
            a = min_slope if min_slope > step else step
        return a, h
    for i in range(n):
        finite = True
        zmax = a * scores[i, 0]
        for k in range(K):
            if not isfinite(scores[i, k]):
                finite = False
                break
            if a * scores[i, k] > zmax:
                zmax = a * scores[i, k]
        if not finite:
            continue
        total = 0.0
        mean = 0.0
        second = 0.0
        fy = 0.0
        for k in range(K):
            f = scores[i, k]
            e = exp(a * f - zmax)
            total += e
            mean += e * f
            second += e * f * f
            if positive[i, k]:
                fy += f
        mean /= total
        second /= total
        c = weight[i]
        e = second - mean * mean
        h += c * (e if e > 0.0 else 0.0)
        step = a - c * (mean - fy) / h
        a = min_slope if min_slope > step else step
    return a, h
