/* The tables of the segments kernels, stamped by dtype group in
 * segments_fold_<group>.c (the bodies are in segments_fold_body.h). */
#include "cpu/scatter/segments.h"
#include "cpu/scatter/stamp.h"

#define SK_DECLARE_SEG_KERNELS(DT, N, RED, R)                                                      \
    SK_INTERNAL void sk_seg_keys_##N##_##R(const sk_seg_job *job, int64_t klo, int64_t khi,         \
                                           bool hot);                                              \
    SK_INTERNAL void sk_seg_chunk_##N##_##R(const sk_seg_job *job, int64_t k, int64_t c,            \
                                            void *part);                                           \
    SK_INTERNAL void sk_seg_merge_##N##_##R(const sk_seg_job *job, int64_t k, void *parts);
SK_STAMP_REDUCES(SK_DECLARE_SEG_KERNELS)
#undef SK_DECLARE_SEG_KERNELS

const sk_seg_keys_fn sk_seg_keys_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_keys);
const sk_seg_chunk_fn sk_seg_chunk_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_chunk);
const sk_seg_merge_fn sk_seg_merge_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_merge);
