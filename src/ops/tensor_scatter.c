/* tensor_scatter (ONNX TensorScatter, opset 24): KV-cache updates. For each
 * batch b, update[b] goes into out[b] along axis from write_indices[b] on;
 * circular mode wraps around the axis. Each batch is at most two strided
 * copies (the second one after a wrap). */
#include "core/internal.h"

sk_status sk_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                            const sk_tensor *write_indices, int32_t axis,
                            sk_tensor_scatter_mode mode, sk_tensor *out, const sk_options *opts) {
    const char *op = "tensor_scatter";
    sk_status st;
    int32_t a;
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
    if ((st = sk_wrap_axis(op, "axis", axis, cache->ndim, &a))) return st;
    if (a == 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                       "%s: axis must not be the batch axis 0 (got %d)", op, (int)axis);
    bool same = update->ndim == cache->ndim;
    for (int32_t d = 0; same && d < cache->ndim; d++)
        same = d == a || update->shape[d] == cache->shape[d];
    if (!same) {
        char s1[256], s2[256];
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: update must have cache's shape %s except along axis %d, got %s", op,
                       sk_format_shape(s1, sizeof s1, cache->ndim, cache->shape), (int)a,
                       sk_format_shape(s2, sizeof s2, update->ndim, update->shape));
    }
    int64_t batch = cache->shape[0], n = cache->shape[a], len = update->shape[a];
    if (mode == SK_TENSOR_SCATTER_LINEAR && len > n)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: update.shape[%d] = %lld exceeds the cache length %lld", op, (int)a,
                       (long long)len, (long long)n);
    if (write_indices) {
        if ((st = sk_check_tensor(op, "write_indices", write_indices))) return st;
        if ((st = sk_check_index_dtype(op, "write_indices", write_indices))) return st;
        if (write_indices->ndim != 1 || write_indices->shape[0] != batch)
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: write_indices must have shape [%lld] (one per batch)", op,
                           (long long)batch);
    }
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass cache for in place)", op);
    const sk_tensor *inputs[] = {cache, update, write_indices};
    if ((st = sk_check_out(op, out, cache->dtype, cache->ndim, cache->shape, cache, inputs, 3)))
        return st;
    bool is64 = write_indices && write_indices->dtype == SK_DTYPE_INT64;
    for (int64_t b = 0; b < batch && write_indices && len > 0; b++) {
        int64_t w = sk_load_index(write_indices->data, is64, b * write_indices->strides[0]);
        bool ok = mode == SK_TENSOR_SCATTER_LINEAR ? (w >= 0 && w <= n - len) : (w >= 0 && w < n);
        if (!ok)
            return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: write_indices[%lld] = %lld is out of range for axis %d of size %lld"
                           "%s",
                           op, (long long)b, (long long)w, (int)a, (long long)n,
                           mode == SK_TENSOR_SCATTER_LINEAR ? " with this update length" : "");
    }

    int nthreads = sk_threads_for(opts);
    if (!sk_same_layout(out, cache)) sk_copy_unchecked(cache, out, nthreads);
    if (len == 0 || n == 0 || sk_tensor_numel(update) == 0) return SK_STATUS_OK;
    size_t es = sk_dtype_size(cache->dtype);
    /* Only the last n positions of a longer circular update survive. */
    int64_t skip = len > n ? len - n : 0;
    for (int64_t b = 0; b < batch; b++) {
        int64_t w = write_indices ? sk_load_index(write_indices->data, is64,
                                                  b * write_indices->strides[0])
                                  : 0;
        int64_t i = skip;
        while (i < len) {
            int64_t pos = (w + i) % n, seg = len - i;
            if (seg > n - pos) seg = n - pos;
            sk_tensor src = *update, dst = *out;
            src.shape[0] = dst.shape[0] = 1;
            src.shape[a] = dst.shape[a] = seg;
            src.data = (char *)update->data + (b * update->strides[0] + i * update->strides[a]) * (int64_t)es;
            dst.data = (char *)out->data + (b * out->strides[0] + pos * out->strides[a]) * (int64_t)es;
            sk_copy_unchecked(&src, &dst, nthreads);
            i += seg;
        }
    }
    return SK_STATUS_OK;
}
