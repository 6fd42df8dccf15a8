/* The CUDA view scatters (slice_scatter, diagonal_scatter, select_scatter):
 * out = x unless in place, then the view of out = src, two walks on the
 * call's stream, which orders them. */
#include "cuda/cuda.h"

sk_status sk_cuda_view(const sk_view_desc *d, const sk_exec *e) {
    if (d->backward) return sk_cuda_unsupported(d->op, "the backward");
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->op, d->out->device_id, NULL, e->opts);
    sk_plan p;
    if (st == SK_STATUS_OK && !sk_same_layout(d->out, d->x)) {
        sk_cuda_copy_plan(d->x, d->out, &p);
        st = sk_cuda_run_walk(&c, &p, NULL);
    }
    if (st == SK_STATUS_OK && sk_tensor_numel(&d->view) > 0) {
        sk_cuda_copy_plan(d->src, &d->view, &p);
        st = sk_cuda_run_walk(&c, &p, NULL);
    }
    if (st == SK_STATUS_OK) sk_note_kernel("cuda/view/copies");
    sk_cuda_leave(&c);
    return st;
}
