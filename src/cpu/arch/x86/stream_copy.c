/* The streaming copy: SSE2 non-temporal stores on x86-64 (part of every
 * x86-64, so no feature check), memcpy elsewhere. */
#include "cpu/cpu.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

/* Copies n bytes with non-temporal stores where the CPU has them. A normal
 * store first reads the destination line into the cache (the "read for
 * ownership") and evicts it later: 3 bytes of memory traffic per byte copied
 * instead of 2. For a destination much larger than the caches nothing is
 * lost by bypassing them (docs/PERF-LOG.md has the measured gain). */
void sk_stream_copy(void *dst, const void *src, size_t n) {
#if defined(__x86_64__) || defined(_M_X64)
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 15u); /* movntdq wants 16-byte aligned stores */
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_stream_si128((__m128i *)(void *)(d + i), a);
        _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
    _mm_sfence(); /* the streamed stores are ordered before anything after the copy */
    memcpy(d + body, s + body, n - body);
#else
    memcpy(dst, src, n);
#endif
}
