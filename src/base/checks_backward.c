/* Validation of the gradient arguments of the backward functions. */
#include "base/checks.h"

sk_status sk_check_backward_args(const char *op, const sk_tensor *grad_out, int32_t ndim,
                                 const int64_t *shape, const sk_tensor *grad_x,
                                 const sk_tensor *index) {
    sk_status st;
    if ((st = sk_check_tensor(op, "grad_out", grad_out))) return st;
    if (!sk_dtype_is_floating(grad_x->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(grad_x->dtype));
    if ((st = sk_check_same_dtype(op, "grad_out", grad_out, grad_x->dtype))) return st;
    if ((st = sk_check_shape(op, "grad_out", grad_out, ndim, shape))) return st;
    const sk_tensor *inputs[] = {grad_out, index};
    static const char *const names[] = {"grad_out", "index"};
    return sk_check_out_as(op, "grad_x", grad_x, grad_x->dtype, grad_x->ndim, grad_x->shape, NULL,
                           inputs, names, index ? 2 : 1);
}

static sk_status sk_check_like(const char *op, const char *arg, const sk_tensor *t,
                               const sk_tensor *like) {
    sk_status st;
    if ((st = sk_check_tensor(op, arg, t))) return st;
    if ((st = sk_check_same_dtype(op, arg, t, like->dtype))) return st;
    return sk_check_shape(op, arg, t, like->ndim, like->shape);
}

sk_status sk_check_scatter_backward_args(const char *op, const sk_tensor *x, const sk_tensor *src,
                                         const char *src_name, const sk_tensor *index,
                                         sk_reduce reduce,
                                         const sk_tensor *out, const sk_tensor *grad_out,
                                         const sk_tensor *grad_x, const sk_tensor *grad_src) {
    sk_status st;
    if (!sk_dtype_is_floating(x->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(x->dtype));
    if ((st = sk_check_like(op, "grad_out", grad_out, x))) return st;
    if (out || reduce == SK_REDUCE_AMAX || reduce == SK_REDUCE_AMIN) {
        if (!out)
            return sk_fail(SK_STATUS_NULL_POINTER,
                           "%s: out (the forward result) is needed for amax and amin", op);
        if ((st = sk_check_like(op, "out", out, x))) return st;
    }
    /* the operator's own names: src and grad_src, or updates and grad_updates */
    bool updates = strcmp(src_name, "updates") == 0;
    const char *grad_src_name = updates ? "grad_updates" : "grad_src";
    const sk_tensor *inputs[] = {x, index, src, out, grad_out, grad_x, grad_src};
    const char *const names[] = {"x",      "index",  src_name,     "out",
                                 "grad_out", "grad_x", grad_src_name};
    if (grad_x) {
        if ((st = sk_check_out_as(op, "grad_x", grad_x, x->dtype, x->ndim, x->shape, NULL, inputs,
                                  names, 5)))
            return st;
    }
    if (grad_src) {
        if ((st = sk_check_out_as(op, grad_src_name, grad_src, x->dtype, src->ndim, src->shape,
                                  NULL, inputs, names, 6)))
            return st;
    }
    return SK_STATUS_OK;
}
