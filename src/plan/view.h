/* The device-neutral description of a view scatter (slice_scatter,
 * diagonal_scatter, select_scatter) or of its backward: the tensors and the
 * strided views that src/ops built over them. */
#ifndef SK_PLAN_VIEW_H
#define SK_PLAN_VIEW_H

#include "base/base.h"

typedef struct sk_view_desc {
    const char *op;
    bool backward;
    /* forward: out = x, then view = src (src broadcasting to the view's shape);
     * backward: out (grad_x, may be NULL) = x (grad_out) with view zeroed */
    const sk_tensor *x, *src;
    sk_tensor *out;
    sk_tensor view; /* a view of out */
    /* backward: grad_src (may be NULL) = grad_view, the view of grad_out,
     * summed over the dimensions along which src was broadcast */
    sk_tensor *grad_src;
    sk_tensor grad_view;
} sk_view_desc;

#endif /* SK_PLAN_VIEW_H */
