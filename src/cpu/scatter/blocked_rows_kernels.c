/* The tables of the blocked-rows kernels, stamped by dtype group in
 * blocked_rows_<group>.c (the bodies are in blocked_rows_body.h). */
#include "cpu/scatter/blocked_rows.h"
#include "cpu/scatter/stamp.h"

#define SK_DECLARE_BLOCKS(DT, N, RED, R)                                                           \
    SK_INTERNAL void sk_block_##N##_##R(const sk_blocks_job *job, int b, int64_t klo,              \
                                        int64_t khi);                                              \
    SK_INTERNAL void sk_merge_##N##_##R(const sk_blocks_job *job, int64_t klo, int64_t khi);
SK_STAMP_REDUCES(SK_DECLARE_BLOCKS)
#undef SK_DECLARE_BLOCKS

const sk_block_fn sk_blocked_rows_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_block);
const sk_merge_fn sk_blocked_merge_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_merge);
