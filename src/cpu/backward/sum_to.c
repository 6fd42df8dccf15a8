/* Sums onto a broadcast shape, the zero scalar and the gather backward:
 * scatter-sums (without an index, or with the gather's), run by the scatter
 * engine into a zeroed result. */
#include "cpu/cpu.h"

sk_tensor sk_zero_scalar(sk_dtype dtype) {
    static const uint64_t zero = 0;
    sk_tensor t;
    sk_tensor_init(&t, (void *)&zero, dtype, 0, NULL, NULL);
    return t;
}

sk_status sk_run_gather_backward(sk_plan *p, const sk_plan *lin, sk_tensor *grad_x,
                                 const sk_exec *ex) {
    sk_plan_gather_to_backward(p, lin);
    sk_exec run = *ex;
    run.out = grad_x;
    run.invalid = NULL;
    sk_tensor zero = sk_zero_scalar(grad_x->dtype);
    return sk_run_scatter(p, &run, &zero, NULL);
}

sk_status sk_sum_to(const sk_tensor *big, sk_tensor *dst, int nthreads) {
    bool same = big->ndim == dst->ndim;
    for (int32_t d = 0; same && d < dst->ndim; d++) same = big->shape[d] == dst->shape[d];
    if (same) {
        sk_copy_unchecked(big, dst, nthreads);
        return SK_STATUS_OK;
    }
    /* dst[t] = sum of big over every position that broadcasts onto t: a
     * scatter-sum without index components */
    int64_t lin[SK_MAX_DIMS];
    sk_linear_strides(dst->ndim, dst->shape, lin);
    sk_plan p;
    sk_plan_init(&p, "sum_to", dst->dtype);
    int32_t shift = big->ndim - dst->ndim;
    for (int32_t d = 0; d < big->ndim; d++) {
        int32_t dd = d - shift;
        bool direct = dd >= 0 && dst->shape[dd] != 1;
        sk_plan_add_dim(&p, big->shape[d], big->strides[d], direct ? dst->strides[dd] : 0,
                        direct ? lin[dd] : 0, 0);
    }
    p.dense = big->data;
    p.target = dst->data;
    p.reduce = SK_REDUCE_SUM;
    p.include_self = true;
    sk_exec ex = {.nthreads = nthreads, .out = dst};
    sk_tensor zero = sk_zero_scalar(dst->dtype);
    return sk_run_scatter(&p, &ex, &zero, NULL);
}
