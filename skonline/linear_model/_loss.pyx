# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Python's way into the loss table of ``_loss.pxd``: vectorised wrappers.

:mod:`skonline.linear_model._losses` calls these; the compiled passes cimport
the ``cdef inline`` functions of ``_loss.pxd`` directly.
"""

import numpy as np

LOSS_CODES = {
    "squared_error": SQUARED_ERROR,
    "log_loss": LOG_LOSS,
    "hinge": HINGE,
    "smooth_hinge": SMOOTH_HINGE,
    "huber": HUBER,
    "absolute_error": ABSOLUTE_ERROR,
    "epsilon_insensitive": EPSILON_INSENSITIVE,
    "multinomial": MULTINOMIAL,
}


def scalar_loss(int loss, double p, double y, double epsilon):
    """``(l(p; y), l'(p; y))`` of the loss of code ``loss`` at one prediction."""
    cdef double deriv = 0.0
    cdef double value = loss_and_derivative(loss, p, y, epsilon, &deriv)
    return value, deriv


def elementwise_loss(int loss, const double[::1] p, const double[::1] y, double epsilon):
    """``(values, derivatives)``, arrays of ``l(p_k; y_k)`` and ``l'(p_k; y_k)``."""
    cdef Py_ssize_t k, n = p.shape[0]
    values = np.empty(n)
    derivs = np.empty(n)
    cdef double[::1] v = values, g = derivs
    with nogil:
        for k in range(n):
            v[k] = loss_and_derivative(loss, p[k], y[k], epsilon, &g[k])
    return values, derivs


def softmax_loss(const double[::1] p, const double[::1] y):
    """``(value, g)`` of the multinomial loss of one row (one-hot ``±1`` target ``y``)."""
    cdef int K = p.shape[0]
    g = np.empty(K)
    cdef double[::1] gv = g
    cdef double[::1] pc = np.array(p, dtype=np.float64)
    cdef double value = multinomial_loss(K, &pc[0], &y[0], &gv[0])
    return value, g
