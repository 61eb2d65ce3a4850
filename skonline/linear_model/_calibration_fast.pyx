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



def platt_steps(
    double[::1] cal,
    const double[::1] scores,
    const unsigned char[::1] positive,
    const double[::1] weight,
    double min_slope,
):
    """Online Platt scaling of binary scores, updated in place, row by row.

    ``cal = [a, b, H_aa, H_ab, H_bb]``: the map ``σ(a f + b)`` takes one
    Newton step per row on its log-loss, ``H += c p(1 − p) [f, 1][f, 1]ᵀ``,
    ``(a, b) −= H⁻¹ c (p − y) [f, 1]``, with ``a`` kept at least
    ``min_slope``. Rows with a non-finite score are skipped, and so is a
    step that would not be finite. The caller checks ``len(cal) == 5``.
    """
    cdef Py_ssize_t n = scores.shape[0], i
    cdef double f, z, p, c, e, ga, gb, det, step, s, haa, hab, hbb
    for i in range(n):
        f = scores[i]
        if not isfinite(f):
            continue
        c = weight[i]
        z = cal[0] * f + cal[1]
        if z >= 0:
            p = 1.0 / (1.0 + exp(-z))
        else:
            e = exp(z)
            p = e / (1.0 + e)
        e = c * p * (1.0 - p)
        cal[2] += e * f * f
        cal[3] += e * f
        cal[4] += e
        e = c * (p - (1.0 if positive[i] else 0.0))
        # Cramer's rule on H / s and g / s (s the larger diagonal entry): the same
        # solution, and no overflow of the determinant under extreme row weights
        s = cal[2] if cal[2] > cal[4] else cal[4]
        haa = cal[2] / s
        hab = cal[3] / s
        hbb = cal[4] / s
        ga = e * f / s
        gb = e / s
        det = haa * hbb - hab * hab
        if det > 0.0:
            step = cal[0] - (hbb * ga - hab * gb) / det
            e = cal[1] - (haa * gb - hab * ga) / det
            if isfinite(step) and isfinite(e):
                cal[1] = e
                cal[0] = min_slope if min_slope > step else step
