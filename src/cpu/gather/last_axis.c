/* Element gathers along a contiguous last axis (torch.gather on the last
 * dimension of contiguous tensors): out[r, j] = x[r, index[r, j]]. The walk
 * is the generic one (generic.c); each of its runs goes to the kernel here. */
#include "cpu/arch/x86/gather.h"
#include "cpu/arch/x86/range_sse2.h"
#include "cpu/gather/gather.h"

/* The range check of a block ahead of its copy (range_sse2.h), with AVX2
 * where the CPU has it (int64 only: four values per compare). */
SK_INLINE bool sk_in_range_int64_t(const sk_x86_gather *k, const int64_t *ix, int64_t m,
                                   int64_t n) {
    return k->in_range_i64 ? k->in_range_i64(ix, m, n) : sk_block_in_range_i64_sse2(ix, m, n);
}
SK_INLINE bool sk_in_range_int32_t(const sk_x86_gather *k, const int32_t *ix, int64_t m,
                                   int64_t n) {
    (void)k;
    return sk_block_in_range_i32_sse2(ix, m, n);
}
SK_INLINE sk_gather_block_i64_fn sk_block_fn_int64_t(const sk_x86_gather *k) { return k->block_i64; }
SK_INLINE sk_gather_block_i32_fn sk_block_fn_int32_t(const sk_x86_gather *k) { return k->block_i32; }
/* the fused 1- and 2-byte blocks take an int64 index only */
SK_INLINE sk_gather_small_i64_fn sk_small_fn_int64_t(const sk_x86_gather *k, size_t es) {
    return es <= 2 ? k->small_i64[es - 1] : NULL;
}
SK_INLINE sk_gather_small_i64_fn sk_small_fn_int32_t(const sk_x86_gather *k, size_t es) {
    (void)k, (void)es;
    return NULL;
}

/* A block [j0, j0 + m) whose values are all in [0, n): copied without
 * further checks, 16 at a time, into a large out (nt) with 16-byte
 * non-temporal stores (no read for ownership of out). */
#define SK_LAST_AXIS_FAST(T, IT)                                                                   \
    SK_INLINE void sk_last_axis_fast_##T##_##IT(T *restrict o, const T *restrict x,                \
                                                const IT *restrict ix, int64_t j0, int64_t m,      \
                                                bool nt, uintptr_t *ahead, size_t ahead_step) {    \
        int64_t j = j0;                                                                            \
        if (nt) /* up to a 16-byte boundary of out */                                              \
            for (; j < j0 + m && ((uintptr_t)(o + j) & 15); j++) o[j] = x[ix[j]];                  \
        for (; j + 16 <= j0 + m; j += 16, *ahead += ahead_step) { /* 16 at a time */               \
            if (ahead_step) __builtin_prefetch((const void *)*ahead);                              \
            SK_PREFETCH_INDEX_NTA(ix + j);                                                         \
            const IT *q = ix + j;                                                                  \
            if (!nt)                                                                               \
                for (int k = 0; k < 16; k++) o[j + k] = x[q[k]];                                   \
            else if (sizeof(T) == 4)                                                               \
                for (int k = 0; k < 16; k += 4)                                                    \
                    sk_stream_4x32(o + j + k, (uint32_t)x[q[k]], (uint32_t)x[q[k + 1]],            \
                                   (uint32_t)x[q[k + 2]], (uint32_t)x[q[k + 3]]);                  \
            else                                                                                   \
                for (int k = 0; k < 16; k += 2)                                                    \
                    sk_stream_2x64(o + j + k, (uint64_t)x[q[k]], (uint64_t)x[q[k + 1]]);           \
        }                                                                                          \
        for (; j < j0 + m; j++) o[j] = x[ix[j]];                                                   \
    }

/* In blocks of SK_GATHER_BLOCK: a block whose values are all in [0, n) is
 * copied without further checks; any other block takes the careful
 * one-pass loop, where a bad value reads element 0 instead (never out of
 * bounds) and the run is then redone by the caller's loop (false).
 *
 * While one row is gathered, the row of x that follows it in memory (the next
 * run's row when x is packed, as in torch.gather on a contiguous tensor) is
 * prefetched one cache line per 16 elements: without it every line of that
 * row is first touched at a random place, and the random misses, not the
 * bandwidth, set the pace. Prefetches never fault, so a row past the end of
 * x costs nothing but the hint.
 *
 * The gather instruction (sk_x86_gather_kernels) pays off only for 4-byte
 * elements where x's rows miss; for 8-byte elements, and where x and the
 * index sit in the caches, it was slower than the scalar loop. 1- and
 * 2-byte elements with an int64 index take the fused blocks
 * (sk_gather_small_i64_fn), which read the index once. */
#define SK_LAST_AXIS(T, IT)                                                                        \
    SK_LAST_AXIS_FAST(T, IT)                                                                       \
    bool sk_gather_last_axis_##T##_##IT(T *restrict o, const T *restrict x, const IT *restrict ix, \
                                        int64_t run, int64_t n, bool stream, bool past_l2) {       \
        const sk_x86_gather *kern = sk_x86_gather_kernels();                                       \
        uint64_t bad = 0;                                                                          \
        const bool nt = stream && (sizeof(T) == 4 || sizeof(T) == 8);                              \
        const bool gather4 = sizeof(T) == 4 && past_l2 && n >= SK_GATHER4_MIN_ROW &&               \
                             run >= SK_GATHER4_MIN_RUN && n <= INT32_MAX &&                        \
                             sk_block_fn_##IT(kern) != NULL;                                       \
        /* the next row of x, an address never read; a longer row stays on its first line */      \
        const sk_gather_small_i64_fn small = sk_small_fn_##IT(kern, sizeof(T));                   \
        uintptr_t ahead = (uintptr_t)x + (uintptr_t)n * sizeof(T);                                 \
        size_t ahead_step = 0;                                                                     \
        if (run > 0 && (uint64_t)n * sizeof(T) <= SK_GATHER_AHEAD_MAX_ROW_BYTES)                   \
            ahead_step = (size_t)(n * 16) * sizeof(T) / (size_t)run;                               \
        for (int64_t j0 = 0; j0 < run; j0 += SK_GATHER_BLOCK) {                                    \
            int64_t m = run - j0 < SK_GATHER_BLOCK ? run - j0 : SK_GATHER_BLOCK;                   \
            if (gather4 && sk_block_fn_##IT(kern)((uint32_t *)(void *)(o + j0),                    \
                                                  (const uint32_t *)(const void *)x, ix + j0, m,   \
                                                  n, nt, &ahead, ahead_step))                      \
                continue;                                                                          \
            if (small && small(o + j0, x, (const int64_t *)(const void *)(ix + j0), m, n, &ahead,  \
                               ahead_step))                                                        \
                continue;                                                                          \
            if (!gather4 && !small && n <= INT32_MAX && sk_in_range_##IT(kern, ix + j0, m, n)) {   \
                sk_last_axis_fast_##T##_##IT(o, x, ix, j0, m, nt, &ahead, ahead_step);             \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t j = j0; j < j0 + m; j++) {                                                \
                int64_t v = ix[j];                                                                 \
                v += v < 0 ? n : 0;                                                                \
                bool in = (uint64_t)v < (uint64_t)n;                                               \
                bad |= !in;                                                                        \
                o[j] = x[in ? v : 0];                                                              \
            }                                                                                      \
        }                                                                                          \
        return !bad;                                                                               \
    }
SK_LAST_AXIS(uint8_t, int32_t)
SK_LAST_AXIS(uint8_t, int64_t)
SK_LAST_AXIS(uint16_t, int32_t)
SK_LAST_AXIS(uint16_t, int64_t)
SK_LAST_AXIS(uint32_t, int32_t)
SK_LAST_AXIS(uint32_t, int64_t)
SK_LAST_AXIS(uint64_t, int32_t)
SK_LAST_AXIS(uint64_t, int64_t)
#undef SK_LAST_AXIS
#undef SK_LAST_AXIS_FAST

/* One index component along a contiguous last axis of out, x and the index
 * (x's other dimensions along it fixed): each run is a row gather of its
 * own, where blocks of values checked ahead copy at three instructions per
 * element and the gather instruction can take over. */
static bool sk_last_axis_applies(const sk_plan *p, const sk_exec *ex, size_t *scratch) {
    (void)ex;
    (void)scratch;
    int d = p->ndim - 1;
    return p->ndim >= 1 && p->ncomp == 1 && p->dense_stride[d] == 1 && p->index_stride[d] == 1 &&
           p->target_stride[d] == 0 && p->comp_target_stride[0] == 1 && p->comp_size[0] > 0;
}

static sk_status sk_last_axis_run(const sk_plan *p, const sk_exec *ex, void *scratch) {
    (void)scratch;
    return sk_gather_run_positions(p, ex, true);
}

const sk_gather_path sk_gather_path_last_axis = {
    "cpu/gather/last_axis", true, sk_last_axis_applies, sk_last_axis_run};
