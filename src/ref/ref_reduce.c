/*
 * ref_reduce.c - the scatter-type forward: reduces the listed updates into
 * per-target accumulators and writes every target once.
 */
#include "ref_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A NaN quieted: its quiet bit set, which is what x86's v + v gives. On the
 * bits, because a v + v here let Clang -O1 merge it with the value passed
 * through beside it (amax's start, ref_start) into one add, which quieted
 * that value too. */
#define REF_DEFINE_QUIET(NAME, T, U, BIT)                                                         \
    static T NAME(T v) {                                                                           \
        U u;                                                                                       \
        memcpy(&u, &v, sizeof u);                                                                  \
        u |= (BIT);                                                                                \
        memcpy(&v, &u, sizeof v);                                                                  \
        return v;                                                                                  \
    }
REF_DEFINE_QUIET(ref_quiet_f, float, uint32_t, UINT32_C(0x00400000))
REF_DEFINE_QUIET(ref_quiet_d, double, uint64_t, UINT64_C(0x0008000000000000))
#undef REF_DEFINE_QUIET

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
    case SK_REDUCE_PROD: {
        bool sum = reduce != SK_REDUCE_PROD;
        /* where two NaNs meet, the running value's is kept (quieted) */
        if (is_float) acc->f = isnan(acc->f) ? ref_quiet_f(acc->f) : sum ? acc->f + v->f : acc->f * v->f;
        else if (kind == K_F64) acc->d = isnan(acc->d) ? ref_quiet_d(acc->d) : sum ? acc->d + v->d : acc->d * v->d;
        else acc->u = sum ? acc->u + v->u : acc->u * v->u;
        break;
    }
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

enum { REF_CHUNK = 256 };

/* identity (op) v: v, where a float sum or product (folds) quiets a NaN */
static ref_value ref_start(int kind, bool folds, ref_value v) {
    if (folds && (kind == K_F16 || kind == K_BF16 || kind == K_F32) && isnan(v.f)) v.f = ref_quiet_f(v.f);
    if (folds && kind == K_F64 && isnan(v.d)) v.d = ref_quiet_d(v.d);
    return v;
}

/* Folds the updates of the target at u->item[*j] (and after) into acc
 * (holding x's element); returns their count. Float sum, mean and prod
 * follow the canonical order (docs/CONTRACT.md): the first REF_CHUNK
 * updates one after another into acc, each later chunk from its own first
 * update and then into acc. */
static int64_t ref_fold_target(sk_dtype dt, sk_reduce reduce, bool include_self,
                               const sk_tensor *src, const ref_updates *u, int64_t *j,
                               ref_value *acc) {
    int kind = ref_kind(dt);
    bool chunked = (kind == K_F16 || kind == K_BF16 || kind == K_F32 || kind == K_F64) &&
                   (reduce == SK_REDUCE_SUM || reduce == SK_REDUCE_MEAN || reduce == SK_REDUCE_PROD);
    int64_t t = u->item[*j].target, count = 0;
    ref_value part;
    memset(&part, 0, sizeof part);
    for (; *j < u->n && u->item[*j].target == t; (*j)++, count++) {
        ref_value v = ref_load(dt, ref_at_linear(src, u->item[*j].slot));
        if (count == 0 && !include_self) *acc = ref_start(kind, chunked, v); /* identity (op) v */
        else if (!chunked || count < REF_CHUNK) ref_combine(kind, reduce, acc, &v);
        else if (count % REF_CHUNK != 0) ref_combine(kind, reduce, &part, &v);
        else {
            if (count >= 2 * REF_CHUNK) ref_combine(kind, reduce, acc, &part);
            part = ref_start(kind, true, v); /* a later chunk starts from the identity */
        }
    }
    if (chunked && count > REF_CHUNK) ref_combine(kind, reduce, acc, &part);
    return count;
}

/* out = x, then every listed update reduced into its target in list order. */
static sk_status ref_apply_updates(const sk_tensor *x, const sk_tensor *src, sk_tensor *out,
                                   sk_reduce reduce, bool include_self, ref_updates *u) {
    sk_dtype dt = x->dtype;
    int kind = ref_kind(dt);
    if (kind == K_BOOL && reduce != SK_REDUCE_NONE && reduce != SK_REDUCE_AMAX &&
        reduce != SK_REDUCE_AMIN)
        return SK_STATUS_INVALID_DTYPE;
    ref_sort_by_target(u);
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
        int64_t count = ref_fold_target(dt, reduce, include_self, src, u, &j, &acc);
        ref_store(dt, reduce, include_self, count, &acc, ref_at(out, c));
    }
    return SK_STATUS_OK;
}

sk_status ref_finish(const sk_tensor *x, const sk_tensor *src, sk_tensor *out, sk_reduce reduce,
                     bool include_self, ref_updates *u, sk_status st) {
    if (st == SK_STATUS_OK) st = ref_apply_updates(x, src, out, reduce, include_self, u);
    ref_updates_free(u);
    return st;
}
