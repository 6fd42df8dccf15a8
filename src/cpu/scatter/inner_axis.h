/* Scatters along the last axis of out, in chunks of whole target rows
 * claimed one at a time (inner_axis.c, inner_elems.c), and their sums with
 * an index copied once (inner_sum.c). */
#ifndef SK_CPU_SCATTER_INNER_AXIS_H
#define SK_CPU_SCATTER_INNER_AXIS_H

#include "cpu/scatter/path.h"

typedef struct sk_inner_job {
    const sk_plan *p;
    const sk_exec *ex;
    sk_pass_fn pass;      /* the generic walk, when inner_index is NULL */
    int64_t target_numel;
    int64_t chunk;        /* targets per chunk */
    /* out != x (both row-major): each chunk first copies its targets from
     * here, so they are still in cache when its updates arrive; NULL when
     * x was copied up front */
    const char *copy_src;
    bool touch;           /* in place, out row-major: prefetch each chunk first */
    /* a sum on a 2-d plan: the index copied once, negatives wrapped, as
     * uint16 (inner_index16) when the axis has at most SK_INNER_INDEX16_MAX
     * entries, else int32, summed by sk_inner_sum; NULL: the generic walk */
    const void *inner_index;
    bool inner_index16;
    /* a buffer of 4 out rows, interleaved, per thread (inner_rows_stride
     * floats each; sk_inner_sum4); NULL: one row at a time */
    float *inner_rows;
    int64_t inner_rows_stride;
    /* float16/bfloat16 one row at a time: a float32 row of out per thread
     * (n floats each), where a row accumulates and is rounded once */
    float *half_rows;
    /* a float sum or prod whose targets may pass a canonical chunk: per
     * thread, sk_canonical_span's scratch for a chunk of targets (the
     * chunk's updates folded in the canonical order); NULL: job->pass */
    char *canon;
} sk_inner_job;

/* The chunk (in targets) of an element scatter along the last axis of out
 * that the claimed chunks take, or 0 when the pattern differs, the
 * reduction keeps counts, or a 16-bit type would not sum. */
int64_t sk_inner_fused_chunk(const sk_plan *p, const sk_exec *ex);
/* Whether the index varies along an outer dimension of the plan (an
 * element scatter, not an index shared by every row). */
bool sk_inner_index_varies(const sk_plan *p);
/* Runs the chunks of job->chunk targets at nt threads. */
void sk_inner_run_chunks(sk_inner_job *job, int nt);
/* The rows of a 2-d plan whose targets lie in [clo, chi), summed with the
 * index copy (inner_sum.c). */
void sk_inner_sum(const sk_inner_job *job, int tid, int64_t clo, int64_t chi);
/* A float sum or prod of the rows of a 2-d plan (a slice whose linear index
 * starts at lin_base) into [clo, chi), each update counted at its target as
 * it is applied (inner_elems_counted.c): true when done, the canonical order
 * kept; false where the rows' pattern does not fit or a target passed a
 * canonical chunk (the chunk then holds its values from before). scratch:
 * sk_canonical_span_bytes(chi - clo). */
bool sk_inner_fold_counted(const sk_inner_job *job, const sk_plan *rows, int64_t lin_base,
                           int64_t clo, int64_t chi, char *scratch);

#endif /* SK_CPU_SCATTER_INNER_AXIS_H */
