/* gather_nd (ONNX GatherND, Paddle gather_nd, TF gather_nd): each k-tuple in
 * the last dimension of index addresses x's dimensions batch_dims .. batch_dims+k-1. */
#include "ops/ops.h"

static sk_status sk_gather_nd_shape_impl(const char *op, const sk_tensor *x,
                                         const sk_tensor *index,
                                         int32_t batch_dims, int32_t *out_ndim,
                                         int64_t *out_shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if (index->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have at least 1 dimension (the last one holds the tuples)", op);
    if (batch_dims < 0 || batch_dims >= index->ndim || batch_dims > x->ndim)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: batch_dims = %d must be in [0, min(index.ndim - 1, x.ndim)] = [0, %d]",
                       op, (int)batch_dims,
                       (int)(index->ndim - 1 < x->ndim ? index->ndim - 1 : x->ndim));
    int64_t k = index->shape[index->ndim - 1];
    if (k > x->ndim - batch_dims)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index.shape[-1] = %lld plus batch_dims = %d exceeds x.ndim = %d", op,
                       (long long)k, (int)batch_dims, (int)x->ndim);
    for (int32_t d = 0; d < batch_dims; d++)
        if (index->shape[d] != x->shape[d])
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: batch dimension %d differs: x.shape[%d] = %lld, index.shape[%d] = %lld",
                           op, (int)d, (int)d, (long long)x->shape[d], (int)d,
                           (long long)index->shape[d]);
    int32_t n = 0, rest = x->ndim - batch_dims - (int32_t)k;
    if (index->ndim - 1 + rest > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: the result would have more than %d dimensions",
                       op, SK_MAX_DIMS);
    for (int32_t d = 0; d < index->ndim - 1; d++) out_shape[n++] = index->shape[d];
    for (int32_t d = batch_dims + (int32_t)k; d < x->ndim; d++) out_shape[n++] = x->shape[d];
    *out_ndim = n;
    return SK_STATUS_OK;
}

sk_status sk_gather_nd_shape(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                             int32_t *out_ndim, int64_t *out_shape) {
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "gather_nd: out_ndim and out_shape must not be NULL");
    return sk_gather_nd_shape_impl("gather_nd", x, index, batch_dims, out_ndim, out_shape);
}

static void sk_gather_nd_plan(sk_plan *p, const sk_tensor *x, const sk_tensor *index,
                              int32_t batch_dims, const sk_tensor *out) {
    int32_t last = index->ndim - 1, k = (int32_t)index->shape[last], o = 0;
    sk_plan_init(p, "gather_nd", x->dtype);
    for (int32_t d = 0; d < last; d++, o++)
        sk_plan_add_dim(p, index->shape[d], out->strides[o], d < batch_dims ? x->strides[d] : 0, 0,
                        index->strides[d]);
    for (int32_t d = batch_dims + k; d < x->ndim; d++, o++)
        sk_plan_add_dim(p, x->shape[d], out->strides[o], x->strides[d], 0, 0);
    p->ncomp = k;
    p->comp_stride = index->strides[last];
    for (int32_t j = 0; j < k; j++) {
        p->comp_size[j] = x->shape[batch_dims + j];
        p->comp_target_stride[j] = x->strides[batch_dims + j];
    }
    p->dense = out->data;
    p->target = x->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

/* Forward: x read, out written. Backward: x is grad_x, out is grad_out. */
static sk_status sk_gather_nd_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                   int32_t batch_dims, sk_index_mode mode,
                                   const sk_tensor *fill_value, sk_tensor *out,
                                   const sk_options *opts, bool backward) {
    sk_status st;
    int32_t ndim = 0, axes[SK_MAX_DIMS];
    int64_t shape[SK_MAX_DIMS], sizes[SK_MAX_DIMS];
    if ((st = sk_gather_nd_shape_impl(op, x, index, batch_dims, &ndim, shape))) return st;
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
    int32_t last = index->ndim - 1, k = (int32_t)index->shape[last];
    for (int32_t j = 0; j < k; j++) {
        axes[j] = batch_dims + j;
        sizes[j] = x->shape[batch_dims + j];
    }
    /* k == 0: the index holds no values (its last dimension is empty) */
    sk_index_check chk = {op, index, last, axes, sizes, mode};
    sk_plan p, lin;
    sk_gather_nd_plan(&p, x, index, batch_dims, out);
    p.op = op;
    p.fill = fill_value ? fill_value->data : NULL;
    if (backward) {
        sk_tensor xlin = sk_row_major_like(x);
        sk_gather_nd_plan(&lin, &xlin, index, batch_dims, out);
    }
    return sk_dispatch_gather(&p, backward ? &lin : NULL, &chk, (sk_tensor *)x, NULL, opts);
}

sk_status sk_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                       sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                       const sk_options *opts) {
    return sk_gather_nd_impl("gather_nd", x, index, batch_dims, mode, fill_value, out, opts, false);
}

sk_status sk_gather_nd_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                int32_t batch_dims, sk_index_mode mode, sk_tensor *grad_x,
                                const sk_options *opts) {
    return sk_gather_nd_impl("gather_nd_backward", grad_x, index, batch_dims, mode, NULL,
                             (sk_tensor *)grad_out, opts, true);
}
