/*
 * ref.c - the reference implementation of every scatterkit operator.
 *
 * Two shapes of code only:
 * - gather-type operators first resolve, for every output position in
 *   row-major order, the address of the x element it copies (or "fill"); if
 *   an index is out of range in error mode they stop before writing; then
 *   they copy element bytes.
 * - scatter-type operators first list their updates (target position as a
 *   row-major linear index into x, address of the source element) in the
 *   row-major order of their iteration space, then apply_updates() reduces
 *   them into per-target accumulators and writes every target once.
 * Nothing here depends on the library apart from the float16/bfloat16
 * conversions of the public header.
 */
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static size_t ref_esize(sk_dtype dt) {
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

static int64_t ref_numel(int32_t ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* Row-major: the last coordinate varies fastest. */
static void ref_unravel(int64_t lin, int32_t ndim, const int64_t *shape, int64_t *coord) {
    for (int32_t d = ndim - 1; d >= 0; d--) {
        coord[d] = lin % shape[d];
        lin /= shape[d];
    }
}

static int64_t ref_ravel(int32_t ndim, const int64_t *shape, const int64_t *coord) {
    int64_t lin = 0;
    for (int32_t d = 0; d < ndim; d++) lin = lin * shape[d] + coord[d];
    return lin;
}

/* Address of element `coord` of t. The offset is computed in elements first
 * so that a negative stride walks backwards from data. */
static char *ref_at(const sk_tensor *t, const int64_t *coord) {
    int64_t off = 0;
    for (int32_t d = 0; d < t->ndim; d++) off += coord[d] * t->strides[d];
    return (char *)t->data + off * (int64_t)ref_esize(t->dtype);
}

static int64_t ref_load_index(const sk_tensor *idx, const int64_t *coord) {
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

static int32_t ref_wrap_axis(int32_t axis, int32_t ndim) {
    return axis < 0 ? axis + (ndim > 0 ? ndim : 1) : axis;
}

enum { RES_OK, RES_DROP, RES_FILL, RES_ERROR };

/* SPEC section 2: [-n, -1] wraps; outside [-n, n-1] the mode decides. */
static int ref_resolve(int64_t v, int64_t n, sk_index_mode mode, int64_t *out) {
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

/* Is the mask element that broadcasts onto position p of a tensor of ndim
 * dimensions True? Broadcasting aligns trailing dimensions. */
static bool ref_mask_at(const sk_tensor *mask, int32_t ndim, const int64_t *p) {
    int64_t mc[SK_MAX_DIMS];
    int32_t lead = ndim - mask->ndim;
    for (int32_t d = 0; d < mask->ndim; d++) mc[d] = mask->shape[d] == 1 ? 0 : p[d + lead];
    return *(const unsigned char *)ref_at(mask, mc) != 0;
}

/* ------------------------------------------------------------------------ */
/* Gather-type: resolve every source address, then copy                    */
/* ------------------------------------------------------------------------ */

/* srcs[i] is the x element for output position i, NULL for the fill value. */
static void ref_write_gathered(sk_tensor *out, const char *const *srcs,
                               const sk_tensor *fill_value) {
    size_t es = ref_esize(out->dtype);
    unsigned char zero[8] = {0};
    const void *fill = zero;
    if (fill_value) {
        int64_t c0[SK_MAX_DIMS] = {0};
        fill = ref_at(fill_value, c0);
    }
    int64_t n = ref_numel(out->ndim, out->shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, out->ndim, out->shape, c);
        memcpy(ref_at(out, c), srcs[i] ? srcs[i] : fill, es);
    }
}

static const char **ref_alloc_srcs(int64_t n) {
    return (const char **)malloc((size_t)(n > 0 ? n : 1) * sizeof(const char *));
}

sk_status skref_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                       sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                       const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t n = ref_numel(index->ndim, index->shape), p[SK_MAX_DIMS], q[SK_MAX_DIMS];
    const char **srcs = ref_alloc_srcs(n);
    if (!srcs) return SK_STATUS_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, index->ndim, index->shape, p);
        memcpy(q, p, sizeof p);
        int r = ref_resolve(ref_load_index(index, p), x->shape[ax], mode, &q[ax]);
        if (r == RES_ERROR) {
            free(srcs);
            return SK_STATUS_INDEX_OUT_OF_RANGE;
        }
        srcs[i] = r == RES_OK ? ref_at(x, q) : NULL;
    }
    ref_write_gathered(out, srcs, fill_value);
    free(srcs);
    return SK_STATUS_OK;
}

sk_status skref_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                            int32_t naxes, sk_index_mode mode, const sk_tensor *fill_value,
                            sk_tensor *out, const sk_options *opts) {
    (void)opts;
    int32_t ax[SK_MAX_DIMS];
    for (int32_t k = 0; k < naxes; k++) ax[k] = ref_wrap_axis(axes[k], x->ndim);
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS + 1], q[SK_MAX_DIMS];
    const char **srcs = ref_alloc_srcs(n);
    if (!srcs) return SK_STATUS_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        memcpy(q, p, sizeof q);
        bool fill = false;
        for (int32_t k = 0; k < naxes; k++) {
            p[out->ndim] = k; /* index[p + (k,)] */
            int r = ref_resolve(ref_load_index(index, p), x->shape[ax[k]], mode, &q[ax[k]]);
            if (r == RES_ERROR) {
                free(srcs);
                return SK_STATUS_INDEX_OUT_OF_RANGE;
            }
            if (r != RES_OK) fill = true;
        }
        srcs[i] = fill ? NULL : ref_at(x, q);
    }
    ref_write_gathered(out, srcs, fill_value);
    free(srcs);
    return SK_STATUS_OK;
}

sk_status skref_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                             sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                             const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS], q[SK_MAX_DIMS];
    const char **srcs = ref_alloc_srcs(n);
    if (!srcs) return SK_STATUS_OUT_OF_MEMORY;
    /* out = x.shape[:ax] + index.shape + x.shape[ax+1:] */
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        for (int32_t d = 0; d < ax; d++) q[d] = p[d];
        for (int32_t d = ax + 1; d < x->ndim; d++) q[d] = p[d - 1 + index->ndim];
        int r = ref_resolve(ref_load_index(index, p + ax), x->shape[ax], mode, &q[ax]);
        if (r == RES_ERROR) {
            free(srcs);
            return SK_STATUS_INDEX_OUT_OF_RANGE;
        }
        srcs[i] = r == RES_OK ? ref_at(x, q) : NULL;
    }
    ref_write_gathered(out, srcs, fill_value);
    free(srcs);
    return SK_STATUS_OK;
}

sk_status skref_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                          sk_index_mode mode, const sk_tensor *fill_value, sk_tensor *out,
                          const sk_options *opts) {
    (void)opts;
    int32_t b = batch_dims, qn = index->ndim - 1;
    int64_t k = index->shape[qn];
    int64_t n = ref_numel(out->ndim, out->shape), p[SK_MAX_DIMS], ic[SK_MAX_DIMS],
            q[SK_MAX_DIMS];
    const char **srcs = ref_alloc_srcs(n);
    if (!srcs) return SK_STATUS_OUT_OF_MEMORY;
    /* out = index.shape[:-1] + x.shape[b + k:] */
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, out->ndim, out->shape, p);
        for (int32_t d = 0; d < qn; d++) ic[d] = p[d];
        for (int32_t d = 0; d < b; d++) q[d] = p[d];
        for (int32_t d = b + (int32_t)k; d < x->ndim; d++) q[d] = p[qn + d - b - (int32_t)k];
        bool fill = false;
        for (int64_t j = 0; j < k; j++) {
            ic[qn] = j;
            int r = ref_resolve(ref_load_index(index, ic), x->shape[b + j], mode, &q[b + j]);
            if (r == RES_ERROR) {
                free(srcs);
                return SK_STATUS_INDEX_OUT_OF_RANGE;
            }
            if (r != RES_OK) fill = true;
        }
        srcs[i] = fill ? NULL : ref_at(x, q);
    }
    ref_write_gathered(out, srcs, fill_value);
    free(srcs);
    return SK_STATUS_OK;
}

sk_status skref_masked_select_count(const sk_tensor *x, const sk_tensor *mask, int64_t *count,
                                    const sk_options *opts) {
    (void)opts;
    int64_t n = ref_numel(x->ndim, x->shape), p[SK_MAX_DIMS], c = 0;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, x->ndim, x->shape, p);
        if (ref_mask_at(mask, x->ndim, p)) c++;
    }
    *count = c;
    return SK_STATUS_OK;
}

sk_status skref_masked_select(const sk_tensor *x, const sk_tensor *mask, sk_tensor *out,
                              const sk_options *opts) {
    (void)opts;
    size_t es = ref_esize(x->dtype);
    int64_t n = ref_numel(x->ndim, x->shape), p[SK_MAX_DIMS], j = 0;
    for (int64_t i = 0; i < n; i++) {
        ref_unravel(i, x->ndim, x->shape, p);
        if (!ref_mask_at(mask, x->ndim, p)) continue;
        memcpy(ref_at(out, &j), ref_at(x, p), es);
        j++;
    }
    return SK_STATUS_OK;
}

/* ------------------------------------------------------------------------ */
/* Scatter-type: list the updates, then reduce them target by target        */
/* ------------------------------------------------------------------------ */

typedef struct {
    int64_t target;  /* row-major linear index into x (== out) */
    int64_t order;   /* position in the list: the row-major order of the update */
    const char *src; /* the source element */
} ref_update;

typedef struct {
    int64_t n, cap;
    ref_update *item;
} ref_updates;

static bool ref_push(ref_updates *u, int64_t target, const char *src) {
    if (u->n == u->cap) {
        int64_t cap = u->cap ? 2 * u->cap : 64;
        ref_update *t = (ref_update *)realloc(u->item, (size_t)cap * sizeof *t);
        if (!t) return false;
        u->item = t;
        u->cap = cap;
    }
    u->item[u->n].target = target;
    u->item[u->n].order = u->n;
    u->item[u->n].src = src;
    u->n++;
    return true;
}

static void ref_updates_free(ref_updates *u) { free(u->item); }

/* By target, then by list order: each target's updates end up together and
 * still in row-major order (the pairs are unique, so qsort's instability
 * does not matter). */
static int ref_cmp_update(const void *pa, const void *pb) {
    const ref_update *a = (const ref_update *)pa, *b = (const ref_update *)pb;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* One accumulator per target. Integers keep their value sign-extended in i
 * (for amax/amin) and as bits in u, where sum and prod wrap modulo 2^64;
 * truncating to the dtype's width at the end gives two's complement
 * wrap-around of the dtype. float16/bfloat16/float32 accumulate in float,
 * float64 in double. Assign keeps the raw bytes. */
typedef struct {
    int64_t i;
    uint64_t u;
    float f;
    double d;
    unsigned char raw[8];
} ref_value;

enum { K_BOOL, K_INT, K_F16, K_BF16, K_F32, K_F64 };

static int ref_kind(sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_BOOL: return K_BOOL;
    case SK_DTYPE_FLOAT16: return K_F16;
    case SK_DTYPE_BFLOAT16: return K_BF16;
    case SK_DTYPE_FLOAT32: return K_F32;
    case SK_DTYPE_FLOAT64: return K_F64;
    default: return K_INT;
    }
}

static ref_value ref_load(sk_dtype dt, const char *p) {
    ref_value v;
    memset(&v, 0, sizeof v);
    memcpy(v.raw, p, ref_esize(dt));
    switch (dt) {
    case SK_DTYPE_BOOL: v.i = p[0] != 0; break;
    case SK_DTYPE_UINT8: v.i = (unsigned char)p[0]; break;
    case SK_DTYPE_INT8: { int8_t t; memcpy(&t, p, 1); v.i = t; } break;
    case SK_DTYPE_INT16: { int16_t t; memcpy(&t, p, 2); v.i = t; } break;
    case SK_DTYPE_INT32: { int32_t t; memcpy(&t, p, 4); v.i = t; } break;
    case SK_DTYPE_INT64: { int64_t t; memcpy(&t, p, 8); v.i = t; } break;
    case SK_DTYPE_FLOAT16: { uint16_t t; memcpy(&t, p, 2); v.f = sk_half_to_float(t); } break;
    case SK_DTYPE_BFLOAT16: { uint16_t t; memcpy(&t, p, 2); v.f = sk_bfloat16_to_float(t); } break;
    case SK_DTYPE_FLOAT32: memcpy(&v.f, p, 4); break;
    case SK_DTYPE_FLOAT64: memcpy(&v.d, p, 8); break;
    default: break;
    }
    v.u = (uint64_t)v.i;
    return v;
}

/* The integer value of the low bits of u, read back as the dtype. */
static int64_t ref_truncate(sk_dtype dt, uint64_t u) {
    switch (dt) {
    case SK_DTYPE_UINT8: return (uint8_t)u;
    case SK_DTYPE_INT8: { uint8_t b = (uint8_t)u; int8_t s; memcpy(&s, &b, 1); return s; }
    case SK_DTYPE_INT16: { uint16_t b = (uint16_t)u; int16_t s; memcpy(&s, &b, 2); return s; }
    case SK_DTYPE_INT32: { uint32_t b = (uint32_t)u; int32_t s; memcpy(&s, &b, 4); return s; }
    default: { int64_t s; memcpy(&s, &u, 8); return s; }
    }
}

static void ref_store_int(sk_dtype dt, char *p, uint64_t u) {
    switch (ref_esize(dt)) {
    case 1: { uint8_t b = (uint8_t)u; memcpy(p, &b, 1); } break;
    case 2: { uint16_t b = (uint16_t)u; memcpy(p, &b, 2); } break;
    case 4: { uint32_t b = (uint32_t)u; memcpy(p, &b, 4); } break;
    default: memcpy(p, &u, 8); break;
    }
}

/* NaN-propagating max/min: the first NaN seen wins. */
static float ref_fmaxf(float a, float b, bool want_max) {
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    return want_max ? (b > a ? b : a) : (b < a ? b : a);
}
static double ref_fmax(double a, double b, bool want_max) {
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    return want_max ? (b > a ? b : a) : (b < a ? b : a);
}

static void ref_combine(int kind, sk_reduce reduce, ref_value *acc, const ref_value *v) {
    if (reduce == SK_REDUCE_NONE) {
        *acc = *v;
        return;
    }
    bool is_float = kind == K_F16 || kind == K_BF16 || kind == K_F32;
    switch (reduce) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN:
        if (is_float) acc->f += v->f;
        else if (kind == K_F64) acc->d += v->d;
        else acc->u += v->u;
        break;
    case SK_REDUCE_PROD:
        if (is_float) acc->f *= v->f;
        else if (kind == K_F64) acc->d *= v->d;
        else acc->u *= v->u;
        break;
    case SK_REDUCE_AMAX:
    case SK_REDUCE_AMIN: {
        bool mx = reduce == SK_REDUCE_AMAX;
        if (is_float) acc->f = ref_fmaxf(acc->f, v->f, mx);
        else if (kind == K_F64) acc->d = ref_fmax(acc->d, v->d, mx);
        else if (mx ? v->i > acc->i : v->i < acc->i) acc->i = v->i;
        break;
    }
    default: break;
    }
}

/* Writes the finished accumulator of a target that received `count` updates. */
static void ref_store(sk_dtype dt, sk_reduce reduce, bool include_self, int64_t count,
                      ref_value *acc, char *p) {
    int kind = ref_kind(dt);
    if (reduce == SK_REDUCE_NONE) {
        memcpy(p, acc->raw, ref_esize(dt));
        return;
    }
    if (reduce == SK_REDUCE_MEAN) {
        int64_t c = count + (include_self ? 1 : 0);
        if (kind == K_F64) {
            acc->d /= (double)c;
        } else if (kind != K_INT) {
            acc->f /= (float)c;
        } else {
            /* floor division of the sum wrapped to the dtype */
            int64_t s = ref_truncate(dt, acc->u), q = s / c;
            if (s % c != 0 && s < 0) q--;
            acc->u = (uint64_t)q;
        }
    }
    switch (kind) {
    case K_BOOL: { unsigned char b = acc->i != 0; memcpy(p, &b, 1); } break;
    case K_F16: { uint16_t h = sk_float_to_half(acc->f); memcpy(p, &h, 2); } break;
    case K_BF16: { uint16_t h = sk_float_to_bfloat16(acc->f); memcpy(p, &h, 2); } break;
    case K_F32: memcpy(p, &acc->f, 4); break;
    case K_F64: memcpy(p, &acc->d, 8); break;
    default:
        if (reduce == SK_REDUCE_AMAX || reduce == SK_REDUCE_AMIN) acc->u = (uint64_t)acc->i;
        ref_store_int(dt, p, acc->u);
        break;
    }
}

/* out = x, then every listed update reduced into its target in list order. */
static sk_status ref_apply_updates(const sk_tensor *x, sk_tensor *out, sk_reduce reduce,
                                   bool include_self, ref_updates *u) {
    sk_dtype dt = x->dtype;
    int kind = ref_kind(dt);
    if (kind == K_BOOL && reduce != SK_REDUCE_NONE && reduce != SK_REDUCE_AMAX &&
        reduce != SK_REDUCE_AMIN)
        return SK_STATUS_INVALID_DTYPE;
    if (u->n > 1) qsort(u->item, (size_t)u->n, sizeof *u->item, ref_cmp_update);
    /* Walk x in row-major order; the sorted list is consumed alongside.
     * x[t] is read only while out[t] is written, so out == x (the in-place
     * form) is safe. */
    size_t es = ref_esize(dt);
    int64_t n = ref_numel(x->ndim, x->shape), c[SK_MAX_DIMS], j = 0;
    for (int64_t t = 0; t < n; t++) {
        ref_unravel(t, x->ndim, x->shape, c);
        if (j == u->n || u->item[j].target != t) {
            memmove(ref_at(out, c), ref_at(x, c), es); /* untouched: keeps x */
            continue;
        }
        ref_value acc = ref_load(dt, ref_at(x, c));
        int64_t count = 0;
        for (; j < u->n && u->item[j].target == t; j++, count++) {
            ref_value v = ref_load(dt, u->item[j].src);
            if (count == 0 && !include_self) acc = v; /* identity (op) v == v */
            else ref_combine(kind, reduce, &acc, &v);
        }
        ref_store(dt, reduce, include_self, count, &acc, ref_at(out, c));
    }
    return SK_STATUS_OK;
}

/* Finishes a scatter-type operator: apply the list unless building it failed. */
static sk_status ref_finish(const sk_tensor *x, sk_tensor *out, sk_reduce reduce,
                            bool include_self, ref_updates *u, sk_status st) {
    if (st == SK_STATUS_OK) st = ref_apply_updates(x, out, reduce, include_self, u);
    ref_updates_free(u);
    return st;
}

sk_status skref_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                        int32_t axis, sk_reduce reduce, bool include_self, sk_index_mode mode,
                        sk_tensor *out, const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(index->ndim, index->shape), p[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, index->ndim, index->shape, p);
        memcpy(t, p, sizeof p);
        int r = ref_resolve(ref_load_index(index, p), x->shape[ax], mode, &t[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK && !ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(src, p)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, reduce, include_self, &u, st);
}

sk_status skref_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                             const int32_t *axes, int32_t naxes, sk_reduce reduce,
                             bool include_self, sk_index_mode mode, sk_tensor *out,
                             const sk_options *opts) {
    (void)opts;
    int32_t ax[SK_MAX_DIMS], bn = index->ndim - 1;
    for (int32_t k = 0; k < naxes; k++) ax[k] = ref_wrap_axis(axes[k], x->ndim);
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    /* the iteration space is the block index.shape[:-1], of x's rank */
    int64_t n = ref_numel(bn, index->shape), p[SK_MAX_DIMS + 1], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, bn, index->shape, p);
        memcpy(t, p, sizeof t);
        bool drop = false;
        for (int32_t k = 0; k < naxes; k++) {
            p[bn] = k;
            int r = ref_resolve(ref_load_index(index, p), x->shape[ax[k]], mode, &t[ax[k]]);
            if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
            if (r != RES_OK) drop = true;
        }
        if (!drop && !ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(src, p)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, reduce, include_self, &u, st);
}

sk_status skref_index_scatter(const sk_tensor *x, const sk_tensor *index,
                              const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                              bool include_self, sk_index_mode mode, sk_tensor *out,
                              const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
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
        int r = ref_resolve(v, x->shape[ax], mode, &t[ax]);
        if (r == RES_ERROR) st = SK_STATUS_INDEX_OUT_OF_RANGE;
        else if (r == RES_OK && !ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(updates, p)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, reduce, include_self, &u, st);
}

sk_status skref_scatter_nd(const sk_tensor *x, const sk_tensor *index, const sk_tensor *updates,
                           sk_reduce reduce, sk_index_mode mode, sk_tensor *out,
                           const sk_options *opts) {
    (void)opts;
    int32_t qn = index->ndim - 1;
    int32_t k = (int32_t)index->shape[qn];
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(updates->ndim, updates->shape), p[SK_MAX_DIMS], ic[SK_MAX_DIMS],
            t[SK_MAX_DIMS];
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
        if (!drop && !ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(updates, p)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    /* scatter_nd has no include_self: the old value always takes part
     * (index_put_ with accumulate, ONNX ScatterND). */
    return ref_finish(x, out, reduce, true, &u, st);
}

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

sk_status skref_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                              const int32_t *axes, const int64_t *starts, const int64_t *stops,
                              const int64_t *steps, sk_tensor *out, const sk_options *opts) {
    (void)opts;
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
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(x->ndim, shape), s[SK_MAX_DIMS], t[SK_MAX_DIMS], sc[SK_MAX_DIMS];
    int32_t lead = x->ndim - src->ndim;
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, x->ndim, shape, s);
        for (int32_t d = 0; d < x->ndim; d++) t[d] = first[d] + s[d] * step[d];
        /* src broadcasts to the slice shape (trailing dimensions aligned) */
        for (int32_t d = 0; d < src->ndim; d++) sc[d] = src->shape[d] == 1 ? 0 : s[d + lead];
        if (!ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(src, sc)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, SK_REDUCE_NONE, true, &u, st);
}

int64_t skref_diagonal_length(int64_t n1, int64_t n2, int64_t offset) {
    if (offset >= 0) return offset >= n2 ? 0 : (n1 < n2 - offset ? n1 : n2 - offset);
    return offset <= -n1 ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
}

sk_status skref_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                                 int32_t axis1, int32_t axis2, sk_tensor *out,
                                 const sk_options *opts) {
    (void)opts;
    int32_t a1 = ref_wrap_axis(axis1, x->ndim), a2 = ref_wrap_axis(axis2, x->ndim);
    /* Row and column of the diagonal's first element. An |offset| past the
     * axis gives an empty diagonal, where they are unused: leaving them 0
     * also keeps -INT64_MIN out. */
    int64_t r0 = 0, c0 = 0;
    if (offset < 0 && offset > -x->shape[a1]) r0 = -offset;
    if (offset > 0 && offset < x->shape[a2]) c0 = offset;
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    /* src = x.shape without a1, a2 (in order) + (diagonal length,) */
    int64_t n = ref_numel(src->ndim, src->shape), s[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, src->ndim, src->shape, s);
        int32_t j = 0;
        for (int32_t d = 0; d < x->ndim; d++)
            if (d != a1 && d != a2) t[d] = s[j++];
        t[a1] = r0 + s[src->ndim - 1];
        t[a2] = c0 + s[src->ndim - 1];
        if (!ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(src, s)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status skref_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis,
                               int64_t index, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, x->ndim);
    int64_t at = index < 0 ? index + x->shape[ax] : index;
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(src->ndim, src->shape), s[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, src->ndim, src->shape, s);
        for (int32_t d = 0; d < ax; d++) t[d] = s[d];
        t[ax] = at;
        for (int32_t d = ax + 1; d < x->ndim; d++) t[d] = s[d - 1];
        if (!ref_push(&u, ref_ravel(x->ndim, x->shape, t), ref_at(src, s)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status skref_masked_scatter(const sk_tensor *x, const sk_tensor *mask,
                               const sk_tensor *source, sk_tensor *out, const sk_options *opts) {
    (void)opts;
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(x->ndim, x->shape), p[SK_MAX_DIMS], sc[SK_MAX_DIMS], k = 0;
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, x->ndim, x->shape, p);
        if (!ref_mask_at(mask, x->ndim, p)) continue;
        ref_unravel(k++, source->ndim, source->shape, sc); /* source.flatten()[k] */
        if (!ref_push(&u, i, ref_at(source, sc))) st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(x, out, SK_REDUCE_NONE, true, &u, st);
}

sk_status skref_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                               const sk_tensor *write_indices, int32_t axis,
                               sk_tensor_scatter_mode mode, sk_tensor *out,
                               const sk_options *opts) {
    (void)opts;
    int32_t ax = ref_wrap_axis(axis, cache->ndim);
    int64_t len = cache->shape[ax];
    ref_updates u = {0};
    sk_status st = SK_STATUS_OK;
    int64_t n = ref_numel(update->ndim, update->shape), p[SK_MAX_DIMS], t[SK_MAX_DIMS];
    for (int64_t i = 0; i < n && st == SK_STATUS_OK; i++) {
        ref_unravel(i, update->ndim, update->shape, p);
        int64_t w = write_indices ? ref_load_index(write_indices, p) : 0; /* p[0] = batch */
        int64_t pos = w + p[ax];
        if (mode == SK_TENSOR_SCATTER_CIRCULAR) pos = ((pos % len) + len) % len;
        if (pos < 0 || pos >= len) {
            st = SK_STATUS_INDEX_OUT_OF_RANGE;
            break;
        }
        memcpy(t, p, sizeof p);
        t[ax] = pos;
        if (!ref_push(&u, ref_ravel(cache->ndim, cache->shape, t), ref_at(update, p)))
            st = SK_STATUS_OUT_OF_MEMORY;
    }
    return ref_finish(cache, out, SK_REDUCE_NONE, true, &u, st);
}
