/* Four float rows at once through a buffer sc[n][4] that interleaves them
 * (out[r + q, k] at sc[4 k + q]), for the inner-axis sums of
 * cpu/scatter/inner_sum.c: one 16-byte add does the update of an index
 * position in all four rows (four values, one per row, brought together by
 * a 4x4 transpose of 16-byte loads). Baseline SSE, part of every x86-64;
 * SK_HAVE_ROWS4 is 0 elsewhere and the callers keep one row at a time. */
#ifndef SK_ARCH_X86_ROWS4_SSE_H
#define SK_ARCH_X86_ROWS4_SSE_H

#include "base/scalar.h"
#include "cpu/arch/x86/isa.h"

#if defined(SK_ARCH_X86_64)
#include <emmintrin.h> /* SSE2, part of every x86-64 (with SSE: _mm_prefetch) */
#define SK_HAVE_ROWS4 1

SK_INLINE int64_t sk_rows4_index(const void *ix, int64_t j, const bool I16) {
    return I16 ? (int64_t)((const uint16_t *)ix)[j] : (int64_t)((const int32_t *)ix)[j];
}

/* Rows from[0..3] (n floats each) into sc, interleaved. */
SK_INLINE void sk_rows4_interleave(float *restrict sc, const float *const from[4], int64_t n) {
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m128 a = _mm_loadu_ps(from[0] + k), b = _mm_loadu_ps(from[1] + k);
        __m128 c = _mm_loadu_ps(from[2] + k), d = _mm_loadu_ps(from[3] + k);
        _MM_TRANSPOSE4_PS(a, b, c, d);
        _mm_store_ps(sc + 4 * k, a);
        _mm_store_ps(sc + 4 * k + 4, b);
        _mm_store_ps(sc + 4 * k + 8, c);
        _mm_store_ps(sc + 4 * k + 12, d);
    }
    for (; k < n; k++)
        for (int q = 0; q < 4; q++) sc[4 * k + q] = from[q][k];
}

/* The interleaved sc back into rows o[0..3]. */
SK_INLINE void sk_rows4_deinterleave(float *const o[4], const float *restrict sc, int64_t n) {
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m128 a = _mm_load_ps(sc + 4 * k), b = _mm_load_ps(sc + 4 * k + 4);
        __m128 c = _mm_load_ps(sc + 4 * k + 8), d = _mm_load_ps(sc + 4 * k + 12);
        _MM_TRANSPOSE4_PS(a, b, c, d);
        _mm_storeu_ps(o[0] + k, a);
        _mm_storeu_ps(o[1] + k, b);
        _mm_storeu_ps(o[2] + k, c);
        _mm_storeu_ps(o[3] + k, d);
    }
    for (; k < n; k++)
        for (int q = 0; q < 4; q++) o[q][k] = sc[4 * k + q];
}

/* s + a where the running value's NaN is kept (quieted) when two NaNs meet:
 * sk_keep_nan_f's rule. That is what the x86 add does when s is its first
 * source (SSE/AVX return the first source's NaN, quieted, when both are NaN;
 * the NaN when one is), but a compiler may swap the operands of an add, so
 * the instruction is written out. Without GNU asm, the rule by masks. */
SK_INLINE __m128 sk_rows4_add(__m128 s, __m128 a) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("addps %1, %0" : "+x"(s) : "x"(a));
    return s;
#else
    __m128 nan = _mm_cmpunord_ps(s, s);
    return _mm_or_ps(_mm_and_ps(nan, _mm_add_ps(s, s)), _mm_andnot_ps(nan, _mm_add_ps(s, a)));
#endif
}

/* How many floats ahead of the loop each update row is asked for (512
 * bytes): the four rows stream past the L2 that holds sc, and lines asked
 * for early leave the loop waiting on sc's lines alone (docs/PERF-LOG.md). */
#define SK_ROWS4_AHEAD 128

/* The updates u[0..3] of index positions [0, L) into sc: each 4x4 block of
 * updates transposed, one 16-byte add per index position. ix: uint16 (I16)
 * or int32 values, wrapped and checked. from_memory: u are rows of the
 * caller's tensor (asked for ahead), not a strip already in the L1. */
SK_INLINE void sk_rows4_accumulate(float *restrict sc, const float *const u[4], const void *ix,
                                   int64_t L, const bool I16, const bool from_memory) {
    int64_t j = 0;
    for (; j + 4 <= L; j += 4) {
        if (from_memory && (j & 15) == 0 && j + SK_ROWS4_AHEAD < L)
            for (int q = 0; q < 4; q++) _mm_prefetch((const char *)(u[q] + j + SK_ROWS4_AHEAD), _MM_HINT_T0);
        __m128 a = _mm_loadu_ps(u[0] + j), b = _mm_loadu_ps(u[1] + j);
        __m128 c = _mm_loadu_ps(u[2] + j), d = _mm_loadu_ps(u[3] + j);
        _MM_TRANSPOSE4_PS(a, b, c, d);
        float *s0 = sc + 4 * sk_rows4_index(ix, j, I16), *s1 = sc + 4 * sk_rows4_index(ix, j + 1, I16);
        _mm_store_ps(s0, sk_rows4_add(_mm_load_ps(s0), a));
        _mm_store_ps(s1, sk_rows4_add(_mm_load_ps(s1), b));
        float *s2 = sc + 4 * sk_rows4_index(ix, j + 2, I16), *s3 = sc + 4 * sk_rows4_index(ix, j + 3, I16);
        _mm_store_ps(s2, sk_rows4_add(_mm_load_ps(s2), c));
        _mm_store_ps(s3, sk_rows4_add(_mm_load_ps(s3), d));
    }
    for (; j < L; j++)
        for (int q = 0; q < 4; q++) {
            float *s = sc + 4 * sk_rows4_index(ix, j, I16) + q;
            *s = sk_keep_nan_f(*s, *s + u[q][j]);
        }
}
#else
#define SK_HAVE_ROWS4 0
#endif

#endif /* SK_ARCH_X86_ROWS4_SSE_H */
