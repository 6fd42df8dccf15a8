/* index_scatter (torch.index_copy/index_add/index_reduce, Paddle scatter):
 * the slice updates[..., i, ...] is reduced into out[..., index[i], ...]. */
#include "ops/ops.h"

/* x's dimensions, with a 0-d x counted as one element along axis 0 (as
 * index_select takes it): updates then has the index's length. */
static int32_t sk_dims_with_axis(const sk_tensor *x) { return x->ndim ? x->ndim : 1; }

static void sk_index_scatter_plan(sk_plan *p, const char *op, const sk_tensor *x,
                                  const sk_tensor *index, const sk_tensor *updates, int32_t ax,
                                  const sk_tensor *out) {
    int64_t lin[SK_MAX_DIMS];
    sk_linear_strides(x->ndim, x->shape, lin);
    sk_plan_init(p, op, x->dtype);
    int32_t u = 0;
    for (int32_t d = 0; d < sk_dims_with_axis(x); d++) {
        if (d == ax) {
            if (index->ndim == 1) {
                sk_plan_add_dim(p, index->shape[0], updates->strides[u], 0, 0, index->strides[0]);
                u++;
            }
        } else {
            sk_plan_add_dim(p, x->shape[d], updates->strides[u], out->strides[d], lin[d], 0);
            u++;
        }
    }
    p->ncomp = 1;
    p->comp_size[0] = sk_axis_size(x, ax);
    p->comp_target_stride[0] = sk_axis_stride(out, ax);
    p->comp_linear_stride[0] = x->ndim ? lin[ax] : 0;
    p->dense = updates->data;
    p->target = out->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

static sk_status sk_index_scatter_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                       const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                                       bool include_self, sk_index_mode mode, sk_tensor *out,
                                       const sk_options *opts, const sk_backward_args *bwd) {
    sk_status st;
    int32_t ax;
    int64_t want[SK_MAX_DIMS];
    if ((st = sk_scatter_check_common(op, x, reduce, mode, out, bwd != NULL))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_tensor(op, "updates", updates))) return st;
    if ((st = sk_check_same_dtype(op, "updates", updates, x->dtype))) return st;
    if ((st = sk_wrap_axis(op, "axis", axis, x->ndim, &ax))) return st;
    if (index->ndim > 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: index must be 1-d or 0-d, got %d dimensions",
                       op, (int)index->ndim);
    /* updates.shape: x.shape with axis replaced by L, or removed for a 0-d index */
    int32_t nw = 0;
    for (int32_t d = 0; d < sk_dims_with_axis(x); d++) {
        if (d == ax) {
            if (index->ndim == 1) want[nw++] = index->shape[0];
        } else {
            want[nw++] = x->shape[d];
        }
    }
    if ((st = sk_check_shape(op, "updates", updates, nw, want))) return st;
    if (!bwd) {
        const sk_tensor *inputs[] = {x, index, updates};
        static const char *const names[] = {"x", "index", "updates"};
        if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 3))) return st;
    } else if ((st = sk_check_scatter_backward_args(op, x, updates, "updates", index, reduce, out,
                                                    bwd->grad_out, bwd->grad_x, bwd->grad_src))) {
        return st;
    }
    int64_t n = sk_axis_size(x, ax);
    sk_index_check chk = {op, index, -1, &ax, &n, mode};
    sk_plan p, g;
    sk_index_scatter_plan(&p, op, x, index, updates, ax, bwd ? x : out);
    p.reduce = reduce;
    p.include_self = include_self;
    if (bwd && bwd->grad_src) sk_index_scatter_plan(&g, op, x, index, bwd->grad_src, ax, x);
    return sk_dispatch_scatter(&p, &g, &chk, x, out, bwd, opts);
}

sk_status sk_index_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                           int32_t axis, sk_reduce reduce, bool include_self, sk_index_mode mode,
                           sk_tensor *out, const sk_options *opts) {
    return sk_index_scatter_impl("index_scatter", x, index, updates, axis, reduce, include_self,
                                 mode, out, opts, NULL);
}

sk_status sk_index_scatter_backward(const sk_tensor *x, const sk_tensor *index,
                                    const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                                    bool include_self, sk_index_mode mode, const sk_tensor *out,
                                    const sk_tensor *grad_out, sk_tensor *grad_x,
                                    sk_tensor *grad_updates, const sk_options *opts) {
    sk_backward_args bwd = {grad_out, grad_x, grad_updates};
    return sk_index_scatter_impl("index_scatter_backward", x, index, updates, axis, reduce,
                                 include_self, mode, (sk_tensor *)out, opts, &bwd);
}
