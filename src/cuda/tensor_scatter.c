/* The CUDA tensor_scatter (ONNX TensorScatter) and its backward: the write indices
 * checked first on the device (their first bad batch read back, waiting on
 * the call's stream only), then out = cache unless in place, then one write
 * of the update. */
#include "cuda/cuda.h"

/* The write indices' values (linear: 0 <= w <= n - len; circular: w >= 0). */
static sk_status sk_cuda_ts_check(const sk_cuda_call *c, const sk_tensor_scatter_desc *d,
                                  const sk_cuda_ts *t) {
    const sk_tensor *wi = d->write_indices;
    if (!wi || t->batch == 0) return SK_STATUS_OK;
    uint64_t *word = NULL, bad = SK_CUDA_NO_ERROR;
    int err = sk_cuda_rt_alloc((void **)&word, sizeof *word, c->stream);
    if (!err) err = sk_cuda_rt_fill_status(word, c->stream);
    if (!err) err = sk_cuda_launch_ts_check(t, word, c->stream);
    if (!err) err = sk_cuda_rt_read(&bad, word, sizeof bad, c->stream);
    sk_cuda_rt_free(word, c->stream);
    if (err || bad == SK_CUDA_NO_ERROR) return sk_cuda_status(c, err);
    int64_t w = 0, b = (int64_t)bad;
    int32_t w32 = 0;
    const char *at = (const char *)wi->data + b * t->wi_stride * (t->wi_is64 ? 8 : 4);
    err = sk_cuda_rt_read(t->wi_is64 ? (void *)&w : (void *)&w32, at, t->wi_is64 ? 8 : 4,
                          c->stream);
    if (err) return sk_cuda_status(c, err);
    if (!t->wi_is64) w = w32;
    return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                   "%s: write_indices[%lld] = %lld is out of range for axis %d of size %lld%s",
                   d->op, (long long)b, (long long)w, (int)d->axis, (long long)t->n,
                   t->circular ? "" : " with this update length");
}

/* The backward as the CPU's: grad_update = 0, then grad_update = grad_out
 * (d->cache) at the written targets; grad_cache (d->out, may be NULL) =
 * grad_out with those targets zeroed. */
static sk_status sk_cuda_ts_backward(const sk_cuda_call *c, const sk_tensor_scatter_desc *d) {
    sk_tensor_scatter_desc q = *d;
    q.update = d->grad_update;
    q.out = (sk_tensor *)d->cache;
    sk_cuda_ts t;
    sk_cuda_plan_ts(&q, &t);
    t.dir = SK_CUDA_TS_READ;
    sk_status st = sk_cuda_ts_check(c, d, &t);
    if (st == SK_STATUS_OK) st = sk_cuda_zero(c, d->grad_update);
    if (st == SK_STATUS_OK && t.n > 0)
        st = sk_cuda_status(c, sk_cuda_launch_ts_write(&t, c->stream));
    if (st == SK_STATUS_OK && d->out) {
        sk_plan p;
        sk_cuda_copy_plan(d->cache, d->out, &p);
        st = sk_cuda_run_walk(c, &p, NULL);
        q.out = d->out;
        sk_cuda_plan_ts(&q, &t);
        t.dir = SK_CUDA_TS_ZERO;
        if (st == SK_STATUS_OK && t.n > 0)
            st = sk_cuda_status(c, sk_cuda_launch_ts_write(&t, c->stream));
    }
    if (st == SK_STATUS_OK) sk_note_kernel("cuda/tensor_scatter/backward");
    return st;
}

sk_status sk_cuda_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_exec *e) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->op, d->cache->device_id, NULL, e->opts);
    if (st == SK_STATUS_OK && d->backward) {
        st = sk_cuda_ts_backward(&c, d);
        sk_cuda_leave(&c);
        return st;
    }
    sk_cuda_ts t;
    sk_cuda_plan_ts(d, &t);
    if (st == SK_STATUS_OK) st = sk_cuda_ts_check(&c, d, &t);
    if (st == SK_STATUS_OK && !sk_same_layout(d->out, d->cache)) {
        sk_plan p;
        sk_cuda_copy_plan(d->cache, d->out, &p);
        st = sk_cuda_run_walk(&c, &p, NULL);
    }
    if (st == SK_STATUS_OK && t.n > 0) {
        sk_note_kernel("cuda/tensor_scatter/write");
        st = sk_cuda_status(&c, sk_cuda_launch_ts_write(&t, c.stream));
    }
    sk_cuda_leave(&c);
    return st;
}
