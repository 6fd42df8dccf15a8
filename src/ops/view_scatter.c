/* slice_scatter, diagonal_scatter, select_scatter: out = x with src written
 * into a strided view of out (a slice, a diagonal, or one index of an axis).
 * Each operator has a view builder used by the forward (a view of out) and
 * by the backward (views of grad_out and grad_x). No index tensors. */
#include "ops/ops.h"
#include "plan/view.h"

typedef struct {
    int32_t naxes;
    const int32_t *axes;
    const int64_t *starts, *stops, *steps;
} sk_slice_args;

typedef struct {
    int64_t offset;
    int32_t axis1, axis2;
} sk_diagonal_args;

typedef struct {
    int32_t axis;
    int64_t index;
} sk_select_args;

/* Builds `view` over base's memory; fails on bad arguments. */
typedef sk_status (*sk_view_builder)(const char *op, const sk_tensor *base, const void *args,
                                     sk_tensor *view);

/* Python's slice.indices(n): normalised start and the slice length. */
static void sk_slice_indices(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first,
                             int64_t *len) {
    if (step > 0) {
        if (start == SK_SLICE_NONE) start = 0;
        else if (start < 0) start = start + n < 0 ? 0 : start + n;
        else if (start > n) start = n;
        if (stop == SK_SLICE_NONE) stop = n;
        else if (stop < 0) stop = stop + n < 0 ? 0 : stop + n;
        else if (stop > n) stop = n;
        *len = stop > start ? (stop - start - 1) / step + 1 : 0;
    } else {
        if (start == SK_SLICE_NONE) start = n - 1;
        else if (start < 0) start = start + n < 0 ? -1 : start + n;
        else if (start >= n) start = n - 1;
        if (stop == SK_SLICE_NONE) stop = -1;
        else if (stop < 0) stop = stop + n < 0 ? -1 : stop + n;
        else if (stop >= n) stop = n - 1;
        /* a step of INT64_MIN reaches one element at most; -step would overflow */
        if (step == INT64_MIN) *len = start > stop ? 1 : 0;
        else *len = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
    }
    *first = start;
}

/* Points view at element offset `off` of base, unless the view is empty
 * (base's data may then be NULL, and offsetting NULL is undefined). */
static void sk_view_place(const sk_tensor *base, sk_tensor *view, int64_t off) {
    view->data = sk_tensor_numel(view) > 0
                     ? (char *)base->data + off * (int64_t)sk_dtype_size(base->dtype)
                     : base->data;
}

static sk_status sk_slice_view(const char *op, const sk_tensor *base, const void *vargs,
                               sk_tensor *view) {
    const sk_slice_args *a = vargs;
    int32_t wrapped[SK_MAX_DIMS];
    sk_status st;
    if (a->naxes < 0 || a->naxes > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: naxes = %d must be in [0, %d]", op,
                       (int)a->naxes, SK_MAX_DIMS);
    if (a->naxes > 0 && (!a->axes || !a->starts || !a->stops || !a->steps))
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: axes, starts, stops and steps must not be NULL",
                       op);
    if (a->naxes > 0 && base->ndim == 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: x is 0-d and cannot be sliced", op);
    if (a->naxes > 0 && (st = sk_wrap_axes(op, a->axes, a->naxes, base->ndim, wrapped))) return st;
    *view = *base;
    int64_t off = 0;
    for (int32_t k = 0; k < a->naxes; k++) {
        int32_t ax = wrapped[k];
        if (a->steps[k] == 0)
            return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                           "%s: step for axis %d must be nonzero, got %lld", op, (int)ax,
                           (long long)a->steps[k]);
        int64_t first, len;
        sk_slice_indices(base->shape[ax], a->starts[k], a->stops[k], a->steps[k], &first, &len);
        view->shape[ax] = len;
        /* with two or more elements the stride times step lies inside x's
         * extent, so it cannot overflow; with fewer it is never used */
        view->strides[ax] = len > 1 ? base->strides[ax] * a->steps[k] : base->strides[ax];
        if (len > 0) off += first * base->strides[ax];
    }
    sk_view_place(base, view, off);
    return SK_STATUS_OK;
}

static sk_status sk_diagonal_view(const char *op, const sk_tensor *base, const void *vargs,
                                  sk_tensor *view) {
    const sk_diagonal_args *a = vargs;
    sk_status st;
    int32_t a1, a2;
    if (base->ndim < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 2 dimensions, got %d", op,
                       (int)base->ndim);
    if ((st = sk_wrap_axis(op, "axis1", a->axis1, base->ndim, &a1))) return st;
    if ((st = sk_wrap_axis(op, "axis2", a->axis2, base->ndim, &a2))) return st;
    if (a1 == a2)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis1 and axis2 both name axis %d", op,
                       (int)a1);
    int64_t offset = a->offset, n1 = base->shape[a1], n2 = base->shape[a2], len, r0 = 0, c0 = 0;
    if (offset >= 0) {
        len = n2 - offset < n1 ? n2 - offset : n1;
        c0 = offset;
    } else {
        len = offset == INT64_MIN ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
        r0 = offset == INT64_MIN ? 0 : -offset;
    }
    if (len < 0) len = 0;
    *view = *base;
    int32_t n = 0;
    for (int32_t d = 0; d < base->ndim; d++) {
        if (d == a1 || d == a2) continue;
        view->shape[n] = base->shape[d];
        view->strides[n++] = base->strides[d];
    }
    view->shape[n] = len;
    /* with two or more elements both axes have two or more, so the sum is
     * within the extent checked for base; one element needs no stride (a
     * size-1 axis may have any) */
    view->strides[n++] = len > 1 ? base->strides[a1] + base->strides[a2] : 0;
    view->ndim = n;
    sk_view_place(base, view, len > 0 ? r0 * base->strides[a1] + c0 * base->strides[a2] : 0);
    return SK_STATUS_OK;
}

static sk_status sk_select_view(const char *op, const sk_tensor *base, const void *vargs,
                                sk_tensor *view) {
    const sk_select_args *a = vargs;
    sk_status st;
    int32_t ax;
    if (base->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 1 dimension", op);
    if ((st = sk_wrap_axis(op, "axis", a->axis, base->ndim, &ax))) return st;
    int64_t n = base->shape[ax], index = a->index;
    if (index < -n || index >= n)
        return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                       "%s: index = %lld is out of range for axis %d of size %lld", op,
                       (long long)index, (int)ax, (long long)n);
    if (index < 0) index += n;
    *view = *base;
    int32_t m = 0;
    for (int32_t d = 0; d < base->ndim; d++) {
        if (d == ax) continue;
        view->shape[m] = base->shape[d];
        view->strides[m++] = base->strides[d];
    }
    view->ndim = m;
    sk_view_place(base, view, index * base->strides[ax]);
    return SK_STATUS_OK;
}

/* Forward: checks, then out = x and view(out) = src (broadcast when allowed). */
static sk_status sk_view_scatter(const char *op, const sk_tensor *x, const sk_tensor *src,
                                 sk_tensor *out, sk_view_builder build, const void *args,
                                 bool broadcast_src, const sk_options *opts) {
    sk_status st;
    sk_tensor view;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "src", src))) return st;
    if ((st = sk_check_same_dtype(op, "src", src, x->dtype))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    const sk_tensor *inputs[] = {x, src};
    static const char *const names[] = {"x", "src"};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 2))) return st;
    if ((st = build(op, out, args, &view))) return st;
    st = broadcast_src ? sk_check_broadcast(op, "src", src, view.ndim, view.shape)
                       : sk_check_shape(op, "src", src, view.ndim, view.shape);
    if (st) return st;
    sk_view_desc d = {.op = op, .x = x, .src = src, .out = out, .view = view};
    return sk_dispatch_view(&d, opts);
}

/* Backward: grad_x = grad_out with the view zeroed; grad_src = grad_out's
 * view, summed over the dimensions along which src was broadcast. */
static sk_status sk_view_scatter_backward(const char *op, const sk_tensor *grad_out,
                                          sk_tensor *grad_x, sk_tensor *grad_src,
                                          sk_view_builder build, const void *args,
                                          bool broadcast_src, const sk_options *opts) {
    sk_status st;
    sk_tensor gview;
    if ((st = sk_check_tensor(op, "grad_out", grad_out))) return st;
    if (!sk_dtype_is_floating(grad_out->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(grad_out->dtype));
    if ((st = build(op, grad_out, args, &gview))) return st;
    const sk_tensor *inputs[] = {grad_out, grad_x};
    static const char *const names[] = {"grad_out", "grad_x"};
    if (grad_x &&
        (st = sk_check_out_as(op, "grad_x", grad_x, grad_out->dtype, grad_out->ndim,
                              grad_out->shape, NULL, inputs, names, 1)))
        return st;
    if (grad_src) {
        if ((st = sk_check_tensor(op, "grad_src", grad_src))) return st;
        st = broadcast_src ? sk_check_broadcast(op, "grad_src", grad_src, gview.ndim, gview.shape)
                           : sk_check_shape(op, "grad_src", grad_src, gview.ndim, gview.shape);
        if (st) return st;
        if ((st = sk_check_out_as(op, "grad_src", grad_src, grad_out->dtype, grad_src->ndim,
                                  grad_src->shape, NULL, inputs, names, 2)))
            return st;
    }
    sk_view_desc d = {.op = op, .backward = true, .x = grad_out, .out = grad_x,
                      .grad_src = grad_src, .grad_view = gview};
    if (grad_x && (st = build(op, grad_x, args, &d.view))) return st;
    return sk_dispatch_view(&d, opts);
}

sk_status sk_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                           const int32_t *axes, const int64_t *starts, const int64_t *stops,
                           const int64_t *steps, sk_tensor *out, const sk_options *opts) {
    sk_slice_args a = {naxes, axes, starts, stops, steps};
    return sk_view_scatter("slice_scatter", x, src, out, sk_slice_view, &a, true, opts);
}

sk_status sk_slice_scatter_backward(const sk_tensor *grad_out, int32_t naxes, const int32_t *axes,
                                    const int64_t *starts, const int64_t *stops,
                                    const int64_t *steps, sk_tensor *grad_x, sk_tensor *grad_src,
                                    const sk_options *opts) {
    sk_slice_args a = {naxes, axes, starts, stops, steps};
    return sk_view_scatter_backward("slice_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_slice_view, &a, true, opts);
}

sk_status sk_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                              int32_t axis1, int32_t axis2, sk_tensor *out,
                              const sk_options *opts) {
    sk_diagonal_args a = {offset, axis1, axis2};
    return sk_view_scatter("diagonal_scatter", x, src, out, sk_diagonal_view, &a, false, opts);
}

sk_status sk_diagonal_scatter_backward(const sk_tensor *grad_out, int64_t offset, int32_t axis1,
                                       int32_t axis2, sk_tensor *grad_x, sk_tensor *grad_src,
                                       const sk_options *opts) {
    sk_diagonal_args a = {offset, axis1, axis2};
    return sk_view_scatter_backward("diagonal_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_diagonal_view, &a, false, opts);
}

sk_status sk_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis, int64_t index,
                            sk_tensor *out, const sk_options *opts) {
    sk_select_args a = {axis, index};
    return sk_view_scatter("select_scatter", x, src, out, sk_select_view, &a, false, opts);
}

sk_status sk_select_scatter_backward(const sk_tensor *grad_out, int32_t axis, int64_t index,
                                     sk_tensor *grad_x, sk_tensor *grad_src,
                                     const sk_options *opts) {
    sk_select_args a = {axis, index};
    return sk_view_scatter_backward("select_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_select_view, &a, false, opts);
}
