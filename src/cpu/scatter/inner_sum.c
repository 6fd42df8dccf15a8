/* Sums along the last axis with the index copied once (sk_inner_job's
 * inner_index): out[r, index[j]] += updates[r, j], row by row or four float
 * rows at a time (arch/x86/rows4_sse.h). Each target still sees its updates
 * in index order, starting from its own value: the same bits as the generic
 * walk. */
#include "cpu/arch/x86/rows4_sse.h"
#include "cpu/scatter/inner_axis.h"
#include "cpu/scatter/reduce.h"

/* One update into a target: floats keep the running value's NaN where two
 * NaNs meet (sk_op_f's rule, as every other path); integers wrap. */
#define SK_INNER_ADD_F(a, b) sk_keep_nan_f((a), (a) + (b))
#define SK_INNER_ADD_D(a, b) sk_keep_nan_d((a), (a) + (b))
#define SK_INNER_ADD_I(a, b) ((a) + (b))

/* out[r, index[j]] += updates[r, j] for the rows r of a 2-d plan whose
 * targets lie in [clo, chi) (whole rows of out). The index values are
 * already wrapped and checked, so the loop is four instructions and a half
 * per update: load index, load and add, store, and a share of the loop
 * control. With an index of 16-bit values the copy read for every row is
 * half as large (it then fits the L2 next to an out row). Each
 * target still sees its updates in index order: the same bits as the
 * generic pass. */
#define SK_INNER_SUM_ROW(T, IT, ADD)                                                               \
    SK_HOT static void sk_inner_sum_row_##T##_##IT(T *o, const T *restrict u,                      \
                                                   const IT *restrict ix,                          \
                                                   int64_t L, int64_t cts) {                       \
        if (cts != 1) {                                                                            \
            for (int64_t j = 0; j < L; j++)                                                        \
                o[ix[j] * cts] = ADD(o[ix[j] * cts], u[j]);                                        \
            return;                                                                                \
        }                                                                                          \
        int64_t j = 0;                                                                             \
        for (; j + 4 <= L; j += 4) {                                                               \
            o[ix[j]] = ADD(o[ix[j]], u[j]);                                                        \
            o[ix[j + 1]] = ADD(o[ix[j + 1]], u[j + 1]);                                            \
            o[ix[j + 2]] = ADD(o[ix[j + 2]], u[j + 2]);                                            \
            o[ix[j + 3]] = ADD(o[ix[j + 3]], u[j + 3]);                                            \
        }                                                                                          \
        for (; j < L; j++) o[ix[j]] = ADD(o[ix[j]], u[j]);                                         \
    }
SK_INNER_SUM_ROW(float, uint16_t, SK_INNER_ADD_F)
SK_INNER_SUM_ROW(float, int32_t, SK_INNER_ADD_F)
SK_INNER_SUM_ROW(double, uint16_t, SK_INNER_ADD_D)
SK_INNER_SUM_ROW(double, int32_t, SK_INNER_ADD_D)
/* integers through their unsigned type of the same width: the two's
 * complement wrap, without signed overflow */
SK_INNER_SUM_ROW(uint8_t, uint16_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint8_t, int32_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint16_t, uint16_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint16_t, int32_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint32_t, uint16_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint32_t, int32_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint64_t, uint16_t, SK_INNER_ADD_I)
SK_INNER_SUM_ROW(uint64_t, int32_t, SK_INNER_ADD_I)
#undef SK_INNER_SUM_ROW
#undef SK_INNER_ADD_I

/* float16/bfloat16: the updates of a row, converted, into its float32 copy
 * acc (contiguous); the caller rounds acc once (owner-computes converted
 * per update through the generic pass). */
#define SK_INNER_SUM_HALF(IT)                                                                      \
    SK_HOT static void sk_inner_sum_half_##IT(float *restrict acc, const uint16_t *restrict u,     \
                                              const IT *restrict ix, int64_t L, bool bf16) {       \
        float v[1024]; /* a strip of updates converted in a loop that vectorises */              \
        for (int64_t j0 = 0; j0 < L; j0 += 1024) {                                                 \
            int64_t m = L - j0 < 1024 ? L - j0 : 1024;                                             \
            sk_half_run_to_f32(v, u + j0, 1, m, bf16);                                             \
            for (int64_t k = 0; k < m; k++)                                                        \
                acc[ix[j0 + k]] = SK_INNER_ADD_F(acc[ix[j0 + k]], v[k]);                           \
        }                                                                                          \
    }
SK_INNER_SUM_HALF(uint16_t)
SK_INNER_SUM_HALF(int32_t)
#undef SK_INNER_SUM_HALF

/* Row r of a 16-bit out (n targets cts apart) through the thread's float32
 * row: converted, summed into, rounded back once. A NaN already in out keeps
 * its bits when the result is NaN, as in sk_scatter_finish. */
static void sk_inner_sum_half_row(const sk_inner_job *job, int tid, int64_t r) {
    const sk_plan *p = job->p;
    int64_t L = p->shape[1], n = p->comp_size[0], cts = p->comp_target_stride[0];
    bool bf16 = p->dtype == SK_DTYPE_BFLOAT16;
    uint16_t *o = (uint16_t *)(void *)p->target + r * p->target_stride[0];
    const uint16_t *u = (const uint16_t *)(const void *)p->dense + r * p->dense_stride[0];
    float *acc = job->half_rows ? job->half_rows + tid * n
                                : job->inner_rows + tid * job->inner_rows_stride;
    if (job->inner_rows && job->copy_src) /* a single row: copied here (see sk_inner_chunk) */
        memcpy(o, job->copy_src + (size_t)(r * p->linear_stride[0]) * 2, (size_t)n * 2);
    sk_half_run_to_f32(acc, o, cts, n, bf16);
    if (job->inner_index16) sk_inner_sum_half_uint16_t(acc, u, job->inner_index, L, bf16);
    else sk_inner_sum_half_int32_t(acc, u, job->inner_index, L, bf16);
    sk_f32_run_to_half(o, cts, o, cts, acc, n, bf16, p->include_self);
}

#if SK_HAVE_ROWS4
/* Four float rows at once: the index read once for four rows, a quarter of
 * the scalar loop's read-modify-writes; the interleaved buffer (16 n bytes)
 * stays in the L2 while the updates stream past. */
SK_HOT static void sk_inner_acc4_u16(float *restrict sc, const float *const u[4],
                                     const uint16_t *restrict ix, int64_t L, bool from_memory) {
    sk_rows4_accumulate(sc, u, ix, L, true, from_memory);
}
SK_HOT static void sk_inner_acc4_i32(float *restrict sc, const float *const u[4],
                                     const int32_t *restrict ix, int64_t L, bool from_memory) {
    sk_rows4_accumulate(sc, u, ix, L, false, from_memory);
}
SK_HOT static void sk_inner_sum4_u16(float *const o[4], const float *const from[4],
                                     const float *const u[4], const uint16_t *restrict ix,
                                     int64_t L, int64_t n, float *restrict sc) {
    sk_rows4_interleave(sc, from, n);
    sk_inner_acc4_u16(sc, u, ix, L, true);
    sk_rows4_deinterleave(o, sc, n);
}
SK_HOT static void sk_inner_sum4_i32(float *const o[4], const float *const from[4],
                                     const float *const u[4], const int32_t *restrict ix,
                                     int64_t L, int64_t n, float *restrict sc) {
    sk_rows4_interleave(sc, from, n);
    sk_inner_acc4_i32(sc, u, ix, L, true);
    sk_rows4_deinterleave(o, sc, n);
}

/* float16/bfloat16 rows r .. r + 3 the same way: converted into the
 * interleaved float32 buffer (from x when out is x's fresh copy), the updates
 * converted a strip at a time (loops that vectorise), rounded back once with
 * sk_inner_sum_half_row's NaN rule. */
SK_HOT static void sk_inner_sum_half4(const sk_inner_job *job, int tid, int64_t r) {
    const sk_plan *p = job->p;
    const int64_t L = p->shape[1], n = p->comp_size[0], ls = p->linear_stride[0];
    const bool bf16 = p->dtype == SK_DTYPE_BFLOAT16;
    float *restrict sc = job->inner_rows + (int64_t)tid * job->inner_rows_stride;
    uint16_t *o[4];
    const uint16_t *from[4], *u[4];
    for (int q = 0; q < 4; q++) {
        o[q] = (uint16_t *)(void *)p->target + (r + q) * p->target_stride[0];
        u[q] = (const uint16_t *)(const void *)p->dense + (r + q) * p->dense_stride[0];
        from[q] = job->copy_src ? (const uint16_t *)(const void *)job->copy_src + (r + q) * ls : o[q];
    }
    enum { STRIP = 512 };
    float ub[4][STRIP];
    const float *const up[4] = {ub[0], ub[1], ub[2], ub[3]};
    /* conversions a strip of one row at a time; the interleaving is plain moves */
    for (int64_t k0 = 0; k0 < n; k0 += STRIP) {
        int64_t m = n - k0 < STRIP ? n - k0 : STRIP;
        for (int q = 0; q < 4; q++) sk_half_run_to_f32(ub[q], from[q] + k0, 1, m, bf16);
        for (int64_t k = 0; k < m; k++)
            for (int q = 0; q < 4; q++) sc[4 * (k0 + k) + q] = ub[q][k];
    }
    for (int64_t j0 = 0; j0 < L; j0 += STRIP) {
        int64_t m = L - j0 < STRIP ? L - j0 : STRIP;
        for (int q = 0; q < 4; q++) sk_half_run_to_f32(ub[q], u[q] + j0, 1, m, bf16);
        if (job->inner_index16) sk_inner_acc4_u16(sc, up, (const uint16_t *)job->inner_index + j0, m, false);
        else sk_inner_acc4_i32(sc, up, (const int32_t *)job->inner_index + j0, m, false);
    }
    for (int64_t k0 = 0; k0 < n; k0 += STRIP) {
        int64_t m = n - k0 < STRIP ? n - k0 : STRIP;
        for (int64_t k = 0; k < m; k++)
            for (int q = 0; q < 4; q++) ub[q][k] = sc[4 * (k0 + k) + q];
        for (int q = 0; q < 4; q++)
            sk_f32_run_to_half(o[q] + k0, 1, from[q] + k0, 1, ub[q], m, bf16, p->include_self);
    }
}

/* float32 rows r .. r + 3 through the thread's interleaved buffer; out != x:
 * the rows are read from x into the buffer, with no copy into out first. */
static void sk_inner_sum_f32x4(const sk_inner_job *job, int tid, int64_t r) {
    const sk_plan *p = job->p;
    int64_t L = p->shape[1], n = p->comp_size[0], ls = p->linear_stride[0];
    float *o[4];
    const float *from[4], *u[4];
    for (int q = 0; q < 4; q++) {
        o[q] = (float *)(void *)p->target + (r + q) * p->target_stride[0];
        u[q] = (const float *)(const void *)p->dense + (r + q) * p->dense_stride[0];
        from[q] = job->copy_src ? (const float *)(const void *)job->copy_src + (r + q) * ls : o[q];
    }
    float *sc = job->inner_rows + (int64_t)tid * job->inner_rows_stride;
    if (job->inner_index16) sk_inner_sum4_u16(o, from, u, job->inner_index, L, n, sc);
    else sk_inner_sum4_i32(o, from, u, job->inner_index, L, n, sc);
}
#endif

/* Row r of an integer out, by element width (through the unsigned type). */
static void sk_inner_int_row(const sk_inner_job *job, int64_t r) {
    const sk_plan *p = job->p;
    int64_t L = p->shape[1], cts = p->comp_target_stride[0];
    char *o = p->target + (ptrdiff_t)(r * p->target_stride[0]) * (ptrdiff_t)p->elem_size;
    const char *u = p->dense + (ptrdiff_t)(r * p->dense_stride[0]) * (ptrdiff_t)p->elem_size;
    const void *ix = job->inner_index;
    bool i16 = job->inner_index16;
    switch (p->elem_size) {
    case 1:
        if (i16) sk_inner_sum_row_uint8_t_uint16_t((uint8_t *)o, (const uint8_t *)u, ix, L, cts);
        else sk_inner_sum_row_uint8_t_int32_t((uint8_t *)o, (const uint8_t *)u, ix, L, cts);
        break;
    case 2:
        if (i16) sk_inner_sum_row_uint16_t_uint16_t((uint16_t *)(void *)o, (const uint16_t *)(const void *)u, ix, L, cts);
        else sk_inner_sum_row_uint16_t_int32_t((uint16_t *)(void *)o, (const uint16_t *)(const void *)u, ix, L, cts);
        break;
    case 4:
        if (i16) sk_inner_sum_row_uint32_t_uint16_t((uint32_t *)(void *)o, (const uint32_t *)(const void *)u, ix, L, cts);
        else sk_inner_sum_row_uint32_t_int32_t((uint32_t *)(void *)o, (const uint32_t *)(const void *)u, ix, L, cts);
        break;
    default:
        if (i16) sk_inner_sum_row_uint64_t_uint16_t((uint64_t *)(void *)o, (const uint64_t *)(const void *)u, ix, L, cts);
        else sk_inner_sum_row_uint64_t_int32_t((uint64_t *)(void *)o, (const uint64_t *)(const void *)u, ix, L, cts);
        break;
    }
}

/* Row r of a float32 or float64 out, one at a time. */
static void sk_inner_float_row(const sk_inner_job *job, int64_t r) {
    const sk_plan *p = job->p;
    int64_t L = p->shape[1], n = p->comp_size[0], cts = p->comp_target_stride[0];
    const void *ix = job->inner_index;
    bool i16 = job->inner_index16;
    if (p->dtype == SK_DTYPE_FLOAT64) {
        double *o = (double *)(void *)p->target + r * p->target_stride[0];
        const double *u = (const double *)(const void *)p->dense + r * p->dense_stride[0];
        if (i16) sk_inner_sum_row_double_uint16_t(o, u, ix, L, cts);
        else sk_inner_sum_row_double_int32_t(o, u, ix, L, cts);
        return;
    }
    float *o = (float *)(void *)p->target + r * p->target_stride[0];
    if (job->inner_rows && job->copy_src) /* a single row: copied here (see sk_inner_chunk) */
        memcpy(o, job->copy_src + (size_t)(r * p->linear_stride[0]) * sizeof(float),
               (size_t)n * sizeof(float));
    const float *u = (const float *)(const void *)p->dense + r * p->dense_stride[0];
    if (i16) sk_inner_sum_row_float_uint16_t(o, u, ix, L, cts);
    else sk_inner_sum_row_float_int32_t(o, u, ix, L, cts);
}

SK_INLINE bool sk_row_in(int64_t r, int64_t ls, int64_t clo, int64_t chi) {
    return r * ls >= clo && r * ls < chi;
}

/* Whether rows r .. r + 3 go together through the four-row buffer. */
SK_INLINE bool sk_inner_four(const sk_inner_job *job, int64_t r, int64_t clo, int64_t chi) {
    const sk_plan *p = job->p;
    int64_t ls = p->linear_stride[0];
    return SK_HAVE_ROWS4 && job->inner_rows && r + 4 <= p->shape[0] && sk_row_in(r + 1, ls, clo, chi) &&
           sk_row_in(r + 2, ls, clo, chi) && sk_row_in(r + 3, ls, clo, chi);
}

/* The rows of a 2-d plan whose targets lie in [clo, chi), four at a time
 * where the thread has a buffer (float32 or 16-bit, contiguous out rows),
 * else one by one. */
void sk_inner_sum(const sk_inner_job *job, int tid, int64_t clo, int64_t chi) {
    const sk_plan *p = job->p;
    int64_t rows = p->shape[0], ls = p->linear_stride[0];
    bool half = SK_IS_HALF(p->dtype), four_ok = half || p->dtype == SK_DTYPE_FLOAT32;
    for (int64_t r = 0; r < rows;) {
        if (!sk_row_in(r, ls, clo, chi)) {
            r++;
            continue;
        }
#if SK_HAVE_ROWS4
        if (four_ok && sk_inner_four(job, r, clo, chi)) {
            if (half) sk_inner_sum_half4(job, tid, r);
            else sk_inner_sum_f32x4(job, tid, r);
            r += 4;
            continue;
        }
#endif
        if (half) sk_inner_sum_half_row(job, tid, r);
        else if (!SK_IS_FLOAT(p->dtype)) sk_inner_int_row(job, r);
        else sk_inner_float_row(job, r);
        r++;
    }
}
