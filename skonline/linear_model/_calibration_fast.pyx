# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online temperature scaling, compiled: the per-row loop of ``_linear.temperature_pass``.

The Python layer (:func:`skonline.linear_model._linear.temperature_pass`)
checks the shapes and makes every array C-contiguous float64 / uint8 before
calling; the loop sizes nothing from its input and allocates no buffer.
"""

from libc.math cimport exp, fabs, isfinite, log, log1p


cdef inline double _logistic_loss(double z, bint positive) nogil:
    """``−log σ(z)`` for a positive row, ``−log(1 − σ(z))`` otherwise, without overflow."""
    cdef double m = -z if positive else z
    return (m if m > 0.0 else 0.0) + log1p(exp(-fabs(m)))


def temperature_steps(
    double a,
    double h,
    const double[:, ::1] scores,
    const unsigned char[:, ::1] positive,
    const double[::1] weight,
    double min_slope,
    double[::1] losses=None,
):
    """``(a, h)`` after one Newton step per row on the log-loss of ``σ(a f)`` / ``softmax(a f)``.

    Binary (one score per row): ``h += c p(1 − p) f²``, ``a −= c (p − y) f / h``.
    Several classes: ``h += c Var_p(f)``, ``a −= c (E_p[f] − Σ_{k: y_k} f_k) / h``.
    ``a`` is kept at least ``min_slope``; rows with a non-finite score are skipped.
    ``losses`` (optional, length ``n``, checked by the caller) receives each
    row's weighted log-loss ``c · (−log p_y)`` under the map before the row's
    step (0 for a skipped row): the map's prequential loss.
    """
    cdef Py_ssize_t n = scores.shape[0], K = scores.shape[1], i, k
    cdef double f, z, p, c, e, step, zmax, total, mean, second, fy
    cdef bint finite, keep = losses is not None
    if keep:
        losses[:] = 0.0
    if K == 1:
        for i in range(n):
            f = scores[i, 0]
            if not isfinite(f):
                continue
            c = weight[i]
            z = a * f
            if keep:
                losses[i] = c * _logistic_loss(z, positive[i, 0])
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
        if keep:  # −log softmax(a f)_y = zmax + log Σ exp(a f_k − zmax) − a f_y
            losses[i] = c * (zmax + log(total) - a * fy)
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
    double[::1] losses=None,
):
    """Online Platt scaling of binary scores, updated in place, row by row.

    ``cal = [a, b, H_aa, H_ab, H_bb]``: the map ``σ(a f + b)`` takes one
    Newton step per row on its log-loss, ``H += c p(1 − p) [f, 1][f, 1]ᵀ``,
    ``(a, b) −= H⁻¹ c (p − y) [f, 1]``, with ``a`` kept at least
    ``min_slope``. Rows with a non-finite score are skipped, and so is a
    step that would not be finite. The caller checks ``len(cal) == 5`` (and
    the length of ``losses``, written as in :func:`temperature_steps`).
    """
    cdef Py_ssize_t n = scores.shape[0], i
    cdef double f, z, p, c, e, ga, gb, det, step, s, haa, hab, hbb
    cdef bint keep = losses is not None
    if keep:
        losses[:] = 0.0
    for i in range(n):
        f = scores[i]
        if not isfinite(f):
            continue
        c = weight[i]
        z = cal[0] * f + cal[1]
        if keep:
            losses[i] = c * _logistic_loss(z, positive[i])
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


def gaussian_mixture_steps(
    double[::1] mix,
    const double[::1] first,
    const double[::1] second,
    const double[::1] target,
    const double[::1] weight,
    double prior=0.0,
):
    """Two regressors' predictions mixed by their Gaussian likelihoods, updated in place.

    ``mix = [L_1, L_2, Σ c r², Σ c, y_min, y_max]``: the mixture predicts
    ``w_1 p_1 + w_2 p_2`` with ``w_k ∝ exp(−L_k)`` (``L_2`` plus ``prior``), each ``p_k`` clipped to the
    range ``[y_min, y_max]`` of the targets before the row (as ``predict``
    clips). Per row, with ``r`` the mixture's residual and ``σ² = Σ c r² / Σ c``
    its mean square over the rows before this one, ``L_k += c (y − p_k)² /
    (2 σ²)`` (once ``σ² > 0``: the first rows only fix the range and the
    scale), then ``σ²`` and the range take the row in (``y_min > y_max``: no
    range yet, the first row sets it). Rows with a non-finite
    prediction or target are skipped. The caller checks the lengths.
    """
    cdef Py_ssize_t n = target.shape[0], i
    cdef double a, b, y, c, d, w1, r, s2
    for i in range(n):
        a = first[i]
        b = second[i]
        y = target[i]
        if not (isfinite(a) and isfinite(b) and isfinite(y)):
            continue
        c = weight[i]
        if mix[4] <= mix[5]:  # a range: the targets before this row
            a = mix[4] if a < mix[4] else (mix[5] if a > mix[5] else a)
            b = mix[4] if b < mix[4] else (mix[5] if b > mix[5] else b)
            d = mix[1] + prior - mix[0]  # w_1 = σ(L_2 + prior − L_1)
            if d >= 0:
                w1 = 1.0 / (1.0 + exp(-d))
            else:
                w1 = exp(d) / (1.0 + exp(d))
            r = y - (w1 * a + (1.0 - w1) * b)
            if mix[2] > 0.0 and mix[3] > 0.0:
                s2 = 2.0 * mix[2] / mix[3]
                mix[0] += c * (y - a) * (y - a) / s2
                mix[1] += c * (y - b) * (y - b) / s2
            mix[2] += c * r * r
            mix[3] += c
            mix[4] = y if y < mix[4] else mix[4]
            mix[5] = y if y > mix[5] else mix[5]
        else:  # the first row: its target is the range
            mix[4] = y
            mix[5] = y
