/* Memory: fresh outputs, cached scratch, streaming copies. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#endif
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SK_ASAN 1
#endif
/* Under AddressSanitizer scratch comes from malloc, whose bounds it checks
 * (it does not see into blocks mapped here). */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#if !defined(SK_ASAN)
#include <pthread.h>
#define SK_HAVE_SCRATCH_CACHE 1
#endif
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

#if defined(__unix__) || defined(__APPLE__)
void *sk_map_huge(size_t bytes) {
    const size_t align = (size_t)2 << 20;
    size_t span = bytes + align;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    size_t head = (size_t)(base - raw);
    if (head) munmap(raw, head);
    if (span - head > bytes) munmap(base + bytes, span - head - bytes);
#if defined(MADV_HUGEPAGE)
    madvise(base, bytes, MADV_HUGEPAGE); /* a hint: refused means small pages */
#endif
    return base;
}

void sk_unmap_huge(void *base, size_t bytes) { munmap(base, bytes); }
#endif

/* ---- scratch ----
 * The reductions' scratch (the blocked path's partials and counts, the
 * owner-computes accumulators) is tens of megabytes for the standard
 * workloads, allocated and freed on every call. From malloc it is fresh
 * pages whenever glibc maps it (above its mmap threshold), and each 4 KB
 * page faults and is zeroed again: 12.8 MB of partials cost about 5 ms of
 * faults on the reference machine, against a 12 ms call. Large scratch is
 * therefore mapped here in 2 MiB-aligned blocks with transparent huge pages
 * requested (fewer TLB misses for the random updates into it too), and a
 * freed block is kept for the next call: at most SK_SCRATCH_SLOTS blocks and
 * SCATTERKIT_SCRATCH_CACHE_MB megabytes (default 256; 0 turns it off). */
#define SK_SCRATCH_MIN ((size_t)1 << 20)
#define SK_SCRATCH_ALIGN ((size_t)2 << 20)
#define SK_SCRATCH_SLOTS 8

#if defined(SK_HAVE_SCRATCH_CACHE)
typedef struct {
    void *base;
    size_t bytes;
} sk_block;

static pthread_mutex_t sk_scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static sk_block sk_scratch_slots[SK_SCRATCH_SLOTS]; /* oldest first */
static int sk_scratch_n;
static size_t sk_scratch_held, sk_scratch_limit;
static bool sk_scratch_limit_known;

static size_t sk_scratch_current_limit(void) { /* caller holds the lock */
    if (!sk_scratch_limit_known) {
        long long mb = 256;
        const char *env = getenv("SCATTERKIT_SCRATCH_CACHE_MB");
        if (env && *env) {
            char *end;
            long long v = strtoll(env, &end, 10);
            if (*end == '\0' && v >= 0) mb = v;
        }
        sk_scratch_limit = (size_t)mb << 20;
        sk_scratch_limit_known = true;
    }
    return sk_scratch_limit;
}

/* A child of fork() keeps the parent's cached blocks (its copies) and may
 * find the lock held by a thread it does not have. */
static void sk_scratch_after_fork_child(void) { pthread_mutex_init(&sk_scratch_lock, NULL); }
static pthread_once_t sk_scratch_once = PTHREAD_ONCE_INIT;
static void sk_scratch_register_fork_handler(void) {
    pthread_atfork(NULL, NULL, sk_scratch_after_fork_child);
}


void *sk_scratch_get(size_t bytes) {
    if (bytes < SK_SCRATCH_MIN) return malloc(bytes ? bytes : 1);
    size_t size = (bytes + SK_SCRATCH_ALIGN - 1) & ~(SK_SCRATCH_ALIGN - 1);
    if (size < bytes) return NULL;
    void *got = NULL;
    pthread_once(&sk_scratch_once, sk_scratch_register_fork_handler);
    pthread_mutex_lock(&sk_scratch_lock);
    int best = -1; /* a block of exactly this size, the newest (put gets only the size) */
    for (int i = 0; i < sk_scratch_n; i++)
        if (sk_scratch_slots[i].bytes == size) best = i;
    if (best >= 0) {
        got = sk_scratch_slots[best].base;
        sk_scratch_held -= size;
        for (int i = best; i + 1 < sk_scratch_n; i++) sk_scratch_slots[i] = sk_scratch_slots[i + 1];
        sk_scratch_n--;
    }
    pthread_mutex_unlock(&sk_scratch_lock);
    if (!got) got = sk_map_huge(size);
    return got;
}

void sk_scratch_put(void *ptr, size_t bytes) {
    if (!ptr) return;
    if (bytes < SK_SCRATCH_MIN) {
        free(ptr);
        return;
    }
    size_t size = (bytes + SK_SCRATCH_ALIGN - 1) & ~(SK_SCRATCH_ALIGN - 1);
    sk_block drop[SK_SCRATCH_SLOTS + 1];
    int ndrop = 0;
    pthread_mutex_lock(&sk_scratch_lock);
    sk_block b = {ptr, size}; /* the size it was mapped with: same rounding */
    size_t limit = sk_scratch_current_limit();
    if (size > limit) {
        drop[ndrop++] = b;
    } else {
        int first = 0;
        while (first < sk_scratch_n &&
               (sk_scratch_held + size > limit || sk_scratch_n - first >= SK_SCRATCH_SLOTS)) {
            sk_scratch_held -= sk_scratch_slots[first].bytes;
            drop[ndrop++] = sk_scratch_slots[first++];
        }
        for (int i = first; i < sk_scratch_n; i++) sk_scratch_slots[i - first] = sk_scratch_slots[i];
        sk_scratch_n -= first;
        sk_scratch_slots[sk_scratch_n++] = b;
        sk_scratch_held += size;
    }
    pthread_mutex_unlock(&sk_scratch_lock);
    for (int i = 0; i < ndrop; i++) sk_unmap_huge(drop[i].base, drop[i].bytes);
}

size_t sk_release_cached_memory(void) {
    sk_block drop[SK_SCRATCH_SLOTS];
    pthread_mutex_lock(&sk_scratch_lock);
    int n = sk_scratch_n;
    size_t freed = sk_scratch_held;
    memcpy(drop, sk_scratch_slots, (size_t)n * sizeof *drop);
    sk_scratch_n = 0;
    sk_scratch_held = 0;
    pthread_mutex_unlock(&sk_scratch_lock);
    for (int i = 0; i < n; i++) sk_unmap_huge(drop[i].base, drop[i].bytes);
    return freed;
}


#else /* no mmap: plain malloc */

void *sk_scratch_get(size_t bytes) { return malloc(bytes ? bytes : 1); }
void sk_scratch_put(void *ptr, size_t bytes) {
    (void)bytes;
    free(ptr);
}
size_t sk_release_cached_memory(void) { return 0; }

#endif
