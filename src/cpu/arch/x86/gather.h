/* Element gathers along a contiguous last axis: the index range checks and
 * the AVX2 gather blocks (gather_avx2.c), behind the table of isa.h. */
#ifndef SK_ARCH_X86_GATHER_H
#define SK_ARCH_X86_GATHER_H

#include "cpu/arch/x86/isa.h"
#include "cpu/tuning.h"

/* The index SK_INDEX_PREFETCH_BYTES ahead, with the non-temporal hint: it is
 * read once, and so displaces less of the row of x being gathered from. An
 * address only, never read. */
#define SK_PREFETCH_INDEX_NTA(at)                                                                  \
    do {                                                                                           \
        uintptr_t ia_ = (uintptr_t)(at) + SK_INDEX_PREFETCH_BYTES;                                 \
        __builtin_prefetch((const void *)ia_, 0, 0);                                               \
        if (sizeof(*(at)) == 8) __builtin_prefetch((const void *)(ia_ + 64), 0, 0);                \
    } while (0)

/* A block of m 4-byte elements o[j] = x[ix[j]] with the range check fused:
 * false when a value lies outside [0, n) (the block is then to be redone by
 * the careful loop). nt: 16-byte non-temporal stores into out; *ahead is
 * prefetched and moved by ahead_step every 16 elements (when not 0). */
typedef bool (*sk_gather_block_i64_fn)(uint32_t *restrict o, const uint32_t *restrict x,
                                       const int64_t *restrict ix, int64_t m, int64_t n, bool nt,
                                       uintptr_t *ahead, size_t ahead_step);
typedef bool (*sk_gather_block_i32_fn)(uint32_t *restrict o, const uint32_t *restrict x,
                                       const int32_t *restrict ix, int64_t m, int64_t n, bool nt,
                                       uintptr_t *ahead, size_t ahead_step);

/* A block of m 1- or 2-byte elements o[j] = x[ix[j]], each 16 index values
 * checked as they are loaded and then copied while in the L1: one pass over
 * the index, where a check pass ahead of the copy read it from memory, and
 * the index is all but the whole of these gathers' bytes. False as for the
 * 4-byte blocks; *ahead as there. */
typedef bool (*sk_gather_small_i64_fn)(void *restrict o, const void *restrict x,
                                       const int64_t *restrict ix, int64_t m, int64_t n,
                                       uintptr_t *ahead, size_t ahead_step);

/* What this CPU offers beyond the baseline for element gathers; NULL
 * entries: not available (use the baseline helpers of range_sse2.h). */
typedef struct sk_x86_gather {
    bool (*in_range_i64)(const int64_t *ix, int64_t m, int64_t n);
    sk_gather_block_i64_fn block_i64;
    sk_gather_block_i32_fn block_i32;
    sk_gather_small_i64_fn small_i64[2]; /* 1-byte, 2-byte elements */
} sk_x86_gather;

/* The table, resolved once (isa.h). */
SK_INTERNAL const sk_x86_gather *sk_x86_gather_kernels(void);

#endif /* SK_ARCH_X86_GATHER_H */
