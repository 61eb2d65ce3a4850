/* Inner loops of the small eigendecomposition of ``_son_fast.pyx`` (``small_eigh``).
 *
 * Plain loops over contiguous rows, so the compiler turns them into SIMD code.
 * With GCC on x86-64 Linux they are also compiled for AVX2 and AVX-512 and the
 * widest clone the CPU has is picked at load time (``target_clones``); the module
 * is built with ``-ffp-contract=off`` (no FMA contraction), so every clone does
 * the same IEEE operations in the same order and the result does not depend on
 * the CPU.
 */
#ifndef SKONLINE_SON_MATH_H
#define SKONLINE_SON_MATH_H

#if defined(_MSC_VER) && !defined(restrict)
#define restrict __restrict
/* y += a x over n entries. */
SON_CLONES
static void son_axpy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] += x[k] * a;
    }
}

/* y −= a x over n entries. */
SON_CLONES
static void son_axmy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] -= a * x[k];
    }
}

/* v −= f e + g d over n entries (the rank-two update of the Householder reduction). */
SON_CLONES
static void son_rank_two(int n, double f, const double* restrict e, double g,
                         const double* restrict d, double* restrict v)
{
    int k;
    for (k = 0; k < n; k++) {
        v[k] -= f * e[k] + g * d[k];
    }
}

#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SON_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SON_CLONES
/* y += a x over n entries. */
SON_CLONES
static void son_axpy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] += x[k] * a;
    }
}

/* y −= a x over n entries. */
SON_CLONES
static void son_axmy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] -= a * x[k];
    }
}

/* v −= f e + g d over n entries (the rank-two update of the Householder reduction). */
SON_CLONES
static void son_rank_two(int n, double f, const double* restrict e, double g,
                         const double* restrict d, double* restrict v)
{
    int k;
    for (k = 0; k < n; k++) {
        v[k] -= f * e[k] + g * d[k];
    }
}

#endif

/* One Givens rotation of two distinct rows of n entries:
 * (a, b) <- (c a − s b, s a + c b). */
SON_CLONES
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

/* y += a x over n entries. */
SON_CLONES
static void son_axpy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] += x[k] * a;
    }
}

/* y −= a x over n entries. */
SON_CLONES
static void son_axmy(int n, double a, const double* restrict x, double* restrict y)
{
    int k;
    for (k = 0; k < n; k++) {
        y[k] -= a * x[k];
    }
}

/* v −= f e + g d over n entries (the rank-two update of the Householder reduction). */
SON_CLONES
static void son_rank_two(int n, double f, const double* restrict e, double g,
                         const double* restrict d, double* restrict v)
{
    int k;
    for (k = 0; k < n; k++) {
        v[k] -= f * e[k] + g * d[k];
    }
}

#endif
