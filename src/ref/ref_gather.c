/*
 * ref_gather.c - the gather-type operators: list, for every output position
 * in row-major order, the x element it copies (none: the fill value); an
 * out-of-range index in error mode stops the listing before anything is
 * written; then copy element bytes.
 */
#include "ref_internal.h"

#include <stdlib.h>
#include <string.h>

/* Pushes the update of out position i that reads x at coordinate q. */
static sk_status ref_push_read(ref_updates *u, const sk_tensor *x, const int64_t *q, int64_t i) {
    return ref_push(u, ref_ravel(x->ndim, x->shape, q), i) ? SK_STATUS_OK
                                                            : SK_STATUS_OUT_OF_MEMORY;
}

sk_status ref_list_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                          sk_index_mode mode, ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t n = ref_numel(index->ndim, index->shape), p[SK_MAX_DIMS], q[SK_MAX_DIMS];
    sk_status st = SK_STATUS_OK;
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, index->ndim, index->shape, p);
        memcpy(q, p, sizeof p);
        int r = ref_resolve(ref_load_index(index, p), ref_axis_size(x, ax), mode, &q[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK) st = ref_push_read(u, x, q, i);
    }
    return st;
}

sk_status ref_list_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                               int32_t naxes, sk_index_mode mode, const sk_tensor *out,
                               ref_updates *u) {
    int32_t ax[SK_MAX_DIMS];
    int64_t sizes[SK_MAX_DIMS];
    for (int32_t k = 0; k < naxes; k++) {
        ax[k] = ref_wrap_axis(axes[k], x->ndim);
        sizes[k] = ref_axis_size(x, ax[k]);
    }
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS + 1], q[SK_MAX_DIMS];
    sk_status st = ref_check_index_values(index, index->ndim - 1, sizes, mode);
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        memcpy(q, p, sizeof q);
        bool fill = false;
        for (int32_t k = 0; k < naxes; k++) {
            p[out->ndim] = k; /* index[p + (k,)] */
            int r = ref_resolve(ref_load_index(index, p), sizes[k], mode, &q[ax[k]]);
            if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
            if (r != RES_OK) fill = true;
        }
        if (!fill) st = ref_push_read(u, x, q, i);
    }
    return st;
}

sk_status ref_list_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                sk_index_mode mode, const sk_tensor *out, ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS], q[SK_MAX_DIMS];
    int64_t size = ref_axis_size(x, ax);
    sk_status st = ref_check_index_values(index, -1, &size, mode);
    /* out = x.shape[:ax] + index.shape + x.shape[ax+1:] */
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        for (int32_t d = 0; d < ax; d++) q[d] = p[d];
        for (int32_t d = ax + 1; d < x->ndim; d++) q[d] = p[d - 1 + index->ndim];
        int r = ref_resolve(ref_load_index(index, p + ax), size, mode, &q[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK) st = ref_push_read(u, x, q, i);
    }
    return st;
}

sk_status ref_list_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                             sk_index_mode mode, const sk_tensor *out, ref_updates *u) {
    int32_t b = batch_dims, qn = index->ndim - 1;
    int32_t k = (int32_t)index->shape[qn];
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS], ic[SK_MAX_DIMS],
            q[SK_MAX_DIMS], sizes[SK_MAX_DIMS];
    for (int32_t j = 0; j < k && b + j < x->ndim; j++) sizes[j] = x->shape[b + j];
    sk_status st = ref_check_index_values(index, qn, sizes, mode);
    /* out = index.shape[:-1] + x.shape[b + k:] */
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        for (int32_t d = 0; d < qn; d++) ic[d] = p[d];
        for (int32_t d = 0; d < b; d++) q[d] = p[d];
        for (int32_t d = b + k; d < x->ndim; d++) q[d] = p[qn + d - b - k];
        bool fill = false;
        for (int32_t j = 0; j < k; j++) {
            ic[qn] = j;
            int r = ref_resolve(ref_load_index(index, ic), sizes[j], mode, &q[b + j]);
            if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
            if (r != RES_OK) fill = true;
        }
        if (!fill) st = ref_push_read(u, x, q, i);
    }
    return st;
}

/* Writes every position of out in row-major order: the x element its
 * update reads, or the fill value (zero when NULL) where none does; frees
 * the list. Writes nothing when st (the listing's status) is not OK. */
static sk_status ref_write_gathered(const sk_tensor *x, sk_tensor *out,
                                    const sk_tensor *fill_value, ref_updates *u, sk_status st) {
    int64_t n = ref_numel(out->ndim, out->shape), c[SK_MAX_DIMS];
    const char **srcs = NULL;
    if (st == SK_STATUS_OK) {
        srcs = (const char **)malloc((size_t)(n > 0 ? n : 1) * sizeof(const char *));
        if (!srcs) st = SK_STATUS_OUT_OF_MEMORY;
    }
    if (st == SK_STATUS_OK) {
        size_t es = ref_esize(out->dtype);
        unsigned char zero[8] = {0};
        const void *fill = zero;
        if (fill_value) {
            int64_t c0[SK_MAX_DIMS] = {0};
            fill = ref_at(fill_value, c0);
        }
        for (int64_t i = 0; i < n; i++) srcs[i] = NULL;
        for (int64_t j = 0; j < u->n; j++)
            srcs[u->item[j].slot] = ref_at_linear(x, u->item[j].target);
        for (int64_t i = 0; i < n; i++) {
            ref_unravel(i, out->ndim, out->shape, c);
            memcpy(ref_at(out, c), srcs[i] ? srcs[i] : fill, es);
        }
    }
    free(srcs);
    ref_updates_free(u);
    return st;
}

sk_status skref_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                       sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                       const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather(x, index, axis, mode, &u);
    return ref_write_gathered(x, out, fill_value, &u, st);
}

sk_status skref_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                            int32_t naxes, sk_index_mode mode, const sk_tensor *fill_value,
                            sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather_axes(x, index, axes, naxes, mode, out, &u);
    return ref_write_gathered(x, out, fill_value, &u, st);
}

sk_status skref_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                             sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                             const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_index_select(x, index, axis, mode, out, &u);
    return ref_write_gathered(x, out, fill_value, &u, st);
}

sk_status skref_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                          sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                          const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_gather_nd(x, index, batch_dims, mode, out, &u);
    return ref_write_gathered(x, out, fill_value, &u, st);
}
