/* The CPU backend's table (its entries are in gather/entry.c, scatter/entry.c
 * and here). */
#include "backend.h"
#include "cpu/cpu.h"

/* The masked fills (mask.c), and masked_select's backward onto a broadcast
 * x by its own kernel (backward/mask_sum.c, which counts through mask.c). */
static sk_status sk_cpu_mask_kind(sk_mask_desc *d, const sk_exec *e) {
    return d->kind == SK_MASK_GRAD_SUM ? sk_cpu_mask_grad_sum(d, e) : sk_cpu_mask(d, e);
}

static sk_status sk_cpu_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    sk_copy_operator(src, out, sk_threads_for(opts));
    return SK_STATUS_OK;
}

const sk_backend sk_cpu_backend = {
    .name = "cpu",
    .gather = sk_cpu_gather,
    .scatter = sk_cpu_scatter,
    .copy = sk_cpu_copy,
    .view = sk_cpu_view,
    .mask_count = sk_cpu_mask_count,
    .mask = sk_cpu_mask_kind,
    .tensor_scatter = sk_cpu_tensor_scatter,
    .bucketize = sk_cpu_bucketize,
};
