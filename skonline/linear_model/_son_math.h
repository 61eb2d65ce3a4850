/* Inner loops of the small eigendecomposition of ``_son_fast.pyx`` (``small_eigh``)
 * and of the sketch's Gram matrix update.
 *
 * Plain loops over contiguous rows, so the compiler turns them into SIMD code,
 * with AVX2 and AVX-512 clones that give the same bits (``_simd.h``).
 */
#ifndef SKONLINE_SON_MATH_H
#define SKONLINE_SON_MATH_H

#include "_simd.h"

/* One Givens rotation of two distinct rows of n entries:
 * (a, b) <- (c a − s b, s a + c b). */
SKONLINE_CLONES
static void son_rotate_rows(int n, double* restrict a, double* restrict b, double c, double s)
{
    int k;
    double h;
    for (k = 0; k < n; k++) {
        h = b[k];
        b[k] = s * a[k] + c * h;
        a[k] = c * a[k] - s * h;
    }
}

/* y += a x over n entries (y −= g x is a = −g: the same bits). */
SKONLINE_CLONES
static void son_axpy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] += x[k] * a;
    }
}

/* y += Σ_i M_i (scale · a[i]) over the rows M_i = M + i·ld (n entries each), i in
 * order: son_axpy once per row, in one call. With skip_zero, rows whose a[i] is 0
 * are skipped (as a caller testing a[i] != 0 before each son_axpy). */
SKONLINE_CLONES
static void son_combine_rows(int rows, int n, double scale, const double* restrict a,
                             const double* restrict M, long ld, double* restrict y,
                             int skip_zero)
{
    int i, k;
    for (i = 0; i < rows; i++) {
        const double ai = scale * a[i];
        const double* restrict mi = M + (long)i * ld;
        if (skip_zero && a[i] == 0.0) {
            continue;
        }
        for (k = 0; k < n; k++) {
            y[k] += mi[k] * ai;
        }
    }
}

/* Y_i += x a[i] for the rows Y_i = Y + i·ld (n entries each): the rank-one update
 * x aᵀ, as son_axpy once per row. */
SKONLINE_CLONES
static void son_rank_one_rows(int rows, int n, const double* restrict a,
                              const double* restrict x, double* restrict Y, long ld)
{
    int i, k;
    for (i = 0; i < rows; i++) {
        const double ai = a[i];
        double* restrict yi = Y + (long)i * ld;
        for (k = 0; k < n; k++) {
            yi[k] += x[k] * ai;
        }
    }
}

/* v −= f e + g d over n entries (the rank-two update of the Householder reduction). */
SKONLINE_CLONES
static void son_rank_two(int n, double f, const double* restrict e, double g,
                         const double* restrict d, double* restrict v)
{
    int k;
    for (k = 0; k < n; k++) {
        v[k] -= f * e[k] + g * d[k];
    }
}

/* Z ← P Z on the first k rows of Z (ncols entries each, contiguous), for the
 * reflector P = I − u uᵀ/h: g = Zᵀu (each entry summed over the rows in order),
 * g ← −g/h, then row i += u_i g. g: ncols entries of work space. The products
 * and sums of son_axpy, in one call for the whole reflector. */
SKONLINE_CLONES
static void son_reflect_rows(int k, int ncols, const double* restrict u, double h,
                             double* restrict Z, double* restrict g)
{
    int i, r;
    for (r = 0; r < ncols; r++) {
        g[r] = 0.0;
    }
    for (i = 0; i < k; i++) {
        const double ui = u[i];
        const double* restrict zi = Z + (long)i * ncols;
        for (r = 0; r < ncols; r++) {
            g[r] += zi[r] * ui;
        }
    }
    for (r = 0; r < ncols; r++) {
        g[r] = -g[r] / h;
    }
    for (i = 0; i < k; i++) {
        const double ui = u[i];
        double* restrict zi = Z + (long)i * ncols;
        for (r = 0; r < ncols; r++) {
            zi[r] += g[r] * ui;
        }
    }
}

#endif
