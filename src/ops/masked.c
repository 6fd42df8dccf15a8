/* masked_scatter and masked_select. Both walk positions in row-major order
 * and number the True positions of the broadcast mask; they run in parallel
 * as count-per-block, exclusive scan, fill. The plan's index stride is the
 * mask's (bool bytes), dense is out, target is x. */
#include "core/cursor.h"

#include <stdlib.h>

#define SK_MASK_MAX_THREADS 256

typedef struct {
    sk_plan p;             /* positions; index = mask */
    const sk_tensor *source;
    sk_plan source_plan;   /* masked_scatter: walks source in row-major order */
    bool select;           /* masked_select: out is 1-d, dense stride out_stride */
    int64_t out_stride;
    bool write_unmasked;   /* masked_scatter with out != x: copy x where mask is False */
    int64_t total;
    int64_t count[SK_MASK_MAX_THREADS]; /* trues per block, then exclusive offsets */
} sk_mask_job;

static void sk_mask_count_task(void *arg, int tid, int nthreads) {
    sk_mask_job *job = arg;
    const sk_plan *p = &job->p;
    int64_t lo, hi, n = 0;
    sk_partition(job->total, tid, nthreads, &lo, &hi);
    if (lo < hi) {
        sk_cursor c;
        sk_cursor_seek(p, &c, lo);
        int64_t ms = p->index_stride[p->ndim - 1];
        for (int64_t pos = lo; pos < hi;) {
            int64_t run = sk_cursor_run(p, &c);
            if (run > hi - pos) run = hi - pos;
            const uint8_t *m = (const uint8_t *)p->index + c.index;
            if (ms == 0) {
                n += m[0] ? run : 0;
            } else {
                for (int64_t j = 0; j < run; j++) n += m[j * ms] != 0;
            }
            pos += run;
            if (pos < hi) sk_cursor_advance(p, &c, run);
        }
    }
    job->count[tid] = n;
}

static void sk_mask_fill_task(void *arg, int tid, int nthreads) {
    sk_mask_job *job = arg;
    const sk_plan *p = &job->p;
    const size_t es = p->elem_size;
    int64_t lo, hi, k = job->count[tid];
    sk_partition(job->total, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    sk_cursor c, sc;
    memset(&sc, 0, sizeof sc);
    sk_cursor_seek(p, &c, lo);
    const sk_plan *sp = &job->source_plan;
    bool source_linear = !job->select && sp->ndim == 1; /* element k at k * stride */
    if (!job->select && !source_linear && sk_plan_numel(sp) > k) sk_cursor_seek(sp, &sc, k);
    int d = p->ndim - 1;
    int64_t ms = p->index_stride[d], ds = p->dense_stride[d], ts = p->target_stride[d];
    for (int64_t pos = lo; pos < hi;) {
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        const uint8_t *m = (const uint8_t *)p->index + c.index;
        const char *x = p->target + (size_t)c.target * es;
        char *o = p->dense + (size_t)c.dense * es;
        for (int64_t j = 0; j < run; j++) {
            if (m[j * ms]) {
                if (job->select) {
                    memcpy(p->dense + (size_t)(k * job->out_stride) * es, x + (size_t)(j * ts) * es, es);
                } else if (source_linear) {
                    memcpy(o + (size_t)(j * ds) * es, sp->target + (size_t)(k * sp->target_stride[0]) * es, es);
                } else {
                    memcpy(o + (size_t)(j * ds) * es, sp->target + (size_t)sc.target * es, es);
                    if (k + 1 < sk_plan_numel(sp)) sk_cursor_advance(sp, &sc, 1);
                }
                k++;
            } else if (job->write_unmasked) {
                memcpy(o + (size_t)(j * ds) * es, x + (size_t)(j * ts) * es, es);
            }
        }
        pos += run;
        if (pos < hi) sk_cursor_advance(p, &c, run);
    }
}

/* Runs the count phase; returns the number of True positions. */
static int64_t sk_mask_count(sk_mask_job *job, int nthreads) {
    job->total = sk_plan_numel(&job->p);
    int nt = sk_threads_for_work(nthreads, job->total);
    if (nt > SK_MASK_MAX_THREADS) nt = SK_MASK_MAX_THREADS;
    if (job->total == 0) return 0;
    sk_parallel_run(nt, sk_mask_count_task, job);
    int64_t sum = 0;
    for (int t = 0; t < nt; t++) { /* exclusive scan: block t starts at the trues before it */
        int64_t c = job->count[t];
        job->count[t] = sum;
        sum += c;
    }
    return sum;
}

static void sk_mask_fill(sk_mask_job *job, int nthreads) {
    int nt = sk_threads_for_work(nthreads, job->total);
    if (nt > SK_MASK_MAX_THREADS) nt = SK_MASK_MAX_THREADS;
    if (job->total > 0) sk_parallel_run(nt, sk_mask_fill_task, job);
}

/* Broadcast shape of x and mask (masked_select broadcasts both ways). */
static sk_status sk_mask_shape(const char *op, const sk_tensor *x, const sk_tensor *mask,
                               bool mask_only, int32_t *ndim, int64_t *shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "mask", mask))) return st;
    if (mask->dtype != SK_DTYPE_BOOL)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: mask must be bool, got %s", op,
                       sk_dtype_name(mask->dtype));
    if (mask_only) {
        *ndim = x->ndim;
        memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
        return sk_check_broadcast(op, "mask", mask, x->ndim, x->shape);
    }
    int32_t n = x->ndim > mask->ndim ? x->ndim : mask->ndim;
    for (int32_t d = 0; d < n; d++) {
        int32_t xd = d - (n - x->ndim), md = d - (n - mask->ndim);
        int64_t a = xd >= 0 ? x->shape[xd] : 1, b = md >= 0 ? mask->shape[md] : 1;
        if (a != b && a != 1 && b != 1) {
            char s1[256], s2[256];
            return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: mask of shape %s does not broadcast with x of shape %s",
                           op, sk_format_shape(s1, sizeof s1, mask->ndim, mask->shape),
                           sk_format_shape(s2, sizeof s2, x->ndim, x->shape));
        }
        shape[d] = a == 1 ? b : a;
    }
    *ndim = n;
    return SK_STATUS_OK;
}

/* Stride of t along dimension d of an ndim-dimensional broadcast shape. */
static int64_t sk_bstride(const sk_tensor *t, int32_t ndim, int32_t d) {
    int32_t td = d - (ndim - t->ndim);
    return (td < 0 || t->shape[td] == 1) ? 0 : t->strides[td];
}

static void sk_mask_plan(sk_mask_job *job, const char *op, const sk_tensor *x,
                         const sk_tensor *mask, const sk_tensor *out, int32_t ndim,
                         const int64_t *shape) {
    memset(job, 0, sizeof *job);
    sk_plan *p = &job->p;
    sk_plan_init(p, op, x->dtype);
    for (int32_t d = 0; d < ndim; d++)
        sk_plan_add_dim(p, shape[d], out && !job->select ? sk_bstride(out, ndim, d) : 0,
                        sk_bstride(x, ndim, d), 0, sk_bstride(mask, ndim, d));
    p->target = x->data;
    p->index = mask->data;
    p->dense = out ? out->data : NULL;
}

sk_status sk_masked_select_count(const sk_tensor *x, const sk_tensor *mask, int64_t *count,
                                 const sk_options *opts) {
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if (!count) return sk_fail(SK_STATUS_NULL_POINTER, "masked_select: count is NULL");
    if ((st = sk_mask_shape("masked_select", x, mask, false, &ndim, shape))) return st;
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "masked_select: out of memory");
    sk_mask_plan(job, "masked_select", x, mask, NULL, ndim, shape);
    sk_plan_normalize(&job->p);
    *count = sk_mask_count(job, sk_threads_for(opts));
    free(job);
    return SK_STATUS_OK;
}

sk_status sk_masked_select(const sk_tensor *x, const sk_tensor *mask, sk_tensor *out,
                           const sk_options *opts) {
    const char *op = "masked_select";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if ((st = sk_mask_shape(op, x, mask, false, &ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "out", out))) return st;
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    sk_mask_plan(job, op, x, mask, NULL, ndim, shape);
    sk_plan_normalize(&job->p);
    int nthreads = sk_threads_for(opts);
    int64_t n = sk_mask_count(job, nthreads);
    const sk_tensor *inputs[] = {x, mask};
    if ((st = sk_check_out(op, out, x->dtype, 1, &n, NULL, inputs, 2)) == SK_STATUS_OK) {
        job->select = true;
        job->out_stride = out->strides[0];
        job->p.dense = out->data;
        sk_mask_fill(job, nthreads);
    }
    free(job);
    return st;
}

sk_status sk_masked_scatter(const sk_tensor *x, const sk_tensor *mask, const sk_tensor *source,
                            sk_tensor *out, const sk_options *opts) {
    const char *op = "masked_scatter";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if ((st = sk_mask_shape(op, x, mask, true, &ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "source", source))) return st;
    if ((st = sk_check_same_dtype(op, "source", source, x->dtype))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    const sk_tensor *inputs[] = {x, mask, source};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, 3))) return st;
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    sk_mask_plan(job, op, x, mask, out, ndim, shape);
    sk_plan_normalize(&job->p);
    int nthreads = sk_threads_for(opts);
    int64_t n = sk_mask_count(job, nthreads), have = sk_tensor_numel(source);
    if (n > have) {
        free(job);
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: source has %lld elements but mask has %lld True positions", op,
                       (long long)have, (long long)n);
    }
    /* source is read in its own row-major order */
    sk_plan_init(&job->source_plan, op, x->dtype);
    for (int32_t d = 0; d < source->ndim; d++)
        sk_plan_add_dim(&job->source_plan, source->shape[d], 0, source->strides[d], 0, 0);
    sk_plan_normalize(&job->source_plan);
    job->source_plan.target = source->data;
    job->write_unmasked = !sk_same_layout(out, x);
    sk_mask_fill(job, nthreads);
    free(job);
    return SK_STATUS_OK;
}
