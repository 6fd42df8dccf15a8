/* The CUDA backend's host side: the entries of its sk_backend table, the
 * planning that turns the device-neutral plans into kernel parameters
 * (launch.c: plain C, tested on the CPU) and the call guard. */
#ifndef SK_CUDA_H
#define SK_CUDA_H

#include "backend.h"
#include "cuda/kernels.h"
#include "cuda/segments.h"

/* ---- planning (launch.c): no CUDA call, no device memory touched ---- */
/* The walk of a normalised plan p (gather-type or copy), scheme and launch
 * geometry included. */
void sk_cuda_plan_walk(const sk_plan *p, sk_cuda_walk *w);
/* The validation of c's index values. */
void sk_cuda_plan_check(const sk_index_check *c, sk_cuda_check *k);
/* The coordinates in the index (ndim of them) of scanned position pos of k. */
void sk_cuda_check_coords(const sk_cuda_check *k, int64_t pos, int32_t ndim, int64_t *coord);
/* The plan of out = src (src broadcasting to out's shape), normalised. */
void sk_cuda_copy_plan(const sk_tensor *src, const sk_tensor *out, sk_plan *p);
/* The kernel description of a counted mask descriptor. */
void sk_cuda_plan_mask(const sk_mask_desc *d, sk_cuda_mask_walk *m);
/* The kernel description of tensor_scatter's forward write. */
void sk_cuda_plan_ts(const sk_tensor_scatter_desc *d, sk_cuda_ts *t);
/* The segment scheme's description of a normalised scatter plan p whose
 * targets are the `targets` elements of out in row-major order (scatter.c). */
void sk_cuda_plan_seg(const sk_plan *p, int64_t targets, sk_cuda_seg *s);
/* Coordinates as "1, 2, 0". */
void sk_cuda_format_coords(char *buf, size_t size, int32_t ndim, const int64_t *coord);

/* ---- the call guard (backend.c) ---- */
typedef struct sk_cuda_call {
    const char *op;
    void *stream;
    int previous_device;
} sk_cuda_call;

/* Makes `device` current for the call (restored by sk_cuda_leave); -1:
 * the device of the memory at ptr (descriptors that carry no tensor). */
sk_status sk_cuda_enter(sk_cuda_call *c, const char *op, int32_t device, const void *ptr,
                        const sk_options *opts);
void sk_cuda_leave(const sk_cuda_call *c);
/* The status of a CUDA error code (0: SK_STATUS_OK), with the message set. */
sk_status sk_cuda_status(const sk_cuda_call *c, int err);
/* What this backend does not run yet. */
sk_status sk_cuda_unsupported(const char *op, const char *what);
/* Enqueues the walk of p and reports a launch error; invalid (device, may
 * be NULL): set by a bad value in ERROR mode instead of a prior check. */
sk_status sk_cuda_run_walk(const sk_cuda_call *c, const sk_plan *p, unsigned int *invalid);

/* The index values of c checked before anything is written (validate.c):
 * mode="error" waits for the call's stream to learn the first bad one. */
sk_status sk_cuda_validate(const sk_cuda_call *call, const sk_index_check *c);

/* Every element of t = 0 (scatter.c). */
sk_status sk_cuda_zero(const sk_cuda_call *c, const sk_tensor *t);
/* dst = big summed onto dst's shape (big broadcasts from dst), in the
 * canonical order; a copy when the shapes agree (scatter.c). */
sk_status sk_cuda_sum_to(const sk_cuda_call *c, const sk_tensor *big, sk_tensor *dst);

/* ---- entries ---- */
sk_status sk_cuda_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                         sk_tensor *grad_x, const sk_gather_args *args, const sk_options *opts);
sk_status sk_cuda_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                          const sk_tensor *x, const sk_tensor *out, const sk_backward_args *bwd,
                          const sk_options *opts);
/* The gather-type backward: a scatter-sum into a zeroed grad_x (scatter.c). */
sk_status sk_cuda_gather_backward(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                                  sk_tensor *grad_x, const sk_options *opts);
sk_status sk_cuda_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts);
sk_status sk_cuda_view(const sk_view_desc *d, const sk_exec *e);
sk_status sk_cuda_mask_count(sk_mask_desc *d, const sk_exec *e, int64_t *ntrue);
sk_status sk_cuda_mask(sk_mask_desc *d, const sk_exec *e);
sk_status sk_cuda_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_exec *e);

#endif /* SK_CUDA_H */
