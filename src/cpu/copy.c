/* The CPU copy: a strided, broadcasting copy run as a gather with no index. */
#include "cpu/cpu.h"

/* The copy as the operator itself (sk_copy): a path the tests force
 * (sk_force_kernel) is the one tried. */
void sk_copy_operator(const sk_tensor *src, sk_tensor *out, int nthreads) {
    sk_plan p;
    sk_plan_init(&p, "copy", out->dtype);
    int32_t shift = out->ndim - src->ndim;
    for (int32_t d = 0; d < out->ndim; d++) {
        int32_t sd = d - shift;
        int64_t ss = (sd < 0 || src->shape[sd] == 1) ? 0 : src->strides[sd];
        sk_plan_add_dim(&p, out->shape[d], out->strides[d], ss, 0, 0);
    }
    p.dense = out->data;
    p.target = src->data;
    sk_plan_normalize(&p);
    sk_exec ex = {0};
    ex.nthreads = nthreads;
    ex.stream = sk_tensor_numel(out) * (int64_t)sk_dtype_size(out->dtype) >= SK_STREAM_MIN_BYTES;
    sk_run_gather(&p, &ex);
}

void sk_copy_unchecked(const sk_tensor *src, sk_tensor *out, int nthreads) {
    /* a copy inside another operator: sk_last_kernel() keeps naming that
     * operator's path, and a path the tests force is that operator's */
    const char *noted = sk_last_kernel(), *forced = sk_forced_kernel();
    sk_force_kernel(NULL);
    sk_copy_operator(src, out, nthreads);
    sk_force_kernel(forced);
    if (noted[0]) sk_note_kernel(noted);
}
