/* Path "cpu/scatter/owner": owner-computes (pass.h), the reference-like
 * path that takes every plan. Thread t owns the targets of its part of out's
 * row-major linear index and walks all updates, applying those that land
 * there. Scratch (float32 accumulators of 16-bit types, counts of mean and
 * include_self=false) is per chunk of a thread's targets, about
 * updates/threads targets and at least SK_OWNER_MIN_CHUNK, so it stays
 * small; a chunk costs one more walk. */
#include "cpu/scatter/path.h"

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    int nt;
    int64_t target_numel, chunk;
    bool half, counted;
    sk_pass_fn pass;
    sk_finish_fn finish;
    float *acc[SK_SCATTER_MAX_THREADS];
    int64_t *cnt[SK_SCATTER_MAX_THREADS];
} sk_owner_job;

/* The job's geometry (no scratch yet): threads, chunk, kernels. */
static void sk_owner_layout(sk_owner_job *job, const sk_plan *p, const sk_exec *ex) {
    memset(job, 0, sizeof *job);
    job->p = p;
    job->ex = ex;
    int64_t total = sk_plan_numel(p);
    job->target_numel = sk_tensor_numel(ex->out);
    bool reduces = p->reduce != SK_REDUCE_NONE;
    job->half = reduces && (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16);
    job->counted = reduces && (p->reduce == SK_REDUCE_MEAN || !p->include_self);
    job->pass = job->counted ? sk_pass_counted_kernels[p->dtype][p->reduce]
                             : sk_pass_kernels[p->dtype][p->reduce];
    job->finish = sk_finish_kernels[p->dtype][p->reduce];
    job->nt = sk_scatter_walkers(p, ex);
    int64_t per_thread = job->target_numel > 0 ? (job->target_numel + job->nt - 1) / job->nt : 1;
    job->chunk = per_thread;
    if ((job->half || job->counted) && total > 0 && job->target_numel > 0) {
        job->chunk = total / job->nt;
        if (job->chunk < SK_OWNER_MIN_CHUNK) job->chunk = SK_OWNER_MIN_CHUNK;
        if (job->chunk > per_thread) job->chunk = per_thread;
    }
}

/* Per thread: 4 bytes (16-bit types) and 8 (counted) per target of a chunk. */
static void sk_owner_sizes(const sk_owner_job *job, size_t *acc_bytes, size_t *cnt_bytes) {
    bool run = sk_plan_numel(job->p) > 0 && job->target_numel > 0;
    *acc_bytes = run && job->half ? sk_scratch_round((size_t)job->chunk * sizeof(float)) : 0;
    *cnt_bytes = run && job->counted ? sk_scratch_round((size_t)job->chunk * sizeof(int64_t)) : 0;
}

static bool sk_owner_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                             sk_path_need *need) {
    (void)copy_from;
    sk_owner_job job;
    sk_owner_layout(&job, p, ex);
    size_t acc_bytes, cnt_bytes;
    sk_owner_sizes(&job, &acc_bytes, &cnt_bytes);
    need->scratch_bytes = (size_t)job.nt * (acc_bytes + cnt_bytes);
    need->fuses_copy = false;
    return true;
}

static void sk_owner_task(void *arg, int tid, int nthreads) {
    sk_owner_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->target_numel, tid, nthreads, &lo, &hi);
    for (int64_t clo = lo; clo < hi; clo += job->chunk) {
        int64_t chi = clo + job->chunk < hi ? clo + job->chunk : hi;
        if (job->cnt[tid]) memset(job->cnt[tid], 0, (size_t)(chi - clo) * sizeof(int64_t));
        sk_span s = sk_span_all(clo, chi);
        job->pass(p, job->ex, &s, job->acc[tid], job->cnt[tid]);
        if (job->half || p->reduce == SK_REDUCE_MEAN)
            job->finish(p, job->ex, clo, chi, job->acc[tid], job->cnt[tid]);
    }
}

static sk_status sk_owner_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                              void *scratch) {
    (void)copy_from;
    sk_owner_job job;
    sk_owner_layout(&job, p, ex);
    if (!job.pass) return sk_fail(SK_STATUS_INTERNAL, "%s: no kernel for this dtype", p->op);
    if (sk_plan_numel(p) == 0 || job.target_numel == 0) return SK_STATUS_OK;
    size_t acc_bytes, cnt_bytes;
    sk_owner_sizes(&job, &acc_bytes, &cnt_bytes);
    char *at = scratch;
    for (int t = 0; t < job.nt; t++) {
        if (acc_bytes) job.acc[t] = sk_scratch_carve(&at, acc_bytes);
        if (cnt_bytes) job.cnt[t] = sk_scratch_carve(&at, cnt_bytes);
    }
    sk_parallel_run(job.nt, sk_owner_task, &job);
    return SK_STATUS_OK;
}

const sk_path sk_path_owner = {"cpu/scatter/owner", false, false, sk_owner_applies, sk_owner_run};
