/* The per-row arithmetic of the coordinate-wise scale-invariant learners, over the
 * row's m entries gathered in contiguous buffers (``_scale_invariant_fast.pyx``).
 *
 * Each function is a plain loop over arrays with no call inside, so the compiler
 * turns it into SIMD code: the exponential is evaluated here (``si_exp``) instead
 * of by the C library, whose ``exp`` is a call the loop cannot be vectorised
 * around. The functions have AVX2 and AVX-512 clones that give the same bits
 * (``_simd.h``).
 */
#ifndef SKONLINE_ROW_MATH_H
#define SKONLINE_ROW_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_simd.h"

/* Below this exponent 2^k leaves the normal range and the call falls back on libm. */
#define SI_EXP_LO (-708.0)
#define SI_EXP_HI 709.0
#define SI_EXP_IN_RANGE(x) ((x) >= SI_EXP_LO && (x) <= SI_EXP_HI)

/* exp(x) for x in [SI_EXP_LO, SI_EXP_HI]: x = k ln 2 + r, |r| <= ln 2 / 2
 * (k rounded by the 1.5 * 2^52 shift, ln 2 split in two so k ln2_hi is exact), exp(r)
 * by its Taylor polynomial of degree 13 (truncation below 5e-18 relative) and 2^k
 * written into the exponent bits (measured within one ulp of glibc's exp). Outside the
 * range the value is garbage: si_exp_points evaluates those points with libm. */
static inline double si_exp(double x)
{
    const double shift = 0x1.8p52;
    const double inv_ln2 = 0x1.71547652b82fep0;
    const double ln2_hi = 0x1.62e42fee00000p-1;
    const double ln2_lo = 0x1.a39ef35793c76p-33;
    double kd = x * inv_ln2 + shift;
    uint64_t bits;
    double scale, r, p;
    memcpy(&bits, &kd, sizeof bits);
    kd -= shift;
    r = (x - kd * ln2_hi) - kd * ln2_lo;
    p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = 1.0 + (r + r * r * p);
    bits = (bits + 1023u) << 52; /* the low bits of kd + shift hold k */
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* x <- exp(x) at m points: si_exp in its range, libm outside it. ``outside`` says
 * whether some point may be outside (then the loop has a branch and a call); when 0
 * the loop is vectorised. */
static inline void si_exp_points(int m, double* restrict x, int outside)
{
    int e;
    if (outside) {
        for (e = 0; e < m; e++) {
            x[e] = SI_EXP_IN_RANGE(x[e]) ? si_exp(x[e]) : exp(x[e]);
        }
    } else {
        for (e = 0; e < m; e++) {
            x[e] = si_exp(x[e]);
        }
    }
}

/* out = exp(x) at m points, as the passes below evaluate it (tests compare it with libm). */
SKONLINE_CLONES
static void si_exp_array(int m, const double* restrict x, double* restrict out)
{
    int e;
    memcpy(out, x, (size_t)m * sizeof(double));
    for (e = 0; e < m; e++) {
        if (!SI_EXP_IN_RANGE(x[e])) {
            si_exp_points(m, out, 1);
            return;
        }
    }
    si_exp_points(m, out, 0);
}

/* How many of the n values have a square that is not 0 (the entries a row contributes). */
SKONLINE_CLONES
static int si_count_entries(int n, const double* restrict x)
{
    int e, m = 0;
    for (e = 0; e < n; e++) {
        m += x[e] * x[e] != 0.0;
    }
    return m;
}

/* dst[e] = src[ids[e]]: the state's values at a gathered row's entries (AVX2 gathers). */
SKONLINE_CLONES
static void si_gather(int m, const int* restrict ids, const double* restrict src,
                      double* restrict dst)
{
    int e;
    for (e = 0; e < m; e++) {
        dst[e] = src[ids[e]];
    }
}

/* One row's statistics, entry by entry: s2 += x², ratio = x / s2, inv = c / s2
 * (c = 1 / (2 alpha)). */
SKONLINE_CLONES
static void si_row_stats(int m, const double* restrict x, double* restrict s2,
                         double* restrict ratio, double* restrict inv, double c)
{
    int e;
    double r;
    for (e = 0; e < m; e++) {
        s2[e] += x[e] * x[e];
        r = 1.0 / s2[e];
        ratio[e] = x[e] * r;
        inv[e] = c * r;
    }
}

/* The prediction of one output over m entries:
 *
 *     sum_e exp(min(E_e, max_exponent) − norm) h_e ratio_e / n_e,
 *
 * E_e = h_e² inv_e + x_e² inv_e (Algorithm 1, ``gam`` NULL) or h_e² inv_e − c Γ_e
 * (the diagonal learner), n_e = count[e] (Algorithm 1's per-feature counter: the
 * normaliser exp(−log n_e) as a division, no logarithm per entry) or 1 when
 * ``count`` is NULL. ``work`` holds m doubles; ``*clipped`` is set when an exponent
 * was clipped. The sum runs in four interleaved partial sums (entries e mod 4),
 * added at the end as (s0 + s1) + (s2 + s3): it depends on the entries and their
 * order only. */
SKONLINE_CLONES
static double si_row_predict(int m, const double* restrict x, const double* restrict h,
                             const double* restrict gam, const double* restrict inv,
                             const double* restrict count, double norm,
                             const double* restrict ratio, double c, double max_exponent,
                             int* clipped, double* restrict work)
{
    int e, bad = 0, over = 0;
    double E, acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (e = 0; e < m; e++) {
        E = h[e] * h[e] * inv[e] + (gam == NULL ? x[e] * x[e] * inv[e] : -(gam[e] * c));
        over |= E > max_exponent;
        E = E > max_exponent ? max_exponent : E;
        E = E - norm;
        bad |= (E < SI_EXP_LO) | (E > SI_EXP_HI) | (E != E); /* not SI_EXP_IN_RANGE */
        work[e] = E;
    }
    si_exp_points(m, work, bad);
    for (e = 0; e < m; e++) {
        work[e] = work[e] * h[e] * ratio[e];
    }
    if (count != NULL) {
        for (e = 0; e < m; e++) {
            work[e] = work[e] / count[e];
        }
    }
    for (e = 0; e + 4 <= m; e += 4) {
        acc[0] += work[e];
        acc[1] += work[e + 1];
        acc[2] += work[e + 2];
        acc[3] += work[e + 3];
    }
    for (; e < m; e++) {
        acc[e & 3] += work[e];
    }
    if (over) {
        *clipped = 1;
    }
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* The update of one output over m entries: Γ += g² x ratio (when ``gam`` is not
 * NULL), h −= g x. */
SKONLINE_CLONES
static void si_row_update(int m, const double* restrict x, const double* restrict ratio,
                          double g, double* restrict h, double* restrict gam)
{
    int e;
    if (gam != NULL) {
        for (e = 0; e < m; e++) {
            gam[e] += g * g * (x[e] * ratio[e]);
        }
    }
    for (e = 0; e < m; e++) {
        h[e] -= g * x[e];
    }
}

/* The weights of a coordinate-wise state (its read-out at x = 0), coordinate by
 * coordinate: w_j = exp(min(E_j, max_exponent) − n_j) h_j / s2_j for s2_j > 0, else 0,
 * with E_j = h_j² / (2 alpha s2_j) (Algorithm 1, ``gam`` NULL) or
 * (h_j² / s2_j − Γ_j) / (2 alpha) (the diagonal learner) and n_j = log_norm[j] (or
 * log_norm0 when ``log_norm`` is NULL). */
SKONLINE_CLONES
static void si_readout(int d, const double* restrict s2, const double* restrict h,
                       const double* restrict gam, const double* restrict log_norm,
                       double log_norm0, double two_alpha, double max_exponent,
                       double* restrict out)
{
    /* every operation is done for every coordinate (selects, no branch: the loops are
     * vectorised); an unseen coordinate is computed with s2 = 1, then multiplied by 0
     * (its exponent is clipped, so the product is finite) */
    int j, bad = 0;
    double E, s, keep;
    for (j = 0; j < d; j++) {
        s = s2[j] > 0.0 ? s2[j] : 1.0;
        if (gam == NULL) {
            E = h[j] * h[j] / (two_alpha * s);
        } else {
            E = (h[j] * h[j] / s - gam[j]) / two_alpha;
        }
        E = E > max_exponent ? max_exponent : E;
        E = E - (log_norm != NULL ? log_norm[j] : log_norm0);
        bad |= (E < SI_EXP_LO) | (E > SI_EXP_HI) | (E != E); /* not SI_EXP_IN_RANGE */
        out[j] = E;
    }
    si_exp_points(d, out, bad);
    for (j = 0; j < d; j++) {
        s = s2[j] > 0.0 ? s2[j] : 1.0;
        keep = s2[j] > 0.0 ? 1.0 : 0.0;
        out[j] = out[j] * (h[j] / s) * keep + 0.0;
    }
}

#endif
