/* The scatter backward's general path: the same ownership as the forward
 * owner-computes. Each thread owns a range of target linear indices and
 * walks every update in row-major order twice:
 *   pass 1 gathers per-target statistics (update count, last updater, ties
 *          with the result, the product of the contributors: prod.h);
 *   pass 2 writes grad_src for each update it owns;
 * then it writes grad_x for its targets. Every gradient element is written
 * by one thread from the same sequence of operations, so the result does not
 * depend on the thread count. Arithmetic is in float for float16, bfloat16
 * and float32 (rounded once into 16-bit types), in double for float64;
 * prod's product of the others in double for every dtype (prod.h). */
#include "cpu/backward/backward.h"
#include "base/prod_grad.h"

/* Per-target statistics of a thread's range, as separate arrays so each
 * reduction touches only what it needs (8 bytes per target, 32 for prod). */
typedef struct {
    int64_t *cnt;    /* updates received: sum (include_self=false), mean, prod */
    int64_t *ties;   /* contributors equal to the result: amax, amin */
    int64_t *winner; /* position of the last update: assign */
    sk_bwd_prod *prod; /* the product of the contributors: prod */
    size_t m;        /* entries of each array (the thread's targets, at least 1) */
} sk_bwd_stats;


typedef struct {
    sk_bwd_work w;
    sk_bwd_stats stat[SK_MAX_THREADS];
} sk_bwd_job;

/* Whether target j (of the thread's range) received an update. */
static inline bool sk_bwd_touched(const sk_plan *p, const sk_bwd_stats *st, int64_t j) {
    switch (p->reduce) {
    case SK_REDUCE_NONE: return st->winner[j] >= 0;
    case SK_REDUCE_AMAX:
    case SK_REDUCE_AMIN:
        /* asked only with include_self=false: the result is one of the updates */
        return st->ties[j] > 0;
    case SK_REDUCE_SUM: return p->include_self ? false : st->cnt[j] > 0;
    default: return st->cnt[j] > 0;
    }
}

/* Gradient share of one contributor with value v of target j. */
SK_INLINE double sk_bwd_share(const sk_plan *p, const sk_bwd_stats *st, int64_t j, double v,
                              double g, double result, const sk_reduce RED, const sk_dtype dt) {
    switch (RED) {
    case SK_REDUCE_SUM: return g;
    case SK_REDUCE_MEAN:
        return sk_bwd_round(g / (double)(st->cnt[j] + (p->include_self ? 1 : 0)), dt);
    case SK_REDUCE_PROD: return sk_bwd_round(sk_bwd_prod_share(&st->prod[j], v, g), dt);
    case SK_REDUCE_AMAX:
    case SK_REDUCE_AMIN:
        return sk_bwd_same(v, result) ? sk_bwd_round(g / (double)st->ties[j], dt) : 0.0;
    default: return 0.0;
    }
}

/* One update at position `seq`, value read from src (if needed), target j. */
SK_INLINE void sk_bwd_visit(const sk_bwd_job *job, sk_bwd_stats *st, const int pass, int64_t seq,
                            const char *src, int64_t gsrc_off, int64_t lin, int64_t j,
                            const sk_reduce RED, const sk_dtype dt) {
    const sk_plan *p = job->w.p;
    bool needs_v = RED == SK_REDUCE_PROD || RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN;
    if (pass == 1) {
        switch (RED) {
        case SK_REDUCE_NONE: st->winner[j] = seq; break;
        case SK_REDUCE_SUM:
        case SK_REDUCE_MEAN: st->cnt[j]++; break;
        case SK_REDUCE_PROD:
            st->cnt[j]++;
            sk_bwd_prod_mul(&st->prod[j], sk_load_f(src, dt));
            break;
        default:
            if (sk_bwd_same(sk_load_f(src, dt), sk_bwd_at(job->w.od, lin, dt))) st->ties[j]++;
            break;
        }
        return;
    }
    double g = sk_bwd_at(job->w.gd, lin, dt), share;
    if (RED == SK_REDUCE_NONE) share = st->winner[j] == seq ? g : 0.0;
    else share = sk_bwd_share(p, st, j, needs_v ? sk_load_f(src, dt) : 0.0, g,
                              job->w.od ? sk_bwd_at(job->w.od, lin, dt) : 0.0, RED, dt);
    sk_store_f((char *)job->w.grad_src->data + (ptrdiff_t)gsrc_off * (ptrdiff_t)p->elem_size, share, dt);
}

/* Walks every update; visits those whose target is in [lo, hi). Instantiated
 * per reduction, pass and dtype (below), so that the per-element visit is
 * typed code without switches. */
SK_INLINE void sk_bwd_walk(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                           const int pass, const sk_reduce RED, const sk_dtype DT) {
    const sk_plan *p = job->w.p;
    const size_t es = p->elem_size;
    if (pass == 2 && !job->w.grad_src) return;
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    int d = p->ndim - 1;
    int64_t ds = p->dense_stride[d], ls = p->linear_stride[d], is = p->index_stride[d],
            as = p->aux_stride[d];
    for (int64_t pos = 0; pos < job->w.total;) {
        int64_t run = sk_cursor_run(p, &c);
        if (is == 0 || p->ncomp == 0) {
            /* the index is constant along the run: resolve it once */
            int64_t toff = 0, lin = c.linear;
            if (sk_plan_resolve(p, c.index, &toff, &lin)) {
                int64_t jlo, jhi; /* the part of the run whose targets are in [lo, hi) */
                sk_clip_run(lin, ls, run, lo, hi, &jlo, &jhi);
                for (int64_t j = jlo; j < jhi; j++) {
                    int64_t l = lin + j * ls;
                    sk_bwd_visit(job, st, pass, pos + j, p->dense + (ptrdiff_t)(c.dense + j * ds) * (ptrdiff_t)es,
                                 c.aux + j * as, l, l - lo, RED, DT);
                }
            }
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = 0, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < lo || lin >= hi) continue;
                sk_bwd_visit(job, st, pass, pos + j, p->dense + (ptrdiff_t)(c.dense + j * ds) * (ptrdiff_t)es,
                             c.aux + j * as, lin, lin - lo, RED, DT);
            }
        }
        pos += run;
        if (pos < job->w.total) sk_cursor_advance(p, &c, run);
    }
}

SK_INLINE void sk_bwd_walk_pass(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                                int pass, const sk_reduce RED, const sk_dtype DT) {
    if (pass == 1) sk_bwd_walk(job, lo, hi, st, 1, RED, DT);
    else sk_bwd_walk(job, lo, hi, st, 2, RED, DT);
}

SK_INLINE void sk_bwd_walk_dtype(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                                 int pass, const sk_dtype DT) {
    switch (job->w.p->reduce) {
    case SK_REDUCE_NONE: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_NONE, DT); break;
    case SK_REDUCE_SUM: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_SUM, DT); break;
    case SK_REDUCE_PROD: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_PROD, DT); break;
    case SK_REDUCE_MEAN: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_MEAN, DT); break;
    case SK_REDUCE_AMAX: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_AMAX, DT); break;
    case SK_REDUCE_AMIN: sk_bwd_walk_pass(job, lo, hi, st, pass, SK_REDUCE_AMIN, DT); break;
    default: break;
    }
}

typedef void (*sk_bwd_walk_fn)(const sk_bwd_job *, int64_t, int64_t, sk_bwd_stats *, int);
static void sk_bwd_walk_f16(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                            int pass) {
    sk_bwd_walk_dtype(job, lo, hi, st, pass, SK_DTYPE_FLOAT16);
}
static void sk_bwd_walk_bf16(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                             int pass) {
    sk_bwd_walk_dtype(job, lo, hi, st, pass, SK_DTYPE_BFLOAT16);
}
static void sk_bwd_walk_f32(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                            int pass) {
    sk_bwd_walk_dtype(job, lo, hi, st, pass, SK_DTYPE_FLOAT32);
}
static void sk_bwd_walk_f64(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                            int pass) {
    sk_bwd_walk_dtype(job, lo, hi, st, pass, SK_DTYPE_FLOAT64);
}
/* gradients exist for floating dtypes only (checked by the callers) */
static const sk_bwd_walk_fn sk_bwd_walks[SK_DTYPE_COUNT] = {
    [SK_DTYPE_FLOAT16] = sk_bwd_walk_f16, [SK_DTYPE_BFLOAT16] = sk_bwd_walk_bf16,
    [SK_DTYPE_FLOAT32] = sk_bwd_walk_f32, [SK_DTYPE_FLOAT64] = sk_bwd_walk_f64};

static void sk_bwd_task(void *arg, int tid, int nthreads) {
    sk_bwd_job *job = arg;
    const sk_bwd_work *w = &job->w;
    const sk_plan *p = w->p;
    int64_t lo, hi;
    sk_partition(w->n, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    sk_bwd_stats *st = &job->stat[tid];
    bool self = p->include_self;
    const sk_dtype dt = p->dtype;
    for (int64_t t = lo; t < hi; t++) { /* x is a contributor when include_self */
        int64_t j = t - lo;
        if (st->cnt) st->cnt[j] = 0;
        if (st->winner) st->winner[j] = -1;
        if (st->ties)
            st->ties[j] = self && sk_bwd_same(sk_bwd_at(w->xd, t, dt), sk_bwd_at(w->od, t, dt)) ? 1 : 0;
        if (st->prod) {
            sk_bwd_prod_init(&st->prod[j]);
            if (self) sk_bwd_prod_mul(&st->prod[j], sk_bwd_at(w->xd, t, dt));
        }
    }
    sk_bwd_walk_fn walk = sk_bwd_walks[p->dtype];
    if (w->total > 0 && walk) {
        walk(job, lo, hi, st, 1);
        walk(job, lo, hi, st, 2);
    }
    if (!w->grad_x) return;
    const sk_tensor *gx = w->grad_x;
    size_t es = p->elem_size;
    int64_t coord[SK_MAX_DIMS], off = sk_walk_seek(gx, lo, coord);
    for (int64_t t = lo; t < hi; t++) {
        int64_t j = t - lo;
        double g = sk_bwd_at(w->gd, t, dt), v;
        bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
        if (amx && self) /* x is one of the ties (or not): the share rule covers untouched too */
            v = sk_bwd_share(p, st, j, sk_bwd_at(w->xd, t, dt), g, sk_bwd_at(w->od, t, dt),
                             p->reduce, dt);
        else if (!sk_bwd_touched(p, st, j)) v = g; /* untouched: passes through */
        else if (!self || p->reduce == SK_REDUCE_NONE) v = 0.0;
        else v = sk_bwd_share(p, st, j, w->xd ? sk_bwd_at(w->xd, t, dt) : 0.0, g,
                              w->od ? sk_bwd_at(w->od, t, dt) : 0.0, p->reduce, dt);
        sk_store_f((char *)gx->data + (ptrdiff_t)off * (ptrdiff_t)es, v, p->dtype);
        sk_walk_next(gx, coord, &off);
    }
}

/* Takes thread t's statistics arrays from the scratch (those of the
 * reduction); false when one is missing. */
static bool sk_bwd_stats_get(sk_bwd_stats *ts, const sk_plan *p, int64_t n, int t, int nt) {
    int64_t lo, hi;
    sk_partition(n, t, nt, &lo, &hi);
    size_t m = (size_t)(hi > lo ? hi - lo : 1);
    ts->m = m;
    sk_reduce r = p->reduce;
    bool bad = false;
    if (r == SK_REDUCE_SUM || r == SK_REDUCE_MEAN || r == SK_REDUCE_PROD)
        bad |= !(ts->cnt = sk_scratch_get(m * sizeof(int64_t)));
    if (r == SK_REDUCE_AMAX || r == SK_REDUCE_AMIN)
        bad |= !(ts->ties = sk_scratch_get(m * sizeof(int64_t)));
    if (r == SK_REDUCE_NONE) bad |= !(ts->winner = sk_scratch_get(m * sizeof(int64_t)));
    if (r == SK_REDUCE_PROD) bad |= !(ts->prod = sk_scratch_get(m * sizeof(sk_bwd_prod)));
    return !bad;
}

static void sk_bwd_stats_put(const sk_bwd_stats *ts) {
    sk_scratch_put(ts->cnt, ts->m * sizeof(int64_t));
    sk_scratch_put(ts->ties, ts->m * sizeof(int64_t));
    sk_scratch_put(ts->winner, ts->m * sizeof(int64_t));
    sk_scratch_put(ts->prod, ts->m * sizeof(sk_bwd_prod));
}

sk_status sk_bwd_run_walk(const sk_bwd_work *w, const sk_exec *e) {
    const sk_plan *p = w->p;
    int nt = sk_threads_for_work(e->nthreads, w->total > w->n ? w->total : w->n);
    if (nt > SK_MAX_THREADS) nt = SK_MAX_THREADS;
    if (w->n > 0 && nt > w->n) nt = (int)w->n;
    sk_bwd_job job;
    memset(&job, 0, sizeof job);
    job.w = *w;
    bool ok = true;
    for (int t = 0; t < nt && ok; t++) ok = sk_bwd_stats_get(&job.stat[t], p, w->n, t, nt);
    if (ok) {
        sk_note_kernel("cpu/scatter_backward/walk");
        if (w->grad_src) {
            sk_tensor zero = sk_zero_scalar(w->grad_src->dtype);
            sk_copy_unchecked(&zero, w->grad_src, e->nthreads); /* unread elements get 0 */
        }
        if (w->n > 0) sk_parallel_run(nt, sk_bwd_task, &job);
    }
    for (int t = 0; t < nt; t++) sk_bwd_stats_put(&job.stat[t]);
    return ok ? SK_STATUS_OK
              : sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the backward scratch", p->op);
}
