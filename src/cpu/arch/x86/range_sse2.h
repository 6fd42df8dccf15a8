/* Whether every value of ix[0, m) lies in [0, n), for n < 2^31, with the
 * baseline instruction set: checked ahead of a block so that the block's
 * copy loop is three instructions per element (load index, load value,
 * store) instead of being compute-bound on a per-element check. Negative
 * values fail here and take the careful loop, which wraps them. */
#ifndef SK_ARCH_X86_RANGE_SSE2_H
#define SK_ARCH_X86_RANGE_SSE2_H

#include "cpu/arch/x86/isa.h"

#if defined(SK_ARCH_X86_64)
#include <emmintrin.h> /* SSE2: part of every x86-64 */
SK_INLINE bool sk_block_in_range_i64_sse2(const int64_t *ix, int64_t m, int64_t n) {
    /* SSE2 has no 64-bit compare: a value is in range when its high half
     * is zero (OR-ed over the block) and its low half is below n unsigned
     * (a signed compare after flipping the sign bits) */
    const __m128i sign = _mm_set1_epi32((int)0x80000000u);
    const __m128i nb = _mm_set1_epi32((int)((uint32_t)n ^ 0x80000000u));
    __m128i high = _mm_setzero_si128(), below = _mm_set1_epi32(-1);
    int64_t j = 0;
    for (; j + 2 <= m; j += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(ix + j));
        high = _mm_or_si128(high, v);
        below = _mm_and_si128(below, _mm_cmpgt_epi32(nb, _mm_xor_si128(v, sign)));
    }
    /* lanes 0, 2: low halves; 1, 3: high halves */
    bool ok = (_mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) & 0xF0F0) == 0xF0F0 &&
              (_mm_movemask_epi8(below) & 0x0F0F) == 0x0F0F;
    for (; j < m; j++) ok &= (uint64_t)ix[j] < (uint64_t)n;
    return ok;
}
SK_INLINE bool sk_block_in_range_i32_sse2(const int32_t *ix, int64_t m, int64_t n) {
    const __m128i sign = _mm_set1_epi32((int)0x80000000u);
    const __m128i nb = _mm_set1_epi32((int)((uint32_t)n ^ 0x80000000u));
    __m128i below = _mm_set1_epi32(-1);
    int64_t j = 0;
    for (; j + 4 <= m; j += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(ix + j));
        below = _mm_and_si128(below, _mm_cmpgt_epi32(nb, _mm_xor_si128(v, sign)));
    }
    bool ok = _mm_movemask_epi8(below) == 0xFFFF;
    for (; j < m; j++) ok &= (uint32_t)ix[j] < (uint64_t)n;
    return ok;
}
#else
SK_INLINE bool sk_block_in_range_i64_sse2(const int64_t *ix, int64_t m, int64_t n) {
    uint64_t bad = 0;
    for (int64_t j = 0; j < m; j++) bad |= (uint64_t)ix[j] >= (uint64_t)n;
    return !bad;
}
SK_INLINE bool sk_block_in_range_i32_sse2(const int32_t *ix, int64_t m, int64_t n) {
    uint64_t bad = 0;
    for (int64_t j = 0; j < m; j++) bad |= (uint32_t)ix[j] >= (uint64_t)n;
    return !bad;
}
#endif

#endif /* SK_ARCH_X86_RANGE_SSE2_H */
