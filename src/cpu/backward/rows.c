/* The scatter backward of sum, mean, amax and amin over rows: passes over
 * rows, not per target.
 *
 * The row pattern (the index constant along a contiguous row of src, the
 * targets of a row contiguous in out: message passing, index_add on axis 0)
 * in every floating dtype (16-bit floats work in float, as the walk does,
 * converted on load and rounded once on store). The walk makes every thread
 * read all of src twice and reach each update's target at random in four
 * arrays; here:
 *   A. by targets: for the targets it owns, a thread counts the
 *      contributors (sum without self, mean; src is not read) or the ties
 *      with the result (amax/amin). Where more than two threads run at
 *      once the rows are first sorted by target row (segments.h), so each
 *      thread reads only its targets' rows; else one or two threads each
 *      read the whole index (cheaper than the sort; and however many
 *      threads are asked for, no more than the CPUs walk it, so the work
 *      does not grow). Atomic
 *      increments with rows split between threads would each be a full
 *      barrier that waits for the misses in flight;
 *   B. by targets: grad_x, then each target's share of its gradient in
 *      place of g (g / ties, g / (count + self), rounded as the walk rounds
 *      them; g for sum);
 *   C. by update rows: each writes its grad_src row, the share of its
 *      targets (amax/amin: where it equals the result, else 0).
 * Each gradient element is still computed once, by one thread, from the same
 * operations as the walk: the same bits for any thread count. The target
 * rows of the row SK_ROWS_AHEAD rows on are prefetched into L2. */
#include "cpu/backward/backward.h"
#include "cpu/scatter/segments.h"

#include <limits.h>

typedef struct {
    const sk_bwd_work *w;
    int64_t rows, len;
    int32_t *cnt;   /* per target (row-major like the working arrays): ties
                     * (amax/amin) or contributors; NULL: sum with self */
    const sk_seg_job *seg; /* the rows sorted by target row, for A; or NULL */
    void *share;    /* the working grad_out, turned into shares in B */
    char *grad_src; /* NULL: not asked */
} sk_bwd_rows_job;

/* Linear index of the first target of update row r, false when its index
 * value is dropped (DROP/FILL modes). */
SK_INLINE bool sk_bwd_row_target(const sk_plan *p, int64_t r, int64_t *lin) {
    int64_t toff = 0;
    *lin = r * p->linear_stride[0];
    return sk_plan_resolve(p, r * p->index_stride[0], &toff, lin);
}

/* The first target of row r + ahead for a prefetch: raw value wrapped once,
 * no mode (a bad value's address is never read: prefetches do not fault). */
SK_INLINE uintptr_t sk_bwd_row_guess(const sk_plan *p, int64_t r) {
    int64_t v = sk_load_index(p->index, p->index_is64, r * p->index_stride[0]);
    if (v < 0) v += p->comp_size[0];
    return (uintptr_t)(r * p->linear_stride[0]) + (uintptr_t)v * (uintptr_t)p->comp_linear_stride[0];
}

/* The address is computed in integers: a guess from a value out of range
 * (DROP mode) may lie anywhere, and is only prefetched, never read. */
SK_INLINE void sk_bwd_prefetch(const void *base, uintptr_t at, size_t bytes, size_t es) {
    sk_prefetch_row_l2((const void *)((uintptr_t)base + at * es), bytes);
}

/* Element k of a caller's tensor (src, grad_src, grad_x) of es-byte
 * elements, in the working precision: float32/float64 as they are, 16-bit
 * floats converted (every one is a float; stores round once, as the walk's
 * do). DT is a constant of each instantiation, so one branch is compiled. */
SK_INLINE bool sk_bwd_native(const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_FLOAT64;
}
SK_INLINE double sk_bwd_load(const void *base, int64_t k, size_t es, const sk_dtype DT) {
    return sk_bwd_native(DT) ? sk_bwd_at(base, k, DT)
                             : sk_load_f((const char *)base + (ptrdiff_t)k * (ptrdiff_t)es, DT);
}
SK_INLINE void sk_bwd_store(void *base, int64_t k, size_t es, double v, const sk_dtype DT) {
    if (sk_bwd_native(DT)) sk_bwd_set(base, k, v, DT);
    else sk_store_f((char *)base + (ptrdiff_t)k * (ptrdiff_t)es, v, DT);
}

/* a and b tie (sk_bwd_same) without branches, so that the loops around it
 * vectorize. */
SK_INLINE int sk_bwd_tie(double a, double b) { return (a == b) | ((a != a) & (b != b)); }

SK_INLINE bool sk_bwd_amx(const sk_plan *p) {
    return p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
}

/* A: the counts of the targets thread tid owns. */
SK_INLINE void sk_bwd_rows_count(const sk_bwd_rows_job *job, int tid, int nthreads,
                                 const sk_dtype DT) {
    const sk_bwd_work *w = job->w;
    const sk_plan *p = w->p;
    const void *od = w->od, *xd = w->xd;
    int32_t *cnt = job->cnt;
    bool ties = sk_bwd_amx(p);
    bool x_ties = ties && p->include_self; /* x is a contributor */
    int64_t lo, hi, len = job->len;
    const size_t ws = sk_bwd_ws(DT), es = p->elem_size;
    sk_partition(w->n, tid, nthreads, &lo, &hi);
    for (int64_t t = lo; t < hi; t++)
        cnt[t] = x_ties ? sk_bwd_tie(sk_bwd_at(xd, t, DT), sk_bwd_at(od, t, DT)) : 0;
    for (int64_t r = 0; r < job->rows; r++) {
        if (r + SK_ROWS_AHEAD < job->rows) {
            uintptr_t t = sk_bwd_row_guess(p, r + SK_ROWS_AHEAD);
            if (t >= (uintptr_t)lo && t < (uintptr_t)hi) {
                if (ties) sk_bwd_prefetch(od, t, (size_t)len * ws, ws);
                sk_bwd_prefetch(cnt, t, (size_t)len * 4, 4);
            }
        }
        int64_t lin;
        if (!sk_bwd_row_target(p, r, &lin) || lin + len <= lo || lin >= hi) continue;
        int64_t klo = lin < lo ? lo - lin : 0, khi = lin + len > hi ? hi - lin : len;
        int32_t *c = cnt + lin;
        if (!ties) {
            for (int64_t k = klo; k < khi; k++) c[k]++;
            continue;
        }
        const char *src = p->dense + (ptrdiff_t)(r * p->dense_stride[0]) * (ptrdiff_t)es;
        for (int64_t k = klo; k < khi; k++)
            c[k] += sk_bwd_tie(sk_bwd_load(src, k, es, DT), sk_bwd_at(od, lin + k, DT));
    }
}

/* A from sorted rows: the counts of the target rows [klo, khi). */
SK_INLINE void sk_bwd_rows_count_keys(const sk_bwd_rows_job *job, int64_t klo, int64_t khi,
                                      const sk_dtype DT) {
    const sk_bwd_work *w = job->w;
    const sk_plan *p = w->p;
    const sk_seg_job *seg = job->seg;
    const void *od = w->od, *xd = w->xd;
    bool ties = sk_bwd_amx(p), x_ties = ties && p->include_self;
    const int64_t len = job->len;
    const size_t es = p->elem_size;
    for (int64_t k = klo; k < khi; k++) {
        int32_t *restrict c = job->cnt + k * len;
        const int64_t t0 = k * len, b = sk_seg_begin(seg, k), e = seg->end[k];
        for (int64_t j = 0; j < len; j++)
            c[j] = x_ties ? sk_bwd_tie(sk_bwd_at(xd, t0 + j, DT), sk_bwd_at(od, t0 + j, DT)) : 0;
        if (!ties) {
            for (int64_t j = 0; j < len; j++) c[j] += (int32_t)(e - b);
            continue;
        }
        for (int64_t i = b; i < e; i++) {
            const char *src = p->dense + (ptrdiff_t)(seg->perm[i] * p->dense_stride[0]) * (ptrdiff_t)es;
            for (int64_t j = 0; j < len; j++)
                c[j] += sk_bwd_tie(sk_bwd_load(src, j, es, DT), sk_bwd_at(od, t0 + j, DT));
        }
    }
}

/* B: grad_x and the shares of the targets [lo, hi). */
SK_INLINE void sk_bwd_rows_share(const sk_bwd_rows_job *job, int64_t lo, int64_t hi,
                                 const sk_dtype DT) {
    const sk_bwd_work *w = job->w;
    const sk_plan *p = w->p;
    void *share = job->share;
    const void *od = w->od, *xd = w->xd;
    bool self = p->include_self, mean = p->reduce == SK_REDUCE_MEAN, amx = sk_bwd_amx(p);
    const sk_tensor *gx = w->grad_x;
    int64_t coord[SK_MAX_DIMS], off = gx ? sk_walk_seek(gx, lo, coord) : 0;
    for (int64_t t = lo; t < hi; t++) {
        int32_t c = job->cnt ? job->cnt[t] : 0;
        double g = sk_bwd_at(share, t, DT), s = g, v;
        if (amx && c > 0) s = sk_bwd_round(g / (double)c, DT);
        if (mean) s = sk_bwd_round(g / (double)(c + (self ? 1 : 0)), DT);
        if (amx && self) v = sk_bwd_tie(sk_bwd_at(xd, t, DT), sk_bwd_at(od, t, DT)) ? s : 0.0;
        else if (self) v = s; /* sum, mean: x is a contributor */
        else v = c > 0 ? 0.0 : g; /* replaced when touched, else passed through */
        sk_bwd_set(share, t, s, DT);
        if (!gx) continue;
        sk_bwd_store(gx->data, off, p->elem_size, v, DT);
        sk_walk_next(gx, coord, &off);
    }
}

/* C: the grad_src rows [lo, hi). */
SK_INLINE void sk_bwd_rows_grad(const sk_bwd_rows_job *job, int64_t lo, int64_t hi,
                                const sk_dtype DT) {
    const sk_plan *p = job->w->p;
    const void *od = job->w->od, *share = job->share;
    bool amx = sk_bwd_amx(p);
    int64_t len = job->len;
    const size_t ws = sk_bwd_ws(DT), es = p->elem_size;
    for (int64_t r = lo; r < hi; r++) {
        if (r + SK_ROWS_AHEAD < hi) {
            uintptr_t t = sk_bwd_row_guess(p, r + SK_ROWS_AHEAD);
            if (amx) sk_bwd_prefetch(od, t, (size_t)len * ws, ws);
            sk_bwd_prefetch(share, t, (size_t)len * ws, ws);
        }
        char *restrict gs = job->grad_src + (ptrdiff_t)(r * p->aux_stride[0]) * (ptrdiff_t)es;
        int64_t lin;
        if (!sk_bwd_row_target(p, r, &lin)) {
            for (int64_t k = 0; k < len; k++) sk_bwd_store(gs, k, es, 0.0, DT);
            continue;
        }
        const char *restrict sh = (const char *)share + (size_t)lin * ws;
        if (!amx) {
            for (int64_t k = 0; k < len; k++) sk_bwd_store(gs, k, es, sk_bwd_at(sh, k, DT), DT);
            continue;
        }
        const char *restrict src = p->dense + (ptrdiff_t)(r * p->dense_stride[0]) * (ptrdiff_t)es;
        const char *restrict res = (const char *)od + (size_t)lin * ws;
        /* branch-free, so that it vectorizes: ties are as rare as targets */
        for (int64_t k = 0; k < len; k++) {
            double v = sk_bwd_at(sh, k, DT);
            bool tie = sk_bwd_tie(sk_bwd_load(src, k, es, DT), sk_bwd_at(res, k, DT));
            sk_bwd_store(gs, k, es, tie ? v : 0.0, DT);
        }
    }
}

/* The passes: thin wrappers that call the body of the plan's dtype, the
 * dtype a constant of each (gradients exist for floating dtypes only). */
static void sk_bwd_rows_count_task(void *arg, int tid, int nthreads) {
    const sk_bwd_rows_job *job = arg;
    switch (job->w->p->dtype) {
    case SK_DTYPE_FLOAT16: sk_bwd_rows_count(job, tid, nthreads, SK_DTYPE_FLOAT16); break;
    case SK_DTYPE_BFLOAT16: sk_bwd_rows_count(job, tid, nthreads, SK_DTYPE_BFLOAT16); break;
    case SK_DTYPE_FLOAT64: sk_bwd_rows_count(job, tid, nthreads, SK_DTYPE_FLOAT64); break;
    default: sk_bwd_rows_count(job, tid, nthreads, SK_DTYPE_FLOAT32); break;
    }
}

static void sk_bwd_rows_count_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_bwd_rows_job *job = arg;
    (void)tid, (void)chunk;
    switch (job->w->p->dtype) {
    case SK_DTYPE_FLOAT16: sk_bwd_rows_count_keys(job, lo, hi, SK_DTYPE_FLOAT16); break;
    case SK_DTYPE_BFLOAT16: sk_bwd_rows_count_keys(job, lo, hi, SK_DTYPE_BFLOAT16); break;
    case SK_DTYPE_FLOAT64: sk_bwd_rows_count_keys(job, lo, hi, SK_DTYPE_FLOAT64); break;
    default: sk_bwd_rows_count_keys(job, lo, hi, SK_DTYPE_FLOAT32); break;
    }
}

/* A: by sorted rows when that applies and its memory can be had, else
 * each thread reading the whole index. */
static void sk_bwd_rows_counts(sk_bwd_rows_job *job, int nt) {
    const sk_plan *p = job->w->p;
    const int64_t len = job->len, nkeys = job->w->n / len;
    sk_plan rows = *p;
    rows.ndim = 1;
    /* threads that run at once: more than the CPUs would each read the
     * whole index again for nothing */
    int walkers = sk_usable_cpu_count();
    if (walkers > nt) walkers = nt;
    bool keyed = walkers > 2 && job->w->n % len == 0 && p->linear_stride[0] % len == 0 &&
                 p->comp_linear_stride[0] % len == 0;
    sk_seg_job seg;
    if (keyed) {
        rows.linear_stride[0] /= len;
        rows.comp_linear_stride[0] /= len;
        keyed = sk_seg_sort_all(&seg, &rows, nkeys, nt);
    }
    if (!keyed) {
        sk_parallel_run(walkers, sk_bwd_rows_count_task, job);
        return;
    }
    job->seg = &seg;
    sk_parallel_chunks(nt, nkeys, sk_chunks_for(nt, nkeys, len), sk_bwd_rows_count_chunk, job);
    job->seg = NULL;
    sk_seg_sort_free(&seg);
}

static void sk_bwd_rows_share_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_bwd_rows_job *job = arg;
    (void)tid, (void)chunk;
    switch (job->w->p->dtype) {
    case SK_DTYPE_FLOAT16: sk_bwd_rows_share(job, lo, hi, SK_DTYPE_FLOAT16); break;
    case SK_DTYPE_BFLOAT16: sk_bwd_rows_share(job, lo, hi, SK_DTYPE_BFLOAT16); break;
    case SK_DTYPE_FLOAT64: sk_bwd_rows_share(job, lo, hi, SK_DTYPE_FLOAT64); break;
    default: sk_bwd_rows_share(job, lo, hi, SK_DTYPE_FLOAT32); break;
    }
}

static void sk_bwd_rows_grad_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_bwd_rows_job *job = arg;
    (void)tid, (void)chunk;
    switch (job->w->p->dtype) {
    case SK_DTYPE_FLOAT16: sk_bwd_rows_grad(job, lo, hi, SK_DTYPE_FLOAT16); break;
    case SK_DTYPE_BFLOAT16: sk_bwd_rows_grad(job, lo, hi, SK_DTYPE_BFLOAT16); break;
    case SK_DTYPE_FLOAT64: sk_bwd_rows_grad(job, lo, hi, SK_DTYPE_FLOAT64); break;
    default: sk_bwd_rows_grad(job, lo, hi, SK_DTYPE_FLOAT32); break;
    }
}

/* The row pattern with sum, mean, amax or amin, every floating dtype: one
 * index component, constant along a contiguous inner dimension of grad_src
 * (and of src, which only amax/amin read: the bindings pass sum and mean a
 * broadcast stand-in) whose targets are consecutive. */
bool sk_bwd_is_rows(const sk_plan *p) {
    bool amx = sk_bwd_amx(p);
    return p->ndim == 2 && p->ncomp == 1 && p->index_stride[1] == 0 && p->aux_stride[1] == 1 &&
           p->linear_stride[1] == 1 && (amx ? p->dense_stride[1] == 1 : true) &&
           (amx || p->reduce == SK_REDUCE_SUM || p->reduce == SK_REDUCE_MEAN);
}

bool sk_bwd_run_rows(const sk_bwd_work *w, const sk_exec *e) {
    const sk_plan *p = w->p;
    sk_bwd_rows_job job = {w, p->shape[0], p->shape[1], NULL, NULL, w->gd,
                           w->grad_src ? w->grad_src->data : NULL};
    bool counted = !(p->reduce == SK_REDUCE_SUM && p->include_self);
    size_t bytes = (size_t)w->n * sizeof(int32_t);
    if (counted && !(job.cnt = sk_scratch_get(bytes))) return false; /* set by the count pass */
    sk_note_kernel("cpu/scatter_backward/rows");
    int nt = sk_threads_for_work(e->nthreads, job.rows * job.len);
    if (nt > SK_MAX_THREADS) nt = SK_MAX_THREADS;
    if (counted) sk_bwd_rows_counts(&job, nt);
    /* claimed chunks: the threads own no state in these passes */
    sk_parallel_chunks(nt, w->n, sk_chunks_for(nt, w->n, 1), sk_bwd_rows_share_chunk, &job);
    if (job.grad_src)
        sk_parallel_chunks(nt, job.rows, sk_chunks_for(nt, job.rows, job.len),
                           sk_bwd_rows_grad_chunk, &job);
    if (counted) sk_scratch_put(job.cnt, bytes);
    return true;
}
