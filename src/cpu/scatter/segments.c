/* Path "cpu/scatter/segments": update rows sorted by target into buckets,
 * each bucket folded by one thread in the canonical order (segments.h).
 *
 * It takes every reduction of the row pattern (message passing, index_add
 * along axis 0, scatter_nd of rows) from SK_SEG_MIN_ROWS rows, and every
 * plan whose float sum, mean or prod may give a target more than one
 * canonical chunk of contributors. Its scratch (4 bytes per row for the
 * keys and for the bucket order, and per thread a slot with the working
 * and partial rows of one bucket) stays within the budget. */
#include "cpu/scatter/reduce.h"
#include "cpu/scatter/segments.h"

bool sk_seg_rows_of(sk_seg_job *job, const sk_plan *p) {
    job->rows = *p;
    sk_plan *rp = &job->rows;
    job->len = 1;
    job->src_col = 1;
    if (sk_scatter_is_rows(p)) {
        int d = p->ndim - 1;
        job->len = p->shape[d];
        job->src_col = p->dense_stride[d];
        rp->ndim--;
        for (int dd = 0; dd < rp->ndim; dd++) {
            if (rp->linear_stride[dd] % job->len) return false;
            rp->linear_stride[dd] /= job->len;
        }
        for (int k = 0; k < rp->ncomp; k++) {
            if (rp->comp_linear_stride[k] % job->len) return false;
            rp->comp_linear_stride[k] /= job->len;
        }
    }
    job->nrows = sk_plan_numel(rp);
    job->rows_tight = rp->ndim == 1 && rp->ncomp == 1;
    return job->nrows > 0 && job->nrows <= INT32_MAX;
}

/* The partial rows: a key gets one once it passes a canonical chunk, so
 * there are at most nrows / (SK_CANONICAL_CHUNK + 1) + 1 of them. */
static size_t sk_seg_parts_bytes(const sk_seg_job *job) {
    if (!sk_scatter_folds_chunks(job->p)) return 0;
    return (size_t)(job->nrows / (SK_CANONICAL_CHUNK + 1) + 1) * (size_t)job->len * job->acc_size;
}

/* Bytes that do not depend on the row window: per key (of a key window) its count and partial
 * slot, the partial rows (a key gets one once it passes a chunk), and the
 * float32 rows of 16-bit types. */
static size_t sk_seg_fixed_bytes(const sk_seg_job *job) {
    size_t keys = 2 * sk_scratch_round((size_t)job->kwin * sizeof(int32_t)) + 64;
    size_t parts = sk_seg_parts_bytes(job);
    size_t acc = job->use_acc ? (size_t)(job->kwin * job->len) * job->acc_size : 0;
    return keys + sk_scratch_round(parts) + sk_scratch_round(acc);
}

/* Bytes of a window of `rows` rows: keys, staged rows and keys, counts. */
static size_t sk_seg_window_bytes(const sk_seg_job *job, int64_t rows) {
    size_t keys = sk_scratch_round((size_t)rows * sizeof(int32_t));
    size_t hist = (size_t)(sk_seg_sort_chunks(rows) * job->nbuckets) * sizeof(int32_t);
    size_t ends = (size_t)job->nbuckets * sizeof(int32_t);
    return 2 * keys + sk_scratch_round((size_t)rows * job->stage_row) + 2 * sk_scratch_round(ends) +
           sk_scratch_round(hist);
}

static bool sk_seg_windows_fit(sk_seg_job *job, int64_t least);

/* Buckets: SK_SEG_BUCKETS_PER_THREAD per thread at least (direct:
 * SK_SEG_DIRECT_BUCKETS per group, so that groups of whole buckets come out
 * even), and small enough that a bucket's working rows stay in a core's L2
 * while it is folded (the staging is read in order whatever their number). */
static int sk_seg_bucket_shift(const sk_seg_job *job, const sk_exec *ex) {
    int64_t nb = SK_SEG_BUCKETS_PER_THREAD * (int64_t)sk_seg_threads(job, ex), shift = 0;
    if (job->direct && nb < SK_SEG_DIRECT_BUCKETS * job->ngroups)
        nb = SK_SEG_DIRECT_BUCKETS * job->ngroups;
    int64_t by_bytes = (int64_t)((double)job->kwin * (double)job->len * (double)job->acc_size /
                                 SK_SEG_BUCKET_BYTES) + 1;
    if (nb < by_bytes) nb = by_bytes;
    if (nb > job->kwin) nb = job->kwin;
    while (((job->kwin - 1) >> shift) >= nb) shift++;
    return (int)shift;
}

/* Whether keys accumulate in working rows (on the scratch's huge pages)
 * rather than in out: 16-bit types need them (a float32 value per
 * element). Otherwise they pay only where a key's first row starts its
 * value (include_self false): where the value starts from x's row, that
 * row is read at random from 4 KiB pages either way, and accumulating in
 * out saves the working rows' pass and their windows (docs/PERF-LOG.md).
 * SCATTERKIT_SEG_WORKING_ROWS=0 or 1 (sk_exec.seg_working_rows) overrides
 * the choice for types that do not need them, to measure one against the
 * other (same bits). */
static bool sk_seg_wants_working_rows(const sk_plan *p, const sk_exec *ex) {
    if (SK_IS_HALF(p->dtype)) return true;
    return ex->seg_working_rows ? ex->seg_working_rows == 2 : !p->include_self;
}

/* The keys kwin at a time. */
static void sk_seg_key_windows(sk_seg_job *job, int64_t kwin) {
    job->kwin = kwin;
    sk_seg_window(job, 0, kwin, sk_seg_bucket_shift(job, job->ex));
}

bool sk_seg_layout(sk_seg_job *job, const sk_plan *p, const sk_exec *ex, bool direct) {
    memset(job, 0, sizeof *job);
    job->p = p;
    job->ex = ex;
    int64_t target_numel = sk_tensor_numel(ex->out);
    if (p->reduce == SK_REDUCE_NONE || target_numel == 0 || !sk_seg_rows_of(job, p)) return false;
    bool chunks = sk_scatter_needs_chunks(p);
    if (!chunks && (job->len < 2 || job->nrows < SK_SEG_MIN_ROWS)) return false;
    job->fold_bucket = sk_seg_bucket_kernels[p->dtype][p->reduce];
    job->finish = sk_seg_finish_kernels[p->dtype][p->reduce];
    job->nkeys = target_numel / job->len;
    if (!job->fold_bucket || job->nkeys > INT32_MAX) return false;
    job->out_row_major = sk_row_major(ex->out);
    job->acc_size = SK_IS_HALF(p->dtype) ? sizeof(float) : p->elem_size;
    job->stage_row = (size_t)job->len * p->elem_size;
    if (direct && !sk_seg_direct_suits(job, ex)) return false;
    sk_seg_key_windows(job, job->nkeys);
    int64_t least = job->nrows < SK_SEG_LEAST_WINDOW ? job->nrows : SK_SEG_LEAST_WINDOW;
    job->use_acc = sk_seg_wants_working_rows(p, ex);
    if (job->use_acc && !SK_IS_HALF(p->dtype) &&
        !sk_seg_windows_fit(job, direct ? least : job->nrows))
        job->use_acc = false;
    /* a table much larger than the index (an embedding's gradient): the
     * keys a window at a time, each reading the index again */
    while (!sk_seg_windows_fit(job, least)) {
        if (job->kwin <= SK_SEG_LEAST_WINDOW) return false;
        sk_seg_key_windows(job, (job->kwin + 1) / 2);
    }
    return true;
}

/* Sets win_rows, the most rows per window within the budget; false when
 * fewer than `least` fit. */
static bool sk_seg_windows_fit(sk_seg_job *job, int64_t least) {
    double room = sk_scatter_budget(job->p, job->ex) - (double)sk_seg_fixed_bytes(job);
    if (room < (double)sk_seg_window_bytes(job, least)) return false;
    int64_t per_row = (int64_t)(2 * sizeof(int32_t) + job->stage_row) + 1;
    job->win_rows = (int64_t)(room / (double)per_row);
    while (job->win_rows > least && (double)sk_seg_window_bytes(job, job->win_rows) > room)
        job->win_rows -= job->win_rows / 16 + 1;
    if (job->win_rows > job->nrows) job->win_rows = job->nrows;
    return job->win_rows >= least;
}

static size_t sk_seg_scratch_bytes(const sk_seg_job *job) {
    return sk_seg_fixed_bytes(job) + sk_seg_window_bytes(job, job->win_rows);
}

/* x's data when the finish copies it (working rows, whole rows of out,
 * both row-major), else NULL. */
static const char *sk_seg_copy_source(const sk_seg_job *job, const sk_tensor *copy_from) {
    const char *from = sk_copy_source(copy_from, job->ex->out);
    bool whole = job->out_row_major && job->nkeys * job->len == sk_tensor_numel(job->ex->out);
    return from && whole && job->use_acc ? from : NULL;
}

bool sk_seg_applies_as(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                       sk_path_need *need, bool direct) {
    sk_seg_job job;
    if (!sk_seg_layout(&job, p, ex, direct)) return false;
    need->scratch_bytes = sk_seg_scratch_bytes(&job);
    need->fuses_copy = sk_seg_copy_source(&job, copy_from) != NULL;
    return true;
}

static void sk_seg_bucket_task(void *arg, int tid, int64_t chunk, int64_t b0, int64_t b1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    for (int64_t b = b0; b < b1; b++) job->fold_bucket(job, b);
}

static void sk_seg_finish_task(void *arg, int tid, int64_t chunk, int64_t k0, int64_t k1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    job->finish(job, k0, k1);
}

/* Carves the scratch: the per-key arrays and rows, then one window's. */
static void sk_seg_carve(sk_seg_job *job, char *at, _Atomic int32_t *next_part) {
    job->seen = sk_scratch_carve(&at, (size_t)job->kwin * sizeof(int32_t));
    job->part_slot = sk_scratch_carve(&at, (size_t)job->kwin * sizeof(int32_t));
    at += 64;
    if (sk_seg_parts_bytes(job)) job->parts = sk_scratch_carve(&at, sk_seg_parts_bytes(job));
    if (job->use_acc) job->acc = sk_scratch_carve(&at, (size_t)(job->kwin * job->len) * job->acc_size);
    job->key = sk_scratch_carve(&at, (size_t)job->win_rows * sizeof(int32_t));
    job->staged_key = sk_scratch_carve(&at, (size_t)job->win_rows * sizeof(int32_t));
    job->staged = sk_scratch_carve(&at, (size_t)job->win_rows * job->stage_row);
    job->bucket_end = sk_scratch_carve(&at, (size_t)job->nbuckets * sizeof(int32_t));
    job->lead = sk_scratch_carve(&at, (size_t)job->nbuckets * sizeof(int32_t));
    if (job->direct) job->staged_pos = (int32_t *)(void *)job->staged;
    job->hist = (int32_t *)(void *)at;
    job->next_part = next_part;
}

static void sk_seg_fold_keys(sk_seg_job *job, int nt);

/* Keys [k0, k1) of the window: x's rows into their working rows, in order
 * (float32 for 16-bit types), before the fold. */
static void sk_seg_x_task(void *arg, int tid, int64_t chunk, int64_t k0, int64_t k1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    const int64_t len = job->len;
    if (!SK_IS_HALF(job->p->dtype)) {
        size_t row = (size_t)len * job->p->elem_size;
        for (int64_t k = k0; k < k1; k++)
            memcpy(job->acc + (size_t)k * row, sk_seg_x_row(job, k, job->p->elem_size), row);
        return;
    }
    for (int64_t k = k0; k < k1; k++)
        sk_half_run_to_f32((float *)(void *)(job->acc + (size_t)(k * len) * sizeof(float)),
                           (const uint16_t *)(const void *)sk_seg_x_row(job, k, 2), 1, len,
                           job->p->dtype == SK_DTYPE_BFLOAT16);
}

sk_status sk_seg_run_as(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                        void *scratch, bool direct) {
    sk_seg_job job;
    sk_seg_layout(&job, p, ex, direct);
    job.copy_src = sk_seg_copy_source(&job, copy_from);
    _Atomic int32_t next_part = 0;
    sk_seg_carve(&job, scratch, &next_part);
    int nt = sk_seg_threads(&job, ex);
    for (int64_t k0 = 0; k0 < job.nkeys; k0 += job.kwin) {
        sk_seg_window(&job, k0, job.nkeys - k0 < job.kwin ? job.nkeys - k0 : job.kwin, job.shift);
        atomic_store(&next_part, 0);
        sk_seg_fold_keys(&job, nt);
    }
    return SK_STATUS_OK;
}

/* The key window [k0, k0 + nwin): every row window sorted and folded, then
 * the keys finished. */
static void sk_seg_fold_keys(sk_seg_job *job_, int nt) {
    sk_seg_job job = *job_;
    const sk_plan *p = job.p;
    const bool direct = job.direct;
    const int64_t groups = job.ngroups;
    memset(job.seen, 0, (size_t)job.nwin * sizeof(int32_t));
    /* working rows start from x: copied in order now, rather than each read
     * at random at its key's first row (docs/PERF-LOG.md, 2026-11-28) */
    job.acc_from_x = job.acc && p->include_self && job.out_row_major;
    if (job.acc_from_x)
        sk_parallel_chunks(nt, job.nwin, sk_chunks_for(nt, job.nwin, job.len), sk_seg_x_task, &job);
    for (job.w0 = 0; job.w0 < job.nrows; job.w0 += job.win_rows) {
        job.wrows = job.nrows - job.w0 < job.win_rows ? job.nrows - job.w0 : job.win_rows;
        if (direct) {
            job.ngroups = groups; /* the groups a window asks for (fewer buckets: fewer) */
            sk_seg_stage_positions(&job, nt);
            sk_parallel_chunks(nt, job.ngroups, job.ngroups, sk_seg_bucket_task, &job);
        } else {
            sk_seg_stage(&job, nt);
            sk_parallel_chunks(nt, job.nbuckets, job.nbuckets, sk_seg_bucket_task, &job);
        }
    }
    /* the finish has work where keys accumulate in working rows, for mean,
     * and for a key past its first canonical chunk (a partial row taken) */
    bool parts = sk_scatter_folds_chunks(p) && atomic_load(job.next_part) > 0;
    if (parts || p->reduce == SK_REDUCE_MEAN || job.acc)
        sk_parallel_chunks(nt, job.nwin, sk_chunks_for(nt, job.nwin, job.len), sk_seg_finish_task,
                           &job);
}

static bool sk_seg_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                           sk_path_need *need) {
    return sk_seg_applies_as(p, ex, copy_from, need, false);
}

static sk_status sk_seg_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            void *scratch) {
    return sk_seg_run_as(p, ex, copy_from, scratch, false);
}

const sk_path sk_path_segments = {"cpu/scatter/segments", false, true, sk_seg_applies, sk_seg_run};
