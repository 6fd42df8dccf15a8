/*
 * ref_views.c - the scatter-type operators that write a view of x (slice,
 * diagonal, select) and tensor_scatter: list the updates in the row-major
 * order of the view, then ref_finish assigns them.
 */
#include "ref_internal.h"

#include <string.h>

void skref_slice_indices(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first,
                         int64_t *count) {
    /* CPython's PySlice_AdjustIndices, with n >= 0 and step != 0 */
    int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
    if (start == SK_SLICE_NONE) {
        start = step < 0 ? upper : lower;
    } else {
        if (start < 0) start += n;
        if (start < lower) start = lower;
        if (start > upper) start = upper;
    }
    if (stop == SK_SLICE_NONE) {
        stop = step < 0 ? lower : upper;
    } else {
        if (stop < 0) stop += n;
        if (stop < lower) stop = lower;
        if (stop > upper) stop = upper;
    }
    uint64_t ustep = step < 0 ? (uint64_t)0 - (uint64_t)step : (uint64_t)step;
    int64_t c = 0;
    if (step > 0 && start < stop) c = (int64_t)((uint64_t)(stop - start - 1) / ustep) + 1;
    if (step < 0 && stop < start) c = (int64_t)((uint64_t)(start - stop - 1) / ustep) + 1;
    *first = start;
    *count = c;
}

sk_status ref_list_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                                 const int32_t *axes, const int64_t *starts, const int64_t *stops,
                                 const int64_t *steps, ref_updates *u) {
    int64_t first[SK_MAX_DIMS], step[SK_MAX_DIMS], shape[SK_MAX_DIMS];
    for (int32_t d = 0; d < x->ndim; d++) {
        first[d] = 0;
        step[d] = 1;
        shape[d] = x->shape[d];
    }
    for (int32_t k = 0; k < naxes; k++) {
        int32_t a = ref_wrap_axis(axes[k], x->ndim);
        step[a] = steps[k];
        skref_slice_indices(x->shape[a], starts[k], stops[k], steps[k], &first[a], &shape[a]);
    }
    int64_t n = ref_numel(x->ndim, shape), s[SK_MAX_DIMS], t[SK_MAX_DIMS], sc[SK_MAX_DIMS];
    int32_t lead = src ? x->ndim - src->ndim : 0;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, x->ndim, shape, s);
        for (int32_t d = 0; d < x->ndim; d++) t[d] = first[d] + s[d] * step[d];
        int64_t slot = i;
        if (src) {
            /* src broadcasts to the slice shape (trailing dimensions aligned) */
            for (int32_t d = 0; d < src->ndim; d++) sc[d] = src->shape[d] == 1 ? 0 : s[d + lead];
            slot = ref_ravel(src->ndim, src->shape, sc);
        }
        if (!ref_push(u, ref_ravel(x->ndim, x->shape, t), slot)) return SK_STATUS_OUT_OF_MEMORY;
    }
    return SK_STATUS_OK;
}

sk_status skref_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                              const int32_t *axes, const int64_t *starts, const int64_t *stops,
                              const int64_t *steps, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_slice_scatter(x, src, naxes, axes, starts, stops, steps, &u);
    return ref_finish(x, src, out, SK_REDUCE_NONE, true, &u, st);
}

int64_t skref_diagonal_length(int64_t n1, int64_t n2, int64_t offset) {
    if (offset >= 0) return offset >= n2 ? 0 : (n1 < n2 - offset ? n1 : n2 - offset);
    return offset <= -n1 ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
}

sk_status ref_list_diagonal_scatter(const sk_tensor *x, int64_t offset, int32_t axis1,
                                    int32_t axis2, ref_updates *u) {
    int32_t a1 = ref_wrap_axis(axis1, x->ndim), a2 = ref_wrap_axis(axis2, x->ndim);
    /* Row and column of the diagonal's first element. An |offset| past the
     * axis gives an empty diagonal, where they are unused: leaving them 0
     * also keeps -INT64_MIN out. */
    int64_t r0 = 0, c0 = 0;
    if (offset < 0 && offset > -x->shape[a1]) r0 = -offset;
    if (offset > 0 && offset < x->shape[a2]) c0 = offset;
    /* src = x.shape without a1, a2 (in order) + (diagonal length,) */
    int32_t sn = 0;
    int64_t sshape[SK_MAX_DIMS], s[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int32_t d = 0; d < x->ndim; d++)
        if (d != a1 && d != a2) sshape[sn++] = x->shape[d];
    sshape[sn++] = skref_diagonal_length(x->shape[a1], x->shape[a2], offset);
    int64_t n = ref_numel(sn, sshape);
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, sn, sshape, s);
        int32_t j = 0;
        for (int32_t d = 0; d < x->ndim; d++)
            if (d != a1 && d != a2) t[d] = s[j++];
        t[a1] = r0 + s[sn - 1];
        t[a2] = c0 + s[sn - 1];
        if (!ref_push(u, ref_ravel(x->ndim, x->shape, t), i)) return SK_STATUS_OUT_OF_MEMORY;
    }
    return SK_STATUS_OK;
}

sk_status skref_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                                 int32_t axis1, int32_t axis2, sk_tensor *out,
                                 const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_diagonal_scatter(x, offset, axis1, axis2, &u);
    return ref_finish(x, src, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status ref_list_select_scatter(const sk_tensor *x, int32_t axis, int64_t index,
                                  ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, x->ndim), sn = 0;
    if (index < -x->shape[ax] || index >= x->shape[ax]) return SK_STATUS_INDEX_OUT_OF_RANGE;
    int64_t at = index < 0 ? index + x->shape[ax] : index;
    /* src = x.shape without ax */
    int64_t sshape[SK_MAX_DIMS], s[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int32_t d = 0; d < x->ndim; d++)
        if (d != ax) sshape[sn++] = x->shape[d];
    int64_t n = ref_numel(sn, sshape);
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, sn, sshape, s);
        for (int32_t d = 0; d < ax; d++) t[d] = s[d];
        t[ax] = at;
        for (int32_t d = ax + 1; d < x->ndim; d++) t[d] = s[d - 1];
        if (!ref_push(u, ref_ravel(x->ndim, x->shape, t), i)) return SK_STATUS_OUT_OF_MEMORY;
    }
    return SK_STATUS_OK;
}

sk_status skref_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis,
                               int64_t index, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_select_scatter(x, axis, index, &u);
    return ref_finish(x, src, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status ref_list_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                                  const sk_tensor *write_indices, int32_t axis,
                                  sk_tensor_scatter_mode mode, ref_updates *u) {
    int32_t ax = ref_wrap_axis(axis, cache->ndim);
    int64_t len = cache->shape[ax], ulen = update->shape[ax];
    /* every batch's index, with or without elements to write: linear needs
     * 0 <= w <= len - ulen, circular w >= 0 and a position to start at */
    int64_t nb = cache->shape[0]; /* one value for every batch (none, or a stride 0): once */
    if ((!write_indices || write_indices->strides[0] == 0) && nb > 1) nb = 1;
    for (int64_t b = 0; b < nb; b++) {
        int64_t w = write_indices ? ref_load_index(write_indices, &b) : 0;
        bool ok = mode == SK_TENSOR_SCATTER_LINEAR ? w >= 0 && w <= len - ulen
                                                   : w >= 0 && (len > 0 || ulen == 0);
        if (!ok) return SK_STATUS_INDEX_OUT_OF_RANGE;
    }
    int64_t n = ref_numel(update->ndim, update->shape), p[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, update->ndim, update->shape, p);
        int64_t w = write_indices ? ref_load_index(write_indices, p) : 0; /* p[0] = batch */
        /* w <= len - ulen in linear mode: w + p[ax] cannot overflow */
        int64_t pos = mode == SK_TENSOR_SCATTER_CIRCULAR ? (w % len + p[ax] % len) % len
                                                         : w + p[ax];
        memcpy(t, p, sizeof p);
        t[ax] = pos;
        if (!ref_push(u, ref_ravel(cache->ndim, cache->shape, t), i))
            return SK_STATUS_OUT_OF_MEMORY;
    }
    return SK_STATUS_OK;
}

sk_status skref_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                               const sk_tensor *write_indices, int32_t axis,
                               sk_tensor_scatter_mode mode, sk_tensor *out,
                               const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_tensor_scatter(cache, update, write_indices, axis, mode, &u);
    return ref_finish(cache, update, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status skref_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS], q[SK_MAX_DIMS];
    int32_t lead = out->ndim - src->ndim;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        for (int32_t d = 0; d < src->ndim; d++) q[d] = src->shape[d] == 1 ? 0 : p[d + lead];
        memmove(ref_at(out, p), ref_at(src, q), ref_esize(out->dtype));
    }
    return SK_STATUS_OK;
}
