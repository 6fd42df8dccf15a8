/* The CPU backend's scatter entry: check the index values (or let a kernel
 * that reads each value anyway check it), then run the plan forward or
 * backward. */
#include "cpu/cpu.h"

sk_status sk_cpu_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
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
