/* The blocked-rows kernels (blocked_rows_body.h) of the dtypes
 * SK_STAMP_GROUP names: included once by each blocked_rows_<group>.c. */
#include "cpu/scatter/blocked_rows_body.h"

#define SK_DEFINE_BLOCKS(DT, N, RED, R)                                                            \
    SK_HOT SK_INTERNAL void sk_block_##N##_##R(const sk_blocks_job *job, int b, int64_t klo,     \
                                               int64_t khi) {                                           \
        sk_block_walk(job, b, klo, khi, DT, RED);                                                  \
    }                                                                                              \
    SK_INTERNAL void sk_merge_##N##_##R(const sk_blocks_job *job, int64_t klo, int64_t khi) {      \
        sk_block_merge(job, klo, khi, DT, RED);                                                    \
    }
SK_STAMP_GROUP(SK_DEFINE_BLOCKS)
#undef SK_DEFINE_BLOCKS
