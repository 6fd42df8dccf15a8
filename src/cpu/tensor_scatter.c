/* The CPU kernels of tensor_scatter (plan/tensor_scatter.h): each batch is
 * at most two strided copies (the second one after a wrap); only the last n
 * positions of a circular update longer than the axis survive. */
#include "cpu/cpu.h"

/* The write indices' values: linear needs write_indices + sequence_length
 * <= max_sequence_length (an empty update too); circular takes the index
 * modulo the axis. A negative index is refused in both (as onnxruntime does). */
static sk_status sk_ts_check_values(const sk_tensor_scatter_desc *d) {
    const sk_tensor *wi = d->write_indices;
    if (!wi) return SK_STATUS_OK; /* 0 for every batch: checked with the shapes */
    int32_t a = d->axis;
    int64_t batch = d->cache->shape[0], n = d->cache->shape[a], len = d->update->shape[a];
    bool is64 = wi->dtype == SK_DTYPE_INT64;
    if (wi->strides[0] == 0 && batch > 1) batch = 1; /* one value for every batch: read once */
    for (int64_t b = 0; b < batch; b++) {
        int64_t w = sk_load_index(wi->data, is64, b * wi->strides[0]);
        bool ok = d->mode == SK_TENSOR_SCATTER_LINEAR ? (w >= 0 && w <= n - len)
                                                      : (w >= 0 && (n > 0 || len == 0));
        if (!ok)
            return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: write_indices[%lld] = %lld is out of range for axis %d of size "
                           "%lld%s",
                           d->op, (long long)b, (long long)w, (int)a, (long long)n,
                           d->mode == SK_TENSOR_SCATTER_LINEAR ? " with this update length" : "");
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
    const sk_tensor *cache;   /* forward: out; backward: grad_out (read) */
    const sk_tensor *grad_cache; /* backward only: zeroed where written */
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

sk_status sk_cpu_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_exec *e) {
    sk_status st;
    if ((st = sk_ts_check_values(d))) return st;
    int nthreads = sk_exec_threads(e);
    int32_t a = d->axis;
    sk_note_kernel(d->backward ? "cpu/tensor_scatter/backward" : "cpu/tensor_scatter/segments");
    if (!d->backward) {
        if (!sk_same_layout(d->out, d->cache)) sk_copy_unchecked(d->cache, d->out, nthreads);
        sk_ts_ctx c = {d->update, d->out, NULL, a, false, nthreads};
        sk_ts_segments(d->write_indices, d->update, d->cache->shape[a], sk_ts_segment, &c, a);
        return SK_STATUS_OK;
    }
    sk_tensor zero = sk_zero_scalar(d->cache->dtype);
    sk_tensor *grad_update = d->grad_update;
    sk_copy_unchecked(&zero, grad_update, nthreads); /* overwritten circular rows get 0 */
    if (d->out) sk_copy_unchecked(d->cache, d->out, nthreads);
    sk_ts_ctx c = {grad_update, d->cache, d->out, a, true, nthreads};
    sk_ts_segments(d->write_indices, grad_update, d->cache->shape[a], sk_ts_segment, &c, a);
    return SK_STATUS_OK;
}
