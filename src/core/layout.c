/* Output checks (shape, overlap) and access-plan construction. */
#include "internal.h"

#include <stdlib.h>

bool sk_same_layout(const sk_tensor *a, const sk_tensor *b) {
    if (a->data != b->data || a->dtype != b->dtype || a->ndim != b->ndim) return false;
    for (int32_t d = 0; d < a->ndim; d++) {
        if (a->shape[d] != b->shape[d]) return false;
        if (a->shape[d] > 1 && a->strides[d] != b->strides[d]) return false;
    }
    return true;
}

bool sk_row_major(const sk_tensor *t) {
    int64_t expect = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->shape[d];
    }
    return true;
}

/* Byte range [lo, hi) a non-empty tensor touches. */
static void sk_byte_range(const sk_tensor *t, uintptr_t *lo, uintptr_t *hi) {
    int64_t es = (int64_t)sk_dtype_size(t->dtype), neg = 0, pos = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d];
        if (span < 0) neg += span; else pos += span;
    }
    *lo = (uintptr_t)t->data + (uintptr_t)(neg * es);
    *hi = (uintptr_t)t->data + (uintptr_t)(pos * es + es);
}

static bool sk_has_internal_overlap(const sk_tensor *t) {
    int64_t stride[SK_MAX_DIMS], size[SK_MAX_DIMS];
    int n = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->shape[d] <= 1) continue;
        stride[n] = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
        size[n++] = t->shape[d];
    }
    for (int i = 1; i < n; i++) /* insertion sort by stride, n <= SK_MAX_DIMS */
        for (int j = i; j > 0 && stride[j] < stride[j - 1]; j--) {
            int64_t a = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = a;
            int64_t b = size[j]; size[j] = size[j - 1]; size[j - 1] = b;
        }
    /* Sufficient test: each stride steps past everything the smaller ones span. */
    int64_t extent = 0;
    for (int i = 0; i < n; i++) {
        if (stride[i] <= extent) return true;
        extent += (size[i] - 1) * stride[i];
    }
    return false;
}

sk_status sk_check_out(const char *op, const sk_tensor *out, sk_dtype dtype, int32_t ndim,
                       const int64_t *shape, const sk_tensor *alias,
                       const sk_tensor *const *inputs, const char *const *names, int ninputs) {
    return sk_check_out_as(op, "out", out, dtype, ndim, shape, alias, inputs, names, ninputs);
}

sk_status sk_check_out_as(const char *op, const char *arg, const sk_tensor *out, sk_dtype dtype,
                          int32_t ndim, const int64_t *shape, const sk_tensor *alias,
                          const sk_tensor *const *inputs, const char *const *names, int ninputs) {
    sk_status st = sk_check_tensor(op, arg, out);
    if (st) return st;
    if (out->dtype != dtype)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "%s: %s must have dtype %s, got %s", op, arg,
                       sk_dtype_name(dtype), sk_dtype_name(out->dtype));
    if ((st = sk_check_shape(op, arg, out, ndim, shape))) return st;
    if (sk_tensor_numel(out) == 0) return SK_STATUS_OK;
    if (sk_has_internal_overlap(out))
        return sk_fail(SK_STATUS_OVERLAP,
                       "%s: %s has internal overlap (a zero or overlapping stride); it must be "
                       "writable element by element",
                       op, arg);
    uintptr_t olo, ohi;
    sk_byte_range(out, &olo, &ohi);
    bool x_seen = false; /* the same descriptor passed again (as src too) is an input like any */
    for (int i = 0; i < ninputs; i++) {
        const sk_tensor *in = inputs[i];
        if (!in || sk_tensor_numel(in) == 0) continue;
        bool is_x = alias && in == alias && !x_seen;
        x_seen = x_seen || is_x;
        if (is_x && sk_same_layout(out, alias)) continue;
        uintptr_t lo, hi;
        sk_byte_range(in, &lo, &hi);
        if (lo < ohi && olo < hi) {
            if (is_x)
                return sk_fail(SK_STATUS_OVERLAP,
                               "%s: out partly overlaps x; pass out=x exactly for the in-place "
                               "form, or a separate out",
                               op);
            return sk_fail(SK_STATUS_OVERLAP, "%s: %s overlaps %s; use a separate %s", op, arg,
                           names[i], arg);
        }
    }
    return SK_STATUS_OK;
}

void sk_linear_strides(int32_t ndim, const int64_t *shape, int64_t *lin) {
    int64_t run = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        lin[d] = run;
        run *= shape[d] > 0 ? shape[d] : 1;
    }
}

void sk_plan_init(sk_plan *p, const char *op, sk_dtype dtype) {
    memset(p, 0, sizeof *p);
    p->op = op;
    p->dtype = dtype;
    p->elem_size = sk_dtype_size(dtype);
    p->col_hi = INT64_MAX;
}

void sk_plan_add_dim(sk_plan *p, int64_t size, int64_t dense_stride, int64_t target_stride,
                     int64_t linear_stride, int64_t index_stride) {
    int d = p->ndim++;
    p->shape[d] = size;
    p->dense_stride[d] = dense_stride;
    p->target_stride[d] = target_stride;
    p->linear_stride[d] = linear_stride;
    p->index_stride[d] = index_stride;
}

int64_t sk_plan_numel(const sk_plan *p) {
    int64_t n = 1;
    for (int d = 0; d < p->ndim; d++) n *= p->shape[d];
    return n;
}

void sk_plan_normalize(sk_plan *p) {
    int64_t *arrays[5] = {p->dense_stride, p->target_stride, p->linear_stride, p->index_stride,
                          p->aux_stride};
    if (sk_plan_numel(p) == 0) { /* nothing to iterate: one empty dimension says it all */
        p->ndim = 1;
        p->shape[0] = 0;
        return;
    }
    int n = 0;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] == 1) continue;
        if (n > 0) {
            /* merge d into the previous kept dimension when, in every stride
             * array, stepping the outer one equals a full sweep of the inner */
            bool merge = true;
            for (int a = 0; a < 5 && merge; a++)
                merge = arrays[a][n - 1] == arrays[a][d] * p->shape[d];
            if (merge) {
                p->shape[n - 1] *= p->shape[d];
                for (int a = 0; a < 5; a++) arrays[a][n - 1] = arrays[a][d];
                continue;
            }
        }
        p->shape[n] = p->shape[d];
        for (int a = 0; a < 5; a++) arrays[a][n] = arrays[a][d];
        n++;
    }
    if (n == 0) { /* a single element */
        n = 1;
        p->shape[0] = 1;
        for (int a = 0; a < 5; a++) arrays[a][0] = 0;
    }
    p->ndim = n;
}

int64_t sk_plan_column_tile(const sk_plan *p) {
    if (p->ndim != 2 || p->ncomp != 1 || p->target_stride[0] != 0 || p->index_stride[1] == 0 ||
        p->target_stride[1] != 1)
        return 0;
    int64_t es = (int64_t)p->elem_size, n = p->comp_size[0], rows = p->shape[0], cols = p->shape[1];
    /* target rows apart by at least the plan's columns (tiles never share a
     * target), a tile of n rows within TILE_BYTES at one line per row, and
     * rows enough to repay packing each tile (a plan row per 8 target rows) */
    enum { LINE = 64, TILE_BYTES = 256 << 10 /* half of a 512 KiB L2 */ };
    if (p->comp_target_stride[0] < cols || n * LINE > TILE_BYTES || rows * 8 < n || n < 2) return 0;
    int64_t line = LINE / es, width = TILE_BYTES / (n * es) / line * line;
    return width * 2 <= cols ? width : 0;
}

sk_plan sk_plan_slice(const sk_plan *p, int d, int64_t lo, int64_t hi) {
    sk_plan s = *p;
    ptrdiff_t es = (ptrdiff_t)p->elem_size;
    s.shape[d] = hi - lo;
    s.dense += (ptrdiff_t)(lo * p->dense_stride[d]) * es;
    s.target += (ptrdiff_t)(lo * p->target_stride[d]) * es;
    s.index = (const char *)p->index + (ptrdiff_t)(lo * p->index_stride[d]) * (p->index_is64 ? 8 : 4);
    return s;
}

/* Asks for the index and dense lines of rows [r0, r1) of a 2-d plan (up to
 * 1 KiB of each): short rows in pages of their own, which the hardware
 * prefetchers do not follow (without, the index loads of a tiled gather
 * took half of its time). */
static void sk_plan_prefetch_rows(const sk_plan *p, int64_t r0, int64_t r1) {
    size_t ies = p->index_is64 ? 8 : 4, es = p->elem_size;
    size_t ispan = (size_t)(p->shape[1] * llabs(p->index_stride[1])) * ies,
           dspan = (size_t)(p->shape[1] * llabs(p->dense_stride[1])) * es;
    for (int64_t r = r0; r < r1 && r < p->shape[0]; r++) {
        const char *ia = (const char *)p->index + (ptrdiff_t)(r * p->index_stride[0]) * (ptrdiff_t)ies;
        const char *da = p->dense + (ptrdiff_t)(r * p->dense_stride[0]) * (ptrdiff_t)es;
        for (size_t b = 0; b < ispan && b < 1024; b += 64) __builtin_prefetch(ia + b);
        for (size_t b = 0; b < dspan && b < 1024; b += 64) __builtin_prefetch(da + b, 1);
    }
}

void sk_plan_walk_tile(const sk_plan *p, int64_t c0, int64_t c1, const char *from, char *pack,
                       void (*fn)(void *ctx, const sk_plan *strip), void *ctx) {
    size_t w = (size_t)(c1 - c0) * p->elem_size;
    sk_copy_rows(pack, (ptrdiff_t)w, from, (ptrdiff_t)(p->comp_target_stride[0] * (int64_t)p->elem_size),
                 p->comp_size[0], w);
    sk_plan tile = sk_plan_slice(p, 1, c0, c1);
    tile.target = pack;
    tile.comp_target_stride[0] = c1 - c0;
    enum { STRIP = 8 };
    for (int64_t r = 0; r < tile.shape[0]; r += STRIP) {
        sk_plan_prefetch_rows(&tile, r + STRIP, r + 2 * STRIP);
        sk_plan strip = sk_plan_slice(&tile, 0, r, r + STRIP < tile.shape[0] ? r + STRIP : tile.shape[0]);
        fn(ctx, &strip);
    }
}
