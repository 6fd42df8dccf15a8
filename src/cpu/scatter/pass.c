/* The tables of the owner-computes walk (pass.h): per dtype and reduction,
 * counted or not, and the end of a span (finish), stamped by dtype group in
 * pass_<group>.c; assign, by element width, here. */
#include "cpu/scatter/pass.h"
#include "cpu/scatter/stamp.h"

/* The owner-computes kernels stamped per dtype group (pass_<group>.c). */
#define SK_DECLARE_PASS(DT, N, RED, R)                                                             \
    SK_INTERNAL void sk_pass_##N##_##R(const sk_plan *p, const sk_exec *ex, const sk_span *s,      \
                                       float *acc, int64_t *cnt);                                  \
    SK_INTERNAL void sk_pass_counted_##N##_##R(const sk_plan *p, const sk_exec *ex,                \
                                               const sk_span *s, float *acc, int64_t *cnt);        \
    SK_INTERNAL void sk_finish_##N##_##R(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi,        \
                                         const float *acc, const int64_t *cnt);
SK_STAMP_REDUCES(SK_DECLARE_PASS)
#undef SK_DECLARE_PASS

#define SK_DEFINE_PASS_ASSIGN(DT, W)                                                               \
    SK_HOT static void sk_pass_assign##W(const sk_plan *p, const sk_exec *ex, const sk_span *s,    \
                                         float *acc, int64_t *cnt) {                               \
        sk_scatter_pass(p, ex, s, acc, cnt, DT, SK_REDUCE_NONE, false);                            \
    }
SK_STAMP_WIDTHS(SK_DEFINE_PASS_ASSIGN)
#undef SK_DEFINE_PASS_ASSIGN

const sk_pass_fn sk_pass_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] = SK_KERNEL_TABLE(sk_pass);
const sk_pass_fn sk_pass_counted_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] =
    SK_REDUCE_TABLE(sk_pass_counted);
const sk_finish_fn sk_finish_kernels[SK_DTYPE_COUNT][SK_REDUCE_COUNT] = SK_REDUCE_TABLE(sk_finish);
