/* gather along one axis (GatherElements, torch.gather, take_along_axis) and
 * along a tuple of axes (CINN gather_nd with dims). */
#include "ops/ops.h"

static sk_status sk_gather_check_inputs(const char *op, const sk_tensor *x, const sk_tensor *index,
                                        sk_index_mode mode, const sk_tensor *fill) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_mode(op, mode, false))) return st;
    return sk_check_fill(op, fill, x->dtype);
}

/* Shared by gather and gather_axes: `naxes` axes, index carries a trailing
 * component dimension when `has_comp_dim`. */
static sk_status sk_gather_shape_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                      const int32_t *axes, int32_t naxes, bool has_comp_dim,
                                      int32_t *wrapped, int32_t *out_ndim, int64_t *out_shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_wrap_index_axes(op, x, index, axes, naxes, has_comp_dim, wrapped))) return st;
    for (int32_t d = 0; d < x->ndim; d++) {
        bool indexed = false;
        for (int32_t k = 0; k < naxes; k++) indexed |= wrapped[k] == d;
        if (!indexed && index->shape[d] > x->shape[d])
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: index.shape[%d] = %lld exceeds x.shape[%d] = %lld", op, (int)d,
                           (long long)index->shape[d], (int)d, (long long)x->shape[d]);
        out_shape[d] = index->shape[d];
    }
    *out_ndim = x->ndim;
    return SK_STATUS_OK;
}

/* Forward (backward == false): x, out. Backward: x is grad_x (written), out
 * is grad_out (read). Everything is validated before anything is written. */
static sk_status sk_gather_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                const int32_t *axes, int32_t naxes, bool has_comp_dim,
                                sk_index_mode mode, const sk_tensor *fill, sk_tensor *out,
                                const sk_options *opts, bool backward) {
    sk_status st;
    int32_t wrapped[SK_MAX_DIMS], ndim = 0;
    int64_t shape[SK_MAX_DIMS], sizes[SK_MAX_DIMS];
    if ((st = sk_gather_check_inputs(op, x, index, mode, fill))) return st;
    if ((st = sk_gather_shape_impl(op, x, index, axes, naxes, has_comp_dim, wrapped, &ndim, shape)))
        return st;
    if (!backward) {
        const sk_tensor *inputs[] = {x, index, fill};
        static const char *const names[] = {"x", "index", "fill_value"};
        if ((st = sk_check_out(op, out, x->dtype, ndim, shape, NULL, inputs, names, 3))) return st;
    } else if ((st = sk_check_backward_args(op, out, ndim, shape, x, index))) {
        return st;
    }
    for (int32_t k = 0; k < naxes; k++) sizes[k] = sk_axis_size(x, wrapped[k]);
    sk_index_check chk = {op, index, has_comp_dim ? x->ndim : -1, wrapped, sizes, mode};
    sk_gather_args args = {x, index, out, wrapped, naxes, has_comp_dim};
    sk_plan p, lin;
    sk_gather_plan(&p, op, &args);
    p.fill = fill ? fill->data : NULL;
    if (!backward)
        return sk_dispatch_gather(&p, NULL, &chk, (sk_tensor *)x, &args, opts);
    sk_tensor xlin = sk_row_major_like(x);
    sk_gather_args lin_args = {&xlin, index, out, wrapped, naxes, has_comp_dim};
    sk_gather_plan(&lin, op, &lin_args);
    return sk_dispatch_gather(&p, &lin, &chk, (sk_tensor *)x, NULL, opts);
}

sk_status sk_gather_shape(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                          int32_t *out_ndim, int64_t *out_shape) {
    int32_t wrapped;
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "gather: out_ndim and out_shape must not be NULL");
    return sk_gather_shape_impl("gather", x, index, &axis, 1, false, &wrapped, out_ndim, out_shape);
}

sk_status sk_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis, sk_index_mode mode,
                    const sk_tensor *fill_value, sk_tensor *out, const sk_options *opts) {
    return sk_gather_impl("gather", x, index, &axis, 1, false, mode, fill_value, out, opts, false);
}

sk_status sk_gather_backward(const sk_tensor *grad_out, const sk_tensor *index, int32_t axis,
                             sk_index_mode mode, sk_tensor *grad_x, const sk_options *opts) {
    return sk_gather_impl("gather_backward", grad_x, index, &axis, 1, false, mode, NULL,
                          (sk_tensor *)grad_out, opts, true);
}

sk_status sk_gather_axes_shape(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                               int32_t naxes, int32_t *out_ndim, int64_t *out_shape) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "gather: out_ndim and out_shape must not be NULL");
    return sk_gather_shape_impl("gather", x, index, axes, naxes, true, wrapped, out_ndim, out_shape);
}

sk_status sk_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                         int32_t naxes, sk_index_mode mode, const sk_tensor *fill_value,
                         sk_tensor *out, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("gather", axes, naxes, 0, wrapped);
    return sk_gather_impl("gather", x, index, axes, naxes, true, mode, fill_value, out, opts, false);
}

sk_status sk_gather_axes_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                  const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                  sk_tensor *grad_x, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("gather_backward", axes, naxes, 0, wrapped);
    return sk_gather_impl("gather_backward", grad_x, index, axes, naxes, true, mode, NULL,
                          (sk_tensor *)grad_out, opts, true);
}
