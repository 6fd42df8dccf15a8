/* Layout predicates and the out checks (shape, overlap). */
#include "base/checks.h"

#include <stdlib.h>

bool sk_same_layout(const sk_tensor *a, const sk_tensor *b) {
    if (a->data != b->data || a->dtype != b->dtype || a->ndim != b->ndim) return false;
    for (int32_t d = 0; d < a->ndim; d++) {
        if (a->shape[d] != b->shape[d]) return false;
        if (a->shape[d] > 1 && a->strides[d] != b->strides[d]) return false;
    }
    return true;
}

bool sk_row_major(const sk_tensor *t) {
    int64_t expect = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != expect) return false;
        if (sk_mul_overflows(expect, t->shape[d], &expect)) return sk_numel(t->ndim, t->shape) == 0;
    }
    return true;
}

/* Byte range [lo, hi) a non-empty tensor touches. */
static void sk_byte_range(const sk_tensor *t, uintptr_t *lo, uintptr_t *hi) {
    int64_t es = (int64_t)sk_dtype_size(t->dtype), neg = 0, pos = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d];
        if (span < 0) neg += span; else pos += span;
    }
    *lo = (uintptr_t)t->data + (uintptr_t)(neg * es);
    *hi = (uintptr_t)t->data + (uintptr_t)(pos * es + es);
}

static bool sk_has_internal_overlap(const sk_tensor *t) {
    int64_t stride[SK_MAX_DIMS], size[SK_MAX_DIMS];
    int n = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->shape[d] <= 1) continue;
        stride[n] = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
        size[n++] = t->shape[d];
    }
    for (int i = 1; i < n; i++) /* insertion sort by stride, n <= SK_MAX_DIMS */
        for (int j = i; j > 0 && stride[j] < stride[j - 1]; j--) {
            int64_t a = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = a;
            int64_t b = size[j]; size[j] = size[j - 1]; size[j - 1] = b;
        }
    /* Sufficient test: each stride steps past everything the smaller ones span. */
    int64_t extent = 0;
    for (int i = 0; i < n; i++) {
        if (stride[i] <= extent) return true;
        extent += (size[i] - 1) * stride[i];
    }
    return false;
}

sk_status sk_check_out(const char *op, const sk_tensor *out, sk_dtype dtype, int32_t ndim,
                       const int64_t *shape, const sk_tensor *alias,
                       const sk_tensor *const *inputs, const char *const *names, int ninputs) {
    return sk_check_out_as(op, "out", out, dtype, ndim, shape, alias, inputs, names, ninputs);
}

static const char *sk_device_name(int32_t device_type) {
    return device_type == SK_DEVICE_CPU ? "cpu" : device_type == SK_DEVICE_CUDA ? "cuda" : "?";
}

sk_status sk_check_same_device(const char *op, const char *arg, const sk_tensor *t,
                               const sk_tensor *const *inputs, const char *const *names,
                               int ninputs) {
    for (int i = 0; i < ninputs; i++) {
        const sk_tensor *in = inputs[i];
        if (!in || (in->device_type == t->device_type && in->device_id == t->device_id)) continue;
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: %s is on %s:%d but %s is on %s:%d; all tensors of a call must be on "
                       "one device",
                       op, names[i], sk_device_name(in->device_type), (int)in->device_id, arg,
                       sk_device_name(t->device_type), (int)t->device_id);
    }
    return SK_STATUS_OK;
}

sk_status sk_check_out_as(const char *op, const char *arg, const sk_tensor *out, sk_dtype dtype,
                          int32_t ndim, const int64_t *shape, const sk_tensor *alias,
                          const sk_tensor *const *inputs, const char *const *names, int ninputs) {
    sk_status st = sk_check_tensor(op, arg, out);
    if (st) return st;
    if (out->dtype != dtype)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: %s must have dtype %s, got %s", op, arg,
                       sk_dtype_name(dtype), sk_dtype_name(out->dtype));
    if ((st = sk_check_shape(op, arg, out, ndim, shape))) return st;
    if ((st = sk_check_same_device(op, arg, out, inputs, names, ninputs))) return st;
    if (sk_tensor_numel(out) == 0) return SK_STATUS_OK;
    if (sk_has_internal_overlap(out))
        return sk_fail(SK_STATUS_OVERLAP,
                       "%s: %s has internal overlap (a zero or overlapping stride); it must be "
                       "writable element by element",
                       op, arg);
    uintptr_t olo, ohi;
    sk_byte_range(out, &olo, &ohi);
    bool x_seen = false; /* the same descriptor passed again (as src too) is an input like any */
    for (int i = 0; i < ninputs; i++) {
        const sk_tensor *in = inputs[i];
        if (!in || sk_tensor_numel(in) == 0) continue;
        bool is_x = alias && in == alias && !x_seen;
        x_seen = x_seen || is_x;
        if (is_x && sk_same_layout(out, alias)) continue;
        uintptr_t lo, hi;
        sk_byte_range(in, &lo, &hi);
        if (lo < ohi && olo < hi) {
            if (is_x)
                return sk_fail(SK_STATUS_OVERLAP,
                               "%s: %s partly overlaps %s; pass %s=%s exactly for the in-place "
                               "form, or a separate %s",
                               op, arg, names[i], arg, names[i], arg);
            return sk_fail(SK_STATUS_OVERLAP, "%s: %s overlaps %s; use a separate %s", op, arg,
                           names[i], arg);
        }
    }
    return SK_STATUS_OK;
}

void sk_linear_strides(int32_t ndim, const int64_t *shape, int64_t *lin) {
    int64_t run = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        lin[d] = run;
        if (sk_mul_overflows(run, shape[d] > 0 ? shape[d] : 1, &run)) run = INT64_MAX;
    }
}

sk_tensor sk_row_major_like(const sk_tensor *t) {
    sk_tensor r = *t;
    r.data = NULL;
    sk_linear_strides(t->ndim, t->shape, r.strides);
    return r;
}
