/* The CPU backend's table (its entries are in gather/entry.c, scatter/entry.c
 * and here). */
#include "backend.h"
#include "cpu/cpu.h"

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
    .mask = sk_cpu_mask,
    .tensor_scatter = sk_cpu_tensor_scatter,
    .bucketize = sk_cpu_bucketize,
};
