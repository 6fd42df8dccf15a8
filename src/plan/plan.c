/* Building and normalising access plans. */
#include "plan/plan.h"

void sk_plan_init(sk_plan *p, const char *op, sk_dtype dtype) {
    memset(p, 0, sizeof *p);
    p->op = op;
    p->dtype = dtype;
    p->elem_size = sk_dtype_size(dtype);
}

void sk_plan_add_dim(sk_plan *p, int64_t size, int64_t dense_stride, int64_t target_stride,
                     int64_t linear_stride, int64_t index_stride) {
    int d = p->ndim++;
    p->shape[d] = size;
    p->dense_stride[d] = dense_stride;
    p->target_stride[d] = target_stride;
    p->linear_stride[d] = linear_stride;
    p->index_stride[d] = index_stride;
}

int64_t sk_plan_numel(const sk_plan *p) {
    return sk_numel(p->ndim, p->shape); /* a plan spans a shape the checks have seen fit */
}

void sk_plan_normalize(sk_plan *p) {
    int64_t *arrays[5] = {p->dense_stride, p->target_stride, p->linear_stride, p->index_stride,
                          p->aux_stride};
    if (sk_plan_numel(p) == 0) { /* nothing to iterate: one empty dimension says it all */
        p->ndim = 1;
        p->shape[0] = 0;
        return;
    }
    int n = 0;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] == 1) continue;
        if (n > 0) {
            /* merge d into the previous kept dimension when, in every stride
             * array, stepping the outer one equals a full sweep of the inner */
            bool merge = true;
            for (int a = 0; a < 5 && merge; a++) {
                int64_t sweep; /* a product that overflows sweeps past any stride */
                merge = !sk_mul_overflows(arrays[a][d], p->shape[d], &sweep) &&
                        arrays[a][n - 1] == sweep;
            }
            if (merge) {
                p->shape[n - 1] *= p->shape[d];
                for (int a = 0; a < 5; a++) arrays[a][n - 1] = arrays[a][d];
                continue;
            }
        }
        p->shape[n] = p->shape[d];
        for (int a = 0; a < 5; a++) arrays[a][n] = arrays[a][d];
        n++;
    }
    if (n == 0) { /* a single element */
        n = 1;
        p->shape[0] = 1;
        for (int a = 0; a < 5; a++) arrays[a][0] = 0;
    }
    p->ndim = n;
}

void sk_plan_gather_to_backward(sk_plan *p, const sk_plan *lin) {
    for (int d = 0; d < p->ndim; d++) p->linear_stride[d] = lin->target_stride[d];
    for (int k = 0; k < p->ncomp; k++) p->comp_linear_stride[k] = lin->comp_target_stride[k];
    if (p->mode == SK_INDEX_MODE_FILL) p->mode = SK_INDEX_MODE_DROP;
    p->fill = NULL;
    p->reduce = SK_REDUCE_SUM;
    p->include_self = true;
}
