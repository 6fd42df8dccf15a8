/* The CPU backend's gather entry: check the index values (or let a kernel
 * that reads each value anyway check it), then run the plan. */
#include "cpu/cpu.h"

sk_status sk_cpu_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
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
