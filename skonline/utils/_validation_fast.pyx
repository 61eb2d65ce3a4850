# cython: language_level=3, boundscheck=False, wraparound=False
"""One pass over a dense block: its smallest and largest entries, and whether all are finite.

The finiteness and magnitude checks of a validated batch in a single read of
the data, without the temporaries of NumPy's ``isfinite``/``abs`` (shared by
the input validation of every estimator, the sketches' own guard and the
finiteness check of a new state).
"""

from libc.math cimport isfinite

ctypedef fused floating_in:
    float
    double


def value_range(const floating_in[:, :] X):
    """``(min, max, code)`` of a dense 2-D block; code 0: finite, 1: a NaN, 2: an infinity.

    An empty block gives ``(0.0, 0.0, 0)``. The scan stops at the first NaN
    (``min``/``max`` are then those of the entries before it).
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j
    cdef double v, low = 0.0, high = 0.0
    cdef int code = 0
    if n == 0 or d == 0:
        return 0.0, 0.0, 0
    low = X[0, 0]
    high = low
    with nogil:
        for i in range(n):
            for j in range(d):
                v = X[i, j]
                if v != v:
                    code = 1
                    break
                if v < low:
                    low = v
                elif v > high:
                    high = v
            if code:
                break
    if code == 0 and not (isfinite(low) and isfinite(high)):
        code = 2
    return low, high, code
