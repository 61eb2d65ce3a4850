# cython: language_level=3
"""The one loss table of skonline's online linear models, in C.

Each loss is a function of a scalar prediction ``p`` and a target ``y``
(``±1`` for the classification losses); names and formulas are listed in
:mod:`skonline.linear_model._losses`, which reaches these functions from
Python through the vectorised wrappers of ``_loss.pyx``. The compiled passes
(``_son_fast.pyx``, ``_scale_invariant_fast.pyx``) cimport them, so each
formula exists once.
"""

from libc.math cimport exp, fabs, log, log1p

cdef enum:
    SQUARED_ERROR = 0
    LOG_LOSS = 1
    HINGE = 2
    SMOOTH_HINGE = 3
    HUBER = 4
    ABSOLUTE_ERROR = 5
    EPSILON_INSENSITIVE = 6
    MULTINOMIAL = 7


cdef inline double sign(double r) noexcept nogil:
    return 1.0 if r > 0.0 else (-1.0 if r < 0.0 else 0.0)


cdef inline double loss_and_derivative(int loss, double p, double y, double epsilon,
                                       double* deriv) noexcept nogil:
    """``l(p; y)``; writes ``l'(p; y)`` into ``deriv`` (``l' = 0`` at the kinks)."""
    cdef double r, m, e, a
    if loss == SQUARED_ERROR:
        r = p - y
        deriv[0] = 2.0 * r
        return r * r
    if loss == LOG_LOSS:
        m = y * p
        if m > 0.0:
            e = exp(-m)
            deriv[0] = -y * e / (1.0 + e)
            return log1p(e)
        e = exp(m)
        deriv[0] = -y / (1.0 + e)
        return log1p(e) - m
    if loss == HINGE:
        m = y * p
        if m < 1.0:
            deriv[0] = -y
            return 1.0 - m
        deriv[0] = 0.0
        return 0.0
    if loss == SMOOTH_HINGE:
        m = y * p
        if m >= 1.0:
            deriv[0] = 0.0
            return 0.0
        if m <= 0.0:
            deriv[0] = -y
            return 0.5 - m
        deriv[0] = -y * (1.0 - m)
        return 0.5 * (1.0 - m) * (1.0 - m)
    r = p - y
    if loss == HUBER:
        if fabs(r) <= epsilon:
            deriv[0] = r
            return 0.5 * r * r
        deriv[0] = epsilon * sign(r)
        return epsilon * (fabs(r) - 0.5 * epsilon)
    if loss == ABSOLUTE_ERROR:
        deriv[0] = sign(r)
        return fabs(r)
    # EPSILON_INSENSITIVE
    a = fabs(r) - epsilon
    if a > 0.0:
        deriv[0] = sign(r)
        return a
    deriv[0] = 0.0
    return 0.0


cdef inline double second_derivative(int loss, double p, double y, double epsilon) noexcept nogil:
    """``l''(p; y)``: 0 at the kinks of the hinge-type losses; the Huber loss's IRLS weight."""
    cdef double m, e, r
    if loss == SQUARED_ERROR:
        return 2.0
    if loss == LOG_LOSS:
        m = y * p
        e = exp(-fabs(m))
        return e / ((1.0 + e) * (1.0 + e))
    if loss == SMOOTH_HINGE:
        m = y * p
        return 1.0 if (0.0 < m < 1.0) else 0.0
    if loss == HUBER:  # the IRLS weight of the Huber loss: 1 inside, ε/|r| outside
        r = p - y
        return 1.0 if fabs(r) <= epsilon else epsilon / fabs(r)
    return 0.0


cdef inline double multinomial_loss(int K, double* p, const double* y, double* g) noexcept nogil:
    """Softmax cross-entropy of a one-hot ``±1`` target; ``g_k = softmax(p)_k − 1[y_k > 0]``."""
    cdef int k
    cdef double top = p[0], total = 0.0, value = 0.0, log_total
    for k in range(1, K):
        if p[k] > top:
            top = p[k]
    for k in range(K):
        total += exp(p[k] - top)
    log_total = log(total)
    for k in range(K):
        g[k] = exp(p[k] - top - log_total)
        if y[k] > 0.0:
            value -= p[k] - top - log_total
            g[k] -= 1.0
    return value
