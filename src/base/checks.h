/* Argument validators shared by every operator and device: they read
 * descriptors (shape, strides, dtype, device), never element data. */
#ifndef SK_CHECKS_H
#define SK_CHECKS_H

#include "base/base.h"

/* Checks a tensor argument: not NULL, valid dtype, ndim, non-negative shape,
 * a known device type, data not NULL when it has elements, byte extent fits. */
sk_status sk_check_tensor(const char *op, const char *arg, const sk_tensor *t);
/* Wraps a possibly negative axis into [0, ndim). */
sk_status sk_wrap_axis(const char *op, const char *arg, int64_t axis, int32_t ndim,
                       int32_t *wrapped);
/* Checks that index is int32/int64. */
sk_status sk_check_index_dtype(const char *op, const char *arg, const sk_tensor *index);
/* Checks that t has exactly the shape (ndim, shape). */
sk_status sk_check_shape(const char *op, const char *arg, const sk_tensor *t, int32_t ndim,
                         const int64_t *shape);
/* Checks that t has dtype `dtype` (the dtype of x). */
sk_status sk_check_same_dtype(const char *op, const char *arg, const sk_tensor *t,
                              sk_dtype dtype);
/* Checks out: shape == (ndim, shape), dtype, no internal overlap, and no
 * overlap with any of `inputs` (argument names in `names`, for the message)
 * except that out may be exactly `alias` (the in-place form; may be NULL). */
sk_status sk_check_out(const char *op, const sk_tensor *out, sk_dtype dtype, int32_t ndim,
                       const int64_t *shape, const sk_tensor *alias,
                       const sk_tensor *const *inputs, const char *const *names, int ninputs);
/* sk_check_out for a result argument of another name (grad_x, grad_src...). */
sk_status sk_check_out_as(const char *op, const char *arg, const sk_tensor *out, sk_dtype dtype,
                          int32_t ndim, const int64_t *shape, const sk_tensor *alias,
                          const sk_tensor *const *inputs, const char *const *names, int ninputs);
/* Checks that every non-NULL tensor of `inputs` is on t's device (type and
 * id): one device per call (docs/CONTRACT.md) (ValueError in Python). */
sk_status sk_check_same_device(const char *op, const char *arg, const sk_tensor *t,
                               const sk_tensor *const *inputs, const char *const *names,
                               int ninputs);
/* Parses a reduce / mode value and rejects what the operator cannot do. */
sk_status sk_check_reduce(const char *op, sk_reduce reduce, sk_dtype dtype);
sk_status sk_check_mode(const char *op, sk_index_mode mode, bool scatter_type);
sk_status sk_check_fill(const char *op, const sk_tensor *fill, sk_dtype dtype);

/* Checks that src broadcasts to (ndim, shape). */
sk_status sk_check_broadcast(const char *op, const char *arg, const sk_tensor *src, int32_t ndim,
                             const int64_t *shape);
/* Wraps a tuple of distinct axes. */
sk_status sk_wrap_axes(const char *op, const int32_t *axes, int32_t naxes, int32_t ndim,
                       int32_t *wrapped);
/* The axes of an element gather or scatter: wraps axes[0] (has_comp_dim
 * false: one axis) or the tuple of naxes axes, then checks that index has
 * x's dimensions, plus a last one of naxes components for a tuple. */
sk_status sk_wrap_index_axes(const char *op, const sk_tensor *x, const sk_tensor *index,
                             const int32_t *axes, int32_t naxes, bool has_comp_dim,
                             int32_t *wrapped);
/* grad_x: floating dtype, writable, not overlapping grad_out or index;
 * grad_out: grad_x's dtype and the forward result's shape (ndim, shape). */
sk_status sk_check_backward_args(const char *op, const sk_tensor *grad_out, int32_t ndim,
                                 const int64_t *shape, const sk_tensor *grad_x,
                                 const sk_tensor *index);
/* Checks the tensors of a scatter-type backward: out (forward result, needed
 * for prod/amax/amin) and grad_out with x's shape and dtype, grad_x with x's
 * shape, grad_src with src's shape, floating dtype, no overlaps. */
sk_status sk_check_scatter_backward_args(const char *op, const sk_tensor *x, const sk_tensor *src,
                                         const char *src_name, const sk_tensor *index,
                                         sk_reduce reduce,
                                         const sk_tensor *out, const sk_tensor *grad_out,
                                         const sk_tensor *grad_x, const sk_tensor *grad_src);

#endif /* SK_CHECKS_H */
