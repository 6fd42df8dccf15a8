/* The CUDA gather entry. mode="error": the values are validated first
 * (validate.c), nothing is written on an error. With a fresh out
 * (SK_OPTION_FRESH_OUT) the walk flags bad values itself and the
 * validation runs only when it did. clip and fill resolve values inside the
 * walk and never wait. The backward is a scatter-sum (scatter.c). */
#include "cuda/cuda.h"

/* The walk that checks the values itself (a fresh out and mode="error", as
 * on the CPU: SK_OPTION_FRESH_OUT): a bad value is written as 0 and flags
 * the call; only then does the validation run, to find the first one for
 * the message. x is never written; the fresh out is the caller's to drop. */
static sk_status sk_cuda_checked_walk(const sk_cuda_call *c, const sk_plan *p,
                                      const sk_index_check *chk) {
    unsigned int *flag = NULL, bad = 0;
    int err = sk_cuda_rt_alloc((void **)&flag, sizeof *flag, c->stream);
    if (!err) err = sk_cuda_rt_zero(flag, sizeof *flag, c->stream);
    sk_status st = sk_cuda_status(c, err);
    if (st == SK_STATUS_OK) st = sk_cuda_run_walk(c, p, flag);
    if (st == SK_STATUS_OK)
        st = sk_cuda_status(c, sk_cuda_rt_read(&bad, flag, sizeof bad, c->stream));
    sk_cuda_rt_free(flag, c->stream);
    return st == SK_STATUS_OK && bad ? sk_cuda_validate(c, chk) : st;
}

sk_status sk_cuda_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                         sk_tensor *grad_x, const sk_gather_args *args, const sk_options *opts) {
    (void)args;
    if (lin) return sk_cuda_gather_backward(p, lin, chk, grad_x, opts);
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, p->op, chk->index->device_id, NULL, opts);
    p->mode = chk->mode;
    bool checked = opts && (opts->flags & SK_OPTION_FRESH_OUT) &&
                   chk->mode == SK_INDEX_MODE_ERROR && sk_plan_numel(p) > 0;
    if (st == SK_STATUS_OK && !checked) st = sk_cuda_validate(&c, chk);
    if (st == SK_STATUS_OK) {
        sk_plan_normalize(p);
        st = checked ? sk_cuda_checked_walk(&c, p, chk) : sk_cuda_run_walk(&c, p, NULL);
    }
    sk_cuda_leave(&c);
    return st;
}
