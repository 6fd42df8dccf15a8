/* Backward of the scatter-type operators (SPEC section 7).
 *
 * Same ownership as the forward engine: each thread owns a range of target
 * linear indices and walks every update in row-major order twice:
 *   pass 1 gathers per-target statistics (update count, last updater, ties
 *          with the result, zeros and the product of the non-zero factors);
 *   pass 2 writes grad_src for each update it owns;
 * then it writes grad_x for its targets. Every gradient element is written
 * by one thread from the same sequence of operations, so the result does not
 * depend on the thread count. Arithmetic is in float for float16, bfloat16
 * and float32 (rounded once into 16-bit types), in double for float64. */
#include "cpu/cursor.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#define SK_BWD_MAX_THREADS 256

/* Per-target statistics of a thread's range, as separate arrays so each
 * reduction touches only what it needs (8 bytes per target, 16 for prod). */
typedef struct {
    int64_t *cnt;    /* updates received: sum (include_self=false), mean, prod */
    int64_t *ties;   /* contributors equal to the result: amax, amin */
    int64_t *winner; /* position of the last update: assign */
    int64_t *zeros;  /* zero contributors: prod */
    double *pnz;     /* product of the non-zero contributors: prod */
    size_t m;        /* entries of each array (the thread's targets, at least 1) */
} sk_bwd_stats;

typedef struct {
    const sk_plan *p;
    int64_t total, n;
    /* x, forward result, grad_out in row-major order, as the working type:
     * double for float64, float otherwise (every 16/32-bit float value is a
     * float, and the arithmetic is in float anyway: half the bytes) */
    const void *xd, *od, *gd;
    sk_tensor *grad_x;
    char *grad_src;
    sk_bwd_stats stat[SK_BWD_MAX_THREADS];
} sk_bwd_job;

SK_INLINE size_t sk_bwd_es(const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT64 ? 8 : DT == SK_DTYPE_FLOAT32 ? 4 : 2;
}

/* Element i of a working array (see sk_bwd_job). */
SK_INLINE double sk_bwd_at(const void *a, int64_t i, const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT64 ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* Rounds an intermediate to the working precision (float below float64). */
static inline double sk_bwd_round(double v, sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT64 ? v : (double)(float)v;
}

static inline bool sk_bwd_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

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
    case SK_REDUCE_PROD:
        /* the product of the others, without dividing by zero: a zero among
         * them makes it 0 times the rest, which is NaN when the rest holds
         * a NaN or an infinity (as PyTorch's g * result / v gives) */
        if (v != 0) {
            double others = sk_bwd_round(st->pnz[j] / v, dt);
            return sk_bwd_round(g * (st->zeros[j] ? 0.0 * others : others), dt);
        }
        return sk_bwd_round(g * (st->zeros[j] == 1 ? st->pnz[j] : 0.0 * st->pnz[j]), dt);
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
    const sk_plan *p = job->p;
    bool needs_v = RED == SK_REDUCE_PROD || RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN;
    if (pass == 1) {
        switch (RED) {
        case SK_REDUCE_NONE: st->winner[j] = seq; break;
        case SK_REDUCE_SUM:
        case SK_REDUCE_MEAN: st->cnt[j]++; break;
        case SK_REDUCE_PROD: {
            double v = sk_load_f(src, dt);
            st->cnt[j]++;
            if (v == 0) st->zeros[j]++;
            else st->pnz[j] = sk_bwd_round(st->pnz[j] * v, dt);
        } break;
        default:
            if (sk_bwd_same(sk_load_f(src, dt), sk_bwd_at(job->od, lin, dt))) st->ties[j]++;
            break;
        }
        return;
    }
    double g = sk_bwd_at(job->gd, lin, dt), share;
    if (RED == SK_REDUCE_NONE) share = st->winner[j] == seq ? g : 0.0;
    else share = sk_bwd_share(p, st, j, needs_v ? sk_load_f(src, dt) : 0.0, g,
                              job->od ? sk_bwd_at(job->od, lin, dt) : 0.0, RED, dt);
    sk_store_f(job->grad_src + (size_t)gsrc_off * sk_bwd_es(dt), share, dt);
}

/* Walks every update; visits those whose target is in [lo, hi). Instantiated
 * per reduction and dtype (below), so that the per-element visit is typed
 * code without switches. */
SK_INLINE void sk_bwd_walk(const sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stats *st,
                           const int pass, const sk_reduce RED, const sk_dtype DT) {
    const sk_plan *p = job->p;
    const size_t es = sk_bwd_es(DT);
    if (pass == 2 && !job->grad_src) return;
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    int d = p->ndim - 1;
    int64_t ds = p->dense_stride[d], ls = p->linear_stride[d], is = p->index_stride[d],
            as = p->aux_stride[d];
    for (int64_t pos = 0; pos < job->total;) {
        int64_t run = sk_cursor_run(p, &c);
        if (is == 0 || p->ncomp == 0) {
            /* the index is constant along the run: resolve it once */
            int64_t toff = 0, lin = c.linear;
            if (sk_plan_resolve(p, c.index, &toff, &lin)) {
                int64_t jlo, jhi; /* the part of the run whose targets are in [lo, hi) */
                sk_clip_run(lin, ls, run, lo, hi, &jlo, &jhi);
                for (int64_t j = jlo; j < jhi; j++) {
                    int64_t l = lin + j * ls;
                    sk_bwd_visit(job, st, pass, pos + j, p->dense + (size_t)(c.dense + j * ds) * es,
                                 c.aux + j * as, l, l - lo, RED, DT);
                }
            }
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = 0, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < lo || lin >= hi) continue;
                sk_bwd_visit(job, st, pass, pos + j, p->dense + (size_t)(c.dense + j * ds) * es,
                             c.aux + j * as, lin, lin - lo, RED, DT);
            }
        }
        pos += run;
        if (pos < job->total) sk_cursor_advance(p, &c, run);
    }
}

#define SK_BWD_WALKS(DT, N)                                                                       \
    SK_BWD_WALK(DT, N, SK_REDUCE_NONE, none) SK_BWD_WALK(DT, N, SK_REDUCE_SUM, sum)                \
    SK_BWD_WALK(DT, N, SK_REDUCE_PROD, prod) SK_BWD_WALK(DT, N, SK_REDUCE_MEAN, mean)              \
    SK_BWD_WALK(DT, N, SK_REDUCE_AMAX, amax) SK_BWD_WALK(DT, N, SK_REDUCE_AMIN, amin)
#define SK_BWD_WALK(DT, N, RED, R)                                                                \
    static void sk_bwd_walk_##N##_##R(const sk_bwd_job *job, int64_t lo, int64_t hi,              \
                                      sk_bwd_stats *st, int pass) {                               \
        if (pass == 1) sk_bwd_walk(job, lo, hi, st, 1, RED, DT);                                  \
        else sk_bwd_walk(job, lo, hi, st, 2, RED, DT);                                            \
    }
SK_BWD_WALKS(SK_DTYPE_FLOAT16, f16)
SK_BWD_WALKS(SK_DTYPE_BFLOAT16, bf16)
SK_BWD_WALKS(SK_DTYPE_FLOAT32, f32)
SK_BWD_WALKS(SK_DTYPE_FLOAT64, f64)
#undef SK_BWD_WALK
#define SK_BWD_WALK(DT, N, RED, R)                                                                \
    if (p->dtype == DT && p->reduce == RED) return sk_bwd_walk_##N##_##R;
typedef void (*sk_bwd_walk_fn)(const sk_bwd_job *, int64_t, int64_t, sk_bwd_stats *, int);
static sk_bwd_walk_fn sk_bwd_select_walk(const sk_plan *p) {
    SK_BWD_WALKS(SK_DTYPE_FLOAT16, f16)
    SK_BWD_WALKS(SK_DTYPE_BFLOAT16, bf16)
    SK_BWD_WALKS(SK_DTYPE_FLOAT32, f32)
    SK_BWD_WALKS(SK_DTYPE_FLOAT64, f64)
    return NULL; /* gradients exist for floating dtypes only (checked by the callers) */
}
#undef SK_BWD_WALK
#undef SK_BWD_WALKS

static void sk_bwd_task(void *arg, int tid, int nthreads) {
    sk_bwd_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->n, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    sk_bwd_stats *st = &job->stat[tid];
    bool self = p->include_self;
    const sk_dtype dt = p->dtype;
    for (int64_t t = lo; t < hi; t++) { /* x is a contributor when include_self */
        int64_t j = t - lo;
        if (st->cnt) st->cnt[j] = 0;
        if (st->winner) st->winner[j] = -1;
        if (st->ties)
            st->ties[j] = self && sk_bwd_same(sk_bwd_at(job->xd, t, dt), sk_bwd_at(job->od, t, dt)) ? 1 : 0;
        if (st->zeros) {
            double xv = self ? sk_bwd_at(job->xd, t, dt) : 1.0;
            st->zeros[j] = xv == 0 ? 1 : 0;
            st->pnz[j] = xv != 0 ? xv : 1.0;
        }
    }
    sk_bwd_walk_fn walk = sk_bwd_select_walk(p);
    if (job->total > 0 && walk) {
        walk(job, lo, hi, st, 1);
        walk(job, lo, hi, st, 2);
    }
    if (!job->grad_x) return;
    const sk_tensor *gx = job->grad_x;
    size_t es = p->elem_size;
    int64_t coord[SK_MAX_DIMS], off = sk_walk_seek(gx, lo, coord);
    for (int64_t t = lo; t < hi; t++) {
        int64_t j = t - lo;
        double g = sk_bwd_at(job->gd, t, dt), v;
        bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
        if (amx && self) /* x is one of the ties (or not): the share rule covers untouched too */
            v = sk_bwd_share(p, st, j, sk_bwd_at(job->xd, t, dt), g, sk_bwd_at(job->od, t, dt),
                             p->reduce, dt);
        else if (!sk_bwd_touched(p, st, j)) v = g; /* untouched: passes through */
        else if (!self || p->reduce == SK_REDUCE_NONE) v = 0.0;
        else v = sk_bwd_share(p, st, j, job->xd ? sk_bwd_at(job->xd, t, dt) : 0.0, g,
                              job->od ? sk_bwd_at(job->od, t, dt) : 0.0, p->reduce, dt);
        sk_store_f((char *)gx->data + (size_t)off * es, v, p->dtype);
        sk_walk_next(gx, coord, &off);
    }
}

/* ---- sum, mean, amax, amin over rows: passes over rows, not per target ----
 *
 * The row pattern (the index constant along a contiguous row of src, the
 * targets of a row contiguous in out: message passing, index_add on axis 0)
 * in every floating dtype (W13 is float32 amax; 16-bit floats work in float,
 * as the walk does, converted on load and rounded once on store). The walk
 * above makes every thread read all of src twice and reach each update's
 * target at random in four arrays; here:
 *   A. by targets (owner-computes): each thread reads the whole index and
 *      counts, for the targets it owns, the contributors (sum without self,
 *      mean; src is not read) or the ties with the result (amax/amin: only
 *      the rows of src it owns are read). Relaxed atomic increments with
 *      rows split between threads instead took 4 times as long: each is a
 *      full barrier that waits for the misses in flight;
 *   B. by targets: grad_x, then each target's share of its gradient in
 *      place of g (g / ties, g / (count + self), rounded as the walk rounds
 *      them; g for sum);
 *   C. by update rows: each writes its grad_src row, the share of its
 *      targets (amax/amin: where it equals the result, else 0).
 * Each gradient element is still computed once, by one thread, from the same
 * operations as the walk: the same bits for any thread count. The target
 * rows of the row AHEAD rows on are prefetched into L2 (sk_prefetch_row_l2;
 * W13 in Python at 2 threads: 65-80 against 95-102 ms with L1 prefetches 16
 * rows ahead). W13 backward in C, 2 threads, before that: 80-100 against
 * 550-690 ms for the walk; sum without self 55-75 against 180-300. */
typedef struct {
    const sk_plan *p;
    int64_t rows, len;
    int32_t *cnt;          /* per target (row-major like the working arrays):
                            * ties (amax/amin) or contributors; NULL: sum with self */
    void *share;           /* the working grad_out (gd), turned into shares in B */
    const void *od, *xd;   /* working result and x (amax/amin; x: include_self only) */
    sk_tensor *grad_x;
    char *grad_src;
    int64_t n;
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

/* An element k of a caller's tensor (src, grad_src, grad_x) in the working
 * type T: float32/float64 as they are, 16-bit floats converted (every one is
 * a float; stores round once, as the walk's do). DT is a constant of each
 * instantiation, so only one branch is compiled. */
#define SK_BWD_NATIVE(DT) ((DT) == SK_DTYPE_FLOAT32 || (DT) == SK_DTYPE_FLOAT64)
#define SK_BWD_LOAD(T, DT, base, k)                                                               \
    (SK_BWD_NATIVE(DT) ? ((const T *)(const void *)(base))[k]                                     \
                       : (T)sk_load_f((const char *)(base) + (size_t)(k) * 2, DT))
#define SK_BWD_STORE(T, DT, base, k, v)                                                           \
    do {                                                                                          \
        if (SK_BWD_NATIVE(DT)) ((T *)(void *)(base))[k] = (v);                                    \
        else sk_store_f((char *)(base) + (size_t)(k) * 2, (double)(v), DT);                       \
    } while (0)

/* a and b tie: equal, or both NaN (sk_bwd_same), without branches so that
 * the loops around it vectorize */
#define SK_BWD_TIE(a, b) (((a) == (b)) | (((a) != (a)) & ((b) != (b))))

#define SK_BWD_ROWS(T, DT, N)                                                                     \
    static void sk_bwd_rows_count_##N(void *arg, int tid, int nthreads) {                         \
        const sk_bwd_rows_job *job = arg;                                                         \
        const sk_plan *p = job->p;                                                                \
        const T *od = job->od, *xd = job->xd;                                                     \
        int32_t *cnt = job->cnt;                                                                  \
        bool ties = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;                   \
        bool x_ties = ties && p->include_self; /* x is a contributor */                           \
        int64_t lo, hi, len = job->len;                                                           \
        sk_partition(job->n, tid, nthreads, &lo, &hi);                                            \
        for (int64_t t = lo; t < hi; t++) cnt[t] = x_ties ? SK_BWD_TIE(xd[t], od[t]) : 0;         \
        enum { AHEAD = SK_ROWS_AHEAD };                                                           \
        for (int64_t r = 0; r < job->rows; r++) {                                                 \
            if (r + AHEAD < job->rows) {                                                          \
                uintptr_t t = sk_bwd_row_guess(p, r + AHEAD);                                     \
                if (t >= (uintptr_t)lo && t < (uintptr_t)hi) {                                    \
                    if (ties) sk_bwd_prefetch(od, t, (size_t)len * sizeof(T), sizeof(T));         \
                    sk_bwd_prefetch(cnt, t, (size_t)len * 4, 4);                                  \
                }                                                                                 \
            }                                                                                     \
            int64_t lin;                                                                          \
            if (!sk_bwd_row_target(p, r, &lin) || lin + len <= lo || lin >= hi) continue;         \
            int64_t klo = lin < lo ? lo - lin : 0, khi = lin + len > hi ? hi - lin : len;         \
            int32_t *c = cnt + lin;                                                               \
            if (!ties) {                                                                          \
                for (int64_t k = klo; k < khi; k++) c[k]++;                                       \
                continue;                                                                         \
            }                                                                                     \
            const char *src = p->dense + (size_t)(r * p->dense_stride[0]) * sk_dtype_size(DT);    \
            const T *res = od + lin;                                                              \
            for (int64_t k = klo; k < khi; k++) c[k] += SK_BWD_TIE(SK_BWD_LOAD(T, DT, src, k), res[k]); \
        }                                                                                         \
    }                                                                                             \
    static void sk_bwd_rows_share_##N(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) { \
        const sk_bwd_rows_job *job = arg;                                                         \
        const sk_plan *p = job->p;                                                                \
        T *share = job->share;                                                                    \
        const T *od = job->od, *xd = job->xd;                                                     \
        bool self = p->include_self, mean = p->reduce == SK_REDUCE_MEAN;                          \
        bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;                    \
        (void)tid;                                                                                \
        (void)chunk;                                                                              \
        const sk_tensor *gx = job->grad_x;                                                        \
        int64_t coord[SK_MAX_DIMS], off = gx ? sk_walk_seek(gx, lo, coord) : 0;                   \
        for (int64_t t = lo; t < hi; t++) {                                                       \
            int32_t c = job->cnt ? job->cnt[t] : 0;                                               \
            T g = share[t], s = g, v;                                                             \
            if (amx && c > 0) s = (T)((double)g / (double)c);                                     \
            if (mean) s = (T)((double)g / (double)(c + (self ? 1 : 0)));                          \
            if (amx && self) v = SK_BWD_TIE(xd[t], od[t]) ? s : (T)0;                             \
            else if (self) v = s; /* sum, mean: x is a contributor */                             \
            else v = c > 0 ? (T)0 : g; /* replaced when touched, else passed through */           \
            share[t] = s;                                                                         \
            if (!gx) continue;                                                                    \
            SK_BWD_STORE(T, DT, gx->data, off, v);                                                \
            sk_walk_next(gx, coord, &off);                                                        \
        }                                                                                         \
    }                                                                                             \
    static void sk_bwd_rows_grad_##N(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) { \
        const sk_bwd_rows_job *job = arg;                                                         \
        const sk_plan *p = job->p;                                                                \
        const T *od = job->od, *share = job->share;                                               \
        bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;                    \
        int64_t len = job->len;                                                                   \
        (void)tid;                                                                                \
        (void)chunk;                                                                              \
        enum { AHEAD = SK_ROWS_AHEAD };                                                           \
        for (int64_t r = lo; r < hi; r++) {                                                       \
            if (r + AHEAD < hi) {                                                                 \
                uintptr_t t = sk_bwd_row_guess(p, r + AHEAD);                                     \
                if (amx) sk_bwd_prefetch(od, t, (size_t)len * sizeof(T), sizeof(T));              \
                sk_bwd_prefetch(share, t, (size_t)len * sizeof(T), sizeof(T));                    \
            }                                                                                     \
            char *restrict gs = job->grad_src + (size_t)(r * p->aux_stride[0]) * sk_dtype_size(DT); \
            int64_t lin;                                                                          \
            if (!sk_bwd_row_target(p, r, &lin)) {                                                 \
                for (int64_t k = 0; k < len; k++) SK_BWD_STORE(T, DT, gs, k, (T)0);               \
                continue;                                                                         \
            }                                                                                     \
            const T *restrict sh = share + lin;                                                   \
            if (!amx) {                                                                           \
                for (int64_t k = 0; k < len; k++) SK_BWD_STORE(T, DT, gs, k, sh[k]);              \
                continue;                                                                         \
            }                                                                                     \
            const char *restrict src = p->dense + (size_t)(r * p->dense_stride[0]) * sk_dtype_size(DT); \
            const T *restrict res = od + lin;                                                     \
            /* branch-free, so that it vectorizes: ties are as rare as targets (streaming         \
             * stores into a large grad_src made no difference) */                                \
            for (int64_t k = 0; k < len; k++) {                                                   \
                T v = sh[k];                                                                      \
                SK_BWD_STORE(T, DT, gs, k, SK_BWD_TIE(SK_BWD_LOAD(T, DT, src, k), res[k]) ? v : (T)0); \
            }                                                                                     \
        }                                                                                         \
    }
SK_BWD_ROWS(float, SK_DTYPE_FLOAT32, f32)
SK_BWD_ROWS(double, SK_DTYPE_FLOAT64, f64)
SK_BWD_ROWS(float, SK_DTYPE_FLOAT16, f16)
SK_BWD_ROWS(float, SK_DTYPE_BFLOAT16, bf16)
#undef SK_BWD_ROWS
#undef SK_BWD_TIE
#undef SK_BWD_LOAD
#undef SK_BWD_STORE
#undef SK_BWD_NATIVE

/* Whether the plan is the row pattern with sum, mean, amax or amin (see
 * above; every floating dtype): one index component, constant along a
 * contiguous inner dimension of grad_src (and of src, which only amax/amin
 * read: the bindings pass sum and mean a broadcast stand-in) whose targets
 * are consecutive. */
static bool sk_bwd_is_rows(const sk_plan *p) {
    bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
    return p->ndim == 2 && p->ncomp == 1 && p->index_stride[1] == 0 && p->aux_stride[1] == 1 &&
           p->linear_stride[1] == 1 && (amx ? p->dense_stride[1] == 1 : true) &&
           (amx || p->reduce == SK_REDUCE_SUM || p->reduce == SK_REDUCE_MEAN);
}

/* Runs phases A-C; false (nothing written) without memory for the counts. */
typedef void (*sk_task_fn)(void *, int, int);
typedef void (*sk_chunk_fn)(void *, int, int64_t, int64_t, int64_t);
static bool sk_bwd_run_rows(sk_bwd_rows_job *job, int nthreads) {
    const sk_plan *p = job->p;
    sk_task_fn count = sk_bwd_rows_count_f32;
    sk_chunk_fn share = sk_bwd_rows_share_f32, grad = sk_bwd_rows_grad_f32;
    if (p->dtype == SK_DTYPE_FLOAT64) {
        count = sk_bwd_rows_count_f64, share = sk_bwd_rows_share_f64, grad = sk_bwd_rows_grad_f64;
    } else if (p->dtype == SK_DTYPE_FLOAT16) {
        count = sk_bwd_rows_count_f16, share = sk_bwd_rows_share_f16, grad = sk_bwd_rows_grad_f16;
    } else if (p->dtype == SK_DTYPE_BFLOAT16) {
        count = sk_bwd_rows_count_bf16, share = sk_bwd_rows_share_bf16, grad = sk_bwd_rows_grad_bf16;
    }
    bool counted = !(p->reduce == SK_REDUCE_SUM && p->include_self);
    size_t bytes = (size_t)job->n * sizeof(int32_t);
    if (counted && !(job->cnt = sk_scratch_get(bytes))) return false; /* set by the count pass */
    int nt = sk_threads_for_work(nthreads, job->rows * job->len);
    if (nt > SK_BWD_MAX_THREADS) nt = SK_BWD_MAX_THREADS;
    if (counted) sk_parallel_run(nt, count, job);
    /* claimed chunks: the threads own no state in these passes */
    sk_parallel_chunks(nt, job->n, sk_chunks_for(nt, job->n, 1), share, job);
    if (job->grad_src)
        sk_parallel_chunks(nt, job->rows, sk_chunks_for(nt, job->rows, job->len), grad, job);
    if (counted) sk_scratch_put(job->cnt, bytes);
    return true;
}

/* Copies a tensor into a row-major working array (see sk_bwd_job). Always
 * a copy, even of a row-major float32 tensor: the scratch has huge pages,
 * and the backward reaches targets at random (W13 with out read in place
 * from 4 KiB pages: ties and grad_src phases 65-110 and 55-70 ms against
 * 40-48 and 31-39 from the copy). float32/float64: the parallel copy. */
static void sk_to_work(const sk_tensor *t, void *dst, sk_dtype work_of, int nthreads) {
    int64_t n = sk_tensor_numel(t), coord[SK_MAX_DIMS] = {0}, off = 0;
    size_t es = sk_dtype_size(t->dtype);
    if (t->dtype == work_of && (work_of == SK_DTYPE_FLOAT32 || work_of == SK_DTYPE_FLOAT64)) {
        sk_tensor w;
        if (sk_tensor_init(&w, dst, work_of, t->ndim, t->shape, NULL) == SK_STATUS_OK) {
            sk_copy_unchecked(t, &w, nthreads);
            return;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double v = sk_load_f((const char *)t->data + (size_t)off * es, t->dtype);
        if (work_of == SK_DTYPE_FLOAT64) ((double *)dst)[i] = v;
        else ((float *)dst)[i] = (float)v;
        sk_walk_next(t, coord, &off);
    }
}

sk_status sk_run_scatter_backward(sk_plan *p, const sk_tensor *x, const sk_tensor *out,
                                  const sk_tensor *grad_out, sk_tensor *grad_x,
                                  sk_tensor *grad_src, int nthreads) {
    sk_plan_normalize(p);
    sk_bwd_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.total = sk_plan_numel(p);
    job.n = sk_tensor_numel(x);
    bool need_x = p->include_self && (p->reduce == SK_REDUCE_PROD || p->reduce == SK_REDUCE_AMAX ||
                                      p->reduce == SK_REDUCE_AMIN);
    bool need_out = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
    int nt = sk_threads_for_work(nthreads, job.total > job.n ? job.total : job.n);
    if (nt > SK_BWD_MAX_THREADS) nt = SK_BWD_MAX_THREADS;
    if (job.n > 0 && nt > job.n) nt = (int)job.n;
    sk_status st = SK_STATUS_OK;
    size_t n = (size_t)(job.n > 0 ? job.n : 1);
    size_t ws = p->dtype == SK_DTYPE_FLOAT64 ? sizeof(double) : sizeof(float);
    void *gd = sk_scratch_get(n * ws);
    void *xd = need_x ? sk_scratch_get(n * ws) : NULL;
    void *od = need_out ? sk_scratch_get(n * ws) : NULL;
    if (!gd || (need_x && !xd) || (need_out && !od)) st = SK_STATUS_OUT_OF_MEMORY;
    /* the row pattern (sum, mean, amax, amin) when grad_src (if asked) is all
     * covered by the updates; counts are ints (at most total + 1 contributors) */
    bool covers = grad_src && sk_tensor_numel(grad_src) == job.total;
    bool rows = st == SK_STATUS_OK && job.n > 0 && job.total > 0 && job.total < INT_MAX &&
                sk_bwd_is_rows(p) && (covers || !grad_src);
    int nstats = rows ? 0 : nt; /* the walk's per-thread statistics */
    for (int t = 0; t < nstats && st == SK_STATUS_OK; t++) {
        int64_t lo, hi;
        sk_partition(job.n, t, nt, &lo, &hi);
        size_t m = (size_t)(hi > lo ? hi - lo : 1);
        sk_bwd_stats *ts = &job.stat[t];
        ts->m = m;
        sk_reduce r = p->reduce;
        bool bad = false;
        if (r == SK_REDUCE_SUM || r == SK_REDUCE_MEAN || r == SK_REDUCE_PROD)
            bad |= !(ts->cnt = sk_scratch_get(m * sizeof(int64_t)));
        if (r == SK_REDUCE_AMAX || r == SK_REDUCE_AMIN)
            bad |= !(ts->ties = sk_scratch_get(m * sizeof(int64_t)));
        if (r == SK_REDUCE_NONE) bad |= !(ts->winner = sk_scratch_get(m * sizeof(int64_t)));
        if (r == SK_REDUCE_PROD) {
            bad |= !(ts->zeros = sk_scratch_get(m * sizeof(int64_t)));
            bad |= !(ts->pnz = sk_scratch_get(m * sizeof(double)));
        }
        if (bad) st = SK_STATUS_OUT_OF_MEMORY;
    }
    if (st == SK_STATUS_OK) {
        sk_to_work(grad_out, gd, p->dtype, nthreads);
        if (xd) sk_to_work(x, xd, p->dtype, nthreads);
        if (od) sk_to_work(out, od, p->dtype, nthreads);
        if (rows) {
            sk_bwd_rows_job rj = {p, p->shape[0], p->shape[1], NULL, gd, od, xd, grad_x,
                                  covers ? grad_src->data : NULL, job.n};
            if (!sk_bwd_run_rows(&rj, nthreads)) /* no memory for the counts; nothing written */
                st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the backward scratch",
                             p->op);
            goto done;
        }
        job.gd = gd;
        job.xd = xd;
        job.od = od;
        job.grad_x = grad_x;
        if (grad_src) {
            sk_tensor zero = sk_zero_scalar(grad_src->dtype);
            sk_copy_unchecked(&zero, grad_src, nthreads); /* unread elements get 0 */
            job.grad_src = grad_src->data;
        }
        if (job.n > 0) sk_parallel_run(nt, sk_bwd_task, &job);
    } else {
        sk_fail(st, "%s: out of memory for the backward scratch", p->op);
    }
done:
    for (int t = 0; t < nstats; t++) {
        const sk_bwd_stats *ts = &job.stat[t];
        sk_scratch_put(ts->cnt, ts->m * sizeof(int64_t));
        sk_scratch_put(ts->ties, ts->m * sizeof(int64_t));
        sk_scratch_put(ts->winner, ts->m * sizeof(int64_t));
        sk_scratch_put(ts->zeros, ts->m * sizeof(int64_t));
        sk_scratch_put(ts->pnz, ts->m * sizeof(double));
    }
    sk_scratch_put(gd, n * ws);
    sk_scratch_put(xd, n * ws);
    sk_scratch_put(od, n * ws);
    return st;
}
