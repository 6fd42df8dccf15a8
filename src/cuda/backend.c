/* The CUDA backend's table, its call guard (the tensors' device made
 * current, the caller's stream), CUDA errors as statuses, and the copy. */
#include "cuda/cuda.h"

sk_status sk_cuda_status(const sk_cuda_call *c, int err) {
    if (err == 0) return SK_STATUS_OK;
    if (sk_cuda_rt_is_oom(err))
        return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of GPU memory", c->op);
    if (sk_cuda_rt_is_no_device(err))
        return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE, "%s: no usable CUDA device (%s)", c->op,
                       sk_cuda_rt_error_string(err));
    return sk_fail(SK_STATUS_INTERNAL, "%s: CUDA error: %s", c->op, sk_cuda_rt_error_string(err));
}

sk_status sk_cuda_enter(sk_cuda_call *c, const char *op, int32_t device, const void *ptr,
                        const sk_options *opts) {
    c->op = op;
    c->stream = opts ? opts->stream : NULL;
    c->previous_device = -1;
    int dev = device, err = device >= 0 ? 0 : sk_cuda_rt_device_of(ptr, &dev);
    if (!err) err = sk_cuda_rt_set_device(dev, &c->previous_device);
    if (err) c->previous_device = -1;
    return sk_cuda_status(c, err);
}

void sk_cuda_leave(const sk_cuda_call *c) {
    if (c->previous_device >= 0) sk_cuda_rt_restore_device(c->previous_device);
}

sk_status sk_cuda_unsupported(const char *op, const char *what) {
    return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
                   "%s: %s on CUDA tensors is not implemented yet (docs/GPU.md lists what is)", op,
                   what);
}

sk_status sk_cuda_run_walk(const sk_cuda_call *c, const sk_plan *p, unsigned int *invalid) {
    sk_cuda_walk w;
    sk_cuda_plan_walk(p, &w);
    w.invalid = invalid;
    sk_note_kernel(w.scheme == SK_CUDA_ROWS ? "cuda/walk/rows" : "cuda/walk/elements");
    return sk_cuda_status(c, sk_cuda_launch_walk(&w, c->stream));
}

sk_status sk_cuda_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, "copy", out->device_id, NULL, opts);
    if (st == SK_STATUS_OK) {
        sk_plan p;
        sk_cuda_copy_plan(src, out, &p);
        st = sk_cuda_run_walk(&c, &p, NULL);
    }
    sk_cuda_leave(&c);
    return st;
}

const sk_backend sk_cuda_backend = {
    .name = "cuda",
    .gather = sk_cuda_gather,
    .scatter = sk_cuda_scatter,
    .copy = sk_cuda_copy,
    .view = sk_cuda_view,
    .mask_count = sk_cuda_mask_count,
    .mask = sk_cuda_mask,
    .tensor_scatter = sk_cuda_tensor_scatter,
};
