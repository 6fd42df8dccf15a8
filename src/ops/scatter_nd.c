/* scatter_nd (ONNX ScatterND, torch index_put_, Paddle scatter_nd_add): the
 * inverse of gather_nd without batch dimensions. */
#include "ops/ops.h"

static void sk_scatter_nd_plan(sk_plan *p, const char *op, const sk_tensor *x,
                               const sk_tensor *index, const sk_tensor *updates,
                               const sk_tensor *out) {
    int64_t lin[SK_MAX_DIMS];
    int32_t last = index->ndim - 1, k = (int32_t)index->shape[last], u = 0;
    sk_linear_strides(x->ndim, x->shape, lin);
    sk_plan_init(p, op, x->dtype);
    for (int32_t d = 0; d < last; d++, u++)
        sk_plan_add_dim(p, index->shape[d], updates->strides[u], 0, 0, index->strides[d]);
    for (int32_t d = k; d < x->ndim; d++, u++)
        sk_plan_add_dim(p, x->shape[d], updates->strides[u], out->strides[d], lin[d], 0);
    p->ncomp = k;
    p->comp_stride = index->strides[last];
    for (int32_t j = 0; j < k; j++) {
        p->comp_size[j] = x->shape[j];
        p->comp_target_stride[j] = out->strides[j];
        p->comp_linear_stride[j] = lin[j];
    }
    p->dense = updates->data;
    p->target = out->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

static sk_status sk_scatter_nd_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                    const sk_tensor *updates, sk_reduce reduce, sk_index_mode mode,
                                    sk_tensor *out, const sk_options *opts,
                                    const sk_backward_args *bwd) {
    sk_status st;
    int32_t axes[SK_MAX_DIMS];
    int64_t sizes[SK_MAX_DIMS], want[2 * SK_MAX_DIMS];
    if ((st = sk_scatter_check_common(op, x, reduce, mode, out, bwd != NULL))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_tensor(op, "updates", updates))) return st;
    if ((st = sk_check_same_dtype(op, "updates", updates, x->dtype))) return st;
    if (index->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have at least 1 dimension (the last one holds the tuples)", op);
    int32_t last = index->ndim - 1;
    int64_t k = index->shape[last];
    if (k > x->ndim)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: index.shape[-1] = %lld exceeds x.ndim = %d",
                       op, (long long)k, (int)x->ndim);
    int32_t nw = 0;
    for (int32_t d = 0; d < last; d++) want[nw++] = index->shape[d];
    for (int32_t d = (int32_t)k; d < x->ndim; d++) want[nw++] = x->shape[d];
    /* index.shape[:-1] + x.shape[k:] can exceed SK_MAX_DIMS: updates then cannot match */
    if ((st = sk_check_shape(op, "updates", updates, nw, want))) return st;
    if (!bwd) {
        const sk_tensor *inputs[] = {x, index, updates};
        static const char *const names[] = {"x", "index", "updates"};
        if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 3))) return st;
    } else if ((st = sk_check_scatter_backward_args(op, x, updates, "updates", index, reduce, out,
                                                    bwd->grad_out, bwd->grad_x, bwd->grad_src))) {
        return st;
    }
    for (int32_t j = 0; j < k; j++) {
        axes[j] = j;
        sizes[j] = x->shape[j];
    }
    sk_index_check chk = {op, index, last, axes, sizes, mode};
    sk_plan p, g;
    sk_scatter_nd_plan(&p, op, x, index, updates, bwd ? x : out);
    p.reduce = reduce;
    p.include_self = true;
    if (bwd && bwd->grad_src) sk_scatter_nd_plan(&g, op, x, index, bwd->grad_src, x);
    return sk_dispatch_scatter(&p, &g, &chk, x, out, bwd, opts);
}

sk_status sk_scatter_nd(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                        sk_reduce reduce, sk_index_mode mode, sk_tensor *out,
                        const sk_options *opts) {
    return sk_scatter_nd_impl("scatter_nd", x, index, updates, reduce, mode, out, opts, NULL);
}

sk_status sk_scatter_nd_backward(const sk_tensor *x, const sk_tensor *index,
                                 const sk_tensor *updates, sk_reduce reduce, sk_index_mode mode,
                                 const sk_tensor *out, const sk_tensor *grad_out, sk_tensor *grad_x,
                                 sk_tensor *grad_updates, const sk_options *opts) {
    sk_backward_args bwd = {grad_out, grad_x, grad_updates};
    return sk_scatter_nd_impl("scatter_nd_backward", x, index, updates, reduce, mode,
                              (sk_tensor *)out, opts, &bwd);
}
