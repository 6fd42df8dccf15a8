/* masked_scatter and masked_select. Both walk positions in row-major order
 * and number the True positions of the broadcast mask (plan/mask.h). The
 * plan's index stride is the mask's (bool bytes), dense is out, target is x. */
#include "ops/ops.h"
#include "plan/mask.h"

#include <stdio.h>

/* Broadcast shape of x and mask (masked_select broadcasts both ways). */
static sk_status sk_mask_shape(const char *op, const sk_tensor *x, const sk_tensor *mask,
                               bool mask_only, int32_t *ndim, int64_t *shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "mask", mask))) return st;
    const sk_tensor *inputs[] = {mask};
    static const char *const names[] = {"mask"};
    if ((st = sk_check_same_device(op, "x", x, inputs, names, 1))) return st;
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
    int64_t total; /* [2^32 + 1, 1] and [1, 2^32] each fit; their broadcast does not */
    return sk_check_numel(op, "the broadcast shape of x and mask", n, shape, &total);
}

/* Stride of t along dimension d of an ndim-dimensional broadcast shape. */
static int64_t sk_bstride(const sk_tensor *t, int32_t ndim, int32_t d) {
    int32_t td = d - (ndim - t->ndim);
    return (td < 0 || t->shape[td] == 1) ? 0 : t->strides[td];
}

static void sk_mask_plan(sk_mask_desc *job, const char *op, const sk_tensor *x,
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
static void sk_mask_source(sk_mask_desc *job, const sk_tensor *source) {
    sk_plan_init(&job->source_plan, "masked", source->dtype);
    for (int32_t d = 0; d < source->ndim; d++)
        sk_plan_add_dim(&job->source_plan, source->shape[d], 0, source->strides[d], 0, 0);
    sk_plan_normalize(&job->source_plan);
    job->source_plan.target = source->data;
}

/* A mask descriptor over the broadcast positions, normalised (NULL: no
 * memory, with the message set). */
static sk_mask_desc *sk_mask_planned(const char *op, const sk_tensor *x, const sk_tensor *mask,
                                     const sk_tensor *out, int32_t ndim, const int64_t *shape,
                                     sk_status *st) {
    sk_mask_desc *job = malloc(sizeof *job);
    if (!job) {
        *st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
        return NULL;
    }
    sk_mask_plan(job, op, x, mask, out, ndim, shape);
    sk_plan_normalize(&job->p);
    return job;
}

/* sk_mask_planned and its count. */
static sk_mask_desc *sk_mask_counted(const char *op, const sk_tensor *x, const sk_tensor *mask,
                                     const sk_tensor *out, int32_t ndim, const int64_t *shape,
                                     const sk_options *opts, int64_t *n, sk_status *st) {
    sk_mask_desc *job = sk_mask_planned(op, x, mask, out, ndim, shape, st);
    if (job && (*st = sk_dispatch_mask_count(job, mask, opts, n))) {
        free(job);
        return NULL;
    }
    return job;
}

sk_status sk_masked_select_count(const sk_tensor *x, const sk_tensor *mask, int64_t *count,
                                 const sk_options *opts) {
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS];
    sk_status st;
    if (!count) return sk_fail(SK_STATUS_NULL_POINTER, "masked_select: count is NULL");
    if ((st = sk_mask_shape("masked_select", x, mask, false, &ndim, shape))) return st;
    free(sk_mask_counted("masked_select", x, mask, NULL, ndim, shape, opts, count, &st));
    return st;
}

/* The select of a counted job (sk_mask_counted) into a checked 1-d out. */
static sk_status sk_mask_select_counted(sk_mask_desc *job, const sk_tensor *mask, sk_tensor *out,
                                        const sk_options *opts) {
    job->kind = SK_MASK_SELECT;
    job->out_stride = out->strides[0];
    job->p.dense = out->data;
    return sk_dispatch_mask(job, mask, opts);
}

sk_status sk_masked_select(const sk_tensor *x, const sk_tensor *mask, sk_tensor *out,
                           const sk_options *opts) {
    const char *op = "masked_select";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS], n;
    sk_status st;
    if ((st = sk_mask_shape(op, x, mask, false, &ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "out", out))) return st;
    sk_mask_desc *job = sk_mask_counted(op, x, mask, NULL, ndim, shape, opts, &n, &st);
    if (!job) return st;
    const sk_tensor *inputs[] = {x, mask};
    static const char *const names[] = {"x", "mask"};
    if ((st = sk_check_out(op, out, x->dtype, 1, &n, NULL, inputs, names, 2)) == SK_STATUS_OK)
        st = sk_mask_select_counted(job, mask, out, opts);
    free(job);
    return st;
}

/* Whether masked_scatter copies x into out first: a row-major out from an x
 * of another layout (a transposed x) with a full row-major mask, so that the
 * fill runs in place on the contiguous branch-free loops; read through x's
 * strides element by element it was slower than PyTorch. */
static bool sk_mask_copy_first(const sk_tensor *x, const sk_tensor *mask, const sk_tensor *source,
                               const sk_tensor *out) {
    bool full_mask = mask->ndim == x->ndim && sk_row_major(mask) && sk_row_major(source);
    for (int32_t d = 0; full_mask && d < x->ndim; d++) full_mask = mask->shape[d] == x->shape[d];
    return full_mask && !sk_same_layout(out, x) && sk_row_major(out) && !sk_row_major(x);
}

sk_status sk_masked_scatter(const sk_tensor *x, const sk_tensor *mask, const sk_tensor *source,
                            sk_tensor *out, const sk_options *opts) {
    const char *op = "masked_scatter";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS], n;
    sk_status st;
    if ((st = sk_mask_shape(op, x, mask, true, &ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "source", source))) return st;
    if ((st = sk_check_same_dtype(op, "source", source, x->dtype))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    const sk_tensor *inputs[] = {x, mask, source};
    static const char *const names[] = {"x", "mask", "source"};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 3))) return st;
    bool copy_first = sk_mask_copy_first(x, mask, source, out);
    const sk_tensor *from = copy_first ? out : x;
    sk_mask_desc *job = sk_mask_counted(op, from, mask, out, ndim, shape, opts, &n, &st);
    if (!job) return st;
    int64_t have = sk_tensor_numel(source);
    if (n > have) {
        free(job);
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: source has %lld elements but mask has %lld True positions", op,
                       (long long)have, (long long)n);
    }
    if (!copy_first || (st = sk_dispatch_copy(x, out, opts)) == SK_STATUS_OK) {
        sk_mask_source(job, source);
        job->kind = SK_MASK_SCATTER;
        job->write_unmasked = !sk_same_layout(out, from);
        st = sk_dispatch_mask(job, mask, opts);
    }
    free(job);
    return st;
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

/* The fills of masked_scatter's backward after the count (n True positions). */
static sk_status sk_mask_grad_fills(sk_mask_desc *job, const sk_tensor *mask, sk_tensor *grad_x,
                                    sk_tensor *grad_source, const sk_options *opts) {
    sk_status st = SK_STATUS_OK;
    if (grad_x) {
        job->kind = SK_MASK_GRAD_X;
        job->write_unmasked = true;
        if ((st = sk_dispatch_mask(job, mask, opts))) return st;
    }
    if (grad_source) { /* elements beyond the True count are not read: zeroed first */
        sk_mask_source(job, grad_source);
        job->zero_first = grad_source;
        job->kind = SK_MASK_GRAD_SOURCE;
        job->write_unmasked = false;
        st = sk_dispatch_mask(job, mask, opts);
    }
    return st;
}

sk_status sk_masked_scatter_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                     sk_tensor *grad_x, sk_tensor *grad_source,
                                     const sk_options *opts) {
    const char *op = "masked_scatter_backward";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS], n;
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
    sk_mask_desc *job = sk_mask_counted(op, grad_out, mask, grad_x, ndim, shape, opts, &n, &st);
    if (!job) return st;
    if (grad_source && n > sk_tensor_numel(grad_source))
        st = sk_fail(SK_STATUS_INVALID_SHAPE,
                     "%s: grad_source has %lld elements but mask has %lld True positions", op,
                     (long long)sk_tensor_numel(grad_source), (long long)n);
    else
        st = sk_mask_grad_fills(job, mask, grad_x, grad_source, opts);
    free(job);
    return st;
}

/* The checks of masked_select's backward; *direct: x was not broadcast. */
static sk_status sk_mask_select_grad_check(const char *op, const sk_tensor *grad_out,
                                           const sk_tensor *mask, const sk_tensor *grad_x,
                                           int32_t *ndim, int64_t *shape, bool *direct) {
    sk_status st;
    if ((st = sk_mask_grad_check(op, grad_out))) return st;
    if ((st = sk_check_tensor(op, "grad_x", grad_x))) return st;
    if ((st = sk_mask_shape(op, grad_x, mask, false, ndim, shape))) return st;
    const sk_tensor *inputs[] = {grad_out, mask};
    static const char *const names[] = {"grad_out", "mask"};
    if ((st = sk_check_out_as(op, "grad_x", grad_x, grad_out->dtype, grad_x->ndim, grad_x->shape,
                              NULL, inputs, names, 2)))
        return st;
    if (grad_out->ndim != 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: grad_out must be 1-d, got %d dimensions", op,
                       (int)grad_out->ndim);
    *direct = *ndim == grad_x->ndim;
    for (int32_t d = 0; *direct && d < *ndim; d++) *direct = shape[d] == grad_x->shape[d];
    return SK_STATUS_OK;
}

/* The refusal of a grad_out whose length is not the mask's True count. */
static sk_status sk_mask_grad_count_differs(const char *op, const sk_tensor *grad_out, int64_t n) {
    return sk_fail(SK_STATUS_INVALID_SHAPE,
                   "%s: grad_out has %lld elements but mask has %lld True positions", op,
                   (long long)grad_out->shape[0], (long long)n);
}

/* A failure of an operator called on op's behalf, named as op's. */
static sk_status sk_mask_grad_inner_failed(const char *op, sk_status st) {
    char inner[512];
    snprintf(inner, sizeof inner, "%s", sk_last_error());
    return sk_fail(st, "%s: %s", op, inner);
}

/* Bytes of `count` elements of `size`, or false where that overflows. */
static bool sk_mask_grad_bytes(int64_t count, size_t size, size_t *bytes) {
    int64_t b;
    if (count < 0 || sk_mul_overflows(count > 0 ? count : 1, (int64_t)size, &b)) return false;
    *bytes = (size_t)b;
    return true;
}

/* Whether masked_select's backward onto a broadcast x folds the mask's runs
 * (SK_MASK_GRAD_SUM): a row-major mask of every position of the broadcast
 * shape, whose byte i is position i. */
static bool sk_mask_grad_by_runs(const sk_tensor *mask, int32_t ndim, const int64_t *shape) {
    return sk_row_major(mask) && sk_tensor_numel(mask) == sk_numel(ndim, shape);
}

/* The fold of the runs into grad_x itself where it is row-major, else into a
 * row-major buffer then copied into grad_x; lin: x's row-major strides over
 * the broadcast shape, 0 where broadcast. The kernel counts the True
 * positions itself (the counts it needs anyway) and writes nothing before
 * grad_out's length is checked against them and its memory is had. */
static sk_status sk_mask_select_grad_runs(const char *op, const sk_tensor *grad_out,
                                          const sk_tensor *mask, sk_tensor *grad_x, int32_t ndim,
                                          const int64_t *shape, const int64_t *lin,
                                          const sk_options *opts) {
    const int64_t nx = sk_tensor_numel(grad_x);
    const bool direct = sk_row_major(grad_x);
    size_t bytes = 0;
    void *buf = NULL;
    sk_status st = SK_STATUS_OK;
    if (!direct && (!sk_mask_grad_bytes(nx, sk_dtype_size(grad_x->dtype), &bytes) ||
                    !(buf = malloc(bytes > 0 ? bytes : 1))))
        return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    sk_tensor folded, shaped;
    sk_tensor_init(&folded, direct ? grad_x->data : buf, grad_x->dtype, ndim, shape, lin);
    sk_mask_desc *job = sk_mask_planned(op, &folded, mask, NULL, ndim, shape, &st);
    if (job) {
        sk_mask_source(job, grad_out);
        job->kind = SK_MASK_GRAD_SUM;
        job->grad_numel = nx;
        job->ntrue = -1;
        st = sk_dispatch_mask(job, mask, opts);
        if (st == SK_STATUS_INVALID_SHAPE && job->ntrue != grad_out->shape[0])
            st = sk_mask_grad_count_differs(op, grad_out, job->ntrue); /* the operator's words */
    }
    sk_tensor_init(&shaped, buf, grad_x->dtype, grad_x->ndim, grad_x->shape, NULL);
    if (!st && !direct && (st = sk_copy(&shaped, grad_x, opts)))
        st = sk_mask_grad_inner_failed(op, st);
    free(job);
    free(buf);
    return st;
}

/* masked_select's backward where x was broadcast against mask (the runs
 * above where the mask allows): grad_x[e] sums grad_out[k] over the True
 * positions k that broadcast from e, folded in order of k. Those are the
 * contributors of the canonical order (docs/CONTRACT.md), as for a gather's
 * backward: a False position adds nothing, so a chunk of 256 counts True
 * positions only. x's flat positions, broadcast as x was, selected by the
 * mask give each k's target; an index_scatter sum of grad_out into zeros (a row-major buffer
 * of x's elements) folds them, and the buffer is copied into grad_x: a
 * failure on the way leaves grad_x as it was. */
static sk_status sk_mask_select_grad_summed(const char *op, const sk_tensor *grad_out,
                                            const sk_tensor *mask, sk_tensor *grad_x,
                                            int32_t ndim, const int64_t *shape,
                                            const sk_options *opts) {
    sk_status st = sk_dispatch_host_only(op, grad_x, "the backward with a broadcast x");
    if (st) return st;
    const int64_t nx = sk_tensor_numel(grad_x);
    int64_t lin[SK_MAX_DIMS], strides[SK_MAX_DIMS], n = 0;
    sk_linear_strides(grad_x->ndim, grad_x->shape, lin);
    for (int32_t d = 0; d < ndim; d++) {
        int32_t xd = d - (ndim - grad_x->ndim);
        strides[d] = xd >= 0 && grad_x->shape[xd] != 1 ? lin[xd] : 0;
    }
    if (sk_mask_grad_by_runs(mask, ndim, shape))
        return sk_mask_select_grad_runs(op, grad_out, mask, grad_x, ndim, shape, strides, opts);
    size_t pos_bytes, sum_bytes, target_bytes;
    if (!sk_mask_grad_bytes(nx, sizeof(int64_t), &pos_bytes) ||
        !sk_mask_grad_bytes(nx, sk_dtype_size(grad_x->dtype), &sum_bytes))
        return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: grad_x is too large", op);
    int64_t *pos = malloc(pos_bytes), *targets = NULL;
    void *sums = calloc(1, sum_bytes); /* all bits 0: +0.0, as a sum into zeros starts */
    sk_mask_desc *job = NULL;
    if (!pos || !sums) st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    sk_tensor positions, chosen, flat, shaped;
    if (!st) {
        for (int64_t i = 0; i < nx; i++) pos[i] = i;
        sk_tensor_init(&positions, pos, SK_DTYPE_INT64, ndim, shape, strides);
        job = sk_mask_counted(op, &positions, mask, NULL, ndim, shape, opts, &n, &st);
    }
    if (!st && n != grad_out->shape[0]) st = sk_mask_grad_count_differs(op, grad_out, n);
    if (!st && (!sk_mask_grad_bytes(n, sizeof(int64_t), &target_bytes) ||
                !(targets = malloc(target_bytes))))
        st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    const int64_t one = 1;
    sk_tensor_init(&chosen, targets, SK_DTYPE_INT64, 1, &n, NULL);
    sk_tensor_init(&flat, sums, grad_x->dtype, 1, &nx, &one);
    sk_tensor_init(&shaped, sums, grad_x->dtype, grad_x->ndim, grad_x->shape, NULL);
    if (!st) st = sk_mask_select_counted(job, mask, &chosen, opts); /* the counted walk's job */
    if (!st && ((st = sk_index_scatter(&flat, &chosen, grad_out, 0, SK_REDUCE_SUM, true,
                                       SK_INDEX_MODE_ERROR, &flat, opts)) ||
                (st = sk_copy(&shaped, grad_x, opts))))
        st = sk_mask_grad_inner_failed(op, st);
    free(job);
    free(sums);
    free(pos);
    free(targets);
    return st;
}

sk_status sk_masked_select_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                    sk_tensor *grad_x, const sk_options *opts) {
    const char *op = "masked_select_backward";
    int32_t ndim;
    int64_t shape[SK_MAX_DIMS], n;
    bool direct = true;
    sk_status st;
    if ((st = sk_mask_select_grad_check(op, grad_out, mask, grad_x, &ndim, shape, &direct)))
        return st;
    if (!direct) return sk_mask_select_grad_summed(op, grad_out, mask, grad_x, ndim, shape, opts);
    /* grad_out written back to the True positions of grad_x, 0 elsewhere */
    sk_tensor zero;
    sk_tensor_init(&zero, NULL, grad_x->dtype, 0, NULL, NULL); /* zero_x: the backend's zero */
    sk_mask_desc *job = sk_mask_counted(op, &zero, mask, grad_x, ndim, shape, opts, &n, &st);
    if (job && n != grad_out->shape[0]) {
        st = sk_mask_grad_count_differs(op, grad_out, n);
    } else if (job) {
        sk_mask_source(job, grad_out);
        job->zero_x = true;
        job->kind = SK_MASK_SCATTER;
        job->write_unmasked = true;
        st = sk_dispatch_mask(job, mask, opts);
    }
    free(job);
    return st;
}
