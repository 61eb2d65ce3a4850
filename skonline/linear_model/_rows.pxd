# cython: language_level=3
"""The rows of a pass as the compiled linear kernels read them (``_rows.pyx`` builds them)."""


cdef class Rows:
    """The rows of a pass: a C-contiguous float64 array, or the arrays of a CSR matrix."""

    cdef bint dense
    cdef const double[:, ::1] X
    cdef const long long[::1] indptr
    cdef const int[::1] indices
    cdef const double[::1] data

    cdef inline int gather(self, Py_ssize_t row, int d, int* idx, double* val) noexcept nogil:
        """The entries of a row whose square is not 0 (as ``canonical_csr`` keeps)."""
        cdef int j, m = 0
        cdef long long e
        cdef double x
        if not self.dense:
            for e in range(self.indptr[row], self.indptr[row + 1]):
                idx[m] = self.indices[e]
                val[m] = self.data[e]
                m += 1
            return m
        for j in range(d):
            x = self.X[row, j]
            if x * x != 0.0:
                idx[m] = j
                val[m] = x
                m += 1
        return m

    cdef inline void copy(self, Py_ssize_t row, int d, double* out) noexcept nogil:
        """The row as ``d`` dense values (CSR entries of a column are summed)."""
        cdef long long e
        cdef int j
        if self.dense:
            for j in range(d):
                out[j] = self.X[row, j]
            return
        for j in range(d):
            out[j] = 0.0
        for e in range(self.indptr[row], self.indptr[row + 1]):
            out[self.indices[e]] += self.data[e]
