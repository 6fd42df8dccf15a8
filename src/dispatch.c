/* The backend table, keyed by device type. */
#include "dispatch.h"

extern const sk_backend sk_cpu_backend;
#ifdef SK_HAVE_CUDA
extern const sk_backend sk_cuda_backend; /* src/cuda/, built with -DSK_CUDA=ON */
#endif

const sk_backend *sk_backend_for(const char *op, int32_t device_type) {
    switch (device_type) {
    case SK_DEVICE_CPU: return &sk_cpu_backend;
#ifdef SK_HAVE_CUDA
    case SK_DEVICE_CUDA: return &sk_cuda_backend;
#endif
    default: break;
    }
#ifdef SK_HAVE_CUDA
    sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
            "%s: tensors on device type %d are not supported by this build (CPU and CUDA)", op,
            (int)device_type);
#else
    sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
            "%s: tensors on device type %d are not supported by this build (CPU only)", op,
            (int)device_type);
#endif
    return NULL;
}

sk_status sk_dispatch_host_only(const char *op, const sk_tensor *t, const char *what) {
    const sk_backend *b = sk_backend_for(op, t->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    if (b == &sk_cpu_backend) return SK_STATUS_OK;
    return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
                   "%s: %s on %s tensors is not implemented yet (docs/GPU.md lists what is)", op,
                   what, b->name);
}

sk_status sk_dispatch_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                             sk_tensor *grad_x, const sk_gather_args *args,
                             const sk_options *opts) {
    const sk_backend *b = sk_backend_for(p->op, chk->index->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_note_kernel("");
    return b->gather(p, lin, chk, grad_x, args, opts);
}

sk_status sk_dispatch_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                              const sk_tensor *x, const sk_tensor *out,
                              const sk_backward_args *bwd, const sk_options *opts) {
    const sk_backend *b = sk_backend_for(p->op, chk->index->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_note_kernel("");
    return b->scatter(p, grad_src_plan, chk, x, out, bwd, opts);
}

sk_status sk_dispatch_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    const sk_backend *b = sk_backend_for("copy", out->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_note_kernel("");
    return b->copy(src, out, opts);
}

/* The run-time state of a call from its options (threads: the backend's rule). */
static sk_exec sk_exec_of(const sk_options *opts) {
    sk_exec e;
    memset(&e, 0, sizeof e);
    e.opts = opts;
    return e;
}

sk_status sk_dispatch_view(const sk_view_desc *d, const sk_options *opts) {
    const sk_backend *b = sk_backend_for(d->op, d->x->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_exec e = sk_exec_of(opts);
    sk_note_kernel("");
    return b->view(d, &e);
}

sk_status sk_dispatch_mask_count(sk_mask_desc *d, const sk_tensor *mask, const sk_options *opts,
                                 int64_t *ntrue) {
    const sk_backend *b = sk_backend_for(d->p.op, mask->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_exec e = sk_exec_of(opts);
    sk_note_kernel("");
    return b->mask_count(d, &e, ntrue);
}

sk_status sk_dispatch_mask(sk_mask_desc *d, const sk_tensor *mask, const sk_options *opts) {
    const sk_backend *b = sk_backend_for(d->p.op, mask->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_exec e = sk_exec_of(opts);
    sk_note_kernel("");
    return b->mask(d, &e);
}

sk_status sk_dispatch_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_options *opts) {
    const sk_backend *b = sk_backend_for(d->op, d->cache->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    sk_exec e = sk_exec_of(opts);
    sk_note_kernel("");
    return b->tensor_scatter(d, &e);
}

sk_status sk_dispatch_bucketize(const sk_bucket_desc *d, const sk_options *opts) {
    const sk_backend *b = sk_backend_for(d->op, d->index->device_type);
    if (!b) return SK_STATUS_UNSUPPORTED_DEVICE;
    if (!b->bucketize)
        return sk_fail(SK_STATUS_UNSUPPORTED_DEVICE,
                       "%s: the %s backend has no bucketing; bucket a CPU copy of the index", d->op,
                       b->name);
    sk_exec e = sk_exec_of(opts);
    sk_note_kernel("");
    return b->bucketize(d, &e);
}
