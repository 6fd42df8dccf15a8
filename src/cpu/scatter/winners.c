/* Path "cpu/scatter/winners": assign of rows, out[index[r], :] = src[r, :],
 * last-wins: only the last update of each target row survives, so the rows
 * of src that lose are never read. A pass over the index records, per
 * thread for its range of update rows, the last row that reaches each
 * target (int32, -1: none); the targets are then written once each, from
 * the winner (the largest row over the threads) or, when out is a fresh
 * copy of x, from x. The other paths read all of src and write every
 * update. */
#include "cpu/scatter/path.h"

typedef struct {
    const sk_plan *p;
    int32_t *last;        /* nt arrays of n */
    int nt;
    int64_t rows, n, len;
    const char *copy_src; /* x, row-major like out, when out is to be its copy */
} sk_winners_job;

/* The job without its scratch; false when the path does not apply: enough
 * update rows to repay the pass, and targets few enough that walking all of
 * them costs less than the updates. */
static bool sk_winners_layout(sk_winners_job *job, const sk_plan *p, const sk_exec *ex) {
    memset(job, 0, sizeof *job);
    if (p->reduce != SK_REDUCE_NONE || p->ndim != 2 || p->ncomp != 1 || !sk_scatter_is_rows(p) ||
        p->target_stride[0] != 0 || p->linear_stride[0] != 0 ||
        (p->dense_stride[1] != 0 && p->dense_stride[1] != 1) || /* src rows whole, or one value */
        sk_plan_numel(p) == 0 || sk_tensor_numel(ex->out) == 0)
        return false;
    sk_winners_job j = {p, NULL, 1, p->shape[0], p->comp_size[0], p->shape[1], NULL};
    if (j.rows < SK_WINNERS_MIN_ROWS || j.rows > INT32_MAX ||
        j.n > SK_WINNERS_MAX_TARGETS_PER_ROW * j.rows || j.n < 1)
        return false;
    j.nt = sk_threads_for_work(ex->nthreads, j.rows * j.len);
    if (j.nt > SK_SCATTER_MAX_THREADS) j.nt = SK_SCATTER_MAX_THREADS;
    *job = j;
    return true;
}

/* out wholly made of the target rows, row-major: x's rows that no update
 * reaches are copied in the same pass. */
static const char *sk_winners_fuse(const sk_winners_job *job, const sk_exec *ex,
                                   const sk_tensor *copy_from) {
    const sk_plan *p = job->p;
    const sk_tensor *out = ex->out;
    if (copy_from && p->comp_target_stride[0] == job->len &&
        sk_tensor_numel(out) == job->n * job->len && p->target == (char *)out->data)
        return sk_copy_source(copy_from, out);
    return NULL;
}

static bool sk_winners_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                               sk_path_need *need) {
    sk_winners_job job;
    if (!sk_winners_layout(&job, p, ex)) return false;
    size_t bytes = (size_t)job.nt * (size_t)job.n * sizeof(int32_t);
    if ((double)bytes > sk_scatter_budget(p, ex)) return false;
    need->scratch_bytes = bytes;
    need->fuses_copy = sk_winners_fuse(&job, ex, copy_from) != NULL;
    return true;
}

static void sk_winners_scan(void *arg, int tid, int nthreads) {
    const sk_winners_job *job = arg;
    const sk_plan *p = job->p;
    int32_t *last = job->last + (size_t)tid * (size_t)job->n;
    int64_t r0, r1;
    sk_partition(job->rows, tid, nthreads, &r0, &r1);
    for (int64_t t = 0; t < job->n; t++) last[t] = -1;
    const char *ix = (const char *)p->index;
    int64_t is = p->index_stride[0];
    for (int64_t r = r0; r < r1; r++) {
        int64_t v = sk_load_index(ix, p->index_is64, r * is);
        if (sk_resolve_index(v, job->n, p->mode, &v)) last[v] = (int32_t)r;
    }
}

static void sk_winners_write(void *arg, int tid, int64_t chunk, int64_t t0, int64_t t1) {
    const sk_winners_job *job = arg;
    const sk_plan *p = job->p;
    const size_t es = p->elem_size, row = (size_t)job->len * es;
    (void)tid;
    (void)chunk;
    for (int64_t t = t0; t < t1; t++) {
        int32_t w = -1;
        for (int k = 0; k < job->nt; k++) {
            int32_t v = job->last[(size_t)k * (size_t)job->n + (size_t)t];
            w = v > w ? v : w;
        }
        char *dst = p->target + (ptrdiff_t)(t * p->comp_target_stride[0]) * (ptrdiff_t)es;
        if (w >= 0) {
            const char *src = p->dense + (ptrdiff_t)(w * p->dense_stride[0]) * (ptrdiff_t)es;
            if (p->dense_stride[1] == 1) memcpy(dst, src, row);
            else for (int64_t j = 0; j < job->len; j++) memcpy(dst + (size_t)j * es, src, es);
        } else if (job->copy_src) {
            memcpy(dst, job->copy_src + (size_t)t * row, row);
        }
    }
}


static sk_status sk_winners_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                void *scratch) {
    sk_winners_job job;
    sk_winners_layout(&job, p, ex);
    job.last = scratch;
    job.copy_src = sk_winners_fuse(&job, ex, copy_from);
    sk_parallel_run(job.nt, sk_winners_scan, &job);
    int mt = sk_threads_for_work(ex->nthreads, job.n * job.len);
    sk_parallel_chunks(mt, job.n, sk_chunks_for(mt, job.n, job.len), sk_winners_write, &job);
    return SK_STATUS_OK;
}

const sk_path sk_path_winners = {"cpu/scatter/winners", false, false, sk_winners_applies, sk_winners_run};
