# cython: language_level=3
# The Frequent Directions shrink rule (the SHRINK step of Luo et al. 2019,
# Algorithms 1, 2, 4 and 5; Liberty 2013; PFD: Desai, Ghashami & Phillips 2016),
# written once for every compiled kernel that compacts a sketch: the Frequent
# Directions pass (decomposition/_frequent_directions_fast.pyx, which Python
# reaches through ``shrunk_squares``) and the sketch of the RFD-SON learners
# (linear_model/_son_fast.pyx).
#
# A compaction of a buffer with squared singular values λ_1 ≥ λ_2 ≥ … ≥ 0
# (``n_values`` of them) keeps the top ``n_kept(n_values, m)`` directions and
# subtracts ``δ = shrink_delta(λ_m, …)`` from the values the variant shrinks.

from libc.float cimport DBL_EPSILON

# Variant codes (``VARIANT_CODES`` of the Frequent Directions kernels).
cdef enum:
    VARIANT_FD = 0    # shrink every kept value (FD, RFD, the SON sketch)
    VARIANT_PFD = 1   # parameterized FD: shrink only the last pfd_q of the top m
    VARIANT_ISVD = 2  # greedy truncation: no shrinkage


cdef inline double shrink_delta(double lam_m, int n_values, int m, double top) noexcept nogil:
    # δ = λ_m when the buffer has at least m values, else 0 (a buffer of fewer
    # than m values is kept whole, as Algorithm 1 before row m); 0 too when
    # δ ≤ n_values · eps · λ_1 (``top``): numerically rank < m, rounding noise
    # is not shrinkage (RFD's α stays 0).
    cdef double delta = lam_m if n_values >= m else 0.0
    if n_values > 0 and delta <= n_values * DBL_EPSILON * top:
        delta = 0.0
    return delta


cdef inline int n_kept(int n_values, int m) noexcept nogil:
    # The number of values a compaction keeps: min(m − 1, n_values).
    return m - 1 if m - 1 < n_values else n_values


cdef inline double shrunk_value(double lam_i, int i, double delta, int m, int variant,
                                int pfd_q) noexcept nogil:
    # The kept value of λ_i (0-based index i, λ_i ≥ 0): λ_i − δ clipped at 0
    # (it can round below 0 when values tie) for the values the variant
    # shrinks (all for FD, indices ≥ m − pfd_q for PFD, none for iSVD).
    if variant == VARIANT_FD or (variant == VARIANT_PFD and i >= m - pfd_q):
        return lam_i - delta if lam_i > delta else 0.0
    return lam_i
