/* The plan of a gather along axes. */
#include "plan/plan.h"

void sk_gather_plan(sk_plan *p, const char *op, const sk_gather_args *a) {
    const sk_tensor *x = a->x, *index = a->index, *out = a->out;
    sk_plan_init(p, op, x->dtype);
    for (int32_t d = 0; d < x->ndim; d++) {
        bool indexed = false;
        for (int32_t k = 0; k < a->naxes; k++) indexed |= a->axes[k] == d;
        sk_plan_add_dim(p, index->shape[d], out->strides[d], indexed ? 0 : x->strides[d], 0,
                        index->strides[d]);
    }
    p->ncomp = a->naxes;
    p->comp_stride = a->has_comp_dim ? index->strides[x->ndim] : 0;
    for (int32_t k = 0; k < a->naxes; k++) {
        p->comp_size[k] = sk_axis_size(x, a->axes[k]);
        p->comp_target_stride[k] = sk_axis_stride(x, a->axes[k]);
    }
    p->dense = out->data;
    p->target = x->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}
