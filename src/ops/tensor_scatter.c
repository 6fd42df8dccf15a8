/* tensor_scatter (ONNX TensorScatter, opset 24): KV-cache updates. For each
 * batch b, update[b] goes into out[b] along axis from write_indices[b] on;
 * circular mode wraps around the axis (the start too, modulo its length).
 * Each batch is at most two strided copies (the second one after a wrap);
 * only the last n positions of a circular update longer than the axis
 * survive. */
#include "ops/ops.h"
#include "plan/tensor_scatter.h"

/* Validates shapes, axis, mode and the write indices' shape (cache and update
 * give the shapes; in the backward they are grad_out and grad_update). */
static sk_status sk_ts_validate(const char *op, const sk_tensor *cache, const sk_tensor *update,
                                const sk_tensor *write_indices, int32_t axis,
                                sk_tensor_scatter_mode mode, int32_t *a) {
    sk_status st;
    if ((st = sk_check_tensor(op, "cache", cache))) return st;
    if ((st = sk_check_tensor(op, "update", update))) return st;
    if ((st = sk_check_same_dtype(op, "update", update, cache->dtype))) return st;
    if (mode != SK_TENSOR_SCATTER_LINEAR && mode != SK_TENSOR_SCATTER_CIRCULAR)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: mode must be linear or circular, got %d", op,
                       (int)mode);
    if (cache->ndim < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: cache must have at least 2 dimensions (batch and sequence), got %d", op,
                       (int)cache->ndim);
    if ((st = sk_wrap_axis(op, "axis", axis, cache->ndim, a))) return st;
    if (*a == 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: axis must not be the batch axis 0 (got %d)", op, (int)axis);
    bool same = update->ndim == cache->ndim;
    for (int32_t d = 0; same && d < cache->ndim; d++)
        same = d == *a || update->shape[d] == cache->shape[d];
    if (!same) {
        char s1[256], s2[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: update must have cache's shape %s except along axis %d, got %s", op,
                       sk_format_shape(s1, sizeof s1, cache->ndim, cache->shape), (int)*a,
                       sk_format_shape(s2, sizeof s2, update->ndim, update->shape));
    }
    int64_t batch = cache->shape[0], n = cache->shape[*a], len = update->shape[*a];
    if (mode == SK_TENSOR_SCATTER_LINEAR && len > n)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: update.shape[%d] = %lld exceeds the cache length %lld", op, (int)*a,
                       (long long)len, (long long)n);
    if (!write_indices) { /* every batch writes from 0, which must itself be a position */
        if (mode == SK_TENSOR_SCATTER_CIRCULAR && len > 0 && batch > 0 && n == 0)
            return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: write_indices (None, so 0) is out of range for axis %d of size 0", op,
                           (int)*a);
        return SK_STATUS_OK;
    }
    if ((st = sk_check_tensor(op, "write_indices", write_indices))) return st;
    if ((st = sk_check_index_dtype(op, "write_indices", write_indices))) return st;
    if (write_indices->ndim != 1 || write_indices->shape[0] != batch) {
        char got[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: write_indices must have shape [%lld] (one per batch), got %s", op,
                       (long long)batch,
                       sk_format_shape(got, sizeof got, write_indices->ndim, write_indices->shape));
    }
    return SK_STATUS_OK; /* the values of write_indices are checked by the backend */
}

sk_status sk_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                            const sk_tensor *write_indices, int32_t axis,
                            sk_tensor_scatter_mode mode, sk_tensor *out, const sk_options *opts) {
    const char *op = "tensor_scatter";
    sk_status st;
    int32_t a;
    if ((st = sk_ts_validate(op, cache, update, write_indices, axis, mode, &a))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass cache for in place)", op);
    const sk_tensor *inputs[] = {cache, update, write_indices};
    static const char *const names[] = {"cache", "update", "write_indices"};
    if ((st = sk_check_out(op, out, cache->dtype, cache->ndim, cache->shape, cache, inputs, names, 3)))
        return st;
    sk_tensor_scatter_desc d = {.op = op, .cache = cache, .update = update,
                                .write_indices = write_indices, .out = out, .axis = a, .mode = mode};
    return sk_dispatch_tensor_scatter(&d, opts);
}

sk_status sk_tensor_scatter_backward(const sk_tensor *grad_out, const sk_tensor *write_indices,
                                     int32_t axis, sk_tensor_scatter_mode mode,
                                     sk_tensor *grad_cache, sk_tensor *grad_update,
                                     const sk_options *opts) {
    const char *op = "tensor_scatter_backward";
    sk_status st;
    int32_t a;
    if ((st = sk_check_tensor(op, "grad_out", grad_out))) return st;
    if (!sk_dtype_is_floating(grad_out->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(grad_out->dtype));
    if (!grad_update)
        return sk_fail(SK_STATUS_NULL_POINTER,
                       "%s: grad_update is needed (its shape gives the update length)", op);
    if ((st = sk_ts_validate(op, grad_out, grad_update, write_indices, axis, mode, &a))) return st;
    const sk_tensor *inputs[] = {grad_out, write_indices, grad_update};
    static const char *const names[] = {"grad_out", "write_indices", "grad_update"};
    if ((st = sk_check_out_as(op, "grad_update", grad_update, grad_out->dtype, grad_update->ndim,
                              grad_update->shape, NULL, inputs, names, 2)))
        return st;
    if (grad_cache && (st = sk_check_out_as(op, "grad_cache", grad_cache, grad_out->dtype,
                                            grad_out->ndim, grad_out->shape, NULL, inputs, names,
                                            3)))
        return st;
    sk_tensor_scatter_desc d = {.op = op, .backward = true, .cache = grad_out,
                                .update = grad_update, .write_indices = write_indices,
                                .out = grad_cache, .axis = a, .mode = mode,
                                .grad_update = grad_update};
    return sk_dispatch_tensor_scatter(&d, opts);
}
