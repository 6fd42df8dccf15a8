/* The fold kernels of segments (segments.h) for the three working types:
 * float (float32, and float16/bfloat16, which reduce in float32 and round
 * once), double (float64) and int64_t (integers and bool, which wrap when
 * stored). segments_fold_body.h has the kernels; this header gives each
 * type its element load, its reduction step and its store, and picks the
 * type from the dtype. */
#ifndef SK_CPU_SCATTER_SEGMENTS_FOLD_H
#define SK_CPU_SCATTER_SEGMENTS_FOLD_H

#include "cpu/scatter/reduce.h"
#include "cpu/scatter/segments.h"
#include "cpu/scatter/stamp.h"

SK_INLINE float sk_seg_get_f(const char *s, const sk_dtype DT) {
    if (DT == SK_DTYPE_FLOAT32) return *(const float *)(const void *)s;
    uint16_t h = *(const uint16_t *)(const void *)s;
    return DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(h) : sk_f16_to_f32(h);
}
SK_INLINE float sk_seg_op_f(float a, float b, const sk_reduce OP, const sk_dtype DT) {
    return (float)sk_op_f(a, b, OP, DT);
}
SK_INLINE double sk_seg_get_d(const char *s, const sk_dtype DT) {
    (void)DT;
    return *(const double *)(const void *)s;
}
SK_INLINE double sk_seg_op_d(double a, double b, const sk_reduce OP, const sk_dtype DT) {
    return sk_op_f(a, b, OP, DT);
}
SK_INLINE int64_t sk_seg_get_i(const char *s, const sk_dtype DT) { return sk_load_i(s, DT); }
SK_INLINE int64_t sk_seg_op_i(int64_t a, int64_t b, const sk_reduce OP, const sk_dtype DT) {
    return sk_op_i(a, b, OP, DT);
}

/* Stores n finished values at o; mean divides by count first. 16-bit
 * types round once, and a NaN already in x (old: x's values) keeps its bits
 * (sk_half_round). */
SK_INLINE void sk_seg_store_f(char *o, const char *old, float *restrict acc, int64_t n,
                              int64_t count, const sk_dtype DT, const sk_reduce RED) {
    if (RED == SK_REDUCE_MEAN)
        for (int64_t j = 0; j < n; j++) acc[j] = acc[j] / (float)count;
    if (DT == SK_DTYPE_FLOAT32) {
        memcpy(o, acc, (size_t)n * sizeof(float));
        return;
    }
    sk_f32_run_to_half((uint16_t *)(void *)o, 1, (const uint16_t *)(const void *)old, 1, acc, n,
                       DT == SK_DTYPE_BFLOAT16);
}
SK_INLINE void sk_seg_store_d(char *o, const char *old, double *restrict acc, int64_t n,
                              int64_t count, const sk_dtype DT, const sk_reduce RED) {
    (void)DT;
    (void)old;
    if (RED == SK_REDUCE_MEAN)
        for (int64_t j = 0; j < n; j++) acc[j] = acc[j] / (double)count;
    memcpy(o, acc, (size_t)n * sizeof(double));
}
/* Integers: stored (wrapping to the width), then mean's floor division of
 * the wrapped sum. */
SK_INLINE void sk_seg_store_i(char *o, const char *old, int64_t *restrict acc, int64_t n,
                              int64_t count, const sk_dtype DT, const sk_reduce RED) {
    (void)old;
    const size_t ES = sk_es(DT);
    for (int64_t j = 0; j < n; j++) {
        sk_store_i(o + (size_t)j * ES, acc[j], DT);
        if (RED == SK_REDUCE_MEAN)
            sk_store_i(o + (size_t)j * ES, sk_floor_div(sk_load_i(o + (size_t)j * ES, DT), count), DT);
    }
}

#define SK_SEG_FT float
#define SK_SEG_SUF f
#include "cpu/scatter/segments_fold_body.h"
#undef SK_SEG_FT
#undef SK_SEG_SUF
#define SK_SEG_FT double
#define SK_SEG_SUF d
#include "cpu/scatter/segments_fold_body.h"
#undef SK_SEG_FT
#undef SK_SEG_SUF
#define SK_SEG_FT int64_t
#define SK_SEG_SUF i
#include "cpu/scatter/segments_fold_body.h"
#undef SK_SEG_FT
#undef SK_SEG_SUF

/* The working type of DT: float64 in double, other floats in float,
 * integers and bool in int64_t. */
#define SK_SEG_BY_TYPE(DT, CALL_F, CALL_D, CALL_I)                                                \
    do {                                                                                           \
        if ((DT) == SK_DTYPE_FLOAT64) CALL_D;                                                      \
        else if (SK_IS_FLOAT(DT)) CALL_F;                                                          \
        else CALL_I;                                                                               \
    } while (0)

#define SK_DEFINE_SEG_KERNELS(DT, N, RED, R)                                                       \
    SK_INTERNAL void sk_seg_keys_##N##_##R(const sk_seg_job *job, int64_t klo, int64_t khi,         \
                                           bool hot) {                                             \
        SK_SEG_BY_TYPE(DT, sk_seg_keys_f(job, klo, khi, hot, DT, RED),                             \
                       sk_seg_keys_d(job, klo, khi, hot, DT, RED),                                 \
                       sk_seg_keys_i(job, klo, khi, hot, DT, RED));                                \
    }                                                                                              \
    SK_INTERNAL void sk_seg_chunk_##N##_##R(const sk_seg_job *job, int64_t k, int64_t c,            \
                                            void *part) {                                          \
        SK_SEG_BY_TYPE(DT, sk_seg_chunk_f(job, k, c, (float *)part, DT, RED),                      \
                       sk_seg_chunk_d(job, k, c, (double *)part, DT, RED),                         \
                       sk_seg_chunk_i(job, k, c, (int64_t *)part, DT, RED));                       \
    }                                                                                              \
    SK_INTERNAL void sk_seg_merge_##N##_##R(const sk_seg_job *job, int64_t k, void *parts) {       \
        SK_SEG_BY_TYPE(DT, sk_seg_merge_f(job, k, (float *)parts, DT, RED),                        \
                       sk_seg_merge_d(job, k, (double *)parts, DT, RED),                           \
                       sk_seg_merge_i(job, k, (int64_t *)parts, DT, RED));                         \
    }

#endif /* SK_CPU_SCATTER_SEGMENTS_FOLD_H */
