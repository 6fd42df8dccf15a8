/* scatter along one axis (ScatterElements, torch.scatter/scatter_reduce,
 * put_along_axis) and along a tuple of axes (CINN scatter_nd with dims). */
#include "ops/ops.h"

/* Checks shared by every scatter-type operator: x, out, reduce, mode. */
sk_status sk_scatter_check_common(const char *op, const sk_tensor *x, sk_reduce reduce,
                                  sk_index_mode mode, const sk_tensor *out, bool backward) {
    sk_status st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if (!out && !backward)
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    if ((st = sk_check_reduce(op, reduce, x->dtype))) return st;
    return sk_check_mode(op, mode, true);
}

static void sk_scatter_plan(sk_plan *p, const char *op, const sk_tensor *x,
                            const sk_tensor *index, const sk_tensor *src, const int32_t *wrapped,
                            int32_t naxes, bool has_comp_dim, const sk_tensor *out) {
    int64_t lin[SK_MAX_DIMS];
    sk_linear_strides(x->ndim, x->shape, lin);
    sk_plan_init(p, op, x->dtype);
    for (int32_t d = 0; d < x->ndim; d++) { /* iterate the index block */
        bool indexed = false;
        for (int32_t k = 0; k < naxes; k++) indexed |= wrapped[k] == d;
        sk_plan_add_dim(p, index->shape[d], src->strides[d], indexed ? 0 : out->strides[d],
                        indexed ? 0 : lin[d], index->strides[d]);
    }
    p->ncomp = naxes;
    p->comp_stride = has_comp_dim ? index->strides[x->ndim] : 0;
    for (int32_t k = 0; k < naxes; k++) {
        p->comp_size[k] = sk_axis_size(x, wrapped[k]);
        p->comp_target_stride[k] = sk_axis_stride(out, wrapped[k]);
        p->comp_linear_stride[k] = x->ndim ? lin[wrapped[k]] : 0;
    }
    p->dense = src->data;
    p->target = out->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

/* The sizes of index and src against x, with the axes wrapped and index's
 * dimensions checked (sk_wrap_index_axes). */
static sk_status sk_scatter_check_shapes(const char *op, const sk_tensor *x,
                                         const sk_tensor *index, const sk_tensor *src,
                                         const int32_t *wrapped, int32_t naxes) {
    if (src->ndim != x->ndim)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: src must have %d dimensions like x, got %d (a scalar src is "
                       "broadcast with zero strides)",
                       op, (int)x->ndim, (int)src->ndim);
    for (int32_t d = 0; d < x->ndim; d++) {
        bool indexed = false;
        for (int32_t k = 0; k < naxes; k++) indexed |= wrapped[k] == d;
        if (!indexed && index->shape[d] > x->shape[d])
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: index.shape[%d] = %lld exceeds x.shape[%d] = %lld", op, (int)d,
                           (long long)index->shape[d], (int)d, (long long)x->shape[d]);
        if (src->shape[d] < index->shape[d])
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: src.shape[%d] = %lld is smaller than index.shape[%d] = %lld", op,
                           (int)d, (long long)src->shape[d], (int)d, (long long)index->shape[d]);
    }
    return SK_STATUS_OK;
}

/* bwd == NULL: the forward. Otherwise the backward, with out the forward result. */
static sk_status sk_scatter_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                 const sk_tensor *src, const int32_t *axes, int32_t naxes,
                                 bool has_comp_dim, sk_reduce reduce, bool include_self,
                                 sk_index_mode mode, sk_tensor *out, const sk_options *opts,
                                 const sk_backward_args *bwd) {
    sk_status st;
    int32_t wrapped[SK_MAX_DIMS];
    int64_t sizes[SK_MAX_DIMS];
    if ((st = sk_scatter_check_common(op, x, reduce, mode, out, bwd != NULL))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_tensor(op, "src", src))) return st;
    if ((st = sk_check_same_dtype(op, "src", src, x->dtype))) return st;
    if ((st = sk_wrap_index_axes(op, x, index, axes, naxes, has_comp_dim, wrapped))) return st;
    if ((st = sk_scatter_check_shapes(op, x, index, src, wrapped, naxes))) return st;
    if (!bwd) {
        const sk_tensor *inputs[] = {x, index, src};
        static const char *const names[] = {"x", "index", "src"};
        if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 3))) return st;
    } else if ((st = sk_check_scatter_backward_args(op, x, src, "src", index, reduce, out,
                                                    bwd->grad_out, bwd->grad_x, bwd->grad_src))) {
        return st;
    }
    for (int32_t k = 0; k < naxes; k++) sizes[k] = sk_axis_size(x, wrapped[k]);
    sk_index_check chk = {op, index, has_comp_dim ? x->ndim : -1, wrapped, sizes, mode};
    sk_plan p, g;
    sk_scatter_plan(&p, op, x, index, src, wrapped, naxes, has_comp_dim, bwd ? x : out);
    p.reduce = reduce;
    p.include_self = include_self;
    if (bwd && bwd->grad_src)
        sk_scatter_plan(&g, op, x, index, bwd->grad_src, wrapped, naxes, has_comp_dim, x);
    return sk_dispatch_scatter(&p, &g, &chk, x, out, bwd, opts);
}

sk_status sk_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src, int32_t axis,
                     sk_reduce reduce, bool include_self, sk_index_mode mode, sk_tensor *out,
                     const sk_options *opts) {
    return sk_scatter_impl("scatter", x, index, src, &axis, 1, false, reduce, include_self, mode,
                           out, opts, NULL);
}

sk_status sk_scatter_backward(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                              int32_t axis, sk_reduce reduce, bool include_self, sk_index_mode mode,
                              const sk_tensor *out, const sk_tensor *grad_out, sk_tensor *grad_x,
                              sk_tensor *grad_src, const sk_options *opts) {
    sk_backward_args bwd = {grad_out, grad_x, grad_src};
    return sk_scatter_impl("scatter_backward", x, index, src, &axis, 1, false, reduce, include_self,
                           mode, (sk_tensor *)out, opts, &bwd);
}

sk_status sk_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                          const int32_t *axes, int32_t naxes, sk_reduce reduce, bool include_self,
                          sk_index_mode mode, sk_tensor *out, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("scatter", axes, naxes, 0, wrapped);
    return sk_scatter_impl("scatter", x, index, src, axes, naxes, true, reduce, include_self, mode,
                           out, opts, NULL);
}

sk_status sk_scatter_axes_backward(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                   const int32_t *axes, int32_t naxes, sk_reduce reduce,
                                   bool include_self, sk_index_mode mode, const sk_tensor *out,
                                   const sk_tensor *grad_out, sk_tensor *grad_x,
                                   sk_tensor *grad_src, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    sk_backward_args bwd = {grad_out, grad_x, grad_src};
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("scatter_backward", axes, naxes, 0, wrapped);
    return sk_scatter_impl("scatter_backward", x, index, src, axes, naxes, true, reduce,
                           include_self, mode, (sk_tensor *)out, opts, &bwd);
}
