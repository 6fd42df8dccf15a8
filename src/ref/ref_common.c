/*
 * ref_common.c - coordinate walking, index resolution and the update list
 * shared by every operator of the reference (see ref_internal.h).
 * Nothing here depends on the library apart from the float16/bfloat16
 * conversions of the public header.
 */
#include "ref_internal.h"

#include <stdlib.h>
#include <string.h>

size_t ref_esize(sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_BOOL:
    case SK_DTYPE_UINT8:
    case SK_DTYPE_INT8: return 1;
    case SK_DTYPE_INT16:
    case SK_DTYPE_FLOAT16:
    case SK_DTYPE_BFLOAT16: return 2;
    case SK_DTYPE_INT32:
    case SK_DTYPE_FLOAT32: return 4;
    case SK_DTYPE_INT64:
    case SK_DTYPE_FLOAT64: return 8;
    default: return 0;
    }
}

int64_t ref_numel(int32_t ndim, const int64_t *shape) {
    for (int32_t d = 0; d < ndim; d++) /* a 0 beside sizes whose product overflows */
        if (shape[d] == 0) return 0;
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

void ref_unravel(int64_t lin, int32_t ndim, const int64_t *shape, int64_t *coord) {
    for (int32_t d = ndim - 1; d >= 0; d--) {
        coord[d] = lin % shape[d];
        lin /= shape[d];
    }
}

int64_t ref_ravel(int32_t ndim, const int64_t *shape, const int64_t *coord) {
    int64_t lin = 0;
    for (int32_t d = 0; d < ndim; d++) lin = lin * shape[d] + coord[d];
    return lin;
}

/* The offset is computed in elements first so that a negative stride walks
 * backwards from data. */
char *ref_at(const sk_tensor *t, const int64_t *coord) {
    int64_t off = 0;
    for (int32_t d = 0; d < t->ndim; d++) off += coord[d] * t->strides[d];
    return (char *)t->data + off * (int64_t)ref_esize(t->dtype);
}

char *ref_at_linear(const sk_tensor *t, int64_t lin) {
    int64_t c[SK_MAX_DIMS];
    ref_unravel(lin, t->ndim, t->shape, c);
    return ref_at(t, c);
}

int64_t ref_load_index(const sk_tensor *idx, const int64_t *coord) {
    const char *p = ref_at(idx, coord);
    if (idx->dtype == SK_DTYPE_INT32) {
        int32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

int32_t ref_wrap_axis(int32_t axis, int32_t ndim) {
    return axis < 0 ? axis + (ndim > 0 ? ndim : 1) : axis;
}

int64_t ref_axis_size(const sk_tensor *t, int32_t axis) {
    return t->ndim ? t->shape[axis] : 1;
}

sk_status ref_check_index_values(const sk_tensor *index, int32_t comp_dim, const int64_t *sizes,
                                 sk_index_mode mode) {
    int64_t n = ref_numel(index->ndim, index->shape), c[SK_MAX_DIMS], v;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, index->ndim, index->shape, c);
        int64_t size = sizes[comp_dim >= 0 ? c[comp_dim] : 0];
        if (ref_resolve(ref_load_index(index, c), size, mode, &v) == RES_ERROR)
            return SK_STATUS_INDEX_OUT_OF_RANGE;
    }
    return SK_STATUS_OK;
}

int ref_resolve(int64_t v, int64_t n, sk_index_mode mode, int64_t *out) {
    if (v >= -n && v < n) {
        *out = v < 0 ? v + n : v;
        return RES_OK;
    }
    switch (mode) {
    case SK_INDEX_MODE_CLIP:
        if (n == 0) return RES_ERROR; /* nothing to clamp to */
        *out = v < 0 ? 0 : n - 1;
        return RES_OK;
    case SK_INDEX_MODE_DROP: return RES_DROP;
    case SK_INDEX_MODE_FILL: return RES_FILL;
    default: return RES_ERROR;
    }
}

char *ref_at_broadcast(const sk_tensor *t, int32_t ndim, const int64_t *p) {
    int64_t c[SK_MAX_DIMS];
    int32_t lead = ndim - t->ndim; /* >= 0: ndim is that of a shape t broadcasts to */
    for (int32_t d = 0; d < t->ndim; d++) c[d] = t->shape[d] == 1 ? 0 : p[d + lead];
    return ref_at(t, c);
}

bool ref_mask_at(const sk_tensor *mask, int32_t ndim, const int64_t *p) {
    return *(const unsigned char *)ref_at_broadcast(mask, ndim, p) != 0;
}

int32_t ref_broadcast_shape(const sk_tensor *a, const sk_tensor *b, int64_t *shape) {
    int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int32_t d = 0; d < n; d++) {
        int32_t ad = d - (n - a->ndim), bd = d - (n - b->ndim);
        int64_t sa = ad >= 0 ? a->shape[ad] : 1, sb = bd >= 0 ? b->shape[bd] : 1;
        shape[d] = sa == 1 ? sb : sa;
    }
    return n;
}

bool ref_push(ref_updates *u, int64_t target, int64_t slot) {
    if (u->n == u->cap) {
        int64_t cap = u->cap ? 2 * u->cap : 64;
        ref_update *t = (ref_update *)realloc(u->item, (size_t)cap * sizeof *t);
        if (!t) return false;
        u->item = t;
        u->cap = cap;
    }
    u->item[u->n].target = target;
    u->item[u->n].order = u->n;
    u->item[u->n].slot = slot;
    u->n++;
    return true;
}

void ref_updates_free(ref_updates *u) {
    free(u->item);
    u->item = NULL;
    u->n = u->cap = 0;
}

/* The (key, order) pairs are unique, so qsort's instability does not matter. */
static int ref_cmp_target(const void *pa, const void *pb) {
    const ref_update *a = (const ref_update *)pa, *b = (const ref_update *)pb;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int ref_cmp_slot(const void *pa, const void *pb) {
    const ref_update *a = (const ref_update *)pa, *b = (const ref_update *)pb;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

void ref_sort_by_target(ref_updates *u) {
    if (u->n > 1) qsort(u->item, (size_t)u->n, sizeof *u->item, ref_cmp_target);
}

void ref_sort_by_slot(ref_updates *u) {
    if (u->n > 1) qsort(u->item, (size_t)u->n, sizeof *u->item, ref_cmp_slot);
}

double ref_load_f(sk_dtype dt, const char *p) {
    switch (dt) {
    case SK_DTYPE_FLOAT16: { uint16_t t; memcpy(&t, p, 2); return sk_half_to_float(t); }
    case SK_DTYPE_BFLOAT16: { uint16_t t; memcpy(&t, p, 2); return sk_bfloat16_to_float(t); }
    case SK_DTYPE_FLOAT32: { float t; memcpy(&t, p, 4); return t; }
    case SK_DTYPE_FLOAT64: { double t; memcpy(&t, p, 8); return t; }
    default: return 0;
    }
}

void ref_store_f(sk_dtype dt, char *p, double v) {
    switch (dt) {
    case SK_DTYPE_FLOAT16: { uint16_t h = sk_float_to_half((float)v); memcpy(p, &h, 2); } break;
    case SK_DTYPE_BFLOAT16: {
        uint16_t h = sk_float_to_bfloat16((float)v);
        memcpy(p, &h, 2);
    } break;
    case SK_DTYPE_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); } break;
    case SK_DTYPE_FLOAT64: memcpy(p, &v, 8); break;
    default: break;
    }
}

double ref_wp(sk_dtype dt, double v) { return dt == SK_DTYPE_FLOAT64 ? v : (double)(float)v; }
