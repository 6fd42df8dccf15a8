/* index_select (torch.index_select, ONNX Gather, numpy.take): whole slices of
 * x along axis, one per index value; index of any rank. */
#include "ops/ops.h"

static sk_status sk_index_select_shape_impl(const char *op, const sk_tensor *x,
                                            const sk_tensor *index,
                                            int32_t axis, int32_t *wrapped, int32_t *out_ndim,
                                            int64_t *out_shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_wrap_axis(op, "axis", axis, x->ndim, wrapped))) return st;
    int32_t rest = x->ndim ? x->ndim - 1 : 0;
    if (rest + index->ndim > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: the result would have %d dimensions; at most %d are supported", op,
                       (int)(rest + index->ndim), SK_MAX_DIMS);
    int32_t n = 0;
    for (int32_t d = 0; d < *wrapped && d < x->ndim; d++) out_shape[n++] = x->shape[d];
    for (int32_t d = 0; d < index->ndim; d++) out_shape[n++] = index->shape[d];
    for (int32_t d = *wrapped + 1; d < x->ndim; d++) out_shape[n++] = x->shape[d];
    *out_ndim = n;
    return SK_STATUS_OK;
}

sk_status sk_index_select_shape(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                int32_t *out_ndim, int64_t *out_shape) {
    int32_t wrapped;
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER,
                       "index_select: out_ndim and out_shape must not be NULL");
    return sk_index_select_shape_impl("index_select", x, index, axis, &wrapped, out_ndim,
                                      out_shape);
}

static void sk_index_select_plan(sk_plan *p, const sk_tensor *x, const sk_tensor *index,
                                 int32_t ax, const sk_tensor *out) {
    sk_plan_init(p, "index_select", x->dtype);
    int32_t o = 0;
    for (int32_t d = 0; d < ax && d < x->ndim; d++, o++)
        sk_plan_add_dim(p, x->shape[d], out->strides[o], x->strides[d], 0, 0);
    for (int32_t d = 0; d < index->ndim; d++, o++)
        sk_plan_add_dim(p, index->shape[d], out->strides[o], 0, 0, index->strides[d]);
    for (int32_t d = ax + 1; d < x->ndim; d++, o++)
        sk_plan_add_dim(p, x->shape[d], out->strides[o], x->strides[d], 0, 0);
    p->ncomp = 1;
    p->comp_size[0] = sk_axis_size(x, ax);
    p->comp_target_stride[0] = sk_axis_stride(x, ax);
    p->dense = out->data;
    p->target = x->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

/* Forward: x read, out written. Backward: x is grad_x (written), out is
 * grad_out (read), and the plan runs as a scatter-sum. */
static sk_status sk_index_select_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                      int32_t axis, sk_index_mode mode,
                                      const sk_tensor *fill_value, sk_tensor *out,
                                      const sk_options *opts, bool backward) {
    sk_status st;
    int32_t ax = 0, ndim = 0;
    int64_t shape[SK_MAX_DIMS];
    if ((st = sk_index_select_shape_impl(op, x, index, axis, &ax, &ndim, shape))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_mode(op, mode, false))) return st;
    if ((st = sk_check_fill(op, fill_value, x->dtype))) return st;
    if (!backward) {
        const sk_tensor *inputs[] = {x, index, fill_value};
        static const char *const names[] = {"x", "index", "fill_value"};
        if ((st = sk_check_out(op, out, x->dtype, ndim, shape, NULL, inputs, names, 3))) return st;
    } else if ((st = sk_check_backward_args(op, out, ndim, shape, x, index))) {
        return st;
    }
    int64_t n = sk_axis_size(x, ax);
    sk_index_check chk = {op, index, -1, &ax, &n, mode};
    sk_plan p, lin;
    sk_index_select_plan(&p, x, index, ax, out);
    p.op = op;
    p.fill = fill_value ? fill_value->data : NULL;
    if (backward) {
        sk_tensor xlin = sk_row_major_like(x);
        sk_index_select_plan(&lin, &xlin, index, ax, out);
    }
    return sk_dispatch_gather(&p, backward ? &lin : NULL, &chk, (sk_tensor *)x, NULL, opts);
}

sk_status sk_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                          sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                          const sk_options *opts) {
    return sk_index_select_impl("index_select", x, index, axis, mode, fill_value, out, opts, false);
}

sk_status sk_index_select_backward(const sk_tensor *grad_out, const sk_tensor *index, int32_t axis,
                                   sk_index_mode mode, sk_tensor *grad_x, const sk_options *opts) {
    sk_status st = sk_check_tensor("index_select_backward", "grad_x", grad_x);
    if (st) return st;
    return sk_index_select_impl("index_select_backward", grad_x, index, axis, mode, NULL,
                                (sk_tensor *)grad_out, opts, true);
}
