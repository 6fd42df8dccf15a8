/* The dispatch layer: operators (src/ops) hand validated plans to the
 * backend of their tensors' device. Only dispatch.c names a backend. */
#ifndef SK_DISPATCH_H
#define SK_DISPATCH_H

#include "backend.h"

/* The backend for a device type; NULL with SK_STATUS_UNSUPPORTED_DEVICE's
 * message set when this build has none. */
const sk_backend *sk_backend_for(const char *op, int32_t device_type);

/* OK where t's device keeps its data in host memory (the CPU), for an
 * operator that works on buffers of its own; else
 * SK_STATUS_UNSUPPORTED_DEVICE, naming `what` as not implemented on that
 * device yet. */
sk_status sk_dispatch_host_only(const char *op, const sk_tensor *t, const char *what);

/* The operators' one way down: see sk_backend for the arguments. The device
 * is that of the index (gather/scatter) or of out (copy). */
sk_status sk_dispatch_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                             sk_tensor *grad_x, const sk_gather_args *args,
                             const sk_options *opts);
sk_status sk_dispatch_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                              const sk_tensor *x, const sk_tensor *out,
                              const sk_backward_args *bwd, const sk_options *opts);
sk_status sk_dispatch_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts);
/* The operators without an index: the device is that of the tensor written
 * (out, grad_out's gradient) or read (the mask). */
sk_status sk_dispatch_view(const sk_view_desc *d, const sk_options *opts);
sk_status sk_dispatch_mask_count(sk_mask_desc *d, const sk_tensor *mask, const sk_options *opts,
                                 int64_t *ntrue);
sk_status sk_dispatch_mask(sk_mask_desc *d, const sk_tensor *mask, const sk_options *opts);
sk_status sk_dispatch_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_options *opts);
/* The device is that of the index. */
sk_status sk_dispatch_bucketize(const sk_bucket_desc *d, const sk_options *opts);

#endif /* SK_DISPATCH_H */
