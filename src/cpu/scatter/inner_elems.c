/* Path "cpu/scatter/inner_elems": an element scatter along the last axis
 * (the index differs from row to row, so no copy of it), in the claimed
 * chunks of whole target rows of inner_axis.c. Its typed loops read each
 * run of index values anyway: with a fresh out they check the run before
 * applying it (checks_index_inline), instead of a separate pass over the
 * whole index first. */
#include "cpu/scatter/inner_axis.h"

static bool sk_inner_elems_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                   sk_path_need *need) {
    if (!sk_inner_fused_chunk(p, ex) || !sk_inner_index_varies(p)) return false;
    /* 16-bit sums need the shared index's float32 rows */
    if (p->reduce != SK_REDUCE_NONE &&
        (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16))
        return false;
    need->scratch_bytes = 0;
    need->fuses_copy = sk_copy_source(copy_from, ex->out) != NULL;
    return true;
}

static sk_status sk_inner_elems_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                    void *scratch) {
    (void)scratch;
    sk_inner_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.ex = ex;
    job.pass = sk_pass_kernels[p->dtype][p->reduce];
    job.target_numel = sk_tensor_numel(ex->out);
    job.chunk = sk_inner_fused_chunk(p, ex);
    job.copy_src = sk_copy_source(copy_from, ex->out);
    job.touch = !copy_from && sk_row_major(ex->out);
    sk_inner_run_chunks(&job, sk_scatter_threads(p, ex));
    return SK_STATUS_OK;
}

const sk_path sk_path_inner_elems = {"cpu/scatter/inner_elems", true, false, sk_inner_elems_applies,
                                     sk_inner_elems_run};
