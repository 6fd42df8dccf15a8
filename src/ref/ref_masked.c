/*
 * ref_masked.c - masked_select and masked_scatter: the mask broadcasts onto
 * x (trailing dimensions aligned); its True positions, in row-major order,
 * are numbered 0, 1, 2, ...
 */
#include "ref_internal.h"

#include <string.h>

sk_status skref_masked_select_count(const sk_tensor *x, const sk_tensor *mask, int64_t *count,
                                    const sk_options *opts) {
    (void)opts;
    int64_t shape[SK_MAX_DIMS], p[SK_MAX_DIMS], c = 0;
    int32_t nd = ref_broadcast_shape(x, mask, shape); /* x and mask broadcast both ways */
    int64_t n = ref_numel(nd, shape);
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, nd, shape, p);
        if (ref_mask_at(mask, nd, p)) c++;
    }
    *count = c;
    return SK_STATUS_OK;
}

sk_status skref_masked_select(const sk_tensor *x, const sk_tensor *mask, sk_tensor *out,
                              const sk_options *opts) {
    (void)opts;
    size_t es = ref_esize(x->dtype);
    int64_t shape[SK_MAX_DIMS], p[SK_MAX_DIMS], j = 0;
    int32_t nd = ref_broadcast_shape(x, mask, shape);
    int64_t n = ref_numel(nd, shape);
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, nd, shape, p);
        if (!ref_mask_at(mask, nd, p)) continue;
        memcpy(ref_at(out, &j), ref_at_broadcast(x, nd, p), es);
        j++;
    }
    return SK_STATUS_OK;
}

/* The k-th True position receives source.flatten()[k]: slot k. */
sk_status ref_list_masked_scatter(const sk_tensor *x, const sk_tensor *mask, ref_updates *u) {
    int64_t n = ref_numel(x->ndim, x->shape), p[SK_MAX_DIMS], k = 0;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, x->ndim, x->shape, p);
        if (!ref_mask_at(mask, x->ndim, p)) continue;
        if (!ref_push(u, i, k++)) return SK_STATUS_OUT_OF_MEMORY;
    }
    return SK_STATUS_OK;
}

sk_status skref_masked_scatter(const sk_tensor *x, const sk_tensor *mask,
                               const sk_tensor *source, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = ref_list_masked_scatter(x, mask, &u);
    return ref_finish(x, source, out, SK_REDUCE_NONE, true, &u, st);
}
