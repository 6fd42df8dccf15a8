/* Path "cpu/scatter/blocked_rows": one partial result per fixed block of
 * update rows.
 *
 * For the row pattern with a reduction (message passing, index_add on axis
 * 0, scatter_nd of rows), owner-computes makes every thread stream all of
 * src, which is most of the bytes. Here the update rows are cut instead into
 * SK_ROW_BLOCKS blocks, a number fixed by the problem and never by the
 * thread count: block 0 reduces into out, block b > 0 into a partial buffer
 * of its own (16-bit types, and any type when the scratch budget allows:
 * every block into a partial, float32 for 16-bit types). Each thread
 * streams only its blocks of src. A merge pass then folds the partials into
 * out in block order, so every target sees the same sequence of operations
 * whatever the thread count. A count per block and target row ("key":
 * linear index / row length) says whether the row was touched: the first
 * update of a row replaces the buffer's value, so partials need no
 * initialisation, and the merge knows what to fold and what mean divides
 * by. More threads than blocks: the threads of a block split its keys. */
#include "cpu/scatter/blocked_rows.h"

/* The row plan of the job, its linear strides counted in keys; false when
 * the rows do not start at multiples of the row length in out's linear
 * order, or a strided src's rows would not pack a group of 4 at a time. */
static bool sk_blocks_rows(sk_blocks_job *job, const sk_plan *p) {
    int d = p->ndim - 1;
    int64_t len = p->shape[d];
    job->src_col = p->dense_stride[d];
    job->p = p;
    job->rows = *p;
    sk_plan *rp = &job->rows;
    rp->ndim--;
    for (int dd = 0; dd < rp->ndim; dd++) {
        if (rp->linear_stride[dd] % len) return false;
        rp->linear_stride[dd] /= len;
    }
    for (int k = 0; k < rp->ncomp; k++) {
        if (rp->comp_linear_stride[k] % len) return false;
        rp->comp_linear_stride[k] /= len;
    }
    if (job->src_col != 1 &&
        (!sk_block_is_tight(rp) || len * (int64_t)p->elem_size * 4 > SK_BLOCK_PACK_BYTES))
        return false;
    job->nrows = sk_plan_numel(rp);
    job->len = len;
    return job->nrows >= SK_ROW_BLOCK_MIN_ROWS && job->nrows <= INT32_MAX;
}

/* Blocks and partials within the scratch budget (partials and counts at
 * most SK_SCRATCH_BYTES_PER_INDEX per element of the caller's index). */
static bool sk_blocks_budget(sk_blocks_job *job, const sk_plan *p, const sk_exec *ex) {
    bool half = p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16;
    job->nblocks = SK_ROW_BLOCKS;
    double pes = half ? 4.0 : (double)p->elem_size;
    double part = (double)job->nkeys * (double)job->len * pes,
           counts = (double)job->nblocks * (double)job->nkeys * sizeof(int32_t),
           budget = sk_scatter_budget(ex);
    /* Block 0 gets a partial as well when the budget allows: the random row
     * updates then go to scratch on huge pages (memory.c) instead of to an
     * out on 4 KB pages, whose TLB misses slowed them down. */
    job->all_partials = half || (double)job->nblocks * part + counts <= budget;
    /* 16-bit types need a float32 partial for every block: with room for
     * only one, a single block whose threads split the keys (owner-computes'
     * generic row loop converts and reduces element by element) */
    if (half && (double)job->nblocks * part + counts > budget) {
        job->nblocks = 1;
        counts = (double)job->nkeys * sizeof(int32_t);
    }
    if ((double)(job->all_partials ? job->nblocks : job->nblocks - 1) * part + counts > budget) {
        /* no room for a partial: one block reducing into out, its threads
         * splitting the keys, which still beats owner-computes; never for
         * 16-bit types, which must accumulate in float32 */
        if (half) return false;
        job->nblocks = 1;
        job->all_partials = false;
        counts = (double)job->nkeys * sizeof(int32_t);
        if (counts > budget) return false;
    }
    return true;
}

/* The job without its scratch; false when the path does not apply. */
static bool sk_blocks_layout(sk_blocks_job *job, const sk_plan *p, const sk_exec *ex) {
    int64_t target_numel = sk_tensor_numel(ex->out);
    memset(job, 0, sizeof *job);
    if (p->reduce == SK_REDUCE_NONE || !sk_scatter_is_rows(p) || sk_plan_numel(p) == 0 ||
        target_numel == 0 || p->shape[p->ndim - 1] < 2 || !sk_blocks_rows(job, p))
        return false;
    job->ex = ex;
    job->nkeys = (target_numel + job->len - 1) / job->len;
    if (!sk_blocks_budget(job, p, ex)) return false;
    job->block = sk_blocked_rows_kernels[p->dtype][p->reduce];
    job->merge = sk_blocked_merge_kernels[p->dtype][p->reduce];
    return job->block != NULL;
}

/* Per block: the counts, and the partial (block 0's only with all_partials). */
static void sk_blocks_sizes(const sk_blocks_job *job, size_t *cnt_bytes, size_t *part_bytes) {
    const sk_plan *p = job->p;
    size_t pes = (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16) ? 4 : p->elem_size;
    *cnt_bytes = sk_scratch_round((size_t)job->nkeys * sizeof(int32_t));
    *part_bytes = sk_scratch_round((size_t)(job->nkeys * job->len) * pes);
}

static bool sk_blocks_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                              sk_path_need *need) {
    sk_blocks_job job;
    if (!sk_blocks_layout(&job, p, ex)) return false;
    size_t cnt_bytes, part_bytes;
    sk_blocks_sizes(&job, &cnt_bytes, &part_bytes);
    int parts = job.all_partials ? job.nblocks : job.nblocks - 1;
    need->scratch_bytes = (size_t)job.nblocks * cnt_bytes + (size_t)parts * part_bytes;
    need->fuses_copy = job.all_partials && sk_copy_source(copy_from, ex->out) != NULL;
    return true;
}

static void sk_blocks_task(void *arg, int tid, int nthreads) {
    const sk_blocks_job *job = arg;
    int nb = job->nblocks;
    if (nthreads <= nb) {
        for (int b = tid; b < nb; b += nthreads) job->block(job, b, 0, job->nkeys);
        return;
    }
    int b = tid % nb, g = tid / nb, ng = (nthreads - b + nb - 1) / nb;
    int64_t klo, khi;
    sk_partition(job->nkeys, g, ng, &klo, &khi);
    job->block(job, b, klo, khi);
}

static void sk_blocks_merge_chunk(void *arg, int tid, int64_t chunk, int64_t klo, int64_t khi) {
    const sk_blocks_job *job = arg;
    (void)tid;
    (void)chunk;
    job->merge(job, klo, khi);
}

static sk_status sk_blocks_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                               void *scratch) {
    sk_blocks_job job;
    sk_blocks_layout(&job, p, ex);
    size_t cnt_bytes, part_bytes;
    sk_blocks_sizes(&job, &cnt_bytes, &part_bytes);
    char *at = scratch;
    for (int b = 0; b < job.nblocks; b++) {
        job.cnt[b] = sk_scratch_carve(&at, cnt_bytes);
        memset(job.cnt[b], 0, (size_t)job.nkeys * sizeof(int32_t));
        if (b > 0 || job.all_partials) job.part[b] = sk_scratch_carve(&at, part_bytes);
    }
    if (job.all_partials) job.copy_src = sk_copy_source(copy_from, ex->out);
    int nt = sk_threads_for_work(ex->nthreads, job.nrows * job.len);
    sk_parallel_run(nt, sk_blocks_task, &job);
    int mt = sk_threads_for_work(ex->nthreads, job.nkeys * job.len);
    sk_parallel_chunks(mt, job.nkeys, sk_chunks_for(mt, job.nkeys, job.len), sk_blocks_merge_chunk,
                       &job);
    return SK_STATUS_OK;
}

const sk_path sk_path_blocked_rows = {"cpu/scatter/blocked_rows", false, sk_blocks_applies,
                                      sk_blocks_run};
