/* Index validation for the CUDA entries (gather.c, scatter.c): mode="error"
 * runs the validation kernel into a device status word and reads it back
 * waiting on the call's stream only; no writing kernel is enqueued before
 * it is known, so nothing is written on an error. clip refuses an axis of
 * size 0; drop and fill need no check. */
#include "cuda/cuda.h"

/* SK_STATUS_INDEX_OUT_OF_RANGE for the bad value at scanned position pos of
 * k (CONTRACT section 4's message: position, value, axis, size). */
static sk_status sk_cuda_report_bad(const sk_cuda_call *call, const sk_index_check *c,
                                    const sk_cuda_check *k, int64_t pos) {
    const sk_tensor *t = c->index;
    int64_t coord[SK_MAX_DIMS], off = 0, v = 0;
    sk_cuda_check_coords(k, pos, t->ndim, coord);
    for (int32_t d = 0; d < t->ndim; d++) off += coord[d] * t->strides[d];
    int64_t comp = c->comp_dim < 0 ? 0 : coord[c->comp_dim];
    bool is64 = t->dtype == SK_DTYPE_INT64;
    int32_t v32 = 0;
    const char *at = (const char *)t->data + off * (is64 ? 8 : 4);
    int err = sk_cuda_rt_read(is64 ? (void *)&v : (void *)&v32, at, is64 ? 8 : 4, call->stream);
    if (err) return sk_cuda_status(call, err);
    if (!is64) v = v32;
    if (t->ndim == 0)
        return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                       "%s: index = %lld is out of range for axis %d of size %lld", c->op,
                       (long long)v, (int)c->axes[comp], (long long)c->sizes[comp]);
    char where[256];
    sk_cuda_format_coords(where, sizeof where, t->ndim, coord);
    return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                   "%s: index[%s] = %lld is out of range for axis %d of size %lld", c->op, where,
                   (long long)v, (int)c->axes[comp], (long long)c->sizes[comp]);
}

sk_status sk_cuda_validate(const sk_cuda_call *call, const sk_index_check *c) {
    if (sk_tensor_numel(c->index) == 0) return SK_STATUS_OK;
    if (c->mode == SK_INDEX_MODE_CLIP) {
        int64_t ncomp = c->comp_dim < 0 ? 1 : c->index->shape[c->comp_dim];
        for (int64_t k = 0; k < ncomp; k++)
            if (c->sizes[k] == 0)
                return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                               "%s: cannot clip index into axis %d of size 0", c->op,
                               (int)c->axes[k]);
        return SK_STATUS_OK;
    }
    if (c->mode != SK_INDEX_MODE_ERROR) return SK_STATUS_OK;
    sk_cuda_check k;
    sk_cuda_plan_check(c, &k);
    uint64_t *word = NULL, bad = SK_CUDA_NO_ERROR;
    int err = sk_cuda_rt_alloc((void **)&word, sizeof *word, call->stream);
    if (!err) err = sk_cuda_rt_fill_status(word, call->stream);
    if (!err) err = sk_cuda_launch_check(&k, word, call->stream);
    if (!err) err = sk_cuda_rt_read(&bad, word, sizeof bad, call->stream);
    sk_cuda_rt_free(word, call->stream);
    if (err) return sk_cuda_status(call, err);
    return bad == SK_CUDA_NO_ERROR ? SK_STATUS_OK
                                   : sk_cuda_report_bad(call, c, &k, (int64_t)bad);
}
