/* Step 2 along the last axis (every other element of each row), the inner
 * loop: a run of out interleaves src's elements (even lanes) with x's (odd
 * lanes). SSE2 (part of every x86-64) and a portable fallback. */
#ifndef SK_ARCH_X86_PAIRS_SSE_H
#define SK_ARCH_X86_PAIRS_SSE_H

#include "base/base.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

/* Pairs k in [k, npairs) one element at a time: src's element, then x's. */
SK_INLINE void sk_pairs_scalar(char *o, const char *xr, const char *sr, int64_t k, int64_t npairs,
                               size_t es) {
    for (; k < npairs; k++) {
        memcpy(o + 2 * k * es, sr + k * es, es);
        memcpy(o + (2 * k + 1) * es, xr + (2 * k + 1) * es, es);
    }
}

#if defined(__x86_64__) || defined(_M_X64)
/* 16 bytes of out from 16 of x and 8 of src: src's elements spread to the
 * even lanes (unpack with zero), x keeps the odd lanes. */
SK_INLINE __m128i sk_pairs_merge(__m128i xv, __m128i sv, __m128i odd, size_t es) {
    const __m128i zero = _mm_setzero_si128();
    __m128i spread = es == 1   ? _mm_unpacklo_epi8(sv, zero)
                     : es == 2 ? _mm_unpacklo_epi16(sv, zero)
                     : es == 4 ? _mm_unpacklo_epi32(sv, zero)
                               : _mm_unpacklo_epi64(sv, zero);
    return _mm_or_si128(spread, _mm_and_si128(xv, odd));
}

SK_INLINE void sk_pairs_row(char *o, const char *xr, const char *sr, int64_t npairs, size_t es,
                            bool stream) {
    /* odd lanes of each element width: the low es bytes of every 2*es are 0 */
    uint8_t mask[16];
    for (int b = 0; b < 16; b++) mask[b] = (size_t)b % (2 * es) >= es ? 0xFF : 0;
    const __m128i odd = _mm_loadu_si128((const __m128i *)(const void *)mask);
    const bool nt = stream && ((uintptr_t)o & 15) == 0;
    int64_t per = (int64_t)(8 / es), k = 0; /* pairs per 16 bytes of out */
    for (; k + per <= npairs; k += per) {
        __m128i xv = _mm_loadu_si128((const __m128i *)(const void *)(xr + 2 * k * es));
        __m128i sv = _mm_loadl_epi64((const __m128i *)(const void *)(sr + k * es));
        __m128i *dst = (__m128i *)(void *)(o + 2 * k * es);
        if (nt) _mm_stream_si128(dst, sk_pairs_merge(xv, sv, odd, es));
        else _mm_storeu_si128(dst, sk_pairs_merge(xv, sv, odd, es));
    }
    sk_pairs_scalar(o, xr, sr, k, npairs, es);
}
#else
SK_INLINE void sk_pairs_row(char *o, const char *xr, const char *sr, int64_t npairs, size_t es,
                            bool stream) {
    (void)stream;
    sk_pairs_scalar(o, xr, sr, 0, npairs, es);
}
#endif

#endif /* SK_ARCH_X86_PAIRS_SSE_H */
