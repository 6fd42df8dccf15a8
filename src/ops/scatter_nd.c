/* scatter_nd (ONNX ScatterND, torch index_put_, Paddle scatter_nd_add): the
 * inverse of gather_nd without batch dimensions. */
#include "core/internal.h"

sk_status sk_scatter_nd(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                        sk_reduce reduce, sk_index_mode mode, sk_tensor *out,
                        const sk_options *opts) {
    const char *op = "scatter_nd";
    sk_status st;
    int32_t axes[SK_MAX_DIMS];
    int64_t sizes[SK_MAX_DIMS], lin[SK_MAX_DIMS], want[2 * SK_MAX_DIMS];
    if ((st = sk_scatter_check_common(op, x, reduce, mode, out))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_tensor(op, "updates", updates))) return st;
    if ((st = sk_check_same_dtype(op, "updates", updates, x->dtype))) return st;
    if (index->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have at least 1 dimension (the last one holds the tuples)", op);
    int32_t last = index->ndim - 1;
    int64_t k = index->shape[last];
    if (k > x->ndim)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: index.shape[-1] = %lld exceeds x.ndim = %d",
                       op, (long long)k, (int)x->ndim);
    int32_t nw = 0;
    for (int32_t d = 0; d < last; d++) want[nw++] = index->shape[d];
    for (int32_t d = (int32_t)k; d < x->ndim; d++) want[nw++] = x->shape[d];
    bool same = updates->ndim == nw;
    for (int32_t d = 0; same && d < nw; d++) same = updates->shape[d] == want[d];
    if (!same) {
        char a[512], b[256];
        if (nw > SK_MAX_DIMS) nw = SK_MAX_DIMS;
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: updates must have shape index.shape[:-1] + x.shape[k:] = %s, got %s", op,
                       sk_format_shape(a, sizeof a, nw, want),
                       sk_format_shape(b, sizeof b, updates->ndim, updates->shape));
    }
    const sk_tensor *inputs[] = {x, index, updates};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, 3))) return st;
    for (int32_t j = 0; j < k; j++) {
        axes[j] = j;
        sizes[j] = x->shape[j];
    }
    int nthreads = sk_threads_for(opts);
    if (k > 0 && (st = sk_validate_index(op, "index", index, last, axes, sizes, mode, nthreads)))
        return st;

    sk_linear_strides(x->ndim, x->shape, lin);
    sk_plan p;
    sk_plan_init(&p, op, x->dtype);
    int32_t u = 0;
    for (int32_t d = 0; d < last; d++, u++)
        sk_plan_add_dim(&p, index->shape[d], updates->strides[u], 0, 0, index->strides[d]);
    for (int32_t d = (int32_t)k; d < x->ndim; d++, u++)
        sk_plan_add_dim(&p, x->shape[d], updates->strides[u], out->strides[d], lin[d], 0);
    p.ncomp = (int)k;
    p.comp_stride = index->strides[last];
    for (int32_t j = 0; j < k; j++) {
        p.comp_size[j] = sizes[j];
        p.comp_target_stride[j] = out->strides[j];
        p.comp_linear_stride[j] = lin[j];
    }
    p.dense = updates->data;
    p.target = out->data;
    p.index = index->data;
    p.index_is64 = index->dtype == SK_DTYPE_INT64;
    p.mode = mode;
    p.reduce = reduce;
    p.include_self = true;
    p.out = out;
    return sk_run_scatter(&p, sk_same_layout(out, x) ? NULL : x, nthreads);
}
