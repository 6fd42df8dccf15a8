/* Path "cpu/scatter/inner_elems": an element scatter along the last axis
 * (the index differs from row to row, so no copy of it), in the claimed
 * chunks of whole target rows of inner_axis.c. Its typed loops read each
 * run of index values anyway: with a fresh out they check the run before
 * applying it (checks_index_inline), instead of a separate pass over the
 * whole index first. A float sum or prod whose targets may get more than a
 * canonical chunk of contributors (a long index row: the plan alone cannot
 * bound them) counts them as it applies them (inner_elems_counted.c); a
 * chunk of targets where one passes SK_CANONICAL_CHUNK is folded element
 * by element in the canonical order (owner_chunks' sk_canonical_span, over
 * the rows that reach the chunk only). */
#include "cpu/scatter/inner_axis.h"

static bool sk_inner_elems_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                   sk_path_need *need) {
    if (!sk_inner_fused_chunk(p, ex) || !sk_inner_index_varies(p)) return false;
    /* 16-bit sums need the shared index's float32 rows */
    if (p->reduce != SK_REDUCE_NONE &&
        (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16))
        return false;
    need->scratch_bytes = 0;
    if (sk_scatter_needs_chunks(p)) {
        need->scratch_bytes = (size_t)sk_scatter_threads(p, ex) *
                              sk_canonical_span_bytes(sk_inner_fused_chunk(p, ex));
        if ((double)need->scratch_bytes > sk_scatter_budget(p, ex)) return false;
    }
    need->fuses_copy = sk_copy_source(copy_from, ex->out) != NULL;
    return true;
}

static sk_status sk_inner_elems_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                    void *scratch) {
    sk_inner_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.ex = ex;
    job.pass = sk_pass_kernels[p->dtype][p->reduce];
    job.target_numel = sk_tensor_numel(ex->out);
    job.chunk = sk_inner_fused_chunk(p, ex);
    job.copy_src = sk_copy_source(copy_from, ex->out);
    job.touch = !copy_from && sk_row_major(ex->out);
    job.canon = sk_scatter_needs_chunks(p) ? scratch : NULL;
    sk_inner_run_chunks(&job, sk_scatter_threads(p, ex));
    return SK_STATUS_OK;
}

const sk_path sk_path_inner_elems = {"cpu/scatter/inner_elems", true, true, sk_inner_elems_applies,
                                     sk_inner_elems_run};
