/*
 * ref.h - plain reference implementations of every scatterkit operator and
 * its backward, used by the C tests as the oracle. Same arguments as the sk_
 * functions.
 *
 * Written for obviousness, not speed: every operator walks its iteration
 * space with coordinate loops (unravel a row-major linear index, compute the
 * element offset from the strides). Inputs are assumed valid apart from index
 * values: in SK_INDEX_MODE_ERROR an out-of-range index returns
 * SK_STATUS_INDEX_OUT_OF_RANGE before anything is written. The options
 * argument is ignored (the reference is serial).
 */
#ifndef SK_REF_H
#define SK_REF_H

#include "scatterkit.h"

#ifdef __cplusplus
extern "C" {
#endif

sk_status skref_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                       sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                       const sk_options *opts);
sk_status skref_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                            int32_t naxes, sk_index_mode mode, const sk_tensor *fill_value,
                            sk_tensor *out, const sk_options *opts);
sk_status skref_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                             sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                             const sk_options *opts);
sk_status skref_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                          sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                          const sk_options *opts);
sk_status skref_masked_select_count(const sk_tensor *x, const sk_tensor *mask, int64_t *count,
                                    const sk_options *opts);
sk_status skref_masked_select(const sk_tensor *x, const sk_tensor *mask, sk_tensor *out,
                              const sk_options *opts);

sk_status skref_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                        int32_t axis, sk_reduce reduce, bool include_self, sk_index_mode mode,
                        sk_tensor *out, const sk_options *opts);
sk_status skref_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                             const int32_t *axes, int32_t naxes, sk_reduce reduce,
                             bool include_self, sk_index_mode mode, sk_tensor *out,
                             const sk_options *opts);
sk_status skref_index_scatter(const sk_tensor *x, const sk_tensor *index,
                              const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                              bool include_self, sk_index_mode mode, sk_tensor *out,
                              const sk_options *opts);
sk_status skref_scatter_nd(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                           sk_reduce reduce, sk_index_mode mode, sk_tensor *out,
                           const sk_options *opts);
sk_status skref_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                              const int32_t *axes, const int64_t *starts, const int64_t *stops,
                              const int64_t *steps, sk_tensor *out, const sk_options *opts);
sk_status skref_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                                 int32_t axis1, int32_t axis2, sk_tensor *out,
                                 const sk_options *opts);
sk_status skref_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis,
                               int64_t index, sk_tensor *out, const sk_options *opts);
sk_status skref_masked_scatter(const sk_tensor *x, const sk_tensor *mask,
                               const sk_tensor *source, sk_tensor *out, const sk_options *opts);
/* out = src, src broadcast to out's shape. */
sk_status skref_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts);
sk_status skref_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                               const sk_tensor *write_indices, int32_t axis,
                               sk_tensor_scatter_mode mode, sk_tensor *out,
                               const sk_options *opts);
sk_status skref_bucketize(const sk_tensor *index, const sk_tensor *partition, sk_index_mode mode,
                          sk_tensor *counts, sk_tensor *perm, sk_tensor *local,
                          const sk_options *opts);

/* Backward (docs/CONTRACT.md, Backward; the rules in scatterkit.h). Sums and products
 * of several terms follow the canonical order (docs/CONTRACT.md); float16 and
 * bfloat16 compute in float32 and round once. */
sk_status skref_gather_backward(const sk_tensor *grad_out, const sk_tensor *index, int32_t axis,
                                sk_index_mode mode, sk_tensor *grad_x, const sk_options *opts);
sk_status skref_gather_axes_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                     const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                     sk_tensor *grad_x, const sk_options *opts);
sk_status skref_index_select_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                      int32_t axis, sk_index_mode mode, sk_tensor *grad_x,
                                      const sk_options *opts);
sk_status skref_gather_nd_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                   int32_t batch_dims, sk_index_mode mode, sk_tensor *grad_x,
                                   const sk_options *opts);
sk_status skref_masked_select_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                       sk_tensor *grad_x, const sk_options *opts);
sk_status skref_scatter_backward(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                 int32_t axis, sk_reduce reduce, bool include_self,
                                 sk_index_mode mode, const sk_tensor *out,
                                 const sk_tensor *grad_out, sk_tensor *grad_x,
                                 sk_tensor *grad_src, const sk_options *opts);
sk_status skref_scatter_axes_backward(const sk_tensor *x, const sk_tensor *index,
                                      const sk_tensor *src, const int32_t *axes, int32_t naxes,
                                      sk_reduce reduce, bool include_self, sk_index_mode mode,
                                      const sk_tensor *out, const sk_tensor *grad_out,
                                      sk_tensor *grad_x, sk_tensor *grad_src,
                                      const sk_options *opts);
sk_status skref_index_scatter_backward(const sk_tensor *x, const sk_tensor *index,
                                       const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                                       bool include_self, sk_index_mode mode,
                                       const sk_tensor *out, const sk_tensor *grad_out,
                                       sk_tensor *grad_x, sk_tensor *grad_updates,
                                       const sk_options *opts);
sk_status skref_scatter_nd_backward(const sk_tensor *x, const sk_tensor *index,
                                    const sk_tensor *updates, sk_reduce reduce,
                                    sk_index_mode mode, const sk_tensor *out,
                                    const sk_tensor *grad_out, sk_tensor *grad_x,
                                    sk_tensor *grad_updates, const sk_options *opts);
sk_status skref_slice_scatter_backward(const sk_tensor *grad_out, int32_t naxes,
                                       const int32_t *axes, const int64_t *starts,
                                       const int64_t *stops, const int64_t *steps,
                                       sk_tensor *grad_x, sk_tensor *grad_src,
                                       const sk_options *opts);
sk_status skref_diagonal_scatter_backward(const sk_tensor *grad_out, int64_t offset,
                                          int32_t axis1, int32_t axis2, sk_tensor *grad_x,
                                          sk_tensor *grad_src, const sk_options *opts);
sk_status skref_select_scatter_backward(const sk_tensor *grad_out, int32_t axis, int64_t index,
                                        sk_tensor *grad_x, sk_tensor *grad_src,
                                        const sk_options *opts);
sk_status skref_masked_scatter_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                        sk_tensor *grad_x, sk_tensor *grad_source,
                                        const sk_options *opts);
sk_status skref_tensor_scatter_backward(const sk_tensor *grad_out,
                                        const sk_tensor *write_indices, int32_t axis,
                                        sk_tensor_scatter_mode mode, sk_tensor *grad_cache,
                                        sk_tensor *grad_update, const sk_options *opts);

/* Python slice normalisation (slice.indices): start, step and the number of
 * elements of start:stop:step over an axis of size n. SK_SLICE_NONE is None.
 * Shared with the tests, which need the slice shape. */
void skref_slice_indices(int64_t n, int64_t start, int64_t stop, int64_t step,
                         int64_t *first, int64_t *count);
/* Length of numpy.diagonal(offset) over axes of sizes n1 (axis1), n2 (axis2). */
int64_t skref_diagonal_length(int64_t n1, int64_t n2, int64_t offset);

#ifdef __cplusplus
}
#endif
#endif /* SK_REF_H */
