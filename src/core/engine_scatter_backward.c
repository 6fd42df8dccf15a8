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
#include "cursor.h"

#include <math.h>
#include <stdlib.h>

#define SK_BWD_MAX_THREADS 256

typedef struct {
    int64_t cnt, ties, zeros, winner;
    double pnz; /* product of the non-zero contributors */
} sk_bwd_stat;

typedef struct {
    const sk_plan *p;
    int64_t total, n;
    const double *xd, *od, *gd; /* x, forward result, grad_out in row-major order */
    sk_tensor *grad_x;
    char *grad_src;
    sk_bwd_stat *stat[SK_BWD_MAX_THREADS];
} sk_bwd_job;

static double sk_bwd_load(const char *ptr, sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_FLOAT16: return sk_f16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_BFLOAT16: return sk_bf16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)ptr;
    default: return *(const double *)(const void *)ptr;
    }
}

static void sk_bwd_store(char *ptr, double v, sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_FLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_f16((float)v); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_bf16((float)v); break;
    case SK_DTYPE_FLOAT32: *(float *)(void *)ptr = (float)v; break;
    default: *(double *)(void *)ptr = v; break;
    }
}

/* Rounds an intermediate to the working precision (float below float64). */
static inline double sk_bwd_round(double v, sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT64 ? v : (double)(float)v;
}

static inline bool sk_bwd_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Gradient share of one contributor with value v of a target (prod/amax/amin/...). */
static double sk_bwd_share(const sk_bwd_job *job, const sk_bwd_stat *s, double v, double g,
                           double result) {
    const sk_plan *p = job->p;
    sk_dtype dt = p->dtype;
    switch (p->reduce) {
    case SK_REDUCE_SUM: return g;
    case SK_REDUCE_MEAN: return sk_bwd_round(g / (double)(s->cnt + (p->include_self ? 1 : 0)), dt);
    case SK_REDUCE_PROD:
        /* the product of the others, without dividing by zero */
        if (v != 0) return s->zeros ? 0.0 : sk_bwd_round(g * sk_bwd_round(s->pnz / v, dt), dt);
        return s->zeros == 1 ? sk_bwd_round(g * s->pnz, dt) : 0.0;
    case SK_REDUCE_AMAX:
    case SK_REDUCE_AMIN:
        return sk_bwd_same(v, result) ? sk_bwd_round(g / (double)s->ties, dt) : 0.0;
    default: return 0.0;
    }
}

/* Walks every update; calls pass 1 or pass 2 for those in [lo, hi). */
static void sk_bwd_walk(sk_bwd_job *job, int64_t lo, int64_t hi, sk_bwd_stat *st, int pass) {
    const sk_plan *p = job->p;
    const size_t es = p->elem_size;
    sk_dtype dt = p->dtype;
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    int d = p->ndim - 1;
    for (int64_t pos = 0; pos < job->total;) {
        int64_t run = sk_cursor_run(p, &c);
        for (int64_t j = 0; j < run; j++) {
            int64_t toff = 0, lin = c.linear + j * p->linear_stride[d];
            if (!sk_plan_resolve(p, c.index + j * p->index_stride[d], &toff, &lin)) continue;
            if (lin < lo || lin >= hi) continue;
            sk_bwd_stat *s = &st[lin - lo];
            if (pass == 1) {
                s->cnt++;
                s->winner = pos + j;
                if (p->reduce == SK_REDUCE_PROD || p->reduce == SK_REDUCE_AMAX ||
                    p->reduce == SK_REDUCE_AMIN) {
                    double v = sk_bwd_load(p->dense + (size_t)(c.dense + j * p->dense_stride[d]) * es, dt);
                    if (p->reduce == SK_REDUCE_PROD) {
                        if (v == 0) s->zeros++;
                        else s->pnz = sk_bwd_round(s->pnz * v, dt);
                    } else if (sk_bwd_same(v, job->od[lin])) {
                        s->ties++;
                    }
                }
            } else if (job->grad_src) {
                double g = job->gd[lin], v = 0, r = 0, share;
                if (p->reduce == SK_REDUCE_NONE) {
                    share = s->winner == pos + j ? g : 0.0;
                } else {
                    if (p->reduce == SK_REDUCE_PROD || p->reduce == SK_REDUCE_AMAX ||
                        p->reduce == SK_REDUCE_AMIN)
                        v = sk_bwd_load(p->dense + (size_t)(c.dense + j * p->dense_stride[d]) * es, dt);
                    if (job->od) r = job->od[lin];
                    share = sk_bwd_share(job, s, v, g, r);
                }
                sk_bwd_store(job->grad_src + (size_t)(c.aux + j * p->aux_stride[d]) * es, share, dt);
            }
        }
        pos += run;
        if (pos < job->total) sk_cursor_advance(p, &c, run);
    }
}

static void sk_bwd_task(void *arg, int tid, int nthreads) {
    sk_bwd_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->n, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    sk_bwd_stat *st = job->stat[tid];
    bool self = p->include_self;
    for (int64_t t = lo; t < hi; t++) { /* x is a contributor when include_self */
        sk_bwd_stat *s = &st[t - lo];
        s->cnt = s->ties = s->zeros = 0;
        s->winner = -1;
        s->pnz = 1.0;
        if (!self) continue;
        if (p->reduce == SK_REDUCE_PROD) {
            if (job->xd[t] == 0) s->zeros = 1;
            else s->pnz = job->xd[t];
        } else if ((p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN) &&
                   sk_bwd_same(job->xd[t], job->od[t])) {
            s->ties = 1;
        }
    }
    if (job->total > 0) {
        sk_bwd_walk(job, lo, hi, st, 1);
        sk_bwd_walk(job, lo, hi, st, 2);
    }
    if (!job->grad_x) return;
    const sk_tensor *gx = job->grad_x;
    size_t es = p->elem_size;
    int64_t coord[SK_MAX_DIMS], off = 0, rem = lo;
    for (int32_t d = gx->ndim - 1; d >= 0; d--) {
        coord[d] = rem % gx->shape[d];
        rem /= gx->shape[d];
        off += coord[d] * gx->strides[d];
    }
    for (int64_t t = lo; t < hi; t++) {
        const sk_bwd_stat *s = &st[t - lo];
        double g = job->gd[t], v;
        if (s->cnt == 0) v = g; /* untouched: passes through */
        else if (!self || p->reduce == SK_REDUCE_NONE) v = 0.0;
        else v = sk_bwd_share(job, s, job->xd ? job->xd[t] : 0.0, g, job->od ? job->od[t] : 0.0);
        sk_bwd_store((char *)gx->data + (size_t)off * es, v, p->dtype);
        for (int32_t d = gx->ndim - 1; d >= 0; d--) {
            off += gx->strides[d];
            if (++coord[d] < gx->shape[d]) break;
            off -= coord[d] * gx->strides[d];
            coord[d] = 0;
        }
    }
}

/* Copies a tensor into a row-major array of doubles. */
static void sk_to_doubles(const sk_tensor *t, double *dst) {
    int64_t n = sk_tensor_numel(t), coord[SK_MAX_DIMS] = {0}, off = 0;
    size_t es = sk_dtype_size(t->dtype);
    for (int64_t i = 0; i < n; i++) {
        dst[i] = sk_bwd_load((const char *)t->data + (size_t)off * es, t->dtype);
        for (int32_t d = t->ndim - 1; d >= 0; d--) {
            off += t->strides[d];
            if (++coord[d] < t->shape[d]) break;
            off -= coord[d] * t->strides[d];
            coord[d] = 0;
        }
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
    double *gd = malloc(n * sizeof(double));
    double *xd = need_x ? malloc(n * sizeof(double)) : NULL;
    double *od = need_out ? malloc(n * sizeof(double)) : NULL;
    if (!gd || (need_x && !xd) || (need_out && !od)) st = SK_STATUS_OUT_OF_MEMORY;
    for (int t = 0; t < nt && st == SK_STATUS_OK; t++) {
        int64_t lo, hi;
        sk_partition(job.n, t, nt, &lo, &hi);
        job.stat[t] = malloc((size_t)(hi > lo ? hi - lo : 1) * sizeof(sk_bwd_stat));
        if (!job.stat[t]) st = SK_STATUS_OUT_OF_MEMORY;
    }
    if (st == SK_STATUS_OK) {
        sk_to_doubles(grad_out, gd);
        if (xd) sk_to_doubles(x, xd);
        if (od) sk_to_doubles(out, od);
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
    for (int t = 0; t < nt; t++) free(job.stat[t]);
    free(gd);
    free(xd);
    free(od);
    return st;
}
