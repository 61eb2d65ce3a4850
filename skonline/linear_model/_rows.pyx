# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The rows of a pass, one object for every compiled linear kernel (declared in ``_rows.pxd``).

The scale-invariant and the sketched Newton passes both take a :class:`Rows`;
:func:`make_rows` builds it from a dense array or a CSR matrix the caller has
prepared (each kernel has its own rule for CSR entries).
"""

import numpy as np
import scipy.sparse as sp

_EMPTY_2D = np.zeros((0, 0))
_EMPTY_1D = np.zeros(0)
_EMPTY_PTR = np.zeros(1, dtype=np.int64)
_EMPTY_IDX = np.zeros(0, dtype=np.intc)


cdef class Rows:
    def __init__(self, bint dense, const double[:, ::1] X, const long long[::1] indptr,
                 const int[::1] indices, const double[::1] data):
        self.dense = dense
        self.X = X
        self.indptr = indptr
        self.indices = indices
        self.data = data


def make_rows(X):
    """The :class:`Rows` of ``X``: a float64 CSR matrix, or an array read in place.

    Dense rows are read in place (C-contiguous float64; a copy only when the
    input is not); a CSR matrix is read as given (its ``indptr`` widened to
    64 bits), so the caller decides its canonical form.
    """
    if sp.issparse(X):
        return Rows(
            False,
            _EMPTY_2D,
            X.indptr.astype(np.int64, copy=False),
            X.indices.astype(np.intc, copy=False),
            X.data,
        )
    return Rows(True, np.ascontiguousarray(X, dtype=np.float64), _EMPTY_PTR, _EMPTY_IDX, _EMPTY_1D)


def _outside(int width):
    return ValueError(f"a CSR column index lies outside [0, {width})")


def scaled_values(const double[::1] data, const int[::1] indices, const double[::1] factor):
    """``data[e] · factor[indices[e]]``: CSR values with each column multiplied by its factor.

    One pass over the entries, each index checked against ``factor``'s length
    before it is read: what ``data * factor[indices]`` computes, without
    widening the indices.
    """
    cdef Py_ssize_t e, n = data.shape[0]
    cdef int j, width = factor.shape[0]
    cdef bint bad = False
    if indices.shape[0] != n:
        raise ValueError("data and indices differ in length")
    out = np.empty(n)
    cdef double[::1] o = out
    with nogil:
        for e in range(n):
            j = indices[e]
            if j < 0 or j >= width:
                bad = True
                break
            o[e] = data[e] * factor[j]
    if bad:
        raise _outside(width)
    return out


def any_open_value(const double[::1] data, const int[::1] indices, const int[::1] seen, int k):
    """Whether some non-zero value falls in a column that has seen fewer than ``k`` values.

    Every index is checked against ``seen``'s length (all of them, also after
    a value is found).
    """
    cdef Py_ssize_t e, n = data.shape[0]
    cdef int j, width = seen.shape[0]
    cdef bint found = False, bad = False
    if indices.shape[0] != n:
        raise ValueError("data and indices differ in length")
    with nogil:
        for e in range(n):
            j = indices[e]
            if j < 0 or j >= width:
                bad = True
                break
            if data[e] != 0.0 and seen[j] < k:
                found = True
    if bad:
        raise _outside(width)
    return found


def count_columns(const int[::1] indices, int width):
    """The number of distinct columns among ``indices`` (each checked to lie in ``[0, width)``)."""
    used = np.zeros(width, dtype=np.uint8)
    cdef unsigned char[::1] u = used
    cdef Py_ssize_t e
    cdef int j, count = 0
    cdef bint bad = False
    with nogil:
        for e in range(indices.shape[0]):
            j = indices[e]
            if j < 0 or j >= width:
                bad = True
                break
            if not u[j]:
                u[j] = 1
                count += 1
    if bad:
        raise _outside(width)
    return count
