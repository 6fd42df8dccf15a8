/* The dispatch layer: operators (src/ops) hand validated plans to the
 * backend of their tensors' device. Only dispatch.c names a backend. */
#ifndef SK_DISPATCH_H
#define SK_DISPATCH_H

#include "backend.h"

/* The backend for a device type; NULL with SK_STATUS_UNSUPPORTED_DEVICE's
 * message set when this build has none. */
const sk_backend *sk_backend_for(const char *op, int32_t device_type);

/* The operators' one way down: see sk_backend for the arguments. The device
 * is that of the index (gather/scatter) or of out (copy). */
sk_status sk_dispatch_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                             sk_tensor *grad_x, const sk_options *opts);
sk_status sk_dispatch_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                              const sk_tensor *x, const sk_tensor *out,
                              const sk_backward_args *bwd, const sk_options *opts);
sk_status sk_dispatch_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts);

#endif /* SK_DISPATCH_H */
