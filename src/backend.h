/* The interface every device backend implements: one table of entry points
 * per device (src/cpu/, and src/cuda/ when built with CUDA). The plans and
 * the index specification come from src/ops, already validated; a backend
 * checks the index values itself before it writes anything. */
#ifndef SK_BACKEND_H
#define SK_BACKEND_H

#include "plan/bucket.h"
#include "plan/exec.h"
#include "plan/mask.h"
#include "plan/plan.h"
#include "plan/tensor_scatter.h"
#include "plan/view.h"

typedef struct sk_backend {
    const char *name;
    /* Gather-type: runs p forward into its dense operand, or, when `lin`
     * (the plan built over sk_row_major_like(grad_x)) is given, backward
     * into grad_x. `args` (NULL for other gather-type operators) are the
     * operands p was built over (sk_gather_plan): a backend may rebuild the
     * plan over copies of them in another layout. */
    sk_status (*gather)(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                        sk_tensor *grad_x, const sk_gather_args *args, const sk_options *opts);
    /* Scatter-type: runs p forward (bwd == NULL; out = x first unless in
     * place) or backward; grad_src_plan is the same plan built over grad_src
     * (its dense strides locate grad_src). */
    sk_status (*scatter)(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                         const sk_tensor *x, const sk_tensor *out, const sk_backward_args *bwd,
                         const sk_options *opts);
    /* out = src, src broadcasting to out's shape. */
    sk_status (*copy)(const sk_tensor *src, sk_tensor *out, const sk_options *opts);
    /* A view scatter forward or backward (sk_view_desc). */
    sk_status (*view)(const sk_view_desc *d, const sk_exec *e);
    /* The True positions of d's mask into *ntrue, and per chunk into d (for
     * the fill that may follow: mask). */
    sk_status (*mask_count)(sk_mask_desc *d, const sk_exec *e, int64_t *ntrue);
    /* The fill of d->kind over the chunks of the last mask_count of d. */
    sk_status (*mask)(sk_mask_desc *d, const sk_exec *e);
    /* tensor_scatter forward or backward; checks the write indices first. */
    sk_status (*tensor_scatter)(const sk_tensor_scatter_desc *d, const sk_exec *e);
    /* sk_bucketize: checks the partition and the index values, then writes
     * counts, perm and local (NULL: the device has none). */
    sk_status (*bucketize)(const sk_bucket_desc *d, const sk_exec *e);
} sk_backend;

#endif /* SK_BACKEND_H */
