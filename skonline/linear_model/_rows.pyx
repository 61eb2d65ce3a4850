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
