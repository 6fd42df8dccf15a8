/* What the two paths whose unit of work is a canonical chunk share
 * (segments_hot.c, segments_few.c): a float sum, mean or prod whose keys'
 * first chunks fold into their values, and whose later chunks each fold,
 * from their own first row, into a partial row of their own; the partials
 * are then folded into each value in order (the canonical order of
 * docs/CONTRACT.md). 16-bit types fold into float32 (a value row per key,
 * the partial rows) and are rounded once at the end, as in segments. */
#ifndef SK_CPU_SCATTER_SEGMENTS_PARTS_H
#define SK_CPU_SCATTER_SEGMENTS_PARTS_H

#include "cpu/scatter/segments_fold.h"

typedef struct {
    const sk_seg_job *job; /* the layout: row plan, len, nkeys */
    const int32_t *end;    /* [nkeys]: key k has end[k] - end[k - 1] rows (end[-1]: 0) */
    int32_t *part_start;   /* [nkeys + 1]: each key's first partial row */
    char *parts;           /* partial rows of len values (float32 for 16-bit types) */
    float *acc;            /* 16-bit types: a float32 value row per key; else NULL */
} sk_seg_parts;

/* Partial rows of nrows rows at most: one per chunk past a key's first. */
SK_INLINE int64_t sk_seg_parts_most(int64_t nrows) { return nrows / SK_CANONICAL_CHUNK + 1; }

SK_INLINE int64_t sk_seg_parts_rows_of(const sk_seg_parts *pt, int64_t k) {
    return pt->end[k] - (k > 0 ? pt->end[k - 1] : 0);
}

/* The scratch of part_start, the partial rows and the float32 value rows,
 * carved into pt where `at` is not NULL (*at then moves past it). Returns
 * its bytes. */
SK_INLINE size_t sk_seg_parts_scratch(const sk_seg_job *job, char **at, sk_seg_parts *pt) {
    const size_t starts = (size_t)(job->nkeys + 1) * sizeof(int32_t);
    const size_t parts = (size_t)(sk_seg_parts_most(job->nrows) * job->len) * job->acc_size;
    const size_t acc = SK_IS_HALF(job->p->dtype) ? (size_t)(job->nkeys * job->len) * sizeof(float) : 0;
    if (at) {
        pt->job = job;
        pt->part_start = sk_scratch_carve(at, starts);
        pt->parts = sk_scratch_carve(at, parts);
        pt->acc = acc ? (float *)sk_scratch_carve(at, acc) : NULL;
    }
    return sk_scratch_round(starts) + sk_scratch_round(parts) + sk_scratch_round(acc);
}

/* part_start from end: a partial row per chunk past each key's first.
 * Returns the partial rows. */
SK_INLINE int64_t sk_seg_parts_count(sk_seg_parts *pt) {
    const int64_t nkeys = pt->job->nkeys;
    pt->part_start[0] = 0;
    for (int64_t k = 0; k < nkeys; k++) {
        int64_t n = sk_seg_parts_rows_of(pt, k);
        int64_t more = n > SK_CANONICAL_CHUNK ? (n - 1) / SK_CANONICAL_CHUNK : 0;
        pt->part_start[k + 1] = (int32_t)(pt->part_start[k] + more);
    }
    return pt->part_start[nkeys];
}

SK_INLINE char *sk_seg_parts_out_row(const sk_seg_parts *pt, int64_t k) {
    const sk_seg_job *job = pt->job;
    return job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)job->p->elem_size;
}
SK_INLINE char *sk_seg_parts_row(const sk_seg_parts *pt, int64_t u) {
    return pt->parts + (size_t)(u * pt->job->len) * pt->job->acc_size;
}
/* Where key k's value accumulates: its float32 row (16-bit types), else out. */
SK_INLINE char *sk_seg_parts_value_row(const sk_seg_parts *pt, int64_t k) {
    return pt->acc ? (char *)(pt->acc + k * pt->job->len) : sk_seg_parts_out_row(pt, k);
}

/* Before key k's first chunk: a 16-bit value row starts from x's row (in
 * out) where the reduction includes it. Returns whether the chunk's first
 * row starts the value (set, not folded): include_self=False. */
SK_INLINE bool sk_seg_parts_start_value(const sk_seg_parts *pt, int64_t k, const sk_dtype DT) {
    const bool self = pt->job->p->include_self;
    if (pt->acc && self)
        sk_seg_set_f(sk_seg_parts_value_row(pt, k), sk_seg_parts_out_row(pt, k), pt->job->len, DT);
    return !self;
}

/* Row `row` (len values) folded into `dest`. */
SK_INLINE void sk_seg_parts_fold(char *dest, const char *row, int64_t len, const sk_dtype DT,
                                 const sk_reduce OP) {
    if (DT == SK_DTYPE_FLOAT64) sk_seg_fold_d(dest, row, len, DT, OP);
    else sk_seg_fold_f(dest, row, len, DT, OP); /* float32, or 16-bit rows into float32 */
}

/* Row `row` (len values) into `dest`: set (the first of a chunk, from the
 * identity: a NaN quieted), else folded. */
SK_INLINE void sk_seg_parts_step(char *dest, const char *row, int64_t len, bool set,
                                 const sk_dtype DT, const sk_reduce OP) {
    if (!set) sk_seg_parts_fold(dest, row, len, DT, OP);
    else if (DT == SK_DTYPE_FLOAT64) sk_seg_start_d(dest, row, len, DT, OP);
    else sk_seg_start_f(dest, row, len, DT, OP);
}

/* Keys [k0, k1): their partials folded in, in order; mean divided; 16-bit
 * values rounded once into out. */
SK_INLINE void sk_seg_parts_finish(const sk_seg_parts *pt, int64_t k0, int64_t k1, const sk_dtype DT,
                                   const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const int64_t len = pt->job->len;
    for (int64_t k = k0; k < k1; k++) {
        int64_t n = sk_seg_parts_rows_of(pt, k);
        if (n == 0) continue; /* out keeps x */
        char *a = sk_seg_parts_value_row(pt, k);
        for (int64_t u = pt->part_start[k]; u < pt->part_start[k + 1]; u++) {
            if (DT == SK_DTYPE_FLOAT64) sk_seg_fold_acc_d(a, sk_seg_parts_row(pt, u), len, DT, OP);
            else sk_seg_fold_acc_f(a, sk_seg_parts_row(pt, u), len, DT, OP);
        }
        int64_t count = n + (pt->job->p->include_self ? 1 : 0);
        for (int64_t j = 0; RED == SK_REDUCE_MEAN && j < len; j++) {
            if (DT == SK_DTYPE_FLOAT64)
                sk_seg_put_d(a, j, sk_seg_mean_d(sk_seg_at_d(a, j, DT), count, DT), DT);
            else sk_seg_put_f(a, j, sk_seg_mean_f(sk_seg_at_f(a, j, DT), count, DT), DT);
        }
        if (!pt->acc) continue;
        /* rounded once; a NaN already in x (out's row) keeps its bits */
        uint16_t *o = (uint16_t *)(void *)sk_seg_parts_out_row(pt, k);
        sk_f32_run_to_half(o, 1, o, 1, (const float *)(const void *)a, len, DT == SK_DTYPE_BFLOAT16,
                           pt->job->p->include_self);
    }
}

/* Calls STAGE(DT, RED, OP) with the plan's dtype (float64, bfloat16,
 * float16 or float32) and reduction (RED; OP its fold step: sum for mean)
 * made constants for the fold loops. */
#define SK_SEG_PARTS_BY_DTYPE(DTYPE, STAGE, RED, OP)                                               \
    do {                                                                                           \
        if ((DTYPE) == SK_DTYPE_FLOAT64) STAGE(SK_DTYPE_FLOAT64, RED, OP);                         \
        else if ((DTYPE) == SK_DTYPE_BFLOAT16) STAGE(SK_DTYPE_BFLOAT16, RED, OP);                  \
        else if ((DTYPE) == SK_DTYPE_FLOAT16) STAGE(SK_DTYPE_FLOAT16, RED, OP);                    \
        else STAGE(SK_DTYPE_FLOAT32, RED, OP);                                                     \
    } while (0)
#define SK_SEG_PARTS_DISPATCH(P, STAGE)                                                            \
    do {                                                                                           \
        if ((P)->reduce == SK_REDUCE_PROD)                                                         \
            SK_SEG_PARTS_BY_DTYPE((P)->dtype, STAGE, SK_REDUCE_PROD, SK_REDUCE_PROD);              \
        else if ((P)->reduce == SK_REDUCE_MEAN)                                                    \
            SK_SEG_PARTS_BY_DTYPE((P)->dtype, STAGE, SK_REDUCE_MEAN, SK_REDUCE_SUM);               \
        else SK_SEG_PARTS_BY_DTYPE((P)->dtype, STAGE, SK_REDUCE_SUM, SK_REDUCE_SUM);               \
    } while (0)

#endif /* SK_CPU_SCATTER_SEGMENTS_PARTS_H */
