/* The CUDA masked_scatter and masked_select: the count of True positions
 * (read back, waiting on the call's stream: the operator needs it on the
 * host to size masked_select's result and to check masked_scatter's source),
 * then the fill, which counts per tile again on the device and scans. The
 * backward's fills are the same two kinds (launch.c, sk_cuda_plan_mask). */
#include "cuda/cuda.h"

sk_status sk_cuda_mask_count(sk_mask_desc *d, const sk_exec *e, int64_t *ntrue) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->p.op, -1, d->p.index, e->opts);
    if (st == SK_STATUS_OK) {
        sk_cuda_mask_walk m;
        unsigned long long *total = NULL, n = 0;
        sk_cuda_plan_mask(d, &m);
        int err = sk_cuda_rt_alloc((void **)&total, sizeof *total, c.stream);
        if (!err) err = sk_cuda_launch_mask_total(&m, total, c.stream);
        if (!err) err = sk_cuda_rt_read(&n, total, sizeof n, c.stream);
        sk_cuda_rt_free(total, c.stream);
        st = sk_cuda_status(&c, err);
        *ntrue = (int64_t)n;
        d->total = m.numel;
    }
    sk_cuda_leave(&c);
    return st;
}

/* The fill of d on the call's stream; zero (8 zero bytes on the device)
 * stands for the backend's zero: zero_x, and grad_x's masked elements. */
static sk_status sk_cuda_mask_fill(const sk_cuda_call *c, sk_mask_desc *d, const void *zero) {
    sk_cuda_mask_walk m;
    sk_cuda_plan_mask(d, &m);
    if (d->zero_x) m.x = zero;
    if (d->kind == SK_MASK_GRAD_X) m.source = zero;
    sk_note_kernel(d->kind == SK_MASK_SCATTER || d->kind == SK_MASK_SELECT
                       ? "cuda/mask/scan_fill"
                       : "cuda/mask/backward");
    return sk_cuda_status(c, sk_cuda_launch_mask_fill(&m, c->stream));
}

sk_status sk_cuda_mask(sk_mask_desc *d, const sk_exec *e) {
    if (d->kind == SK_MASK_GRAD_SUM) /* the operator asks only the CPU (sk_dispatch_host_only) */
        return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
                       "%s: the backward with a broadcast x on cuda tensors is not implemented yet",
                       d->p.op);
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->p.op, -1, d->p.index, e->opts);
    void *zero = NULL;
    if (st == SK_STATUS_OK) {
        int err = sk_cuda_rt_alloc(&zero, 8, c.stream);
        if (!err) err = sk_cuda_rt_zero(zero, 8, c.stream);
        st = sk_cuda_status(&c, err);
    }
    if (st == SK_STATUS_OK && d->zero_first) st = sk_cuda_zero(&c, d->zero_first);
    if (st == SK_STATUS_OK) st = sk_cuda_mask_fill(&c, d, zero);
    sk_cuda_rt_free(zero, c.stream);
    sk_cuda_leave(&c);
    return st;
}
