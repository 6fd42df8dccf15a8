/* The shape a scalar (0-d) src, updates or source is broadcast to by the
 * scatter-type operators, so that callers (the Python package) do not
 * restate the operators' shape rules. Each query fails only on a check that
 * its operator makes before it looks at the source, with the same status
 * and message: a caller that leaves the source 0-d on failure then gets the
 * operator's own error. */
#include "ops/ops.h"

static sk_status sk_source_out(const char *op, const int32_t *ndim, const int64_t *shape) {
    if (!ndim || !shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: out_ndim and out_shape must not be NULL", op);
    return SK_STATUS_OK;
}

/* x and an int32/int64 index, as every indexed scatter checks them first. */
static sk_status sk_source_indexed(const char *op, const sk_tensor *x, const sk_tensor *index,
                                   const int32_t *ndim, const int64_t *shape) {
    sk_status st;
    if ((st = sk_source_out(op, ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    return sk_check_index_dtype(op, "index", index);
}

/* scatter and scatter_axes: src covers the index block, index.shape without
 * the trailing axes component when there is one. */
static sk_status sk_scatter_source(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                                   int32_t naxes, bool has_comp_dim, int32_t *ndim,
                                   int64_t *shape) {
    const char *op = "scatter";
    int32_t wrapped[SK_MAX_DIMS];
    sk_status st;
    if ((st = sk_source_indexed(op, x, index, ndim, shape))) return st;
    if ((st = sk_wrap_index_axes(op, x, index, axes, naxes, has_comp_dim, wrapped))) return st;
    *ndim = x->ndim;
    memcpy(shape, index->shape, sizeof(int64_t) * (size_t)x->ndim);
    return SK_STATUS_OK;
}

sk_status sk_scatter_source_shape(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                  int32_t *ndim, int64_t *shape) {
    return sk_scatter_source(x, index, &axis, 1, false, ndim, shape);
}

sk_status sk_scatter_axes_source_shape(const sk_tensor *x, const sk_tensor *index,
                                       const int32_t *axes, int32_t naxes, int32_t *ndim,
                                       int64_t *shape) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("scatter", axes, naxes, 0, wrapped);
    return sk_scatter_source(x, index, axes, naxes, true, ndim, shape);
}

/* x.shape with axis replaced by the index length, or removed for a 0-d
 * index; a 0-d x counts as one element along axis 0. */
sk_status sk_index_scatter_source_shape(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                        int32_t *ndim, int64_t *shape) {
    const char *op = "index_scatter";
    int32_t ax;
    sk_status st;
    if ((st = sk_source_indexed(op, x, index, ndim, shape))) return st;
    if ((st = sk_wrap_axis(op, "axis", axis, x->ndim, &ax))) return st;
    if (index->ndim > 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: index must be 1-d or 0-d, got %d dimensions",
                       op, (int)index->ndim);
    int32_t n = 0;
    for (int32_t d = 0; d < (x->ndim ? x->ndim : 1); d++) {
        if (d != ax) shape[n++] = x->shape[d];
        else if (index->ndim == 1) shape[n++] = index->shape[0];
    }
    *ndim = n;
    return SK_STATUS_OK;
}

/* index.shape[:-1] + x.shape[k:], k = index.shape[-1]. */
sk_status sk_scatter_nd_source_shape(const sk_tensor *x, const sk_tensor *index, int32_t *ndim,
                                     int64_t *shape) {
    const char *op = "scatter_nd";
    sk_status st;
    if ((st = sk_source_indexed(op, x, index, ndim, shape))) return st;
    if (index->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have at least 1 dimension (the last one holds the tuples)",
                       op);
    int32_t last = index->ndim - 1;
    int64_t k = index->shape[last];
    if (k > x->ndim)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: index.shape[-1] = %lld exceeds x.ndim = %d",
                       op, (long long)k, (int)x->ndim);
    if (last + (x->ndim - k) > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: updates would have %lld dimensions; at most %d are supported", op,
                       (long long)(last + (x->ndim - k)), SK_MAX_DIMS);
    int32_t n = 0;
    for (int32_t d = 0; d < last; d++) shape[n++] = index->shape[d];
    for (int32_t d = (int32_t)k; d < x->ndim; d++) shape[n++] = x->shape[d];
    *ndim = n;
    return SK_STATUS_OK;
}

/* numpy.diagonal(x, offset, axis1, axis2).shape: the other axes, then the
 * diagonal's length. */
sk_status sk_diagonal_scatter_source_shape(const sk_tensor *x, int64_t offset, int32_t axis1,
                                           int32_t axis2, int32_t *ndim, int64_t *shape) {
    const char *op = "diagonal_scatter";
    int32_t a1, a2;
    sk_status st;
    if ((st = sk_source_out(op, ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if (x->ndim < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 2 dimensions, got %d", op,
                       (int)x->ndim);
    if ((st = sk_wrap_axis(op, "axis1", axis1, x->ndim, &a1))) return st;
    if ((st = sk_wrap_axis(op, "axis2", axis2, x->ndim, &a2))) return st;
    if (a1 == a2)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis1 and axis2 both name axis %d", op,
                       (int)a1);
    int64_t rows = x->shape[a1], cols = x->shape[a2], len;
    if (offset >= 0) len = cols - offset < rows ? cols - offset : rows;
    else if (offset == INT64_MIN) len = 0; /* -offset would overflow; no row is that far */
    else len = rows + offset < cols ? rows + offset : cols;
    int32_t n = 0;
    for (int32_t d = 0; d < x->ndim; d++)
        if (d != a1 && d != a2) shape[n++] = x->shape[d];
    shape[n++] = len > 0 ? len : 0;
    *ndim = n;
    return SK_STATUS_OK;
}

/* x.shape without axis. */
sk_status sk_select_scatter_source_shape(const sk_tensor *x, int32_t axis, int32_t *ndim,
                                         int64_t *shape) {
    const char *op = "select_scatter";
    int32_t ax;
    sk_status st;
    if ((st = sk_source_out(op, ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if (x->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 1 dimension", op);
    if ((st = sk_wrap_axis(op, "axis", axis, x->ndim, &ax))) return st;
    int32_t n = 0;
    for (int32_t d = 0; d < x->ndim; d++)
        if (d != ax) shape[n++] = x->shape[d];
    *ndim = n;
    return SK_STATUS_OK;
}

/* x.shape: a scalar source fills every True position. */
sk_status sk_masked_scatter_source_shape(const sk_tensor *x, const sk_tensor *mask, int32_t *ndim,
                                         int64_t *shape) {
    const char *op = "masked_scatter";
    sk_status st;
    if ((st = sk_source_out(op, ndim, shape))) return st;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "mask", mask))) return st;
    if (mask->dtype != SK_DTYPE_BOOL)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: mask must be bool, got %s", op,
                       sk_dtype_name(mask->dtype));
    if ((st = sk_check_broadcast(op, "mask", mask, x->ndim, x->shape))) return st;
    *ndim = x->ndim;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    return SK_STATUS_OK;
}
