/* tensor_scatter (ONNX TensorScatter, opset 24): KV-cache updates. For each
 * batch b, update[b] goes into out[b] along axis from write_indices[b] on;
 * circular mode wraps around the axis (the start too, modulo its length).
 * Each batch is at most two strided copies (the second one after a wrap);
 * only the last n positions of a circular update longer than the axis
 * survive. */
#include "ops/ops.h"
#include "cpu/cpu.h" /* kernels still here: moving to src/cpu */

/* Validates shapes, axis, mode and write indices (cache and update give the
 * shapes; in the backward they are grad_out and grad_update). */
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
    bool is64 = write_indices->dtype == SK_DTYPE_INT64;
    /* ONNX: linear needs write_indices + sequence_length <= max_sequence_length
     * (an empty update too); circular takes the index modulo the axis. A
     * negative index is refused in both (as onnxruntime does). */
    for (int64_t b = 0; b < batch; b++) {
        int64_t w = sk_load_index(write_indices->data, is64, b * write_indices->strides[0]);
        bool ok = mode == SK_TENSOR_SCATTER_LINEAR ? (w >= 0 && w <= n - len)
                                                   : (w >= 0 && (n > 0 || len == 0));
        if (!ok)
            return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: write_indices[%lld] = %lld is out of range for axis %d of size "
                           "%lld%s",
                           op, (long long)b, (long long)w, (int)*a, (long long)n,
                           mode == SK_TENSOR_SCATTER_LINEAR ? " with this update length" : "");
    }
    return SK_STATUS_OK;
}

/* One contiguous run of the write: update[b, i:i+seg] <-> cache[b, pos:pos+seg]. */
typedef void (*sk_ts_segment_fn)(void *ctx, int64_t b, int64_t i, int64_t pos, int64_t seg);

static void sk_ts_segments(const sk_tensor *write_indices, const sk_tensor *update, int64_t n,
                           sk_ts_segment_fn fn, void *ctx, int32_t a) {
    /* an update without elements (any dimension 0) writes nothing: no walk
     * over its batches either ([2^40, 0, 5] would take minutes) */
    int64_t batch = update->shape[0], len = update->shape[a];
    if (len == 0 || n == 0 || sk_tensor_numel(update) == 0) return;
    bool is64 = write_indices && write_indices->dtype == SK_DTYPE_INT64;
    int64_t skip = len > n ? len - n : 0;
    for (int64_t b = 0; b < batch; b++) {
        int64_t w = write_indices ? sk_load_index(write_indices->data, is64,
                                                  b * write_indices->strides[0])
                                  : 0;
        for (int64_t i = skip; i < len;) {
            int64_t pos = (w % n + i) % n, seg = len - i;
            if (seg > n - pos) seg = n - pos;
            fn(ctx, b, i, pos, seg);
            i += seg;
        }
    }
}

/* The slab [b, ..., start:start+seg, ...] of t along axis a. */
static sk_tensor sk_ts_slab(const sk_tensor *t, int32_t a, int64_t b, int64_t start, int64_t seg) {
    sk_tensor s = *t;
    s.shape[0] = 1;
    s.shape[a] = seg;
    if (sk_tensor_numel(&s) > 0)
        s.data = (char *)t->data +
                 (b * t->strides[0] + start * t->strides[a]) * (int64_t)sk_dtype_size(t->dtype);
    return s;
}

typedef struct {
    const sk_tensor *update;  /* forward: update; backward: grad_update (written) */
    sk_tensor *cache;         /* forward: out; backward: grad_out (read) */
    sk_tensor *grad_cache;    /* backward only: zeroed where written */
    int32_t axis;
    bool backward;
    int nthreads;
} sk_ts_ctx;

static void sk_ts_segment(void *arg, int64_t b, int64_t i, int64_t pos, int64_t seg) {
    sk_ts_ctx *c = arg;
    sk_tensor u = sk_ts_slab(c->update, c->axis, b, i, seg);
    sk_tensor k = sk_ts_slab(c->cache, c->axis, b, pos, seg);
    if (sk_tensor_numel(&u) == 0) return;
    if (!c->backward) {
        sk_copy_unchecked(&u, &k, c->nthreads);
        return;
    }
    sk_copy_unchecked(&k, &u, c->nthreads);
    if (c->grad_cache) {
        sk_tensor g = sk_ts_slab(c->grad_cache, c->axis, b, pos, seg);
        sk_tensor zero = sk_zero_scalar(g.dtype);
        sk_copy_unchecked(&zero, &g, c->nthreads);
    }
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
    int nthreads = sk_threads_for(opts);
    if (!sk_same_layout(out, cache)) sk_copy_unchecked(cache, out, nthreads);
    sk_ts_ctx c = {update, out, NULL, a, false, nthreads};
    sk_ts_segments(write_indices, update, cache->shape[a], sk_ts_segment, &c, a);
    return SK_STATUS_OK;
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
    int nthreads = sk_threads_for(opts);
    sk_tensor zero = sk_zero_scalar(grad_out->dtype);
    sk_copy_unchecked(&zero, grad_update, nthreads); /* overwritten circular rows get 0 */
    if (grad_cache) sk_copy_unchecked(grad_out, grad_cache, nthreads);
    sk_ts_ctx c = {grad_update, (sk_tensor *)grad_out, grad_cache, a, true, nthreads};
    sk_ts_segments(write_indices, grad_update, grad_out->shape[a], sk_ts_segment, &c, a);
    return SK_STATUS_OK;
}
