/* The device-neutral description of tensor_scatter (ONNX TensorScatter) or
 * of its backward. For each batch b, update[b] goes into the cache's batch b
 * along axis from write_indices[b] on (circular: modulo the axis length). */
#ifndef SK_PLAN_TENSOR_SCATTER_H
#define SK_PLAN_TENSOR_SCATTER_H

#include "base/base.h"

typedef struct sk_tensor_scatter_desc {
    const char *op;
    bool backward;
    /* forward: out = cache, then the update written into out;
     * backward: update (grad_update) = the written part of cache (grad_out),
     * 0 elsewhere; out (grad_cache, may be NULL) = cache zeroed there */
    const sk_tensor *cache, *update, *write_indices; /* write_indices NULL: 0 for each batch */
    sk_tensor *out;
    sk_tensor *grad_update;                           /* backward: update, written */
    int32_t axis;                                     /* wrapped, not 0 */
    sk_tensor_scatter_mode mode;
} sk_tensor_scatter_desc;

#endif /* SK_PLAN_TENSOR_SCATTER_H */
