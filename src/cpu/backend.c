/* The CPU backend's table: check the index values (or let a kernel that
 * reads each value anyway check it), then run the plan on the right engine. */
#include "backend.h"
#include "cpu/cpu.h"

static sk_status sk_cpu_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                            sk_tensor *grad_x, const sk_options *opts) {
    int nthreads = sk_threads_for(opts);
    p->mode = chk->mode;
    /* With a fresh out the kernel itself notices a bad value, and the full
     * check runs only then, to find the first one for the message. Only
     * when out has elements: an empty out (index_select or gather_nd from an
     * x with an empty dimension) reads no index value in the kernel. */
    bool fused = !lin && sk_fused_check(opts, chk->mode) && sk_plan_numel(p) > 0;
    sk_status st;
    if (!fused && (st = sk_check_values(chk, nthreads))) return st;
    p->index_numel = sk_tensor_numel(chk->index); /* the backward's scratch budget */
    if (lin) return sk_run_gather_backward(p, lin, grad_x, nthreads);
    /* rows of an out far larger than the caches are written around them */
    p->stream = sk_plan_numel(p) * (int64_t)p->elem_size >= SK_STREAM_MIN_BYTES;
    p->past_l2 = sk_plan_numel(p) * (int64_t)p->elem_size >= SK_PAST_L2_BYTES;
    if (opts && (opts->flags & SK_OPTION_FRESH_OUT)) {
        /* a fresh out is dense: the plan's out strides span exactly its bytes */
        int64_t lo = 0, hi = 0;
        for (int d = 0; d < p->ndim; d++) {
            int64_t span = (p->shape[d] - 1) * p->dense_stride[d];
            if (span < 0) lo += span;
            else hi += span;
        }
        if (sk_plan_numel(p) > 0)
            sk_prepare_fresh(p->dense + lo * (int64_t)p->elem_size,
                             (size_t)(hi - lo + 1) * p->elem_size);
    }
    int invalid = 0;
    p->invalid = &invalid;
    sk_run_gather(p, nthreads);
    return invalid ? sk_check_values(chk, nthreads) : SK_STATUS_OK;
}

static sk_status sk_cpu_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                             const sk_tensor *x, const sk_tensor *out,
                             const sk_backward_args *bwd, const sk_options *opts) {
    int nthreads = sk_threads_for(opts);
    bool in_place = !bwd && sk_same_layout(out, x); /* a backward's out may be NULL */
    /* With a fresh out (never x) the engine may check the values inside the
     * kernel instead, where the index is read anyway; a bad value leaves only
     * out, which the caller throws away, partly written, and the full check
     * then finds the first one for the message. */
    bool deferred = !bwd && !in_place && sk_fused_check(opts, chk->mode);
    sk_status st;
    if (!deferred && (st = sk_check_values(chk, nthreads))) return st;
    p->mode = chk->mode;
    p->index_numel = sk_tensor_numel(chk->index);
    if (!bwd) return sk_run_scatter(p, in_place ? NULL : x, deferred ? chk : NULL, nthreads);
    if (bwd->grad_src) /* grad_src's strides become the plan's aux strides */
        memcpy(p->aux_stride, grad_src_plan->dense_stride, sizeof p->aux_stride);
    return sk_run_scatter_backward(p, x, out, bwd->grad_out, bwd->grad_x, bwd->grad_src, nthreads);
}

static sk_status sk_cpu_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    sk_note_kernel("cpu/copy");
    sk_copy_unchecked(src, out, sk_threads_for(opts));
    return SK_STATUS_OK;
}

const sk_backend sk_cpu_backend = {
    .name = "cpu",
    .gather = sk_cpu_gather,
    .scatter = sk_cpu_scatter,
    .copy = sk_cpu_copy,
};
