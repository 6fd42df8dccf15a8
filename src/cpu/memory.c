/* Memory: fresh outputs, cached scratch, streaming copies. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#endif
#include "cpu/cpu.h"

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
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
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

#if defined(__unix__) || defined(__APPLE__)
/* A fresh mapping of `bytes` (a multiple of 2 MiB) on a 2 MiB boundary, with
 * transparent huge pages requested. */
static void *sk_map_huge(size_t bytes) {
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

static void sk_unmap_huge(void *base, size_t bytes) { munmap(base, bytes); }
#endif

/* ---- block pools ----
 * Large scratch (the blocked path's partials and counts, the owner-computes
 * accumulators, the backward's work arrays) is tens of megabytes for the
 * standard workloads, allocated and freed on every call, and so are the
 * Python layer's results. Fresh pages fault and are zeroed again each time,
 * a large share of such a call (docs/PERF-LOG.md). Both therefore come from pools of 2 MiB-aligned
 * huge-page blocks (sk_map_huge; fewer TLB misses for random updates too):
 * a freed block is kept for the next request of the same rounded size, the
 * oldest block going first when a pool is over its count or its limit
 * (SCATTERKIT_SCRATCH_CACHE_MB, default 256; SCATTERKIT_BUFFER_CACHE_MB,
 * default 1024; 0 turns a pool off). */
#define SK_POOL_ALIGN ((size_t)2 << 20)
#define SK_POOL_SLOTS 16

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>

typedef struct {
    void *base;
    size_t bytes; /* a multiple of SK_POOL_ALIGN */
} sk_block;

typedef struct {
    const char *env;   /* the limit in megabytes */
    long long default_mb;
    int max_slots;
    pthread_mutex_t lock;
    sk_block slots[SK_POOL_SLOTS]; /* oldest first */
    int n;
    size_t held, limit;
    bool limit_known;
} sk_pool;

static sk_pool sk_pools[SK_POOL_COUNT] = {
    [SK_POOL_SCRATCH] = {.env = "SCATTERKIT_SCRATCH_CACHE_MB", .default_mb = 256, .max_slots = 8,
                          .lock = PTHREAD_MUTEX_INITIALIZER},
    [SK_POOL_RESULTS] = {.env = "SCATTERKIT_BUFFER_CACHE_MB", .default_mb = 1024, .max_slots = 16,
                          .lock = PTHREAD_MUTEX_INITIALIZER},
};

/* A child of fork() keeps the parent's blocks (its copies) and may find a
 * lock held by a thread it does not have. */
static void sk_pools_after_fork_child(void) {
    for (int i = 0; i < SK_POOL_COUNT; i++) pthread_mutex_init(&sk_pools[i].lock, NULL);
}
static pthread_once_t sk_pools_once = PTHREAD_ONCE_INIT;
static void sk_pools_register_fork_handler(void) {
    pthread_atfork(NULL, NULL, sk_pools_after_fork_child);
}

static sk_pool *sk_pool_lock(sk_pool_id id) { /* and read its limit on first use */
    sk_pool *pool = &sk_pools[id];
    pthread_once(&sk_pools_once, sk_pools_register_fork_handler);
    pthread_mutex_lock(&pool->lock);
    if (!pool->limit_known) {
        long long mb = pool->default_mb;
        const char *env = getenv(pool->env);
        if (env && *env) {
            char *end;
            long long v = strtoll(env, &end, 10);
            if (*end == '\0' && v >= 0) mb = v;
        }
        pool->limit = (size_t)mb << 20;
        pool->limit_known = true;
    }
    return pool;
}

/* Drops the oldest blocks until `keep` more bytes and one more block fit
 * (keep = 0, room = 0: until the pool is within its limit); the dropped
 * blocks go to drop[]. Caller holds the lock. */
static int sk_pool_evict(sk_pool *pool, size_t keep, int room, sk_block *drop) {
    int first = 0;
    while (first < pool->n &&
           (pool->held + keep > pool->limit || pool->n - first + room > pool->max_slots)) {
        pool->held -= pool->slots[first].bytes;
        drop[first] = pool->slots[first];
        first++;
    }
    for (int i = first; i < pool->n; i++) pool->slots[i - first] = pool->slots[i];
    pool->n -= first;
    return first;
}

static size_t sk_pool_round(size_t bytes) {
    size_t size = (bytes + SK_POOL_ALIGN - 1) & ~(SK_POOL_ALIGN - 1);
    return size < bytes ? 0 : size;
}

void *sk_pool_get(sk_pool_id id, size_t bytes) {
    size_t size = sk_pool_round(bytes);
    if (!size) return NULL;
    sk_pool *pool = sk_pool_lock(id);
    void *got = NULL;
    for (int i = pool->n - 1; i >= 0 && !got; i--) /* the newest block of this size */
        if (pool->slots[i].bytes == size) {
            got = pool->slots[i].base;
            pool->held -= size;
            for (int k = i; k + 1 < pool->n; k++) pool->slots[k] = pool->slots[k + 1];
            pool->n--;
        }
    pthread_mutex_unlock(&pool->lock);
    return got ? got : sk_map_huge(size);
}

void sk_pool_put(sk_pool_id id, void *ptr, size_t bytes) {
    if (!ptr) return;
    sk_block b = {ptr, sk_pool_round(bytes)}, drop[SK_POOL_SLOTS + 1];
    sk_pool *pool = sk_pool_lock(id);
    int ndrop;
    if (b.bytes > pool->limit) {
        drop[0] = b;
        ndrop = 1;
    } else {
        ndrop = sk_pool_evict(pool, b.bytes, 1, drop);
        pool->slots[pool->n++] = b;
        pool->held += b.bytes;
    }
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < ndrop; i++) sk_unmap_huge(drop[i].base, drop[i].bytes);
}

size_t sk_pool_trim(sk_pool_id id, size_t limit, bool set_limit) {
    sk_block drop[SK_POOL_SLOTS];
    sk_pool *pool = sk_pool_lock(id);
    size_t before = pool->held, old = pool->limit;
    pool->limit = limit;
    int ndrop = sk_pool_evict(pool, 0, 0, drop);
    size_t freed = before - pool->held;
    if (!set_limit) pool->limit = old;
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < ndrop; i++) sk_unmap_huge(drop[i].base, drop[i].bytes);
    return freed;
}

void sk_pool_info(sk_pool_id id, int *blocks, size_t *held, size_t *limit) {
    sk_pool *pool = sk_pool_lock(id);
    *blocks = pool->n;
    *held = pool->held;
    *limit = pool->limit;
    pthread_mutex_unlock(&pool->lock);
}

size_t sk_release_cached_memory(void) {
    size_t freed = 0;
    for (int i = 0; i < SK_POOL_COUNT; i++) freed += sk_pool_trim((sk_pool_id)i, 0, false);
    return freed;
}
#else /* no mmap: nothing is pooled */
void *sk_pool_get(sk_pool_id id, size_t bytes) {
    (void)id;
    (void)bytes;
    return NULL;
}
void sk_pool_put(sk_pool_id id, void *ptr, size_t bytes) {
    (void)id;
    (void)ptr;
    (void)bytes;
}
size_t sk_pool_trim(sk_pool_id id, size_t limit, bool set_limit) {
    (void)id;
    (void)limit;
    (void)set_limit;
    return 0;
}
void sk_pool_info(sk_pool_id id, int *blocks, size_t *held, size_t *limit) {
    (void)id;
    *blocks = 0;
    *held = *limit = 0;
}
size_t sk_release_cached_memory(void) { return 0; }
#endif

/* Scratch of 1 MiB and more comes from the scratch pool, except under
 * AddressSanitizer: malloc's blocks have their bounds checked. */
#define SK_SCRATCH_MIN ((size_t)1 << 20)

void *sk_scratch_get(size_t bytes) {
#if !defined(SK_ASAN)
    if (bytes >= SK_SCRATCH_MIN) return sk_pool_get(SK_POOL_SCRATCH, bytes);
#endif
    return malloc(bytes ? bytes : 1);
}

void sk_scratch_put(void *ptr, size_t bytes) {
#if !defined(SK_ASAN)
    if (bytes >= SK_SCRATCH_MIN) {
        sk_pool_put(SK_POOL_SCRATCH, ptr, bytes);
        return;
    }
#endif
    free(ptr);
}

void *sk_result_alloc(size_t bytes) { return sk_pool_get(SK_POOL_RESULTS, bytes); }

void sk_result_free(void *ptr, size_t bytes) { sk_pool_put(SK_POOL_RESULTS, ptr, bytes); }

size_t sk_result_cache_trim(size_t limit, bool set_limit) {
    return sk_pool_trim(SK_POOL_RESULTS, limit, set_limit);
}

void sk_result_cache_info(int *blocks, size_t *held, size_t *limit) {
    sk_pool_info(SK_POOL_RESULTS, blocks, held, limit);
}
