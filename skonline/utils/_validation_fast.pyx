# cython: language_level=3, boundscheck=False, wraparound=False
"""One pass over a dense block: its smallest and largest entries, and whether all are finite.

The finiteness and magnitude checks of a validated batch in a single read of
the data, without the temporaries of NumPy's ``isfinite``/``abs`` (shared by
the input validation of every estimator, the sketches' own guard and the
finiteness check of a new state).
"""

cimport numpy as cnp
from libc.math cimport isfinite

import numpy as np

cnp.import_array()

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


cdef inline bint _all_finite(const floating_in* p, Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(size):
        if not isfinite(p[i]):
            return False
    return True


def first_nonfinite(list arrays):
    """Index in ``arrays`` of the first float64/float32 array with a NaN or an infinity, or -1.

    One C loop over each array's buffer, without the per-array memoryview
    set-up: the finiteness check of a new state, whose arrays are many and
    small. Arrays that are not C-contiguous are checked through NumPy; other
    dtypes (integers) count as finite.
    """
    cdef Py_ssize_t k, size
    cdef cnp.ndarray a
    cdef bint bad
    for k in range(len(arrays)):
        a = arrays[k]
        size = cnp.PyArray_SIZE(a)
        if size == 0:
            continue
        if not cnp.PyArray_IS_C_CONTIGUOUS(a):
            if a.dtype.kind in "fc" and not np.isfinite(a).all():
                return k
            continue
        if cnp.PyArray_TYPE(a) == cnp.NPY_DOUBLE:
            bad = not _all_finite(<const double*> cnp.PyArray_DATA(a), size)
        elif cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT:
            bad = not _all_finite(<const float*> cnp.PyArray_DATA(a), size)
        else:
            bad = a.dtype.kind in "fc" and not np.isfinite(a).all()
        if bad:
            return k
    return -1
