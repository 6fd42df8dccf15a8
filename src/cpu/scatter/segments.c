/* Path "cpu/scatter/segments": the update rows sorted by target, each
 * target's segment folded in the canonical order (segments.h).
 *
 * It takes every reduction of the row pattern (message passing, index_add
 * along axis 0, scatter_nd of rows) from SK_SEG_MIN_ROWS rows, and
 * every plan whose float sum, mean or prod may give a target more than one
 * canonical chunk of contributors. Its scratch (4 bytes per row for each of
 * the keys, the bucket order and the sort, 4 per key of a window) stays
 * within the budget: targets beyond it are taken a window of keys at a
 * time, each window one more pass over the index. */
#include "cpu/scatter/reduce.h"
#include "cpu/scatter/segments.h"

/* The row plan: without the row dimension for the row pattern (linear
 * strides then count rows of out), else every update its own row. */
static bool sk_seg_rows(sk_seg_job *job, const sk_plan *p) {
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

/* Index elements the budget counts: a plan without index components (a sum
 * onto a broadcast shape) has one implicit index element per update. */
static double sk_seg_budget(const sk_plan *p, const sk_exec *ex) {
    double n = (double)ex->index_numel;
    if (p->ncomp == 0 && (double)sk_plan_numel(p) > n) n = (double)sk_plan_numel(p);
    return (double)SK_SCRATCH_BYTES_PER_INDEX * n;
}

enum { SK_SEG_MAX_ITEMS = 4096 };

/* Bytes of the scratch before the window's end array. */
static size_t sk_seg_fixed_bytes(const sk_seg_job *job) {
    size_t rows = sk_scratch_round((size_t)job->nrows * sizeof(int32_t));
    return 3 * rows + sk_scratch_round((size_t)(job->nchunks * SK_SEG_BUCKETS) * sizeof(int32_t)) +
           sk_scratch_round(SK_SEG_BUCKETS * sizeof(int32_t)) +
           2 * sk_scratch_round((SK_SEG_MAX_ITEMS + 1) * sizeof(int64_t));
}

/* The job without its scratch; false when the path does not apply. */
static bool sk_seg_layout(sk_seg_job *job, const sk_plan *p, const sk_exec *ex) {
    memset(job, 0, sizeof *job);
    job->p = p;
    job->ex = ex;
    int64_t target_numel = sk_tensor_numel(ex->out);
    if (p->reduce == SK_REDUCE_NONE || target_numel == 0 || !sk_seg_rows(job, p)) return false;
    bool chunks = sk_scatter_needs_chunks(p);
    if (!chunks && (job->len < 2 || job->nrows < SK_SEG_MIN_ROWS)) return false;
    job->fold_keys = sk_seg_keys_kernels[p->dtype][p->reduce];
    job->fold_chunk = sk_seg_chunk_kernels[p->dtype][p->reduce];
    job->merge_hot = sk_seg_merge_kernels[p->dtype][p->reduce];
    if (!job->fold_keys) return false;
    job->nkeys = target_numel / job->len;
    job->out_row_major = sk_row_major(ex->out);
    job->work_size = p->dtype == SK_DTYPE_FLOAT64 ? 8 : SK_IS_FLOAT(p->dtype) ? 4 : 8;
    job->nchunks = sk_seg_sort_chunks(job->nrows);
    double room = (sk_seg_budget(p, ex) - (double)sk_seg_fixed_bytes(job) - 64.0) / sizeof(int32_t);
    int64_t want = job->nkeys < INT32_MAX ? job->nkeys : INT32_MAX;
    int64_t least = want < SK_SEG_MIN_WINDOW ? want : SK_SEG_MIN_WINDOW;
    if (room < (double)least) return false;
    job->nwin = room < (double)want ? (int64_t)room : want;
    return true;
}

static size_t sk_seg_scratch_bytes(const sk_seg_job *job) {
    return sk_seg_fixed_bytes(job) + sk_scratch_round((size_t)job->nwin * sizeof(int32_t));
}

/* x's data when the folds copy it (whole rows of out, both row-major). */
static const char *sk_seg_copy_source(const sk_seg_job *job, const sk_tensor *copy_from) {
    const char *from = sk_copy_source(copy_from, job->ex->out);
    return from && job->out_row_major && job->nkeys * job->len == sk_tensor_numel(job->ex->out)
               ? from : NULL;
}

static bool sk_seg_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                           sk_path_need *need) {
    sk_seg_job job;
    if (!sk_seg_layout(&job, p, ex)) return false;
    need->scratch_bytes = sk_seg_scratch_bytes(&job);
    need->fuses_copy = sk_seg_copy_source(&job, copy_from) != NULL;
    return true;
}

/* Fold items: about equal shares of the window's rows and keys (a key
 * costs a copy of its row, or its store): item i starts at the first key k
 * with begin(k) + k at or after i * (nin + nwin) / nitems. */
static void sk_seg_items(sk_seg_job *job, int64_t nin) {
    int64_t total = nin + job->nwin, n = total * job->len / (SK_CHUNK_GRAIN / 4);
    job->nitems = n < 1 ? 1 : n > SK_SEG_MAX_ITEMS ? SK_SEG_MAX_ITEMS : n;
    for (int64_t i = 0; i < job->nitems; i++) {
        int64_t at = i * total / job->nitems, lo = 0, hi = job->nwin;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (sk_seg_begin(job, mid) + mid >= at) hi = mid;
            else lo = mid + 1;
        }
        job->item_key[i] = lo;
    }
    job->item_key[job->nitems] = job->nwin;
}

/* Item chunks [i0, i1): their keys that are not hot folded, and the
 * canonical chunks of their hot keys counted. */
static void sk_seg_fold_task(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    for (int64_t i = i0; i < i1; i++) {
        int64_t klo = job->item_key[i], khi = job->item_key[i + 1], hot = 0;
        job->fold_keys(job, klo, khi, false);
        for (int64_t k = klo; k < khi; k++) {
            int64_t rows = job->end[k] - sk_seg_begin(job, k);
            if (sk_seg_is_hot(rows)) hot += (rows + SK_CANONICAL_CHUNK - 1) / SK_CANONICAL_CHUNK;
        }
        job->hot_at[i] = hot;
    }
}

/* Hot keys whole, one thread each (no memory for the partials). */
static void sk_seg_hot_whole_task(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    for (int64_t i = i0; i < i1; i++)
        if (job->hot_at[i + 1] > job->hot_at[i])
            job->fold_keys(job, job->item_key[i], job->item_key[i + 1], true);
}

/* The slots of item chunks [i0, i1)'s hot chunks: key and chunk number. */
static void sk_seg_slots_task(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    for (int64_t i = i0; i < i1; i++) {
        int64_t s = job->hot_at[i];
        for (int64_t k = job->item_key[i]; s < job->hot_at[i + 1]; k++) {
            int64_t rows = job->end[k] - sk_seg_begin(job, k);
            if (!sk_seg_is_hot(rows)) continue;
            for (int64_t c = 0; c * SK_CANONICAL_CHUNK < rows; c++, s++) {
                job->slot_key[s] = k;
                job->slot_c[s] = (int32_t)c;
            }
        }
    }
}

static void sk_seg_chunk_task(void *arg, int tid, int64_t chunk, int64_t s0, int64_t s1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    size_t part = (size_t)job->len * job->work_size;
    for (int64_t s = s0; s < s1; s++)
        job->fold_chunk(job, job->slot_key[s], job->slot_c[s], job->parts + (size_t)s * part);
}

static void sk_seg_merge_task(void *arg, int tid, int64_t chunk, int64_t s0, int64_t s1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    size_t part = (size_t)job->len * job->work_size;
    for (int64_t s = s0; s < s1; s++)
        if (job->slot_c[s] == 0) job->merge_hot(job, job->slot_key[s], job->parts + (size_t)s * part);
}

/* The hot keys: their chunks folded by all threads into partials, then
 * each key's partials folded in order; whole keys when the partials'
 * memory cannot be had. */
static void sk_seg_fold_hot(sk_seg_job *job, int nt) {
    int64_t nslots = job->hot_at[job->nitems];
    size_t part = (size_t)job->len * job->work_size;
    size_t bytes = sk_scratch_round((size_t)nslots * part) +
                   sk_scratch_round((size_t)nslots * (sizeof(int64_t) + sizeof(int32_t)));
    char *mem = sk_scratch_get(bytes);
    if (!mem) {
        sk_parallel_chunks(nt, job->nitems, job->nitems, sk_seg_hot_whole_task, job);
        return;
    }
    char *at = mem;
    job->parts = sk_scratch_carve(&at, (size_t)nslots * part);
    job->slot_key = sk_scratch_carve(&at, (size_t)nslots * sizeof(int64_t));
    job->slot_c = (int32_t *)(void *)at;
    sk_parallel_chunks(nt, job->nitems, job->nitems, sk_seg_slots_task, job);
    int64_t chunks = sk_chunks_for(nt, nslots, SK_CANONICAL_CHUNK * job->len);
    sk_parallel_chunks(nt, nslots, chunks, sk_seg_chunk_task, job);
    sk_parallel_chunks(nt, nslots, chunks, sk_seg_merge_task, job);
    sk_scratch_put(mem, bytes);
    job->parts = NULL;
}

/* Folds the sorted window. */
static void sk_seg_fold(sk_seg_job *job, int nthreads) {
    int64_t nin = job->bucket_end[job->nbuckets - 1];
    if (nin == 0 && !job->copy_src) return;
    sk_seg_items(job, nin);
    int nt = sk_threads_for_work(nthreads, (nin + job->nwin) * job->len);
    sk_parallel_chunks(nt, job->nitems, job->nitems, sk_seg_fold_task, job);
    int64_t at = 0;
    for (int64_t i = 0; i <= job->nitems; i++) { /* counts to first slots */
        int64_t n = i < job->nitems ? job->hot_at[i] : 0;
        job->hot_at[i] = at;
        at += n;
    }
    if (at > 0) sk_seg_fold_hot(job, nt);
}

static sk_status sk_seg_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            void *scratch) {
    sk_seg_job job;
    sk_seg_layout(&job, p, ex);
    job.copy_src = sk_seg_copy_source(&job, copy_from);
    char *at = scratch;
    size_t rows = (size_t)job.nrows * sizeof(int32_t);
    job.key = sk_scratch_carve(&at, rows);
    job.tmp = sk_scratch_carve(&at, rows);
    job.perm = sk_scratch_carve(&at, rows);
    job.hist = sk_scratch_carve(&at, (size_t)(job.nchunks * SK_SEG_BUCKETS) * sizeof(int32_t));
    job.bucket_end = sk_scratch_carve(&at, SK_SEG_BUCKETS * sizeof(int32_t));
    job.item_key = sk_scratch_carve(&at, (SK_SEG_MAX_ITEMS + 1) * sizeof(int64_t));
    job.hot_at = sk_scratch_carve(&at, (SK_SEG_MAX_ITEMS + 1) * sizeof(int64_t));
    job.end = sk_scratch_carve(&at, (size_t)job.nwin * sizeof(int32_t));
    int64_t window = job.nwin;
    for (int64_t k0 = 0; k0 < job.nkeys; k0 += window) {
        sk_seg_window(&job, k0, job.nkeys - k0 < window ? job.nkeys - k0 : window);
        sk_seg_sort(&job, ex->nthreads);
        sk_seg_fold(&job, ex->nthreads);
    }
    return SK_STATUS_OK;
}

const sk_path sk_path_segments = {"cpu/scatter/segments", false, true, sk_seg_applies, sk_seg_run};
