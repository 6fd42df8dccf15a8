/* masked_scatter and masked_select. Both walk positions in row-major order
 * and number the True positions of the broadcast mask; they run in parallel
 * as count-per-block, exclusive scan, fill. The plan's index stride is the
 * mask's (bool bytes), dense is out, target is x. */
#include "ops/ops.h"
#include "cpu/cursor.h" /* kernels still here: moving to src/cpu */

#include <stdlib.h>

#define SK_MASK_MAX_CHUNKS 1024

typedef enum {
    SK_MASK_SCATTER,     /* True: out = source[k]; False: out = x (unless in place) */
    SK_MASK_SELECT,      /* True: out[k] = x */
    SK_MASK_GRAD_X,      /* True: out = 0; False: out = x (x is grad_out) */
    SK_MASK_GRAD_SOURCE  /* True: source[k] = x (x is grad_out, source is grad_source) */
} sk_mask_kind;

typedef struct {
    sk_mask_kind kind;
    sk_plan p;             /* positions; index = mask */
    const sk_tensor *source;
    sk_plan source_plan;   /* masked_scatter: walks source in row-major order */
    int64_t out_stride;
    bool write_unmasked;   /* masked_scatter with out != x: copy x where mask is False */
    int64_t total;
    int nthreads;
    int64_t nchunks;                     /* the same chunks for the count and the fill */
    int64_t count[SK_MASK_MAX_CHUNKS];   /* trues per chunk, then exclusive offsets */
} sk_mask_job;

static void sk_mask_count_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_mask_job *job = arg;
    const sk_plan *p = &job->p;
    int64_t n = 0;
    (void)tid;
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
            } else if (ms == 1) { /* a constant stride: the compiler vectorises the count */
                for (int64_t j = 0; j < run; j++) n += m[j] != 0;
            } else {
                for (int64_t j = 0; j < run; j++) n += m[j * ms] != 0;
            }
            pos += run;
            if (pos < hi) sk_cursor_advance(p, &c, run);
        }
    }
    job->count[chunk] = n;
}

/* A run whose mask, x, out and source are all contiguous, typed by element
 * width and without a branch per element: a random mask mispredicts every
 * other branch (4096 x 4096 float32, masked_scatter with a random mask: 94
 * ms, PyTorch 132; see DESIGN.md for the figure after). A True element takes
 * source[k] by a select; compaction (select, and the source gradient) goes
 * through a small buffer that every element is written to, True ones kept.
 * Returns k after the run. */
enum { SK_MASK_BUF = 256 };
#define SK_MASK_RUN(T)                                                                             \
    static int64_t sk_mask_run_##T(const sk_mask_job *job, const uint8_t *restrict m,              \
                                   const T *x, T *o, T *s, int64_t k, int64_t run) {               \
        switch (job->kind) {                                                                       \
        case SK_MASK_SCATTER: /* o may be x (in place): each element read before its store */     \
            if (!s) { /* no source elements: no True position either */                            \
                if (job->write_unmasked) memcpy(o, x, (size_t)run * sizeof(T));                    \
                return k;                                                                          \
            }                                                                                      \
            for (int64_t j = 0; j < run; j++) { /* selects by bit masks: ?: became branches */ \
                int64_t t = m[j] != 0;                                                             \
                T keep = (T)((T)0 - (T)t); /* all ones where True */                               \
                T sv = s[k & -t], xv = x[j];                                                       \
                o[j] = (T)((sv & keep) | (xv & (T)~keep));                                         \
                k += t;                                                                            \
            }                                                                                      \
            return k;                                                                              \
        case SK_MASK_GRAD_X:                                                                       \
            for (int64_t j = 0; j < run; j++) o[j] = (T)(x[j] & (T)((T)(m[j] != 0) - (T)1));      \
            return k;                                                                              \
        default: { /* compaction into out (select) or into source (its gradient) */               \
            T buf[SK_MASK_BUF];                                                                    \
            T *dst = job->kind == SK_MASK_SELECT ? o : s;                                          \
            for (int64_t j0 = 0; j0 < run; j0 += SK_MASK_BUF) {                                    \
                int64_t nb = run - j0 < SK_MASK_BUF ? run - j0 : SK_MASK_BUF, kept = 0;            \
                for (int64_t j = 0; j < nb; j++) { /* kept <= j: buf[kept] is in the buffer */   \
                    buf[kept] = x[j0 + j];                                                         \
                    kept += m[j0 + j] != 0;                                                        \
                }                                                                                  \
                memcpy(dst + k, buf, (size_t)kept * sizeof(T));                                    \
                k += kept;                                                                         \
            }                                                                                      \
            return k;                                                                              \
        }                                                                                          \
        }                                                                                          \
    }
SK_MASK_RUN(uint8_t)
SK_MASK_RUN(uint16_t)
SK_MASK_RUN(uint32_t)
SK_MASK_RUN(uint64_t)
#undef SK_MASK_RUN

static void sk_mask_fill_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_mask_job *job = arg;
    const sk_plan *p = &job->p;
    const size_t es = p->elem_size;
    static const uint64_t zero = 0;
    int64_t k = job->count[chunk];
    (void)tid;
    if (lo >= hi) return;
    sk_cursor c, sc;
    memset(&sc, 0, sizeof sc);
    sk_cursor_seek(p, &c, lo);
    const sk_plan *sp = &job->source_plan;
    bool uses_source = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_SOURCE;
    int64_t source_n = uses_source ? sk_plan_numel(sp) : 0;
    bool source_linear = uses_source && sp->ndim == 1; /* element k at k * stride */
    if (uses_source && !source_linear && source_n > k) sk_cursor_seek(sp, &sc, k);
    int d = p->ndim - 1;
    int64_t ms = p->index_stride[d], ds = p->dense_stride[d], ts = p->target_stride[d];
    for (int64_t pos = lo; pos < hi;) {
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        const uint8_t *m = (const uint8_t *)p->index + c.index;
        const char *x = p->target + (size_t)c.target * es;
        char *o = p->dense + (size_t)c.dense * es;
        bool writes_o = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_X;
        if (ms == 1 && (ds == 1 || !writes_o) && ts == 1 && es <= 8 && (es & (es - 1)) == 0 &&
            (!uses_source || (source_linear && (source_n == 0 || sp->target_stride[0] == 1))) &&
            (job->kind != SK_MASK_SELECT || job->out_stride == 1)) {
            /* everything contiguous along the run: the typed branch-free loops */
            char *from = uses_source && source_n > 0 ? sp->target : NULL;
            char *dst = job->kind == SK_MASK_SELECT ? p->dense : o;
#define SK_MASK_CALL(T)                                                                            \
    k = sk_mask_run_##T(job, m, (const T *)(const void *)x, (T *)(void *)dst, (T *)(void *)from,   \
                        k, run)
            switch (es) {
            case 1: SK_MASK_CALL(uint8_t); break;
            case 2: SK_MASK_CALL(uint16_t); break;
            case 4: SK_MASK_CALL(uint32_t); break;
            default: SK_MASK_CALL(uint64_t); break;
            }
#undef SK_MASK_CALL
            pos += run;
            if (pos < hi) sk_cursor_advance(p, &c, run);
            continue;
        }
        if (ms == 0 && ds == 1 && (m[0] ? job->kind == SK_MASK_SCATTER && source_linear &&
                                              sp->target_stride[0] == 1
                                        : ts == 1)) {
            /* the mask is constant along this contiguous run: one block copy */
            if (m[0]) {
                memcpy(o, sp->target + (size_t)k * es, (size_t)run * es);
                k += run;
            } else if (job->write_unmasked) {
                memcpy(o, x, (size_t)run * es);
            }
            pos += run;
            if (pos < hi) sk_cursor_advance(p, &c, run);
            continue;
        }
        for (int64_t j = 0; j < run; j++) {
            if (m[j * ms]) {
                char *src_elem = NULL;
                if (uses_source) {
                    src_elem = sp->target + (size_t)(source_linear ? k * sp->target_stride[0] : sc.target) * es;
                    if (!source_linear && k + 1 < source_n) sk_cursor_advance(sp, &sc, 1);
                }
                switch (job->kind) {
                case SK_MASK_SCATTER: memcpy(o + (size_t)(j * ds) * es, src_elem, es); break;
                case SK_MASK_SELECT:
                    memcpy(p->dense + (size_t)(k * job->out_stride) * es, x + (size_t)(j * ts) * es, es);
                    break;
                case SK_MASK_GRAD_X: memcpy(o + (size_t)(j * ds) * es, &zero, es); break;
                case SK_MASK_GRAD_SOURCE: memcpy(src_elem, x + (size_t)(j * ts) * es, es); break;
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
    if (job->total == 0) return 0;
    job->nthreads = sk_threads_for_work(nthreads, job->total);
    job->nchunks = sk_chunks_for(job->nthreads, job->total, 1);
    if (job->nchunks > SK_MASK_MAX_CHUNKS) job->nchunks = SK_MASK_MAX_CHUNKS;
    sk_parallel_chunks(job->nthreads, job->total, job->nchunks, sk_mask_count_chunk, job);
    int64_t sum = 0;
    for (int64_t c = 0; c < job->nchunks; c++) { /* exclusive scan: trues before chunk c */
        int64_t n = job->count[c];
        job->count[c] = sum;
        sum += n;
    }
    return sum;
}

/* The fill phase, over the chunks of the count phase. */
static void sk_mask_fill(sk_mask_job *job) {
    if (job->total > 0)
        sk_parallel_chunks(job->nthreads, job->total, job->nchunks, sk_mask_fill_chunk, job);
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
        sk_plan_add_dim(p, shape[d], out ? sk_bstride(out, ndim, d) : 0,
                        sk_bstride(x, ndim, d), 0, sk_bstride(mask, ndim, d));
    p->target = x->data;
    p->index = mask->data;
    p->dense = out ? out->data : NULL;
}

/* source is walked in its own row-major order */
static void sk_mask_source(sk_mask_job *job, const sk_tensor *source) {
    sk_plan_init(&job->source_plan, "masked", source->dtype);
    for (int32_t d = 0; d < source->ndim; d++)
        sk_plan_add_dim(&job->source_plan, source->shape[d], 0, source->strides[d], 0, 0);
    sk_plan_normalize(&job->source_plan);
    job->source_plan.target = source->data;
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
    static const char *const names[] = {"x", "mask"};
    if ((st = sk_check_out(op, out, x->dtype, 1, &n, NULL, inputs, names, 2)) == SK_STATUS_OK) {
        job->kind = SK_MASK_SELECT;
        job->out_stride = out->strides[0];
        job->p.dense = out->data;
        sk_mask_fill(job);
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
    static const char *const names[] = {"x", "mask", "source"};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 3))) return st;
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    /* A row-major out from an x of another layout (a transposed x) with a
     * full row-major mask: x is copied into out first (the tiled copy) and the
     * fill then runs in place, on the contiguous branch-free loops; read
     * through x's strides element by element it was slower than PyTorch. */
    bool full_mask = mask->ndim == x->ndim && sk_row_major(mask) && sk_row_major(source);
    for (int32_t d = 0; full_mask && d < x->ndim; d++) full_mask = mask->shape[d] == x->shape[d];
    bool copy_first = full_mask && !sk_same_layout(out, x) && sk_row_major(out) && !sk_row_major(x);
    const sk_tensor *from = copy_first ? out : x;
    sk_mask_plan(job, op, from, mask, out, ndim, shape);
    sk_plan_normalize(&job->p);
    int nthreads = sk_threads_for(opts);
    int64_t n = sk_mask_count(job, nthreads), have = sk_tensor_numel(source);
    if (n > have) {
        free(job);
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: source has %lld elements but mask has %lld True positions", op,
                       (long long)have, (long long)n);
    }
    if (copy_first) sk_copy_unchecked(x, out, nthreads);
    sk_mask_source(job, source);
    job->kind = SK_MASK_SCATTER;
    job->write_unmasked = !sk_same_layout(out, from);
    sk_mask_fill(job);
    free(job);
    return SK_STATUS_OK;
}

static sk_status sk_mask_grad_check(const char *op, const sk_tensor *grad_out) {
    sk_status st = sk_check_tensor(op, "grad_out", grad_out);
    if (st) return st;
    if (!sk_dtype_is_floating(grad_out->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(grad_out->dtype));
    return SK_STATUS_OK;
}

sk_status sk_masked_scatter_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                     sk_tensor *grad_x, sk_tensor *grad_source,
                                     const sk_options *opts) {
    const char *op = "masked_scatter_backward";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if ((st = sk_mask_grad_check(op, grad_out))) return st;
    if ((st = sk_mask_shape(op, grad_out, mask, true, &ndim, shape))) return st;
    const sk_tensor *inputs[] = {grad_out, mask, grad_x};
    static const char *const names[] = {"grad_out", "mask", "grad_x"};
    if (grad_x && (st = sk_check_out_as(op, "grad_x", grad_x, grad_out->dtype, ndim, shape, NULL,
                                        inputs, names, 2)))
        return st;
    if (grad_source) {
        if ((st = sk_check_tensor(op, "grad_source", grad_source))) return st;
        if ((st = sk_check_out_as(op, "grad_source", grad_source, grad_out->dtype,
                                  grad_source->ndim, grad_source->shape, NULL, inputs, names, 3)))
            return st;
    }
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    int nthreads = sk_threads_for(opts);
    sk_mask_plan(job, op, grad_out, mask, grad_x, ndim, shape);
    sk_plan_normalize(&job->p);
    int64_t n = sk_mask_count(job, nthreads);
    if (grad_source && n > sk_tensor_numel(grad_source)) {
        free(job);
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: grad_source has %lld elements but mask has %lld True positions", op,
                       (long long)sk_tensor_numel(grad_source), (long long)n);
    }
    if (grad_x) {
        job->kind = SK_MASK_GRAD_X;
        job->write_unmasked = true;
        sk_mask_fill(job);
    }
    if (grad_source) { /* elements beyond the True count were not read: 0 */
        sk_tensor zero = sk_zero_scalar(grad_source->dtype);
        sk_copy_unchecked(&zero, grad_source, nthreads);
        sk_mask_source(job, grad_source);
        job->kind = SK_MASK_GRAD_SOURCE;
        job->write_unmasked = false;
        sk_mask_fill(job);
    }
    free(job);
    return SK_STATUS_OK;
}

sk_status sk_masked_select_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                    sk_tensor *grad_x, const sk_options *opts) {
    const char *op = "masked_select_backward";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if ((st = sk_mask_grad_check(op, grad_out))) return st;
    if ((st = sk_check_tensor(op, "grad_x", grad_x))) return st;
    if ((st = sk_mask_shape(op, grad_x, mask, false, &ndim, shape))) return st;
    const sk_tensor *inputs[] = {grad_out, mask};
    static const char *const names[] = {"grad_out", "mask"};
    if ((st = sk_check_out_as(op, "grad_x", grad_x, grad_out->dtype, grad_x->ndim, grad_x->shape,
                              NULL, inputs, names, 2)))
        return st;
    if (grad_out->ndim != 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: grad_out must be 1-d, got %d dimensions", op,
                       (int)grad_out->ndim);
    int nthreads = sk_threads_for(opts);
    /* Scatter grad_out into the broadcast shape (grad_x itself when x was not
     * broadcast), then sum onto x's shape. */
    bool direct = ndim == grad_x->ndim;
    for (int32_t d = 0; direct && d < ndim; d++) direct = shape[d] == grad_x->shape[d];
    sk_tensor full = *grad_x;
    void *buffer = NULL;
    if (!direct) {
        int64_t n = sk_numel(ndim, shape), bytes;
        if (n < 0 || sk_mul_overflows(n, (int64_t)sk_dtype_size(grad_x->dtype), &bytes))
            return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: the broadcast shape is too large", op);
        buffer = malloc(bytes > 0 ? (size_t)bytes : 1);
        if (!buffer) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
        sk_tensor_init(&full, buffer, grad_x->dtype, ndim, shape, NULL);
    }
    sk_mask_job *job = malloc(sizeof *job);
    if (!job) {
        free(buffer);
        return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    sk_tensor zero = sk_zero_scalar(grad_x->dtype);
    sk_mask_plan(job, op, &zero, mask, &full, ndim, shape);
    sk_plan_normalize(&job->p);
    int64_t n = sk_mask_count(job, nthreads);
    if (n != grad_out->shape[0]) {
        st = sk_fail(SK_STATUS_INVALID_SHAPE,
                     "%s: grad_out has %lld elements but mask has %lld True positions", op,
                     (long long)grad_out->shape[0], (long long)n);
    } else {
        sk_mask_source(job, grad_out);
        job->kind = SK_MASK_SCATTER;
        job->write_unmasked = true;
        sk_mask_fill(job);
        if (!direct) st = sk_sum_to(&full, grad_x, nthreads);
    }
    free(job);
    free(buffer);
    return st;
}
