/* Scalar rules shared by every backend and the reference: float16 and
 * bfloat16 conversions, floating loads and stores through double, index
 * values and how a mode resolves them. No tensor access, no threads. */
#ifndef SK_SCALAR_H
#define SK_SCALAR_H

#include "base/base.h"

/* ---- float16 / bfloat16 (dtype.c has the out-of-line versions) ---- */
SK_INLINE uint32_t sk_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
SK_INLINE float sk_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
SK_INLINE float sk_bf16_to_f32(uint16_t b) { return sk_bits_f32((uint32_t)b << 16); }
SK_INLINE uint16_t sk_f32_to_bf16(float f) {
    uint32_t u = sk_f32_bits(f);
    /* NaN: keep sign and top payload, force quiet; else round to nearest
     * even (a mask, not a branch, so that loops vectorise) */
    uint32_t nan = 0u - (uint32_t)((u & 0x7fffffffu) > 0x7f800000u);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((((u >> 16) | 0x0040u) & nan) | (r & ~nan));
}
/* float16 <-> float32 with selects instead of branches, so that the loops
 * calling them vectorise (docs/PERF-LOG.md: branching made them the
 * bottleneck of every 16-bit reduction). Exact; NaN payloads kept on the way in,
 * NaNs made quiet on the way out, round to nearest even. */
SK_INLINE float sk_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    /* normal: the exponent rebiased by 127 - 15; inf/NaN (exponent 31) get
     * the same again to reach 255, the payload shifted as it is */
    uint32_t special = 0u - (uint32_t)(a >= 0x7c00u), small = 0u - (uint32_t)(a < 0x0400u);
    uint32_t u = (a << 13) + (112u << 23) + ((112u << 23) & special);
    /* subnormal or zero: a * 2^-24, exact in float */
    uint32_t sub = sk_f32_bits((float)(int32_t)a * 0x1p-24f);
    return sk_bits_f32((sub & small) | (u & ~small) | sign);
}
SK_INLINE uint16_t sk_f32_to_f16(float f) {
    uint32_t u = sk_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    /* normal: rebias, round the 13 dropped bits to nearest even */
    uint32_t r = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    /* below the smallest normal half: |f| + 0.5 lies in [0.5, 0.5 + 2^-14),
     * where float's unit is 2^-24, the half subnormal unit; the FPU's round
     * to nearest even then leaves the half's bits in the low bits of the sum */
    uint32_t tb = sk_f32_bits(sk_bits_f32(a) + 0.5f);
    /* masks, not ?: (which GCC left as branches, so no loop vectorised) */
    uint32_t sub = 0u - (uint32_t)(a < 0x38800000u), inf = 0u - (uint32_t)(a >= 0x477ff000u),
             nan = 0u - (uint32_t)(a > 0x7f800000u);
    r = ((tb - 0x3f000000u) & sub) | (r & ~sub);
    r = (0x7c00u & inf) | (r & ~inf);                                 /* >= 65520: infinity */
    r = ((0x7e00u | ((a >> 13) & 0x3ffu)) & nan) | (r & ~nan);       /* NaN, quiet */
    return (uint16_t)(sign | r);
}

/* One floating element as a double, and back (16-bit types round once from
 * float32). With a constant dtype the switch folds away. */
SK_INLINE double sk_load_f(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: return sk_f16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_BFLOAT16: return sk_bf16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)ptr;
    default: return *(const double *)(const void *)ptr;
    }
}
SK_INLINE void sk_store_f(char *ptr, double v, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_f16((float)v); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_bf16((float)v); break;
    case SK_DTYPE_FLOAT32: *(float *)(void *)ptr = (float)v; break;
    default: *(double *)(void *)ptr = v; break;
    }
}

/* ---- the NaN rule of float sums and products (docs/CHOICES.md) ---- */
/* r (a + b or a * b), or a quieted where a is NaN: where two NaNs meet the
 * running value's is kept, so the bits follow the canonical order and not
 * the operand order a compiler picks. Both computed and chosen by masking
 * the bits: a `?:` here made GCC give up vectorising the fold loops. The
 * quieting sets the quiet bit in the integer bits (what x86's a + a
 * gives) rather than computing a + a: with a float add beside a value that
 * passes through (amax's start, sk_start_f32), Clang -O1 merged the two
 * into one add of -0.0, which quiets a signalling NaN that should have
 * kept its bits. */
#define SK_DEFINE_KEEP_NAN(NAME, T, U, QUIET)                                                     \
    SK_INLINE T NAME(T a, T r) {                                                                   \
        U ua, ur, keep = (U)0 - (U)(a != a);                                                       \
        memcpy(&ua, &a, sizeof a);                                                                 \
        memcpy(&ur, &r, sizeof r);                                                                 \
        ur ^= ((ua | (QUIET)) ^ ur) & keep;                                                        \
        memcpy(&r, &ur, sizeof r);                                                                 \
        return r;                                                                                  \
    }
SK_DEFINE_KEEP_NAN(sk_keep_nan_f, float, uint32_t, UINT32_C(0x00400000))
SK_DEFINE_KEEP_NAN(sk_keep_nan_d, double, uint64_t, UINT64_C(0x0008000000000000))
#undef SK_DEFINE_KEEP_NAN

/* ---- index values ---- */
SK_INLINE int64_t sk_load_index(const void *base, bool is64, int64_t off) {
    return is64 ? ((const int64_t *)base)[off] : (int64_t)((const int32_t *)base)[off];
}
/* Resolves index value v against an axis of size n: wraps [-n, -1], then
 * clamps (CLIP) or reports invalid (false) for DROP/FILL. In ERROR mode the
 * values were validated beforehand. */
SK_INLINE bool sk_resolve_index(int64_t v, int64_t n, sk_index_mode mode, int64_t *out) {
    if (v < 0) v += n;
    if (SK_LIKELY((uint64_t)v < (uint64_t)n)) {
        *out = v;
        return true;
    }
    if (mode == SK_INDEX_MODE_CLIP && n > 0) {
        *out = v < 0 ? 0 : n - 1;
        return true;
    }
    return false;
}

#endif /* SK_SCALAR_H */
