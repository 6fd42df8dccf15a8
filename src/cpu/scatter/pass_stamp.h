/* The owner-computes kernels (pass.h) of the dtypes SK_STAMP_GROUP names:
 * included once by each pass_<group>.c, which defines SK_STAMP_GROUP. */
#include "cpu/scatter/pass.h"
#include "cpu/scatter/stamp.h"

#define SK_DEFINE_PASS(DT, N, RED, R)                                                              \
    SK_HOT SK_INTERNAL void sk_pass_##N##_##R(const sk_plan *p, const sk_exec *ex,                  \
                                              const sk_span *s, float *acc, int64_t *cnt) {        \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(ex, s->clo, s->chi, acc, DT);                 \
        sk_scatter_pass(p, ex, s, acc, cnt, DT, RED, false);                                       \
    }                                                                                              \
    SK_INTERNAL void sk_pass_counted_##N##_##R(const sk_plan *p, const sk_exec *ex,               \
                                               const sk_span *s, float *acc, int64_t *cnt) {       \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(ex, s->clo, s->chi, acc, DT);                 \
        sk_scatter_pass(p, ex, s, acc, cnt, DT, RED, true);                                        \
    }                                                                                              \
    SK_INTERNAL void sk_finish_##N##_##R(const sk_plan *p, const sk_exec *ex, int64_t clo,        \
                                         int64_t chi, const float *acc, const int64_t *cnt) {      \
        sk_scatter_finish(p, ex, clo, chi, acc, cnt, DT, RED);                                     \
    }
SK_STAMP_GROUP(SK_DEFINE_PASS)
#undef SK_DEFINE_PASS
