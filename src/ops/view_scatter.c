/* slice_scatter, diagonal_scatter, select_scatter: out = x with src written
 * into a strided view of out (a slice, a diagonal, or one index of an axis).
 * Each builds the view as an sk_tensor over out's memory and copies src into
 * it; no index tensors are involved. */
#include "core/internal.h"

/* Checks x, src and out, then (after the operator has built `view`) copies
 * x into out and src into the view. */
static sk_status sk_view_check(const char *op, const sk_tensor *x, const sk_tensor *src,
                               sk_tensor *out) {
    sk_status st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "src", src))) return st;
    if ((st = sk_check_same_dtype(op, "src", src, x->dtype))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    const sk_tensor *inputs[] = {x, src};
    return sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, 2);
}

static void sk_view_write(const sk_tensor *x, const sk_tensor *src, sk_tensor *out,
                          const sk_tensor *view, int nthreads) {
    if (!sk_same_layout(out, x)) sk_copy_unchecked(x, out, nthreads);
    if (sk_tensor_numel(view) > 0) sk_copy_unchecked(src, (sk_tensor *)view, nthreads);
}

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
        /* step > INT64_MIN here, so -step does not overflow */
        *len = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
    }
    *first = start;
}

sk_status sk_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                           const int32_t *axes, const int64_t *starts, const int64_t *stops,
                           const int64_t *steps, sk_tensor *out, const sk_options *opts) {
    const char *op = "slice_scatter";
    sk_status st;
    int32_t wrapped[SK_MAX_DIMS];
    if ((st = sk_view_check(op, x, src, out))) return st;
    if (naxes < 0 || naxes > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: naxes = %d must be in [0, %d]", op,
                       (int)naxes, SK_MAX_DIMS);
    if (naxes > 0 && (!axes || !starts || !stops || !steps))
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: axes, starts, stops and steps must not be NULL",
                       op);
    if (naxes > 0 && x->ndim == 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: x is 0-d and cannot be sliced", op);
    if (naxes > 0 && (st = sk_wrap_axes(op, axes, naxes, x->ndim, wrapped))) return st;
    sk_tensor view = *out;
    int64_t off = 0; /* element offset of the view; applied only when it is not empty */
    for (int32_t k = 0; k < naxes; k++) {
        if (steps[k] == 0 || steps[k] == INT64_MIN)
            return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: step for axis %d must be nonzero, got %lld",
                           op, (int)wrapped[k], (long long)steps[k]);
        int32_t a = wrapped[k];
        int64_t first, len;
        sk_slice_indices(x->shape[a], starts[k], stops[k], steps[k], &first, &len);
        view.shape[a] = len;
        view.strides[a] = out->strides[a] * steps[k];
        if (len > 0) off += first * out->strides[a];
    }
    if (sk_tensor_numel(&view) > 0) view.data = (char *)out->data + off * (int64_t)sk_dtype_size(x->dtype);
    if ((st = sk_check_broadcast(op, "src", src, view.ndim, view.shape))) return st;
    sk_view_write(x, src, out, &view, sk_threads_for(opts));
    return SK_STATUS_OK;
}

sk_status sk_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                              int32_t axis1, int32_t axis2, sk_tensor *out,
                              const sk_options *opts) {
    const char *op = "diagonal_scatter";
    sk_status st;
    int32_t a1, a2;
    if ((st = sk_view_check(op, x, src, out))) return st;
    if (x->ndim < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 2 dimensions, got %d", op,
                       (int)x->ndim);
    if ((st = sk_wrap_axis(op, "axis1", axis1, x->ndim, &a1))) return st;
    if ((st = sk_wrap_axis(op, "axis2", axis2, x->ndim, &a2))) return st;
    if (a1 == a2)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis1 and axis2 both name axis %d", op,
                       (int)a1);
    int64_t n1 = x->shape[a1], n2 = x->shape[a2], len, r0 = 0, c0 = 0;
    if (offset >= 0) {
        len = n2 - offset < n1 ? n2 - offset : n1; /* offset beyond n2: empty */
        c0 = offset;
    } else {
        len = n1 + offset < n2 ? n1 + offset : n2;
        r0 = -offset;
    }
    if (len < 0 || offset == INT64_MIN) len = 0;
    sk_tensor view = *out;
    int32_t n = 0;
    for (int32_t d = 0; d < x->ndim; d++) {
        if (d == a1 || d == a2) continue;
        view.shape[n] = out->shape[d];
        view.strides[n++] = out->strides[d];
    }
    view.shape[n] = len;
    view.strides[n++] = out->strides[a1] + out->strides[a2];
    view.ndim = n;
    if (sk_tensor_numel(&view) > 0)
        view.data = (char *)out->data +
                    (r0 * out->strides[a1] + c0 * out->strides[a2]) * (int64_t)sk_dtype_size(x->dtype);
    bool same = src->ndim == view.ndim;
    for (int32_t d = 0; same && d < view.ndim; d++) same = src->shape[d] == view.shape[d];
    if (!same) {
        char a[256], b[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: src must have the diagonal's shape %s, got %s",
                       op, sk_format_shape(a, sizeof a, view.ndim, view.shape),
                       sk_format_shape(b, sizeof b, src->ndim, src->shape));
    }
    sk_view_write(x, src, out, &view, sk_threads_for(opts));
    return SK_STATUS_OK;
}

sk_status sk_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis, int64_t index,
                            sk_tensor *out, const sk_options *opts) {
    const char *op = "select_scatter";
    sk_status st;
    int32_t a;
    if ((st = sk_view_check(op, x, src, out))) return st;
    if (x->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 1 dimension", op);
    if ((st = sk_wrap_axis(op, "axis", axis, x->ndim, &a))) return st;
    int64_t n = x->shape[a];
    if (index < -n || index >= n)
        return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                       "%s: index = %lld is out of range for axis %d of size %lld", op,
                       (long long)index, (int)a, (long long)n);
    if (index < 0) index += n;
    sk_tensor view = *out;
    int32_t m = 0;
    for (int32_t d = 0; d < x->ndim; d++) {
        if (d == a) continue;
        view.shape[m] = out->shape[d];
        view.strides[m++] = out->strides[d];
    }
    view.ndim = m;
    if (sk_tensor_numel(&view) > 0)
        view.data = (char *)out->data + index * out->strides[a] * (int64_t)sk_dtype_size(x->dtype);
    bool same = src->ndim == view.ndim;
    for (int32_t d = 0; same && d < view.ndim; d++) same = src->shape[d] == view.shape[d];
    if (!same) {
        char s1[256], s2[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: src must have shape %s (x without axis %d), got %s",
                       op, sk_format_shape(s1, sizeof s1, view.ndim, view.shape), (int)a,
                       sk_format_shape(s2, sizeof s2, src->ndim, src->shape));
    }
    sk_view_write(x, src, out, &view, sk_threads_for(opts));
    return SK_STATUS_OK;
}
