/* Per-dtype arithmetic of the scatter paths, in the accumulation type:
 * integers and bool through int64_t, floats in float (double for float64),
 * float16/bfloat16 in a float32 accumulator. Every function takes the dtype
 * and reduction as constants of the instantiated kernel (stamp.h). */
#ifndef SK_CPU_SCATTER_REDUCE_H
#define SK_CPU_SCATTER_REDUCE_H

#include "cpu/cpu.h"

#define SK_IS_FLOAT(DT) ((DT) >= SK_DTYPE_FLOAT16)
#define SK_IS_HALF(DT) ((DT) == SK_DTYPE_FLOAT16 || (DT) == SK_DTYPE_BFLOAT16)
/* 16-bit floats reduce in a float32 accumulator; assign moves bits */
#define SK_USES_ACC(DT, RED) (SK_IS_HALF(DT) && (RED) != SK_REDUCE_NONE)

/* Element size as a constant of the instantiated kernel. */
SK_INLINE size_t sk_es(const sk_dtype DT) {
    return (DT == SK_DTYPE_FLOAT64 || DT == SK_DTYPE_INT64)   ? 8
           : (DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_INT32) ? 4
           : (DT == SK_DTYPE_INT16 || SK_IS_HALF(DT))         ? 2
                                                              : 1;
}

/* 16-bit floats: n values (src stride ss) as float32, and float32 results
 * back to bits, where a NaN result that is the NaN already in `old` (x's)
 * gets its bits back (the trip through float32 would make a signalling one
 * quiet; a GPU's arithmetic returns its own NaN).
 * Masks, not branches, and the dtype tested outside the loops, so that they
 * vectorise. */
SK_INLINE void sk_half_run_to_f32(float *restrict dst, const uint16_t *restrict src, ptrdiff_t ss,
                                  int64_t n, bool bf16) {
    if (bf16) for (int64_t k = 0; k < n; k++) dst[k] = sk_bf16_to_f32(src[k * ss]);
    else for (int64_t k = 0; k < n; k++) dst[k] = sk_f16_to_f32(src[k * ss]);
}
SK_INLINE uint16_t sk_half_round(float v, uint16_t old, const bool bf16, bool self) {
    uint16_t h = bf16 ? sk_f32_to_bf16(v) : sk_f32_to_f16(v);
    /* old's NaN is the result: with x folded in (self), a NaN x is kept by
     * every reduction; else only an untouched target, converted back
     * exactly (an update's NaN of the same bits is the same value) */
    float o = bf16 ? sk_bf16_to_f32(old) : sk_f16_to_f32(old);
    unsigned same = (unsigned)self | (unsigned)(sk_f32_bits(v) == sk_f32_bits(o));
    uint16_t keep = (uint16_t)(0u - ((unsigned)(v != v) & (unsigned)(o != o) & same));
    return (uint16_t)((old & keep) | (h & (uint16_t)~keep));
}
SK_INLINE bool sk_f32_run_has_nan(const float *restrict v, int64_t n) {
    unsigned any = 0;
    for (int64_t k = 0; k < n; k++) any |= (unsigned)(v[k] != v[k]);
    return any != 0;
}
/* dst and old may be the same memory (stride ds, os); self: x was folded
 * in. old is read only for a run with a NaN, the one value it can decide:
 * a segments finish reads x's row again for it otherwise. */
SK_INLINE void sk_f32_run_to_half(uint16_t *dst, ptrdiff_t ds, const uint16_t *old, ptrdiff_t os,
                                  const float *restrict v, int64_t n, bool bf16, bool self) {
    if (!sk_f32_run_has_nan(v, n)) {
        if (bf16) for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_f32_to_bf16(v[k]);
        else for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_f32_to_f16(v[k]);
        return;
    }
    if (bf16) for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_half_round(v[k], old[k * os], true, self);
    else for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_half_round(v[k], old[k * os], false, self);
}

/* Values: floats go through sk_load_f/sk_store_f (base/scalar.h); integers and
 * bool through int64_t. */
SK_INLINE int64_t sk_load_i(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_BOOL: return *(const uint8_t *)ptr != 0;
    case SK_DTYPE_UINT8: return *(const uint8_t *)ptr;
    case SK_DTYPE_INT8: return *(const int8_t *)ptr;
    case SK_DTYPE_INT16: return *(const int16_t *)(const void *)ptr;
    case SK_DTYPE_INT32: return *(const int32_t *)(const void *)ptr;
    default: return *(const int64_t *)(const void *)ptr;
    }
}
/* Integer stores truncate to the width: that is the two's complement wrap. */
SK_INLINE void sk_store_i(char *ptr, int64_t v, const sk_dtype DT) {
    uint64_t u = (uint64_t)v;
    switch (DT) {
    case SK_DTYPE_BOOL: *(uint8_t *)ptr = v != 0; break;
    case SK_DTYPE_UINT8: *(uint8_t *)ptr = (uint8_t)u; break;
    case SK_DTYPE_INT8: *(uint8_t *)ptr = (uint8_t)u; break;
    case SK_DTYPE_INT16: { uint16_t w = (uint16_t)u; memcpy(ptr, &w, 2); } break;
    case SK_DTYPE_INT32: { uint32_t w = (uint32_t)u; memcpy(ptr, &w, 4); } break;
    default: memcpy(ptr, &u, 8); break;
    }
}

/* float arithmetic is done in float for all but float64, so that float32
 * results match a float32 loop and 16-bit types accumulate in float32 */
#define SK_FOP(DT, expr_f, expr_d) (DT == SK_DTYPE_FLOAT64 ? (expr_d) : (double)(expr_f))

/* The identity of a float sum or product folded with v (a target's first
 * update with include_self=False, a chunk's first row): v, a signalling NaN
 * quieted as the fold would; amax/amin select, so v as it is. */
SK_INLINE bool sk_red_folds(const sk_reduce RED) {
    return RED == SK_REDUCE_SUM || RED == SK_REDUCE_MEAN || RED == SK_REDUCE_PROD;
}
SK_INLINE double sk_start_f(double v, const sk_reduce RED) {
    return sk_red_folds(RED) ? sk_keep_nan_d(v, v) : v;
}
SK_INLINE float sk_start_f32(float v, const sk_reduce RED) {
    return sk_red_folds(RED) ? sk_keep_nan_f(v, v) : v;
}

/* a (op) b in the dtype's arithmetic. Float32 and 16-bit values go through
 * sk_op_f32, which selects amax/amin's bits in float: the amax/amin here
 * serve float64 (a float32 NaN through double may come out quiet). */
SK_INLINE double sk_op_f(double a, double b, const sk_reduce RED, const sk_dtype DT) {
    float af = (float)a, bf = (float)b;
    switch (RED) {
    /* where two NaNs meet, the running value's is kept (base/scalar.h) */
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SK_FOP(DT, sk_keep_nan_f(af, af + bf), sk_keep_nan_d(a, a + b));
    case SK_REDUCE_PROD: return SK_FOP(DT, sk_keep_nan_f(af, af * bf), sk_keep_nan_d(a, a * b));
    /* NaN propagates; a tie keeps the current value a (+0.0 against -0.0
     * keeps whichever came first, as PyTorch does). `|`, not `||`: one select
     * the compiler vectorises (with `||` the float64 row loops branched per
     * element) */
    case SK_REDUCE_AMAX: return ((a >= b) | (a != a)) ? a : b;
    case SK_REDUCE_AMIN: return ((a <= b) | (a != a)) ? a : b;
    default: return b;
    }
}
/* amax/amin of floats without a branch: a when it wins, ties or is NaN,
 * else b (sk_op_f's rule), chosen by masking the bits */
SK_INLINE float sk_pick_f32(float a, float b, const sk_reduce RED) {
    uint32_t ua, ub, take = (uint32_t)0 - (uint32_t)((RED == SK_REDUCE_AMAX ? a >= b : a <= b) | (a != a));
    memcpy(&ua, &a, sizeof a);
    memcpy(&ub, &b, sizeof b);
    ub ^= (ua ^ ub) & take;
    memcpy(&b, &ub, sizeof b);
    return b;
}
SK_INLINE double sk_pick_f64(double a, double b, const sk_reduce RED) {
    uint64_t ua, ub, take = (uint64_t)0 - (uint64_t)((RED == SK_REDUCE_AMAX ? a >= b : a <= b) | (a != a));
    memcpy(&ua, &a, sizeof a);
    memcpy(&ub, &b, sizeof b);
    ub ^= (ua ^ ub) & take;
    memcpy(&b, &ub, sizeof b);
    return b;
}
/* sk_op_f for float32 values (float32 itself, and the float32 values of
 * 16-bit types): amax/amin select the bits (sk_pick_f32). Through
 * sk_op_f's double a signalling NaN would come out quiet wherever the
 * compiler keeps the conversions (a -O1 build did, an optimised one elided
 * them), and SPEC §2 fixes the NaN's bits: the first NaN, as it is. */
SK_INLINE float sk_op_f32(float a, float b, const sk_reduce RED, const sk_dtype DT) {
    if (RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN) return sk_pick_f32(a, b, RED);
    return (float)sk_op_f(a, b, RED, DT);
}
/* A 16-bit float as float32, its bits widened (a signalling NaN stays one). */
SK_INLINE float sk_load_half_f32(const char *ptr, const sk_dtype DT) {
    uint16_t bits;
    memcpy(&bits, ptr, sizeof bits);
    return DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(bits) : sk_f16_to_f32(bits);
}
SK_INLINE int64_t sk_op_i(int64_t a, int64_t b, const sk_reduce RED, const sk_dtype DT) {
    switch (RED) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return (int64_t)((uint64_t)a + (uint64_t)b);
    case SK_REDUCE_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    case SK_REDUCE_AMAX: return DT == SK_DTYPE_BOOL ? (a | b) : (a > b ? a : b);
    case SK_REDUCE_AMIN: return DT == SK_DTYPE_BOOL ? (a & b) : (a < b ? a : b);
    default: return b;
    }
}
SK_INLINE int64_t sk_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

#endif /* SK_CPU_SCATTER_REDUCE_H */
