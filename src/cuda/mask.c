/* The CUDA masked_scatter and masked_select: the count of True positions
 * (read back, waiting on the call's stream: the operator needs it on the
 * host to size masked_select's result and to check masked_scatter's source),
 * then the fill, which counts per tile again on the device and scans. */
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

sk_status sk_cuda_mask(sk_mask_desc *d, const sk_exec *e) {
    bool forward = (d->kind == SK_MASK_SCATTER && !d->zero_x && !d->sum_into) ||
                   d->kind == SK_MASK_SELECT;
    if (!forward) return sk_cuda_unsupported(d->p.op, "the backward");
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, d->p.op, -1, d->p.index, e->opts);
    if (st == SK_STATUS_OK) {
        sk_cuda_mask_walk m;
        sk_cuda_plan_mask(d, &m);
        sk_note_kernel("cuda/mask/scan_fill");
        st = sk_cuda_status(&c, sk_cuda_launch_mask_fill(&m, c.stream));
    }
    sk_cuda_leave(&c);
    return st;
}
