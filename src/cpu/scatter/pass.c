/* The owner-computes walk (pass.h) instantiated once per dtype and
 * reduction, counted or not, and the end of a span (finish); assign by
 * element width. */
#include "cpu/scatter/pass.h"
#include "cpu/scatter/stamp.h"

#define SK_DEFINE_PASS(DT, N, RED, R)                                                              \
    SK_HOT static void sk_pass_##N##_##R(const sk_plan *p, const sk_exec *ex, const sk_span *s,    \
                                         float *acc, int64_t *cnt) {                               \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(ex, s->clo, s->chi, acc, DT);                 \
        sk_scatter_pass(p, ex, s, acc, cnt, DT, RED, false);                                       \
    }                                                                                              \
    static void sk_pass_counted_##N##_##R(const sk_plan *p, const sk_exec *ex, const sk_span *s,   \
                                          float *acc, int64_t *cnt) {                              \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(ex, s->clo, s->chi, acc, DT);                 \
        sk_scatter_pass(p, ex, s, acc, cnt, DT, RED, true);                                        \
    }                                                                                              \
    static void sk_finish_##N##_##R(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi, \
                                    const float *acc, const int64_t *cnt) {                        \
        sk_scatter_finish(p, ex, clo, chi, acc, cnt, DT, RED);                                     \
    }
SK_STAMP_REDUCES(SK_DEFINE_PASS)
#undef SK_DEFINE_PASS

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
