# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled eigendecomposition of a diagonal plus rank-one matrix (the secular equation).

The per-row eigen-update of online PCA: ``diag(d) + rho z zᵀ`` (Bunch, Nielsen
& Sorensen; Gu & Eisenstat's stable eigenvectors). The deflation, the loop over
the roots (LAPACK ``dlasd4``), Löwner's recomputed ``ẑ`` and the eigenvector
matrix run in C; the rotation of the caller's basis is one ``dgemm``. The
textbook transcription in Python is the reference of the tests
(``tests/decomposition/test_density_fast.py``).
"""

from libc.math cimport fabs, sqrt
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_blas cimport dgemm
from scipy.linalg.cython_lapack cimport dlasd4

import numpy as np

cdef double EPS = np.finfo(np.float64).eps


def rank_one_eigh(dv, z, double rho, U=None):
    """Eigendecomposition of ``diag(dv) + rho z zᵀ`` (``rho >= 0``) by the secular equation.

    Bunch-Nielsen-Sorensen with Gu-Eisenstat's stable eigenvectors: after
    deflation (components of ``z`` below ``8 eps · max(spread, rho)`` and
    diagonal entries closer than that, merged by a Householder reflection,
    which handles the large tied eigenspaces of a density matrix), each root
    of ``1 + rho sum_j z_j²/(d_j - lam) = 0`` comes from LAPACK ``dlasd4``
    together with the differences ``d_j - lam_i`` to full relative accuracy;
    ``z`` is recomputed from the roots (Löwner's formula) so the eigenvectors
    ``(d - lam_i)⁻¹ ẑ`` are orthogonal to working accuracy. ``O(m²)`` for
    ``m`` non-deflated entries, plus ``O(n |group|²)`` for the reflections.

    With ``U`` (orthonormal columns), returns ``U Q`` instead of ``Q``; the
    reflections and the secular eigenvectors are applied to ``U`` directly
    (one ``n × m × m`` product, never ``Q`` then ``U Q``).

    Returns
    -------
    lam : ndarray of shape (n,), ascending
    Q : ndarray of shape (n, n), orthonormal eigenvectors (columns), or ``U Q``
    """
    dv = np.asarray(dv, dtype=np.float64)
    cdef Py_ssize_t n = dv.shape[0]
    order = np.argsort(dv, kind="stable")
    d_arr = np.ascontiguousarray(dv[order])
    u_arr = np.array(np.asarray(z, dtype=np.float64)[order])
    base = np.eye(n) if U is None else np.asarray(U, dtype=np.float64)
    Qs = np.asfortranarray(base[:, order])  # columns contiguous: reflections and dgemm
    lam_arr = d_arr.copy()
    cdef double[::1] d = d_arr, u = u_arr, lam = lam_arr
    cdef double[::1, :] Q = Qs
    cdef Py_ssize_t rows = Qs.shape[0]
    cdef double nz = 0.0, r, shift, tol, nJ, rJ
    cdef Py_ssize_t i, a, start, stop, m, na, n_keep = 0
    cdef Py_ssize_t[::1] act
    cdef Py_ssize_t[::1] keep
    for i in range(n):
        nz += u[i] * u[i]
    nz = sqrt(nz)
    r = rho * nz * nz
    if r > 0 and n > 0:
        for i in range(n):
            u[i] /= nz
        shift = d[0]
        tol = 8 * EPS * max(d[n - 1] - shift, r)
        act_arr = np.flatnonzero(r * np.abs(u_arr) > tol).astype(np.intp)
        act = act_arr
        na = act_arr.shape[0]
        keep_arr = np.empty(na, dtype=np.intp)
        keep = keep_arr
        start = 0
        while start < na:
            stop = start + 1
            while stop < na and (d[act[stop]] - shift) - (d[act[start]] - shift) <= tol:
                stop += 1
            if stop - start > 1:  # (near-)equal diagonal entries: rotate z onto the last
                _reflect(Q, u, act, start, stop, rows)
            keep[n_keep] = act[stop - 1]
            n_keep += 1
            start = stop
        J = keep_arr[:n_keep]
        m = n_keep
        nJ = 0.0
        for a in range(m):
            nJ += u[keep[a]] * u[keep[a]]
        nJ = sqrt(nJ)
        rJ = r * nJ * nJ
        if rJ > 0:
            lamJ, S = _secular(np.sqrt(d_arr[J] - shift), u_arr[J] / nJ, rJ)
            QJ = np.asfortranarray(Qs[:, J])
            Qs[:, J] = _times(QJ, S)
            lam_arr[J] = lamJ + shift
    srt = np.argsort(lam_arr, kind="stable")
    return lam_arr[srt], np.ascontiguousarray(Qs[:, srt])


cdef void _reflect(double[::1, :] Q, double[::1] u, Py_ssize_t[::1] act, Py_ssize_t start,
                   Py_ssize_t stop, Py_ssize_t rows) noexcept:
    """Householder reflection merging ``u[act[start:stop]]`` into its last entry (Q updated)."""
    cdef Py_ssize_t s = stop - start, a, i
    cdef double* v = <double*> malloc(s * sizeof(double))
    cdef double* qv = <double*> malloc(rows * sizeof(double))
    cdef double ng = 0.0, sgn, vv = 0.0, coef
    for a in range(s):
        v[a] = u[act[start + a]]
        ng += v[a] * v[a]
    ng = sqrt(ng)
    sgn = 1.0 if v[s - 1] >= 0 else -1.0
    v[s - 1] += sgn * ng
    for a in range(s):
        vv += v[a] * v[a]
    coef = 2.0 / vv
    # Q[:, g] <- Q[:, g] (I - coef v vᵀ)
    for i in range(rows):
        qv[i] = 0.0
    for a in range(s):
        for i in range(rows):
            qv[i] += Q[i, act[start + a]] * v[a]
    for a in range(s):
        for i in range(rows):
            Q[i, act[start + a]] -= coef * qv[i] * v[a]
    for a in range(s):
        u[act[start + a]] = 0.0
    u[act[stop - 1]] = -sgn * ng
    free(v)
    free(qv)


def _secular(D_arr, z_arr, double rho):
    """Roots of the secular equation and the normalised eigenvector matrix ``S`` (m x m).

    ``D`` increasing, ``‖z‖ = 1``, ``rho > 0``: the eigenvalues ``lam_i`` of
    ``diag(D²) + rho z zᵀ`` and ``S[j, i] = ẑ_j / (D_j² − lam_i)`` with columns
    normalised, ``ẑ`` from Löwner's formula.
    """
    cdef int m = D_arr.shape[0], i, j, info = 0, one_based
    D_c = np.ascontiguousarray(D_arr, dtype=np.float64)
    z_c = np.ascontiguousarray(z_arr, dtype=np.float64)
    cdef double[::1] D = D_c, zz = z_c
    lam_arr = np.empty(m)
    S_arr = np.empty((m, m), order="F")
    cdef double[::1] lam = lam_arr
    cdef double[::1, :] S = S_arr
    cdef double* delta = <double*> malloc(m * sizeof(double))
    cdef double* work = <double*> malloc(m * sizeof(double))
    cdef double* Delta = <double*> malloc(m * m * sizeof(double))  # Delta[i*m + j] = D_j² − lam_i
    cdef double* logz2 = <double*> malloc(m * sizeof(double))  # |ẑ|
    cdef double sigma, rr = rho, s, norm
    try:
        with nogil:
            for i in range(m):
                one_based = i + 1
                dlasd4(&m, &one_based, &D[0], &zz[0], delta, &rr, &sigma, work, &info)
                if info != 0:
                    break
                for j in range(m):
                    Delta[i * m + j] = delta[j] * work[j]
                lam[i] = sigma * sigma
        if info != 0:
            raise np.linalg.LinAlgError(f"dlasd4 did not converge (info={info})")
        with nogil:
            # Löwner: ẑ_j² = |D_j² − lam_j| / rho · Π_{i≠j} |D_j² − lam_i| / |D_j² − D_i²|,
            # a product of ratios that interlacing keeps bounded (as LAPACK's dlasd8)
            for j in range(m):
                s = fabs(Delta[j * m + j]) / rho
                for i in range(m):
                    if i != j:
                        s *= fabs(Delta[i * m + j]) / fabs((D[j] - D[i]) * (D[j] + D[i]))
                logz2[j] = sqrt(s)  # |ẑ_j|
            for i in range(m):
                norm = 0.0
                for j in range(m):
                    S[j, i] = logz2[j] / Delta[i * m + j]
                    if zz[j] < 0:
                        S[j, i] = -S[j, i]
                    norm += S[j, i] * S[j, i]
                norm = sqrt(norm)
                for j in range(m):
                    S[j, i] /= norm
    finally:
        free(delta)
        free(work)
        free(Delta)
        free(logz2)
    return lam_arr, S_arr


def _times(A_arr, B_arr):
    """``A @ B`` for Fortran-ordered float64 arrays (one ``dgemm``)."""
    cdef double[::1, :] A = A_arr, B = B_arr
    cdef int rows = A.shape[0], inner = A.shape[1], cols = B.shape[1]
    out = np.empty((rows, cols), order="F")
    cdef double[::1, :] C = out
    cdef double one = 1.0, zero = 0.0
    if rows and inner and cols:
        dgemm(b"N", b"N", &rows, &cols, &inner, &one, &A[0, 0], &rows, &B[0, 0], &inner,
              &zero, &C[0, 0], &rows)
    else:
        out[...] = 0.0
    return out
