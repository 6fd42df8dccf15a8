/* sk_copy: a strided (and broadcasting) copy; contiguous pairs are memcpy. */
#include "core/internal.h"

void sk_copy_unchecked(const sk_tensor *src, sk_tensor *out, int nthreads) {
    sk_plan p;
    sk_plan_init(&p, "copy", out->dtype);
    int32_t shift = out->ndim - src->ndim;
    for (int32_t d = 0; d < out->ndim; d++) {
        int32_t sd = d - shift;
        int64_t ss = (sd < 0 || src->shape[sd] == 1) ? 0 : src->strides[sd];
        sk_plan_add_dim(&p, out->shape[d], out->strides[d], ss, 0, 0);
    }
    p.dense = out->data;
    p.target = src->data;
    p.stream = sk_tensor_numel(out) * (int64_t)sk_dtype_size(out->dtype) >= SK_STREAM_MIN_BYTES;
    sk_run_gather(&p, nthreads);
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

sk_status sk_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    sk_status st;
    if ((st = sk_check_tensor("copy", "src", src))) return st;
    if ((st = sk_check_tensor("copy", "out", out))) return st;
    if ((st = sk_check_same_dtype("copy", "src", src, out->dtype))) return st;
    if ((st = sk_check_broadcast("copy", "src", src, out->ndim, out->shape))) return st;
    if (sk_same_layout(src, out)) return SK_STATUS_OK;
    const sk_tensor *inputs[] = {src};
    static const char *const names[] = {"src"};
    if ((st = sk_check_out("copy", out, out->dtype, out->ndim, out->shape, NULL, inputs, names, 1)))
        return st;
    sk_copy_unchecked(src, out, sk_threads_for(opts));
    return SK_STATUS_OK;
}
