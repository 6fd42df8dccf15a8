/* The CUDA view scatters (slice_scatter, diagonal_scatter, select_scatter):
 * out = x unless in place, then the view of out = src, two walks on the
 * call's stream, which orders them. The backward as the CPU's: grad_src =
 * the view of grad_out summed onto src's shape, grad_x = grad_out with the
 * view zeroed. */
#include "cuda/cuda.h"

static sk_status sk_cuda_view_backward(const sk_cuda_call *c, const sk_view_desc *d) {
    sk_status st = SK_STATUS_OK;
    if (d->grad_src) st = sk_cuda_sum_to(c, &d->grad_view, d->grad_src);
    if (st == SK_STATUS_OK && d->out) {
        sk_plan p;
        sk_cuda_copy_plan(d->x, d->out, &p);
        st = sk_cuda_run_walk(c, &p, NULL);
        if (st == SK_STATUS_OK && sk_tensor_numel(&d->view) > 0) st = sk_cuda_zero(c, &d->view);
    }
    if (st == SK_STATUS_OK) sk_note_kernel("cuda/view/backward");
    return st;
}

static sk_status sk_cuda_view_forward(const sk_cuda_call *c, const sk_view_desc *d) {
    sk_plan p;
    sk_status st = SK_STATUS_OK;
    if (!sk_same_layout(d->out, d->x)) {
        sk_cuda_copy_plan(d->x, d->out, &p);
        st = sk_cuda_run_walk(c, &p, NULL);
    }
    if (st == SK_STATUS_OK && sk_tensor_numel(&d->view) > 0) {
        sk_cuda_copy_plan(d->src, &d->view, &p);
        st = sk_cuda_run_walk(c, &p, NULL);
    }
    if (st == SK_STATUS_OK) sk_note_kernel("cuda/view/copies");
    return st;
}

sk_status sk_cuda_view(const sk_view_desc *d, const sk_exec *e) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->op, d->x->device_id, NULL, e->opts);
    if (st == SK_STATUS_OK)
        st = d->backward ? sk_cuda_view_backward(&c, d) : sk_cuda_view_forward(&c, d);
    sk_cuda_leave(&c);
    return st;
}
