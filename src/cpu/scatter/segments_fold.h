/* The fold kernels of segments (segments.h) for the three working types:
 * float (float32 in out; float16/bfloat16 in a float32 row per key, rounded
 * once), double (float64, in out) and int64_t (integers and bool, in out:
 * every step stored at the dtype's width, which is the two's complement
 * wrap). segments_fold_body.h has the kernels; this header gives each type
 * its src load, its reduction step, its access to where keys accumulate
 * and mean's division, and picks the type from the dtype; segments_runs_body.h
 * has the sorted-index path's kernel, from the same pieces. */
#ifndef SK_CPU_SCATTER_SEGMENTS_FOLD_H
#define SK_CPU_SCATTER_SEGMENTS_FOLD_H

#include <stdatomic.h>

#include "cpu/scatter/reduce.h"
#include "cpu/scatter/segments.h"
#include "cpu/scatter/stamp.h"

/* What the fold reads at every row, in locals for one bucket or scan: its
 * stores (through char pointers, and the counts) may alias the job, so the
 * compiler would read these fields again at every row (docs/PERF-LOG.md,
 * 2026-11-29). flat_acc: key k accumulates at acc + k * acc_row (working
 * rows, or a row-major out), else at the job's general offset. */
typedef struct sk_seg_loop {
    int32_t *seen;
    const int32_t *staged_pos;
    const char *staged;
    sk_seg_src_rows src;
    char *acc;
    size_t stage_row, acc_row;
    int acc_lines, src_lines; /* what a row's look-ahead asks for (sk_prefetch_lines_l2) */
    int64_t len;
    bool direct, flat_acc, include_self;
    /* set_from_x: a working row not filled from x before the fold is set
     * from x's row at its key's first row; x_start: ... with include_self,
     * so that row is asked for ahead */
    bool set_from_x, x_start;
} sk_seg_loop;

SK_INLINE sk_seg_loop sk_seg_loop_of(const sk_seg_job *job) {
    const size_t es = job->p->elem_size;
    sk_seg_loop lp;
    lp.seen = job->seen;
    lp.staged_pos = job->staged_pos;
    lp.staged = job->staged;
    lp.stage_row = job->stage_row;
    lp.len = job->len;
    lp.direct = job->direct;
    lp.include_self = job->p->include_self;
    lp.set_from_x = job->acc && !job->acc_from_x;
    lp.x_start = lp.set_from_x && lp.include_self;
    lp.acc_row = (size_t)job->len * job->acc_size;
    lp.flat_acc = job->acc || job->out_row_major;
    lp.acc = job->acc ? job->acc
            : job->out_row_major ? job->p->target + (size_t)(job->k0 * job->len) * es : NULL;
    lp.src = sk_seg_src_rows_of(job);
    lp.acc_lines = sk_prefetch_lines_of(
        lp.flat_acc && sk_rows_on_lines(lp.acc, (ptrdiff_t)lp.acc_row), lp.acc_row);
    lp.src_lines = sk_seg_src_lines(job, &lp.src);
    return lp;
}
/* Whether the fold loops of lp are the lean ones: keys accumulate at
 * acc + k * acc_row, src's rows are flat and no working row starts from x
 * at its key's first row. The loops are compiled for it apart (LEAN true),
 * without the tests for the other layouts (docs/PERF-LOG.md, 2026-11-29,
 * thirteenth session). */
SK_INLINE bool sk_seg_loop_lean(const sk_seg_loop *lp) {
    return lp->flat_acc && lp->src.flat && !lp->x_start;
}
/* The window's row i in src (sk_seg_src_rows_at), flat where LEAN. */
SK_INLINE const char *sk_seg_loop_src(const sk_seg_job *job, const sk_seg_loop *lp, int64_t i,
                                      const bool LEAN) {
    if (LEAN) return lp->src.at + (ptrdiff_t)i * lp->src.step;
    return sk_seg_src_rows_at(job, &lp->src, i);
}
/* The i-th row of the window's staging order (sk_seg_row). */
SK_INLINE const char *sk_seg_loop_row(const sk_seg_job *job, const sk_seg_loop *lp, int64_t i,
                                      const bool LEAN) {
    if (lp->direct) return sk_seg_loop_src(job, lp, lp->staged_pos[i], LEAN);
    return lp->staged + (size_t)i * lp->stage_row;
}

SK_INLINE float sk_seg_get_f(const char *s, const sk_dtype DT) {
    if (DT == SK_DTYPE_FLOAT32) return *(const float *)(const void *)s;
    return sk_load_half_f32(s, DT);
}
SK_INLINE float sk_seg_op_f(float a, float b, const sk_reduce OP, const sk_dtype DT) {
    return sk_op_f32(a, b, OP, DT);
}
/* A chunk's first value (identity (op) v): a NaN quieted where OP folds. */
SK_INLINE float sk_seg_quiet_f(float v, const sk_reduce OP) { return sk_start_f32(v, OP); }
SK_INLINE float sk_seg_at_f(const char *a, int64_t j, const sk_dtype DT) {
    (void)DT;
    return ((const float *)(const void *)a)[j];
}
SK_INLINE void sk_seg_put_f(char *a, int64_t j, float v, const sk_dtype DT) {
    (void)DT;
    ((float *)(void *)a)[j] = v;
}
SK_INLINE float sk_seg_mean_f(float v, int64_t count, const sk_dtype DT) {
    (void)DT;
    return v / (float)count;
}

SK_INLINE double sk_seg_get_d(const char *s, const sk_dtype DT) {
    (void)DT;
    return *(const double *)(const void *)s;
}
SK_INLINE double sk_seg_op_d(double a, double b, const sk_reduce OP, const sk_dtype DT) {
    return sk_op_f(a, b, OP, DT);
}
SK_INLINE double sk_seg_quiet_d(double v, const sk_reduce OP) { return sk_start_f(v, OP); }
SK_INLINE double sk_seg_at_d(const char *a, int64_t j, const sk_dtype DT) {
    (void)DT;
    return ((const double *)(const void *)a)[j];
}
SK_INLINE void sk_seg_put_d(char *a, int64_t j, double v, const sk_dtype DT) {
    (void)DT;
    ((double *)(void *)a)[j] = v;
}
SK_INLINE double sk_seg_mean_d(double v, int64_t count, const sk_dtype DT) {
    (void)DT;
    return v / (double)count;
}

SK_INLINE int64_t sk_seg_get_i(const char *s, const sk_dtype DT) { return sk_load_i(s, DT); }
SK_INLINE int64_t sk_seg_op_i(int64_t a, int64_t b, const sk_reduce OP, const sk_dtype DT) {
    return sk_op_i(a, b, OP, DT);
}
SK_INLINE int64_t sk_seg_quiet_i(int64_t v, const sk_reduce OP) {
    (void)OP;
    return v;
}
SK_INLINE int64_t sk_seg_at_i(const char *a, int64_t j, const sk_dtype DT) {
    return sk_load_i(a + (size_t)j * sk_es(DT), DT);
}
SK_INLINE void sk_seg_put_i(char *a, int64_t j, int64_t v, const sk_dtype DT) {
    sk_store_i(a + (size_t)j * sk_es(DT), v, DT);
}
/* integer mean: the floor of the wrapped sum over the count */
SK_INLINE int64_t sk_seg_mean_i(int64_t v, int64_t count, const sk_dtype DT) {
    (void)DT;
    return sk_floor_div(v, count);
}

#define SK_SEG_SUF f
#include "cpu/scatter/segments_fold_body.h"
#include "cpu/scatter/segments_runs_body.h"
#undef SK_SEG_SUF
#define SK_SEG_SUF d
#include "cpu/scatter/segments_fold_body.h"
#include "cpu/scatter/segments_runs_body.h"
#undef SK_SEG_SUF
#define SK_SEG_SUF i
#include "cpu/scatter/segments_fold_body.h"
#include "cpu/scatter/segments_runs_body.h"
#undef SK_SEG_SUF

/* The working type of DT: float64 in double, other floats in float,
 * integers and bool in int64_t. */
#define SK_SEG_BY_TYPE(DT, CALL_F, CALL_D, CALL_I)                                                \
    do {                                                                                           \
        if ((DT) == SK_DTYPE_FLOAT64) CALL_D;                                                      \
        else if (SK_IS_FLOAT(DT)) CALL_F;                                                          \
        else CALL_I;                                                                               \
    } while (0)

#define SK_DEFINE_SEG_KERNELS(DT, N, RED, R)                                                       \
    SK_HOT SK_INTERNAL void sk_seg_bucket_##N##_##R(const sk_seg_job *job, int64_t b) {            \
        SK_SEG_BY_TYPE(DT, sk_seg_bucket_f(job, b, DT, RED), sk_seg_bucket_d(job, b, DT, RED),     \
                       sk_seg_bucket_i(job, b, DT, RED));                                          \
    }                                                                                              \
    SK_HOT SK_INTERNAL void sk_seg_finish_##N##_##R(const sk_seg_job *job, int64_t klo,            \
                                                    int64_t khi) {                                 \
        SK_SEG_BY_TYPE(DT, sk_seg_finish_f(job, klo, khi, DT, RED),                                \
                       sk_seg_finish_d(job, klo, khi, DT, RED),                                    \
                       sk_seg_finish_i(job, klo, khi, DT, RED));                                   \
    }                                                                                              \
    SK_HOT SK_INTERNAL void sk_seg_runs_##N##_##R(const sk_seg_runs *rn, int64_t s, int tid) {     \
        SK_SEG_BY_TYPE(DT, sk_seg_runs_f(rn, s, tid, DT, RED), sk_seg_runs_d(rn, s, tid, DT, RED), \
                       sk_seg_runs_i(rn, s, tid, DT, RED));                                        \
    }

#endif /* SK_CPU_SCATTER_SEGMENTS_FOLD_H */
