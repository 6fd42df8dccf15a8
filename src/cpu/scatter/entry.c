/* The CPU backend's scatter entry: the forward through sk_run_scatter
 * (paths.c: pick the path, check the index values unless the path checks
 * them inline on a fresh out, run it), or the backward engine. */
#include "cpu/scatter/path.h"

sk_status sk_cpu_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                         const sk_tensor *x, const sk_tensor *out, const sk_backward_args *bwd,
                         const sk_options *opts) {
    int nthreads = sk_threads_for(opts);
    p->mode = chk->mode;
    if (!bwd) {
        sk_exec ex = {.nthreads = nthreads, .opts = opts, .out = out,
                      .index_numel = sk_tensor_numel(chk->index)};
        return sk_run_scatter(p, &ex, sk_same_layout(out, x) ? NULL : x, chk);
    }
    sk_status st = sk_check_values(chk, nthreads);
    if (st) return st;
    if (bwd->grad_src) /* grad_src's strides become the plan's aux strides */
        memcpy(p->aux_stride, grad_src_plan->dense_stride, sizeof p->aux_stride);
    return sk_run_scatter_backward(p, x, out, bwd->grad_out, bwd->grad_x, bwd->grad_src, nthreads);
}
