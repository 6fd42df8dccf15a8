/*
 * ref_backward.c - the backward of every operator (docs/CONTRACT.md, Backward): the
 * forward's own update list, turned into gradients by ref_grad.c.
 * Gradient outputs other than the gather-type grad_x may be NULL.
 */
#include "ref_grad.h"

#include <stdlib.h>

sk_status skref_gather_backward(const sk_tensor *grad_out, const sk_tensor *index, int32_t axis,
                                sk_index_mode mode, sk_tensor *grad_x, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather(grad_x, index, axis, mode, &u);
    return ref_gather_grads(grad_out, grad_x, &u, st);
}

sk_status skref_gather_axes_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                     const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                     sk_tensor *grad_x, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather_axes(grad_x, index, axes, naxes, mode, grad_out, &u);
    return ref_gather_grads(grad_out, grad_x, &u, st);
}

sk_status skref_index_select_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                      int32_t axis, sk_index_mode mode, sk_tensor *grad_x,
                                      const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_index_select(grad_x, index, axis, mode, grad_out, &u);
    return ref_gather_grads(grad_out, grad_x, &u, st);
}

sk_status skref_gather_nd_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                   int32_t batch_dims, sk_index_mode mode, sk_tensor *grad_x,
                                   const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather_nd(grad_x, index, batch_dims, mode, grad_out, &u);
    return ref_gather_grads(grad_out, grad_x, &u, st);
}

/* x may have been broadcast against mask: the forward read the broadcast
 * shape, whose True positions are listed (slot: position in it, target: the
 * x element it broadcast from), grad_out's values at them: the contributors
 * of each x element, in order (a False position contributes nothing). */
sk_status skref_masked_select_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                       sk_tensor *grad_x, const sk_options *opts) {
    (void)opts;
    int32_t nd = grad_x->ndim > mask->ndim ? grad_x->ndim : mask->ndim;
    int32_t lead = nd - grad_x->ndim;
    int64_t shape[SK_MAX_DIMS], p[SK_MAX_DIMS], c[SK_MAX_DIMS], k = 0;
    for (int32_t d = 0; d < nd; d++) {
        int64_t a = d >= lead ? grad_x->shape[d - lead] : 1;
        int64_t b = d >= nd - mask->ndim ? mask->shape[d - (nd - mask->ndim)] : 1;
        shape[d] = a == 1 ? b : a;
    }
    int64_t n = ref_numel(nd, shape);
    double *full = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    ref_updates u = {0};
    sk_status st = full ? SK_STATUS_OK : SK_STATUS_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, nd, shape, p);
        full[i] = 0.0;
        if (!ref_mask_at(mask, nd, p)) continue;
        full[i] = ref_load_f(grad_out->dtype, ref_at(grad_out, &k)); /* grad_out[k] */
        k++;
        for (int32_t d = 0; d < grad_x->ndim; d++) c[d] = grad_x->shape[d] == 1 ? 0 : p[d + lead];
        if (!ref_push(&u, ref_ravel(grad_x->ndim, grad_x->shape, c), i))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    double *tmp = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (st == SK_STATUS_OK && !tmp) st = SK_STATUS_OUT_OF_MEMORY;
    if (st == SK_STATUS_OK) {
        ref_sort_by_target(&u);
        ref_fold_groups(grad_x, &u, false, full, 0.0, tmp); /* into zeros: start +0.0 */
    }
    free(full);
    free(tmp);
    ref_updates_free(&u);
    return st;
}

sk_status skref_scatter_backward(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                 int32_t axis, sk_reduce reduce, bool include_self,
                                 sk_index_mode mode, const sk_tensor *out,
                                 const sk_tensor *grad_out, sk_tensor *grad_x,
                                 sk_tensor *grad_src, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter(x, index, src, axis, mode, &u);
    ref_grad_args a = {x, src, out, grad_out, grad_x, grad_src, reduce, include_self};
    return ref_scatter_grads(&a, &u, st);
}

sk_status skref_scatter_axes_backward(const sk_tensor *x, const sk_tensor *index,
                                      const sk_tensor *src, const int32_t *axes, int32_t naxes,
                                      sk_reduce reduce, bool include_self, sk_index_mode mode,
                                      const sk_tensor *out, const sk_tensor *grad_out,
                                      sk_tensor *grad_x, sk_tensor *grad_src,
                                      const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter_axes(x, index, src, axes, naxes, mode, &u);
    ref_grad_args a = {x, src, out, grad_out, grad_x, grad_src, reduce, include_self};
    return ref_scatter_grads(&a, &u, st);
}

sk_status skref_index_scatter_backward(const sk_tensor *x, const sk_tensor *index,
                                       const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                                       bool include_self, sk_index_mode mode,
                                       const sk_tensor *out, const sk_tensor *grad_out,
                                       sk_tensor *grad_x, sk_tensor *grad_updates,
                                       const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_index_scatter(x, index, updates, axis, mode, &u);
    ref_grad_args a = {x, updates, out, grad_out, grad_x, grad_updates, reduce, include_self};
    return ref_scatter_grads(&a, &u, st);
}

sk_status skref_scatter_nd_backward(const sk_tensor *x, const sk_tensor *index,
                                    const sk_tensor *updates, sk_reduce reduce,
                                    sk_index_mode mode, const sk_tensor *out,
                                    const sk_tensor *grad_out, sk_tensor *grad_x,
                                    sk_tensor *grad_updates, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter_nd(x, index, updates, mode, &u);
    /* x always takes part (see skref_scatter_nd) */
    ref_grad_args a = {x, updates, out, grad_out, grad_x, grad_updates, reduce, true};
    return ref_scatter_grads(&a, &u, st);
}

/* The views and tensor_scatter assign: the gradient of an update is
 * grad_out at its target when it is the last to write there. */
static sk_status ref_assign_grads(const sk_tensor *grad_out, sk_tensor *grad_x,
                                  sk_tensor *grad_src, ref_updates *u, sk_status st) {
    ref_grad_args a = {NULL, NULL, NULL, grad_out, grad_x, grad_src, SK_REDUCE_NONE, true};
    return ref_scatter_grads(&a, u, st);
}

sk_status skref_slice_scatter_backward(const sk_tensor *grad_out, int32_t naxes,
                                       const int32_t *axes, const int64_t *starts,
                                       const int64_t *stops, const int64_t *steps,
                                       sk_tensor *grad_x, sk_tensor *grad_src,
                                       const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st =
        ref_list_slice_scatter(grad_out, grad_src, naxes, axes, starts, stops, steps, &u);
    return ref_assign_grads(grad_out, grad_x, grad_src, &u, st);
}

sk_status skref_diagonal_scatter_backward(const sk_tensor *grad_out, int64_t offset,
                                          int32_t axis1, int32_t axis2, sk_tensor *grad_x,
                                          sk_tensor *grad_src, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_diagonal_scatter(grad_out, offset, axis1, axis2, &u);
    return ref_assign_grads(grad_out, grad_x, grad_src, &u, st);
}

sk_status skref_select_scatter_backward(const sk_tensor *grad_out, int32_t axis, int64_t index,
                                        sk_tensor *grad_x, sk_tensor *grad_src,
                                        const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_select_scatter(grad_out, axis, index, &u);
    return ref_assign_grads(grad_out, grad_x, grad_src, &u, st);
}

/* grad_source elements past the number of True positions were not read: 0. */
sk_status skref_masked_scatter_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                        sk_tensor *grad_x, sk_tensor *grad_source,
                                        const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_masked_scatter(grad_out, mask, &u);
    return ref_assign_grads(grad_out, grad_x, grad_source, &u, st);
}

/* A circular update longer than the axis: its earlier elements are
 * overwritten by later ones and get 0. */
sk_status skref_tensor_scatter_backward(const sk_tensor *grad_out,
                                        const sk_tensor *write_indices, int32_t axis,
                                        sk_tensor_scatter_mode mode, sk_tensor *grad_cache,
                                        sk_tensor *grad_update, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_tensor_scatter(grad_out, grad_update, write_indices, axis, mode, &u);
    return ref_assign_grads(grad_out, grad_cache, grad_update, &u, st);
}
