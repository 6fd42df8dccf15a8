/*
 * ref_scatter.c - the index-driven scatter-type operators: list the updates
 * (target in x, src element) in the row-major order of the iteration space;
 * ref_finish reduces them target by target.
 */
#include "ref_internal.h"

#include <string.h>

/* Pushes the update of src coordinate p (in src's shape) into x at t. */
static sk_status ref_push_write(ref_updates *u, const sk_tensor *x, const int64_t *t,
                                const sk_tensor *src, const int64_t *p) {
    return ref_push(u, ref_ravel(x->ndim, x->shape, t), ref_ravel(src->ndim, src->shape, p))
               ? SK_STATUS_OK
               : SK_STATUS_OUT_OF_MEMORY;
}

sk_status ref_list_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                           int32_t axis, sk_index_mode mode, ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(index->ndim, index->shape), p[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, index->ndim, index->shape, p);
        memcpy(t, p, sizeof p);
        int r = ref_resolve(ref_load_index(index, p), ref_axis_size(x, ax), mode, &t[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK) st = ref_push_write(u, x, t, src, p);
    }
    return st;
}

sk_status ref_list_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                ref_updates *u) {
    int32_t ax[SK_MAX_DIMS], bn = index->ndim - 1;
    for (int32_t k = 0; k < naxes; k++) ax[k] = ref_wrap_axis(axes[k], x->ndim);
    sk_status st = SK_STATUS_OK;
    /* the iteration space is the block index.shape[:-1], of x's rank */
    int64_t n = ref_numel(bn, index->shape), p[SK_MAX_DIMS + 1], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, bn, index->shape, p);
        memcpy(t, p, sizeof t);
        bool drop = false;
        for (int32_t k = 0; k < naxes; k++) {
            p[bn] = k;
            int r = ref_resolve(ref_load_index(index, p), ref_axis_size(x, ax[k]), mode, &t[ax[k]]);
            if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
            if (r != RES_OK) drop = true;
        }
        if (!drop) st = ref_push_write(u, x, t, src, p);
    }
    return st;
}

sk_status ref_list_index_scatter(const sk_tensor *x, const sk_tensor *index,
                                 const sk_tensor *updates, int32_t axis, sk_index_mode mode,
                                 ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t size = ref_axis_size(x, ax); /* every index value, updates empty or not */
    sk_status st = ref_check_index_values(index, -1, &size, mode);
    int64_t n = ref_numel(updates->ndim, updates->shape), p[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, updates->ndim, updates->shape, p);
        int64_t v;
        if (index->ndim == 1) {
            /* updates has x's rank; the axis coordinate picks the index entry */
            v = ref_load_index(index, &p[ax]);
            memcpy(t, p, sizeof p);
        } else {
            /* 0-d index: updates lacks the axis; insert it */
            v = ref_load_index(index, NULL);
            for (int32_t d = 0; d < ax; d++) t[d] = p[d];
            for (int32_t d = ax + 1; d < x->ndim; d++) t[d] = p[d - 1];
        }
        int r = ref_resolve(v, ref_axis_size(x, ax), mode, &t[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK) st = ref_push_write(u, x, t, updates, p);
    }
    return st;
}

sk_status ref_list_scatter_nd(const sk_tensor *x, const sk_tensor *index,
                              const sk_tensor *updates, sk_index_mode mode, ref_updates *u) {
    int32_t qn = index->ndim - 1;
    int32_t k = (int32_t)index->shape[qn];
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(updates->ndim, updates->shape), p[SK_MAX_DIMS], ic[SK_MAX_DIMS],
            t[SK_MAX_DIMS];
    /* every index value, also where x.shape[k:] has no elements (no update
     * is written then, but an index out of range is still an error) */
    st = ref_check_index_values(index, qn, x->shape, mode);
    /* updates = index.shape[:-1] + x.shape[k:] */
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, updates->ndim, updates->shape, p);
        for (int32_t d = 0; d < qn; d++) ic[d] = p[d];
        for (int32_t d = k; d < x->ndim; d++) t[d] = p[qn + d - k];
        bool drop = false;
        for (int32_t j = 0; j < k; j++) {
            ic[qn] = j;
            int r = ref_resolve(ref_load_index(index, ic), x->shape[j], mode, &t[j]);
            if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
            if (r != RES_OK) drop = true;
        }
        if (!drop) st = ref_push_write(u, x, t, updates, p);
    }
    return st;
}

sk_status skref_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                        int32_t axis, sk_reduce reduce, bool include_self, sk_index_mode mode,
                        sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter(x, index, src, axis, mode, &u);
    return ref_finish(x, src, out, reduce, include_self, &u, st);
}

sk_status skref_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                             const int32_t *axes, int32_t naxes, sk_reduce reduce,
                             bool include_self, sk_index_mode mode, sk_tensor *out,
                             const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter_axes(x, index, src, axes, naxes, mode, &u);
    return ref_finish(x, src, out, reduce, include_self, &u, st);
}

sk_status skref_index_scatter(const sk_tensor *x, const sk_tensor *index,
                              const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                              bool include_self, sk_index_mode mode, sk_tensor *out,
                              const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_index_scatter(x, index, updates, axis, mode, &u);
    return ref_finish(x, updates, out, reduce, include_self, &u, st);
}

/* scatter_nd has no include_self: the old value always takes part
 * (index_put_ with accumulate, ONNX ScatterND). */
sk_status skref_scatter_nd(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                           sk_reduce reduce, sk_index_mode mode, sk_tensor *out,
                           const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_scatter_nd(x, index, updates, mode, &u);
    return ref_finish(x, updates, out, reduce, true, &u, st);
}
