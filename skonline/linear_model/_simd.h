/* What the SIMD loops of the compiled kernels share (``_row_math.h``, ``_son_math.h``).
 *
 * ``SKONLINE_CLONES``: with GCC on x86-64 Linux a function is also compiled for
 * AVX2 and AVX-512, and the widest clone the CPU has is picked at load time
 * (``target_clones``). The modules that include this are built with
 * ``-ffp-contract=off`` (no FMA contraction, which AVX-512 would otherwise
 * allow), so every clone does the same IEEE operations in the same order and
 * the results do not depend on the CPU.
 */
#ifndef SKONLINE_SIMD_H
#define SKONLINE_SIMD_H

#if defined(_MSC_VER) && !defined(restrict)
#define restrict __restrict
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SKONLINE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SKONLINE_CLONES
#endif

#endif
