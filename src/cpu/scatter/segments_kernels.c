/* The tables of the segments kernels, stamped by dtype group in
 * segments_fold_<group>.c (the bodies are in segments_fold_body.h). */
#include "cpu/scatter/segments.h"
#include "cpu/scatter/stamp.h"

#define SK_DECLARE_SEG_KERNELS(DT, N, RED, R)                                                      \
    SK_INTERNAL void sk_seg_bucket_##N##_##R(const sk_seg_job *job, int64_t b);                     \
    SK_INTERNAL void sk_seg_finish_##N##_##R(const sk_seg_job *job, int64_t klo, int64_t khi);   \
    SK_INTERNAL void sk_seg_runs_##N##_##R(const sk_seg_runs *rn, int64_t s, int tid);
SK_STAMP_REDUCES(SK_DECLARE_SEG_KERNELS)
#undef SK_DECLARE_SEG_KERNELS

const sk_seg_bucket_fn sk_seg_bucket_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_bucket);
const sk_seg_finish_fn sk_seg_finish_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_finish);
const sk_seg_runs_fn sk_seg_runs_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_seg_runs);
