/* The tensor descriptor: construction, DLPack conversion, argument checks. */
#include "base/checks.h"
#include "base/dlpack.h"

#include <stdio.h>

int64_t sk_numel(int32_t ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) /* a zero anywhere makes it 0, even after huge sizes */
        if (shape[d] == 0) return 0;
    for (int32_t d = 0; d < ndim; d++)
        if (shape[d] < 0 || sk_mul_overflows(n, shape[d], &n)) return -1;
    return n;
}

sk_status sk_check_numel(const char *op, const char *what, int32_t ndim, const int64_t *shape,
                         int64_t *n) {
    if ((*n = sk_numel(ndim, shape)) >= 0) return SK_STATUS_OK;
    char buf[256];
    return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: %s %s has more elements than fit in 64 bits", op,
                   what, sk_format_shape(buf, sizeof buf, ndim, shape));
}

int64_t sk_tensor_numel(const sk_tensor *t) {
    if (!t || t->ndim < 0 || t->ndim > SK_MAX_DIMS) return -1;
    return sk_numel(t->ndim, t->shape);
}

sk_status sk_tensor_init(sk_tensor *t, void *data, sk_dtype dtype, int32_t ndim,
                         const int64_t *shape, const int64_t *strides) {
    if (!t) return sk_fail(SK_STATUS_NULL_POINTER, "sk_tensor_init: t is NULL");
    if (ndim < 0 || ndim > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "sk_tensor_init: ndim must be in [0, %d], got %d", SK_MAX_DIMS, (int)ndim);
    if (ndim > 0 && !shape) return sk_fail(SK_STATUS_NULL_POINTER, "sk_tensor_init: shape is NULL");
    memset(t, 0, sizeof *t);
    t->data = data;
    t->dtype = dtype;
    t->ndim = ndim;
    t->device_type = SK_DEVICE_CPU;
    int64_t run = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        t->shape[d] = shape[d];
        t->strides[d] = strides ? strides[d] : run;
        if (shape[d] < 0)
            return sk_fail(SK_STATUS_INVALID_SHAPE, "sk_tensor_init: shape[%d] = %lld is negative",
                           (int)d, (long long)shape[d]);
        if (sk_mul_overflows(run, shape[d] > 0 ? shape[d] : 1, &run))
            return sk_fail(SK_STATUS_SIZE_OVERFLOW, "sk_tensor_init: shape is too large");
    }
    return SK_STATUS_OK;
}

static bool sk_dtype_from_dl(uint8_t code, uint8_t bits, sk_dtype *out) {
    switch (code) {
    case SK_DL_BOOL: if (bits == 8) { *out = SK_DTYPE_BOOL; return true; } break;
    case SK_DL_UINT: if (bits == 8) { *out = SK_DTYPE_UINT8; return true; } break;
    case SK_DL_INT:
        switch (bits) {
        case 8: *out = SK_DTYPE_INT8; return true;
        case 16: *out = SK_DTYPE_INT16; return true;
        case 32: *out = SK_DTYPE_INT32; return true;
        case 64: *out = SK_DTYPE_INT64; return true;
        }
        break;
    case SK_DL_FLOAT:
        switch (bits) {
        case 16: *out = SK_DTYPE_FLOAT16; return true;
        case 32: *out = SK_DTYPE_FLOAT32; return true;
        case 64: *out = SK_DTYPE_FLOAT64; return true;
        }
        break;
    case SK_DL_BFLOAT: if (bits == 16) { *out = SK_DTYPE_BFLOAT16; return true; } break;
    }
    return false;
}

sk_status sk_tensor_from_dlpack(const struct DLTensor *dlp, sk_tensor *t) {
    const struct DLTensor *dl = dlp;
    if (!dl || !t) return sk_fail(SK_STATUS_NULL_POINTER, "sk_tensor_from_dlpack: NULL argument");
    if (dl->ndim < 0 || dl->ndim > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "sk_tensor_from_dlpack: ndim must be in [0, %d], got %d", SK_MAX_DIMS,
                       (int)dl->ndim);
    sk_dtype dtype;
    if (dl->dtype.lanes != 1 || !sk_dtype_from_dl(dl->dtype.code, dl->dtype.bits, &dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "sk_tensor_from_dlpack: unsupported DLPack dtype (code %u, bits %u, lanes %u)",
                       dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
    size_t es = sk_dtype_size(dtype);
    if (dl->byte_offset % es != 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "sk_tensor_from_dlpack: byte_offset %llu is not a multiple of %zu",
                       (unsigned long long)dl->byte_offset, es);
    if (dl->ndim > 0 && !dl->shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "sk_tensor_from_dlpack: shape is NULL");
    if (dl->data && dl->byte_offset > (uint64_t)(UINTPTR_MAX - (uintptr_t)dl->data))
        return sk_fail(SK_STATUS_SIZE_OVERFLOW,
                       "sk_tensor_from_dlpack: byte_offset %llu runs past the address space",
                       (unsigned long long)dl->byte_offset);
    sk_status st = sk_tensor_init(t, dl->data ? (char *)dl->data + dl->byte_offset : NULL, dtype,
                                  dl->ndim, dl->shape, dl->strides);
    if (st != SK_STATUS_OK) return st;
    t->device_type = dl->device.device_type;
    t->device_id = dl->device.device_id;
    return SK_STATUS_OK;
}

const char *sk_format_shape(char *buf, size_t size, int32_t ndim, const int64_t *shape) {
    size_t n = 0;
    n += (size_t)snprintf(buf + n, size - n, "[");
    for (int32_t d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (n < size) snprintf(buf + n, size - n, "]");
    return buf;
}

sk_status sk_check_tensor(const char *op, const char *arg, const sk_tensor *t) {
    if (!t) return sk_fail(SK_STATUS_NULL_POINTER, "%s: %s is NULL", op, arg);
    if ((unsigned)t->dtype >= (unsigned)SK_DTYPE_COUNT)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: %s has an invalid dtype (%d)", op, arg,
                       (int)t->dtype);
    if (t->ndim < 0 || t->ndim > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: %s has %d dimensions; at most %d are supported",
                       op, arg, (int)t->ndim, SK_MAX_DIMS);
    /* a device this build has no backend for is refused by dispatch, before
     * any element is read; here only a device type no backend could have */
    if (t->device_type != SK_DEVICE_CPU && t->device_type != SK_DEVICE_CUDA)
        return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE, "%s: %s is on device type %d (neither cpu "
                       "nor cuda)", op, arg, (int)t->device_type);
    int64_t n = 1, extent = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        int64_t span;
        if (t->shape[d] < 0)
            return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: %s.shape[%d] = %lld is negative", op, arg,
                           (int)d, (long long)t->shape[d]);
        if (sk_mul_overflows(n, t->shape[d], &n) && sk_numel(t->ndim, t->shape) != 0)
            return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: %s has more elements than fit in 64 bits",
                           op, arg);
        if (t->shape[d] == 0) continue;
        if (t->strides[d] == INT64_MIN ||
            sk_mul_overflows(t->shape[d] - 1, t->strides[d] < 0 ? -t->strides[d] : t->strides[d],
                             &span) ||
            sk_add_overflows(extent, span, &extent))
            return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: the strides of %s overflow 64 bits", op, arg);
    }
    int64_t bytes;
    if (sk_add_overflows(extent, 1, &extent) ||
        sk_mul_overflows(extent, (int64_t)sk_dtype_size(t->dtype), &bytes))
        return sk_fail(SK_STATUS_SIZE_OVERFLOW, "%s: %s spans more bytes than fit in 64 bits", op, arg);
    if (sk_numel(t->ndim, t->shape) > 0 && !t->data)
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: %s.data is NULL", op, arg);
    return SK_STATUS_OK;
}

sk_status sk_wrap_axis(const char *op, const char *arg, int64_t axis, int32_t ndim,
                       int32_t *wrapped) {
    int32_t n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts axis 0 and -1, as NumPy does */
    if (axis < -(int64_t)n || axis >= n)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: %s = %lld is out of range for a tensor of %d dimensions", op, arg,
                       (long long)axis, (int)ndim);
    *wrapped = (int32_t)(axis < 0 ? axis + n : axis);
    return SK_STATUS_OK;
}

sk_status sk_check_index_dtype(const char *op, const char *arg, const sk_tensor *index) {
    if (index->dtype != SK_DTYPE_INT32 && index->dtype != SK_DTYPE_INT64)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: %s must be int32 or int64, got %s", op, arg,
                       sk_dtype_name(index->dtype));
    return SK_STATUS_OK;
}

sk_status sk_check_same_dtype(const char *op, const char *arg, const sk_tensor *t,
                              sk_dtype dtype) {
    if (t->dtype != dtype)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: %s must have dtype %s, got %s",
                       op, arg, sk_dtype_name(dtype), sk_dtype_name(t->dtype));
    return SK_STATUS_OK;
}

sk_status sk_check_reduce(const char *op, sk_reduce reduce, sk_dtype dtype) {
    if ((unsigned)reduce > (unsigned)SK_REDUCE_AMIN)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: reduce must be none, sum, prod, mean, amax or amin, got %d", op,
                       (int)reduce);
    if (dtype == SK_DTYPE_BOOL &&
        (reduce == SK_REDUCE_SUM || reduce == SK_REDUCE_PROD || reduce == SK_REDUCE_MEAN)) {
        static const char *names[] = {"none", "sum", "prod", "mean", "amax", "amin"};
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: reduce=\"%s\" is not supported for bool (only assign, amax, amin)", op,
                       names[reduce]);
    }
    return SK_STATUS_OK;
}

sk_status sk_check_mode(const char *op, sk_index_mode mode, bool scatter_type) {
    switch (mode) {
    case SK_INDEX_MODE_ERROR:
    case SK_INDEX_MODE_CLIP: return SK_STATUS_OK;
    case SK_INDEX_MODE_DROP:
        if (scatter_type) return SK_STATUS_OK;
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: mode \"drop\" is for scatter-type operators; use error, clip or fill", op);
    case SK_INDEX_MODE_FILL:
        if (!scatter_type) return SK_STATUS_OK;
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: mode \"fill\" is for gather-type operators; use error, clip or drop", op);
    }
    return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: mode must be error, clip, %s, got %d", op,
                   scatter_type ? "drop" : "fill", (int)mode);
}

sk_status sk_check_fill(const char *op, const sk_tensor *fill, sk_dtype dtype) {
    if (!fill) return SK_STATUS_OK;
    sk_status st = sk_check_tensor(op, "fill_value", fill);
    if (st) return st;
    if (sk_tensor_numel(fill) != 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: fill_value must have exactly one element", op);
    return sk_check_same_dtype(op, "fill_value", fill, dtype);
}

sk_status sk_check_shape(const char *op, const char *arg, const sk_tensor *t, int32_t ndim,
                         const int64_t *shape) {
    bool same = t->ndim == ndim;
    for (int32_t d = 0; same && d < ndim; d++) same = t->shape[d] == shape[d];
    if (same) return SK_STATUS_OK;
    char want[256], got[256];
    return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: %s must have shape %s, got %s", op, arg,
                   sk_format_shape(want, sizeof want, ndim < SK_MAX_DIMS ? ndim : SK_MAX_DIMS, shape),
                   sk_format_shape(got, sizeof got, t->ndim, t->shape));
}

/* src broadcasts to shape (NumPy rules, aligned from the right). */
sk_status sk_check_broadcast(const char *op, const char *arg, const sk_tensor *src, int32_t ndim,
                             const int64_t *shape) {
    bool ok = src->ndim <= ndim;
    for (int32_t d = 0; ok && d < src->ndim; d++) {
        int64_t s = src->shape[src->ndim - 1 - d], t = shape[ndim - 1 - d];
        ok = s == t || s == 1;
    }
    if (!ok) {
        char a[256], b[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: %s of shape %s does not broadcast to %s", op,
                       arg, sk_format_shape(a, sizeof a, src->ndim, src->shape),
                       sk_format_shape(b, sizeof b, ndim, shape));
    }
    return SK_STATUS_OK;
}

sk_status sk_wrap_axes(const char *op, const int32_t *axes, int32_t naxes, int32_t ndim,
                       int32_t *wrapped) {
    if (!axes) return sk_fail(SK_STATUS_NULL_POINTER, "%s: axis (the axes array) is NULL", op);
    if (naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis must name 1 to %d axes, got %d", op,
                       SK_MAX_DIMS, (int)naxes);
    for (int32_t k = 0; k < naxes; k++) {
        sk_status st = sk_wrap_axis(op, "axis", axes[k], ndim, &wrapped[k]);
        if (st) return st;
        for (int32_t j = 0; j < k; j++)
            if (wrapped[j] == wrapped[k])
                return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis names axis %d twice", op,
                               (int)wrapped[k]);
    }
    return SK_STATUS_OK;
}

sk_status sk_wrap_index_axes(const char *op, const sk_tensor *x, const sk_tensor *index,
                             const int32_t *axes, int32_t naxes, bool has_comp_dim,
                             int32_t *wrapped) {
    sk_status st = has_comp_dim ? sk_wrap_axes(op, axes, naxes, x->ndim, wrapped)
                                : sk_wrap_axis(op, "axis", axes[0], x->ndim, wrapped);
    if (st) return st;
    int32_t want = x->ndim + (has_comp_dim ? 1 : 0);
    if (index->ndim != want)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have %d dimensions (x has %d%s), got %d", op, (int)want,
                       (int)x->ndim, has_comp_dim ? ", plus one for the axes" : "",
                       (int)index->ndim);
    if (has_comp_dim && index->shape[x->ndim] != naxes)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: the last dimension of index must be %d (one per axis), got %lld", op,
                       (int)naxes, (long long)index->shape[x->ndim]);
    return SK_STATUS_OK;
}
