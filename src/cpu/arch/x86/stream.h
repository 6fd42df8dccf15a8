/* Non-temporal stores: x86-64 (SSE2, part of every x86-64) and a portable
 * fallback. Copies of n bytes, a multiple of 16, to a 16-byte aligned dst
 * without the fence: many small rows are streamed and one sk_stream_fence()
 * ends the batch. */
#ifndef SK_ARCH_X86_STREAM_H
#define SK_ARCH_X86_STREAM_H

#include "base/base.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2: part of every x86-64 */
SK_INLINE void sk_stream_row(void *dst, const void *src, size_t n) {
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(void *)((char *)dst + i),
                         _mm_loadu_si128((const __m128i *)(const void *)((const char *)src + i)));
}
SK_INLINE void sk_stream_fence(void) { _mm_sfence(); }
/* 16 bytes made of four 4-byte or two 8-byte values, streamed to a 16-byte
 * aligned dst (gathered elements go out without a read for ownership) */
SK_INLINE void sk_stream_4x32(void *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    _mm_stream_si128((__m128i *)dst, _mm_setr_epi32((int)a, (int)b, (int)c, (int)d));
}
SK_INLINE void sk_stream_2x64(void *dst, uint64_t a, uint64_t b) {
    _mm_stream_si128((__m128i *)dst, _mm_set_epi64x((long long)b, (long long)a));
}
#else
SK_INLINE void sk_stream_4x32(void *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    uint32_t v[4] = {a, b, c, d};
    memcpy(dst, v, sizeof v);
}
SK_INLINE void sk_stream_2x64(void *dst, uint64_t a, uint64_t b) {
    uint64_t v[2] = {a, b};
    memcpy(dst, v, sizeof v);
}
SK_INLINE void sk_stream_row(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
SK_INLINE void sk_stream_fence(void) {}
#endif

#endif /* SK_ARCH_X86_STREAM_H */
