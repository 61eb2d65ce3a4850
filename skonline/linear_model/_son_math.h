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

#endif
