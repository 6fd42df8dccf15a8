/* sk_copy: a strided (and broadcasting) copy; contiguous pairs are memcpy. */
#include "ops/ops.h"

sk_status sk_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    sk_status st;
    if ((st = sk_check_tensor("copy", "src", src))) return st;
    if ((st = sk_check_tensor("copy", "out", out))) return st;
    if ((st = sk_check_same_dtype("copy", "src", src, out->dtype))) return st;
    if ((st = sk_check_broadcast("copy", "src", src, out->ndim, out->shape))) return st;
    if (sk_same_layout(src, out)) return SK_STATUS_OK;
    const sk_tensor *inputs[] = {src};
    static const char *const names[] = {"src"};
    if ((st = sk_check_out("copy", out, out->dtype, out->ndim, out->shape, NULL, inputs, names, 1)))
        return st;
    return sk_dispatch_copy(src, out, opts);
}
