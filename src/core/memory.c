/* Fresh outputs: getting their pages from the kernel cheaply. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "internal.h"

#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2: part of every x86-64 */
#define SK_HAVE_STREAM 1
#endif

/* A result allocated for this call has never been touched: each 4 KB page
 * faults on its first write, and for tens of megabytes the faults cost more
 * than the gather itself (8192 faults for 32 MB). Where the kernel offers
 * transparent huge pages on request, ask for them over the 2 MB-aligned
 * interior and take the faults here, one per 2 MB, from this thread
 * (huge-page faults taken from several threads at once were slower on the
 * reference machine than from one). Where huge pages are not given, one
 * small page per 2 MB is touched and the kernel's writes fault the rest as
 * before. The bytes written are zeros in memory the kernel overwrites. */
void sk_prepare_fresh(void *data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)1 << 21;
    if (bytes < 4 * huge) return;
    uintptr_t lo = ((uintptr_t)data + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)data + bytes) & ~(huge - 1);
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_HUGEPAGE) != 0) return;
    for (uintptr_t a = lo; a < hi; a += huge) *(volatile char *)a = 0;
#else
    (void)data;
    (void)bytes;
#endif
}

/* Copies n bytes with non-temporal stores where the CPU has them. A normal
 * store first reads the destination line into the cache (the "read for
 * ownership") and evicts it later: 3 bytes of memory traffic per byte copied
 * instead of 2. For a destination much larger than the caches nothing is
 * lost by bypassing them, and on the reference machine a 256 MiB copy went
 * from 26 to 39 GB/s (2 threads). */
void sk_stream_copy(void *dst, const void *src, size_t n) {
#if defined(SK_HAVE_STREAM)
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
