/* Path "cpu/scatter/inner_axis": index_add along the last axis of out, one
 * index shared by every row, in claimed chunks of whole target
 * rows (about SK_INNER_CHUNK_BYTES: each long run of updates lands in one
 * target row, and runs outside a chunk are skipped at once, so the chunks
 * can be small). With out != x (both row-major) each chunk copies its rows
 * just before updating them: a copy of all of x first would have pushed
 * them out of the caches. Every target row reads the whole index again, so
 * the index is copied once, negatives wrapped, to int32 or uint16. */
#include "cpu/arch/x86/rows4_sse.h"
#include "cpu/scatter/inner_axis.h"
#include "cpu/scatter/reduce.h"

#include <stdatomic.h>

static int64_t sk_inner_axis_chunk(const sk_plan *p, const sk_tensor *out) {
    int d = p->ndim - 1;
    if (p->ncomp != 1 || p->ndim < 1 || p->linear_stride[d] != 0 || p->index_stride[d] == 0 ||
        p->shape[d] < SK_INNER_MIN_RUN || p->comp_linear_stride[0] != 1 || out->ndim < 1 ||
        p->comp_size[0] != out->shape[out->ndim - 1])
        return 0;
    int64_t row = p->comp_size[0], rows = (int64_t)(SK_INNER_CHUNK_BYTES / p->elem_size) / row;
    return row * (rows > 1 ? rows : 1);
}

int64_t sk_inner_fused_chunk(const sk_plan *p, const sk_exec *ex) {
    bool reduces = p->reduce != SK_REDUCE_NONE;
    bool half = reduces && SK_IS_HALF(p->dtype);
    bool counted = reduces && (p->reduce == SK_REDUCE_MEAN || !p->include_self);
    /* 16-bit types only for a sum with the index copy (sk_inner_sum) */
    if (counted || sk_plan_numel(p) == 0 || sk_tensor_numel(ex->out) == 0 ||
        (half && p->reduce != SK_REDUCE_SUM))
        return 0;
    return sk_inner_axis_chunk(p, ex->out);
}

bool sk_inner_index_varies(const sk_plan *p) {
    for (int d = 0; d < p->ndim - 1; d++)
        if (p->index_stride[d] != 0) return true;
    return false;
}

/* The updates of `rows` (a slice of the plan whose linear index starts at
 * lin_base) that reach the targets [clo, chi). */
static void sk_inner_apply(const sk_inner_job *job, int tid, const sk_plan *rows, int64_t lin_base,
                           int64_t clo, int64_t chi) {
    char *mine = job->canon ? job->canon + (size_t)tid * sk_canonical_span_bytes(job->chunk) : NULL;
    if (mine && sk_inner_fold_counted(job, rows, lin_base, clo, chi, mine)) return;
    if (mine && sk_span_passes_chunk(rows, lin_base, clo, chi, mine)) {
        sk_canonical_span(job->p, job->ex, rows, lin_base, clo, chi, mine);
        return;
    }
    sk_span s = sk_span_all(clo - lin_base, chi - lin_base);
    job->pass(rows, job->ex, &s, NULL, NULL);
}

/* Chunks [u0, u1) of job->chunk targets each. */
static void sk_inner_chunk(void *arg, int tid, int64_t chunk, int64_t u0, int64_t u1) {
    sk_inner_job *job = arg;
    const sk_plan *p = job->p;
    const sk_exec *ex = job->ex;
    (void)chunk;
    int64_t clo = u0 * job->chunk, chi = u1 * job->chunk;
    if (chi > job->target_numel) chi = job->target_numel;
    /* with the four-row buffers, sk_inner_sum copies the plan's rows itself;
     * only targets past them (a smaller index) are copied here */
    int64_t rows_end = p->shape[0] * p->linear_stride[0];
    int64_t cfrom = job->inner_rows && clo < rows_end ? rows_end : clo;
    char *at = (char *)ex->out->data + (ptrdiff_t)cfrom * (ptrdiff_t)p->elem_size;
    size_t bytes = (size_t)(chi - cfrom) * p->elem_size;
    if (job->copy_src && cfrom < chi) {
        memcpy(at, job->copy_src + (ptrdiff_t)cfrom * (ptrdiff_t)p->elem_size, bytes);
    } else if (job->touch && cfrom < chi) {
        /* in place: the chunk's lines asked for in order first, so that its
         * random updates find them in the caches instead of missing on each
         * line */
        for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(at + b, 1);
    }
    if (job->inner_index) {
        sk_inner_sum(job, tid, clo, chi);
    } else if (p->ndim == 2 && p->linear_stride[0] > 0) {
        /* only the plan rows that reach the chunk: a pass over the whole
         * plan would skip every other row one at a time (a chunk is a few
         * rows of out, so that is most of the work for a small row) */
        int64_t ls = p->linear_stride[0], reach = p->comp_size[0] * p->comp_linear_stride[0];
        int64_t r0 = clo >= reach ? (clo - reach) / ls + 1 : 0, r1 = (chi + ls - 1) / ls;
        if (r1 > p->shape[0]) r1 = p->shape[0];
        if (r0 >= r1) return;
        sk_plan rows = sk_plan_slice(p, 0, r0, r1);
        sk_inner_apply(job, tid, &rows, r0 * ls, clo, chi);
    } else {
        sk_inner_apply(job, tid, p, 0, clo, chi);
    }
}

void sk_inner_run_chunks(sk_inner_job *job, int nt) {
    int64_t units = (job->target_numel + job->chunk - 1) / job->chunk;
    sk_parallel_chunks(nt, units, units, sk_inner_chunk, job);
}

/* The scratch of the shared-index path: the index copy (when the index is
 * one contiguous int64 row of checked values: they fit), then for a sum on
 * a 2-d plan either the four-row buffers (16 n bytes per thread, float32 or
 * 16-bit, contiguous out rows) or, for 16-bit types, a float32 row per
 * thread; all within SK_SCRATCH_BYTES_PER_INDEX per index element. */
typedef struct {
    int nt;
    int64_t chunk;
    bool inner, small; /* sk_inner_sum; with a uint16 index copy */
    size_t index_bytes, rows_bytes, half_bytes;
    size_t room; /* what these leave of the budget: the index count's histograms */
} sk_inner_layout;

/* How many of nt threads get a buffer of `one` bytes within `avail`. */
static int sk_inner_threads_within(size_t avail, size_t one, int nt) {
    size_t most = one ? avail / one : (size_t)nt;
    return most < (size_t)nt ? (int)most : nt;
}

static bool sk_inner_layout_of(const sk_plan *p, const sk_exec *ex, sk_inner_layout *l) {
    memset(l, 0, sizeof *l);
    int64_t fused = sk_inner_fused_chunk(p, ex);
    if (!fused || sk_inner_index_varies(p)) return false;
    int d = p->ndim - 1;
    int64_t n = p->comp_size[0], ilen = p->shape[d];
    size_t budget = (size_t)SK_SCRATCH_BYTES_PER_INDEX * (size_t)ilen;
    bool one_d = p->index_is64 && p->index_stride[d] == 1 && p->mode == SK_INDEX_MODE_ERROR &&
                 n <= INT32_MAX;
    l->nt = sk_scatter_threads(p, ex);
    l->inner = one_d && p->ndim == 2 && p->reduce == SK_REDUCE_SUM && p->dense_stride[1] == 1 &&
               p->dtype != SK_DTYPE_BOOL;
    l->small = l->inner && n <= SK_INNER_INDEX16_MAX;
    if (one_d) l->index_bytes = (size_t)ilen * (l->small ? sizeof(uint16_t) : sizeof(int32_t));
    /* the buffers are per thread: where the budget holds them for fewer
     * threads than asked for, fewer threads with them or all without,
     * whichever sums faster (SK_INNER_ROWS4_GAIN_TENTHS) */
    size_t avail = l->index_bytes < budget ? budget - l->index_bytes : 0;
    size_t four_one = 4u * sizeof(float) * (size_t)n, row_one = (size_t)n * sizeof(float);
    bool four_shape = SK_HAVE_ROWS4 && l->inner && p->shape[0] >= 4 &&
                      p->comp_target_stride[0] == 1 && p->linear_stride[0] == n;
    int four_nt = sk_inner_threads_within(avail, four_one, l->nt);
    int row_nt = sk_inner_threads_within(avail, row_one, l->nt); /* float32 rows of 16-bit sums */
    bool half = SK_IS_HALF(p->dtype) && p->reduce != SK_REDUCE_NONE;
    /* threads without the buffers (16-bit sums: a float32 row each, for all
     * of them, or the path declines and a parallel one runs) */
    int plain_nt = half ? (l->inner && row_nt == l->nt ? l->nt : 0) : l->nt;
    int cpus = sk_exec_cpus(ex); /* threads beyond the CPUs add no speed */
    int four_run = four_nt < cpus ? four_nt : cpus, plain_run = plain_nt < cpus ? plain_nt : cpus;
    bool four = four_shape && (half || p->dtype == SK_DTYPE_FLOAT32) &&
                (four_nt == l->nt || (four_nt >= 2 && four_run * SK_INNER_ROWS4_GAIN_TENTHS >=
                                                          plain_run * 10));
    if (four) {
        l->nt = four_nt;
        l->rows_bytes = (size_t)four_nt * four_one;
    } else if (half) {
        if (plain_nt < 1) return false; /* 16-bit sums need a float32 row: owner-computes */
        l->nt = plain_nt;
        l->half_bytes = (size_t)plain_nt * row_one;
    }
    /* with the four-row buffers the chunks are whole groups of four rows */
    l->chunk = l->rows_bytes ? (fused / n + 3) / 4 * 4 * n : fused;
    size_t used = l->index_bytes + l->rows_bytes + l->half_bytes;
    l->room = budget > used ? budget - used : 0;
    return true;
}

/* The plan rows that share a target row (their updates meet in it): a
 * target gets this many times its index value's multiplicity. */
static int64_t sk_inner_shared_rows(const sk_plan *p) {
    int64_t rows = 1;
    for (int d = 0; d < p->ndim - 1; d++)
        if (p->linear_stride[d] == 0) rows *= p->shape[d];
    return rows;
}

/* The index copy (uint16 where small, else int32, negatives wrapped) and,
 * where the canonical order asks (counts != NULL), whether a target gets
 * more than SK_CANONICAL_CHUNK updates: each chunk of the index counts into
 * its own saturating uint16 histogram, then each chunk of targets adds up
 * the histograms. Both passes run on every thread for a long index
 * (SK_INNER_PARALLEL_PREP_MIN), where a serial count would be the largest
 * serial part at 16 threads. */
typedef struct {
    const sk_plan *p;
    void *copy;
    bool small;
    uint16_t *counts; /* nchunks histograms of n targets, or NULL */
    int64_t nchunks, n, rows; /* rows: plan rows that share a target row */
    atomic_bool over;
} sk_inner_prep;

static void sk_inner_prep_index(void *arg, int tid, int64_t chunk, int64_t j0, int64_t j1) {
    sk_inner_prep *pr = arg;
    (void)tid;
    const int64_t *ix = pr->p->index;
    const int64_t n = pr->n;
    uint16_t *h = pr->counts ? pr->counts + chunk * n : NULL;
    if (h) memset(h, 0, (size_t)n * sizeof(uint16_t));
    for (int64_t j = j0; j < j1; j++) {
        int64_t v = ix[j] < 0 ? ix[j] + n : ix[j];
        if (pr->small) ((uint16_t *)pr->copy)[j] = (uint16_t)v;
        else ((int32_t *)pr->copy)[j] = (int32_t)v;
        if (h) sk_chunk_count_add(&h[v]);
    }
}

static void sk_inner_prep_merge(void *arg, int tid, int64_t chunk, int64_t k0, int64_t k1) {
    sk_inner_prep *pr = arg;
    (void)tid, (void)chunk;
    for (int64_t k = k0; k < k1; k++) {
        int64_t total = 0;
        for (int64_t c = 0; c < pr->nchunks; c++) total += pr->counts[c * pr->n + k];
        if (total * pr->rows > SK_CANONICAL_CHUNK) {
            atomic_store_explicit(&pr->over, true, memory_order_relaxed);
            return;
        }
    }
}

/* The index copied into `to`; false where the canonical order asks for
 * the check (check) and a target gets more than SK_CANONICAL_CHUNK
 * updates, or the histograms' scratch is not there. The histograms take
 * what the path's scratch left of the budget (`room`), one at least. */
static bool sk_inner_copy_index(const sk_plan *p, void *to, bool small, bool check, int nt,
                                int cpus, size_t room) {
    sk_inner_prep pr = {.p = p, .copy = to, .small = small, .n = p->comp_size[0]};
    int64_t ilen = p->shape[p->ndim - 1];
    pr.nchunks = nt < cpus ? nt : cpus;
    /* SCATTERKIT_INNER_PARALLEL_PREP_MIN: a tuning override, to measure the
     * two against each other (run() alone reads it: no scratch depends on it) */
    if (ilen < sk_env_count("SCATTERKIT_INNER_PARALLEL_PREP_MIN", SK_INNER_PARALLEL_PREP_MIN,
                            INT32_MAX))
        pr.nchunks = 1; /* in this thread */
    int64_t fit = (int64_t)(room / ((size_t)pr.n * sizeof(uint16_t)));
    if (check && pr.nchunks > fit) pr.nchunks = fit > 1 ? fit : 1; /* histograms in the budget */
    atomic_init(&pr.over, false);
    size_t bytes = 0;
    if (check) {
        pr.rows = sk_inner_shared_rows(p);
        if (pr.rows > SK_CANONICAL_CHUNK) return false;
        bytes = (size_t)(pr.nchunks * pr.n) * sizeof(uint16_t);
        if (!(pr.counts = sk_scratch_get(bytes))) return false;
    }
    sk_parallel_chunks(nt, ilen, pr.nchunks, sk_inner_prep_index, &pr);
    if (check) {
        sk_parallel_chunks(nt, pr.n, pr.nchunks, sk_inner_prep_merge, &pr);
        sk_scratch_put(pr.counts, bytes);
    }
    return !atomic_load(&pr.over);
}

static bool sk_inner_axis_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                  sk_path_need *need) {
    sk_inner_layout l;
    if (!sk_inner_layout_of(p, ex, &l)) return false;
    need->scratch_bytes = sk_scratch_round(l.index_bytes) + sk_scratch_round(l.rows_bytes) +
                          sk_scratch_round(l.half_bytes);
    need->fuses_copy = sk_copy_source(copy_from, ex->out) != NULL;
    return true;
}

/* Whether folding each target's updates one after another is the
 * canonical order: no target gets more than SK_CANONICAL_CHUNK updates (the
 * most frequent index value, times the plan rows that share a target row). */
static bool sk_inner_serial_is_canonical(const sk_plan *p) {
    int d = p->ndim - 1;
    int64_t n = p->comp_size[0], rows = sk_inner_shared_rows(p), most = 0;
    if (rows > SK_CANONICAL_CHUNK) return false;
    int32_t *count = sk_scratch_get((size_t)n * sizeof(int32_t));
    if (!count) return false;
    memset(count, 0, (size_t)n * sizeof(int32_t));
    for (int64_t j = 0; j < p->shape[d]; j++) {
        int64_t v = sk_load_index(p->index, p->index_is64, j * p->index_stride[d]);
        if (sk_resolve_index(v, n, p->mode, &v) && ++count[v] > most) most = count[v];
    }
    sk_scratch_put(count, (size_t)n * sizeof(int32_t));
    return most * rows <= SK_CANONICAL_CHUNK;
}

static sk_status sk_inner_axis_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                   void *scratch) {
    sk_inner_layout l;
    sk_inner_layout_of(p, ex, &l);
    bool check = sk_scatter_needs_chunks(p);
    /* without the index copy, the generic count (with the copy: its pass) */
    if (check && !l.index_bytes && !sk_inner_serial_is_canonical(p)) return SK_PATH_DECLINED;
    sk_inner_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.ex = ex;
    job.pass = sk_pass_kernels[p->dtype][p->reduce];
    job.target_numel = sk_tensor_numel(ex->out);
    job.chunk = l.chunk;
    job.copy_src = sk_copy_source(copy_from, ex->out);
    job.touch = !copy_from && sk_row_major(ex->out);
    char *at = scratch;
    sk_plan narrow; /* the generic walk reading the int32 copy of the index */
    if (l.index_bytes) {
        void *copy = sk_scratch_carve(&at, l.index_bytes);
        if (!sk_inner_copy_index(p, copy, l.small, check, l.nt, sk_exec_cpus(ex), l.room))
            return SK_PATH_DECLINED;
        if (l.inner) {
            job.inner_index = copy;
            job.inner_index16 = l.small;
        } else {
            narrow = *p;
            narrow.index = copy;
            narrow.index_is64 = false;
            job.p = &narrow;
        }
    }
    if (l.rows_bytes) {
        job.inner_rows = sk_scratch_carve(&at, l.rows_bytes);
        job.inner_rows_stride = 4 * p->comp_size[0];
    }
    if (l.half_bytes) job.half_rows = sk_scratch_carve(&at, l.half_bytes);
    sk_inner_run_chunks(&job, l.nt);
    return SK_STATUS_OK;
}

const sk_path sk_path_inner_axis = {"cpu/scatter/inner_axis", false, true, sk_inner_axis_applies,
                                    sk_inner_axis_run};
