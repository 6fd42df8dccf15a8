/* The scatter engine: out[target(p)] = reduce(out[target(p)], src[p]).
 *
 * Determinism: threads own disjoint ranges of the target's row-major linear
 * index. Every thread walks all updates in row-major order and applies only
 * those that land in its range, so each target sees its updates in the same
 * order whatever the thread count (assign is last-wins, float sums are
 * reproducible bit for bit).
 *
 * Three ways to reduce:
 * - DIRECT: in place in out (assign, and sum/prod/amax/amin of 8-64 bit types);
 * - PRELOAD: float16/bfloat16 sum/prod/amax/amin accumulate in a float32 copy
 *   of the thread's targets and are rounded once at the end;
 * - SCRATCH: mean keeps a sum and a count per target.
 * include_self=false is a first pass that writes the reduction's identity
 * (-0.0 for sum, 1, -inf, +inf, or the integer extremes) into every target
 * that receives an update; then the reduction runs as with include_self.
 * PRELOAD and SCRATCH cut the thread's range into chunks so the scratch stays
 * near 16 bytes per update; a chunk costs one more walk over the updates. */
#include "cursor.h"

#include <math.h>
#include <stdlib.h>

enum { SK_PATH_DIRECT = 0, SK_PATH_SCRATCH = 1, SK_PATH_PRELOAD = 2 };
#define SK_SCATTER_MAX_THREADS 256

typedef struct {
    const sk_plan *p;
    int64_t total;          /* updates */
    int64_t target_numel;
    int64_t chunk;          /* targets per scratch chunk */
    int path;               /* SK_PATH_* */
    void (*pass)(const sk_plan *, int64_t clo, int64_t chi, void *acc, int64_t *cnt);
    void (*finish)(const sk_plan *, int64_t clo, int64_t chi, const void *acc, const int64_t *cnt);
    double *acc[SK_SCATTER_MAX_THREADS];
    int64_t *cnt[SK_SCATTER_MAX_THREADS];
} sk_scatter_job;

/* ---- per-dtype arithmetic (value semantics in the accumulation type) ---- */

#define SK_IS_FLOAT(DT) ((DT) >= SK_DTYPE_FLOAT16)
#define SK_IS_HALF(DT) ((DT) == SK_DTYPE_FLOAT16 || (DT) == SK_DTYPE_BFLOAT16)

/* Accumulation types: float for float16/bfloat16/float32, double for float64,
 * int64_t for integers and bool. */
SK_INLINE double sk_load_f(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: return sk_f16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_BFLOAT16: return sk_bf16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)ptr;
    default: return *(const double *)(const void *)ptr;
    }
}
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
SK_INLINE void sk_store_f(char *ptr, double v, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_f16((float)v); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_bf16((float)v); break;
    case SK_DTYPE_FLOAT32: *(float *)(void *)ptr = (float)v; break;
    default: *(double *)(void *)ptr = v; break;
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
/* The value an integer accumulator holds once wrapped to the dtype. */
SK_INLINE int64_t sk_wrap_i(int64_t v, const sk_dtype DT) {
    char buf[8];
    sk_store_i(buf, v, DT);
    return sk_load_i(buf, DT);
}

/* float arithmetic is done in float for all but float64, so that float32
 * results match a float32 loop and 16-bit types accumulate in float32 */
#define SK_FOP(DT, expr_f, expr_d) (DT == SK_DTYPE_FLOAT64 ? (expr_d) : (double)(expr_f))

SK_INLINE double sk_op_f(double a, double b, const sk_reduce RED, const sk_dtype DT) {
    float af = (float)a, bf = (float)b;
    switch (RED) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SK_FOP(DT, af + bf, a + b);
    case SK_REDUCE_PROD: return SK_FOP(DT, af * bf, a * b);
    case SK_REDUCE_AMAX: return (a > b || a != a) ? a : b; /* NaN propagates */
    case SK_REDUCE_AMIN: return (a < b || a != a) ? a : b;
    default: return b;
    }
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

/* ---- one update ---- */
SK_INLINE void sk_apply(const sk_plan *p, const char *src, int64_t toff, int64_t j, void *acc,
                        int64_t *cnt, const sk_dtype DT, const sk_reduce RED, const int PATH,
                        const size_t ES) {
    char *dst = p->target + (size_t)toff * ES;
    if (RED == SK_REDUCE_NONE) {
        memcpy(dst, src, ES);
        return;
    }
    if (PATH == SK_PATH_DIRECT) {
        if (SK_IS_FLOAT(DT)) sk_store_f(dst, sk_op_f(sk_load_f(dst, DT), sk_load_f(src, DT), RED, DT), DT);
        else sk_store_i(dst, sk_op_i(sk_load_i(dst, DT), sk_load_i(src, DT), RED, DT), DT);
        return;
    }
    if (PATH == SK_PATH_PRELOAD) {
        float *a = (float *)acc;
        a[j] = (float)sk_op_f(a[j], sk_load_f(src, DT), RED, DT);
        return;
    }
    if (SK_IS_FLOAT(DT)) {
        double *a = (double *)acc, v = sk_load_f(src, DT);
        if (cnt[j] == 0) a[j] = p->include_self ? sk_op_f(sk_load_f(dst, DT), v, RED, DT) : v;
        else a[j] = sk_op_f(a[j], v, RED, DT);
    } else {
        int64_t *a = (int64_t *)acc, v = sk_load_i(src, DT);
        if (cnt[j] == 0) a[j] = p->include_self ? sk_op_i(sk_load_i(dst, DT), v, RED, DT) : v;
        else a[j] = sk_op_i(a[j], v, RED, DT);
    }
    cnt[j]++;
}

/* A contiguous row of n updates into n contiguous targets: typed loops the
 * compiler can vectorise (src and out never overlap: sk_check_out). */
SK_INLINE void sk_apply_row(const sk_plan *p, const char *restrict src, int64_t src_step,
                            int64_t toff, int64_t j0, int64_t n, void *acc, int64_t *cnt,
                            const sk_dtype DT, const sk_reduce RED, const int PATH,
                            const size_t ES) {
    char *restrict dst = p->target + (size_t)toff * ES;
    if (src_step == 0) { /* one value for the whole row (scalar src, identity pass) */
        if (RED == SK_REDUCE_NONE) {
            for (int64_t j = 0; j < n; j++) memcpy(dst + (size_t)j * ES, src, ES);
        } else {
            for (int64_t j = 0; j < n; j++)
                sk_apply(p, src, toff + j, j0 + j, acc, cnt, DT, RED, PATH, ES);
        }
        return;
    }
    if (RED == SK_REDUCE_NONE) {
        memcpy(dst, src, (size_t)n * ES);
        return;
    }
    if (PATH == SK_PATH_DIRECT && DT == SK_DTYPE_FLOAT32) {
        float *restrict d = (float *)(void *)dst;
        const float *restrict s = (const float *)(const void *)src;
        for (int64_t j = 0; j < n; j++) d[j] = (float)sk_op_f(d[j], s[j], RED, DT);
        return;
    }
    if (PATH == SK_PATH_DIRECT && DT == SK_DTYPE_FLOAT64) {
        double *restrict d = (double *)(void *)dst;
        const double *restrict s = (const double *)(const void *)src;
        for (int64_t j = 0; j < n; j++) d[j] = sk_op_f(d[j], s[j], RED, DT);
        return;
    }
    if (PATH == SK_PATH_PRELOAD) {
        float *restrict a = (float *)acc + j0;
        const uint16_t *restrict s = (const uint16_t *)(const void *)src;
        for (int64_t j = 0; j < n; j++) {
            float v = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(s[j]) : sk_f16_to_f32(s[j]);
            a[j] = (float)sk_op_f(a[j], v, RED, DT);
        }
        return;
    }
    for (int64_t j = 0; j < n; j++)
        sk_apply(p, src + (size_t)j * ES, toff + j, j0 + j, acc, cnt, DT, RED, PATH, ES);
}

/* Row pattern: the index is constant along a contiguous inner dimension of
 * src and out (message passing, embedding gradients, index_add on axis 0). */
static inline bool sk_scatter_is_rows(const sk_plan *p) {
    int d = p->ndim - 1;
    return p->ndim >= 2 && p->ncomp >= 1 && p->index_stride[d] == 0 &&
           (p->dense_stride[d] == 1 || p->dense_stride[d] == 0) &&
           p->target_stride[d] == 1 && p->linear_stride[d] == 1 && p->index_stride[d - 1] != 0;
}

/* Rows walk: each row's targets are contiguous in the linear order, so the
 * chunk test is an interval intersection; the target rows of later updates
 * are prefetched because they come from random places. */
SK_INLINE void sk_scatter_rows(const sk_plan *p, int64_t clo, int64_t chi, void *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const int PATH,
                               const size_t ES) {
    int d = p->ndim - 1, r2 = d - 1;
    int64_t len = p->shape[d];
    int64_t ds = p->dense_stride[r2], ts = p->target_stride[r2], ls = p->linear_stride[r2],
            is = p->index_stride[r2];
    sk_plan outer = *p;
    outer.ndim--;
    int64_t nrows = sk_plan_numel(&outer);
    enum { AHEAD = 16 };
    sk_cursor c;
    sk_cursor_seek(&outer, &c, 0);
    for (int64_t pos = 0; pos < nrows;) {
        int64_t run = sk_cursor_run(&outer, &c);
        for (int64_t r = 0; r < run; r++) {
            if (r + AHEAD < run) {
                int64_t toff = c.target + (r + AHEAD) * ts, lin = c.linear + (r + AHEAD) * ls;
                if (sk_plan_resolve(p, c.index + (r + AHEAD) * is, &toff, &lin) && lin < chi &&
                    lin + len > clo) {
                    const char *q = PATH == SK_PATH_DIRECT
                                        ? p->target + (size_t)toff * ES
                                        : (const char *)acc + (size_t)(lin - clo) * (PATH == SK_PATH_PRELOAD ? 4 : 8);
                    __builtin_prefetch(q, 1);
                    if (len * ES > 64) __builtin_prefetch(q + 64, 1);
                }
            }
            int64_t toff = c.target + r * ts, lin = c.linear + r * ls;
            if (!sk_plan_resolve(p, c.index + r * is, &toff, &lin)) continue;
            if (lin >= chi || lin + len <= clo) continue;
            int64_t jlo = lin < clo ? clo - lin : 0, jhi = lin + len > chi ? chi - lin : len;
            int64_t step = p->dense_stride[d];
            sk_apply_row(p, p->dense + (size_t)(c.dense + r * ds + jlo * step) * ES, step,
                         toff + jlo, lin + jlo - clo, jhi - jlo, acc, cnt, DT, RED, PATH, ES);
        }
        pos += run;
        if (pos < nrows) sk_cursor_advance(&outer, &c, run);
    }
}

/* One walk over every update, applying those whose target is in [clo, chi). */
SK_INLINE void sk_scatter_pass(const sk_plan *p, int64_t clo, int64_t chi, void *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const int PATH) {
    const size_t ES = (DT == SK_DTYPE_FLOAT64 || DT == SK_DTYPE_INT64) ? 8
                      : (DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_INT32) ? 4
                      : (DT == SK_DTYPE_INT16 || SK_IS_HALF(DT))         ? 2
                                                                         : 1;
    int64_t total = sk_plan_numel(p);
    if (total == 0) return;
    if (sk_scatter_is_rows(p)) {
        sk_scatter_rows(p, clo, chi, acc, cnt, DT, RED, PATH, ES);
        return;
    }
    int d = p->ndim - 1;
    int64_t ds = p->dense_stride[d], ts = p->target_stride[d], ls = p->linear_stride[d],
            is = p->index_stride[d];
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    for (int64_t pos = 0; pos < total;) {
        int64_t run = sk_cursor_run(p, &c);
        const char *src = p->dense + (size_t)c.dense * ES;
        if (p->ncomp == 0 || is == 0) {
            int64_t toff = c.target, lin = c.linear;
            if (sk_plan_resolve(p, c.index, &toff, &lin)) {
                /* targets form lin + j*ls: clip j to the owned chunk */
                int64_t jlo = 0, jhi = run;
                if (ls > 0) {
                    if (lin < clo) jlo = (clo - lin + ls - 1) / ls;
                    if (lin + (run - 1) * ls >= chi) jhi = lin >= chi ? 0 : (chi - lin + ls - 1) / ls;
                } else if (lin < clo || lin >= chi) {
                    jhi = 0;
                }
                if (jlo >= jhi) {
                    /* no target of this run is in the chunk */
                } else if ((ds == 1 || ds == 0) && ts == 1 && ls == 1)
                    sk_apply_row(p, src + (size_t)(jlo * ds) * ES, ds, toff + jlo, lin + jlo - clo,
                                 jhi - jlo, acc, cnt, DT, RED, PATH, ES);
                else
                    for (int64_t j = jlo; j < jhi; j++)
                        sk_apply(p, src + (size_t)(j * ds) * ES, toff + j * ts, lin + j * ls - clo,
                                 acc, cnt, DT, RED, PATH, ES);
            }
        } else if (p->ncomp == 1 && ls == 0 &&
                   (c.linear >= chi ||
                    c.linear + (p->comp_size[0] - 1) * p->comp_linear_stride[0] < clo)) {
            /* every target this run can reach lies outside the chunk */
        } else if (p->ncomp == 1) {
            /* one index component varying along the run: typed index loads */
            const int64_t n = p->comp_size[0], cts = p->comp_target_stride[0],
                          cls = p->comp_linear_stride[0];
            const sk_index_mode mode = p->mode;
#define SK_VARYING_SCATTER(IT)                                                                     \
    do {                                                                                           \
        const IT *ix = (const IT *)p->index + c.index;                                             \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = ix[j * is];                                                                \
            if (v < 0) v += n;                                                                     \
            if (SK_UNLIKELY((uint64_t)v >= (uint64_t)n) && !sk_resolve_index(ix[j * is], n, mode, &v)) \
                continue;                                                                          \
            int64_t lin = c.linear + j * ls + v * cls;                                             \
            if (lin < clo || lin >= chi) continue;                                                 \
            sk_apply(p, src + (size_t)(j * ds) * ES, c.target + j * ts + v * cts, lin - clo, acc,  \
                     cnt, DT, RED, PATH, ES);                                                      \
        }                                                                                          \
    } while (0)
            if (p->index_is64) SK_VARYING_SCATTER(int64_t);
            else SK_VARYING_SCATTER(int32_t);
#undef SK_VARYING_SCATTER
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = c.target + j * ts, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < clo || lin >= chi) continue;
                sk_apply(p, src + (size_t)(j * ds) * ES, toff, lin - clo, acc, cnt, DT, RED, PATH, ES);
            }
        }
        pos += run;
        if (pos < total) sk_cursor_advance(p, &c, run);
    }
}

/* Writes the accumulated targets of a chunk back into out, rounding once. */
/* Walks the targets [clo, chi) of out in row-major order: fn(offset, j). */
#define SK_FOR_TARGETS(out, clo, chi, BODY)                                                        \
    do {                                                                                           \
        int32_t nd_ = (out)->ndim;                                                                 \
        int64_t coord_[SK_MAX_DIMS], off = 0, rem_ = (clo);                                        \
        for (int32_t d_ = nd_ - 1; d_ >= 0; d_--) {                                                \
            coord_[d_] = rem_ % (out)->shape[d_];                                                  \
            rem_ /= (out)->shape[d_];                                                              \
            off += coord_[d_] * (out)->strides[d_];                                                \
        }                                                                                          \
        int64_t inner_ = nd_ ? (out)->strides[nd_ - 1] : 0;                                        \
        for (int64_t j = 0; j < (chi) - (clo);) {                                                  \
            int64_t run_ = nd_ ? (out)->shape[nd_ - 1] - coord_[nd_ - 1] : 1;                      \
            if (run_ > (chi) - (clo) - j) run_ = (chi) - (clo) - j;                                \
            for (int64_t r_ = 0; r_ < run_; r_++, j++, off += inner_) { BODY; }                    \
            if (nd_ == 0) break;                                                                   \
            coord_[nd_ - 1] += run_;                                                               \
            for (int32_t d_ = nd_ - 1; d_ > 0 && coord_[d_] >= (out)->shape[d_]; d_--) {           \
                off -= coord_[d_] * (out)->strides[d_];                                            \
                coord_[d_] = 0;                                                                    \
                coord_[d_ - 1]++;                                                                  \
                off += (out)->strides[d_ - 1];                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* PRELOAD: the float32 accumulators start as out's values. */
SK_INLINE void sk_scatter_preload(const sk_plan *p, int64_t clo, int64_t chi, float *acc,
                                  const sk_dtype DT) {
    const sk_tensor *out = p->out;
    const uint16_t *base = (const uint16_t *)out->data;
    SK_FOR_TARGETS(out, clo, chi, {
        acc[j] = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(base[off]) : sk_f16_to_f32(base[off]);
    });
}

SK_INLINE void sk_scatter_finish(const sk_plan *p, int64_t clo, int64_t chi, const void *acc,
                                 const int64_t *cnt, const sk_dtype DT, const sk_reduce RED,
                                 const int PATH) {
    if (PATH == SK_PATH_PRELOAD) { /* rounding an unchanged value gives it back */
        uint16_t *base = (uint16_t *)p->out->data;
        const float *a = (const float *)acc;
        SK_FOR_TARGETS(p->out, clo, chi, {
            base[off] = DT == SK_DTYPE_BFLOAT16 ? sk_f32_to_bf16(a[j]) : sk_f32_to_f16(a[j]);
        });
        return;
    }
    const sk_tensor *out = p->out;
    const size_t es = p->elem_size;
    int32_t nd = out->ndim;
    int64_t coord[SK_MAX_DIMS], off = 0, rem = clo;
    for (int32_t d = nd - 1; d >= 0; d--) {
        coord[d] = rem % out->shape[d];
        rem /= out->shape[d];
        off += coord[d] * out->strides[d];
    }
    for (int64_t j = 0; j < chi - clo; j++) {
        if (cnt[j] > 0) {
            char *dst = (char *)out->data + (size_t)off * es;
            int64_t n = cnt[j] + (p->include_self ? 1 : 0);
            if (SK_IS_FLOAT(DT)) {
                double v = ((const double *)acc)[j];
                if (RED == SK_REDUCE_MEAN) v = SK_FOP(DT, (float)v / (float)n, v / (double)n);
                sk_store_f(dst, v, DT);
            } else {
                int64_t v = ((const int64_t *)acc)[j];
                if (RED == SK_REDUCE_MEAN) v = sk_floor_div(sk_wrap_i(v, DT), n);
                sk_store_i(dst, v, DT);
            }
        }
        for (int32_t d = nd - 1; d >= 0; d--) { /* next target in row-major order */
            off += out->strides[d];
            if (++coord[d] < out->shape[d]) break;
            off -= coord[d] * out->strides[d];
            coord[d] = 0;
        }
    }
}

/* ---- instantiation: one pass/finish per (dtype, reduce, path) ---- */
#define SK_DTYPES(X)                                                                              \
    X(SK_DTYPE_BOOL, bool) X(SK_DTYPE_UINT8, u8) X(SK_DTYPE_INT8, i8) X(SK_DTYPE_INT16, i16)      \
    X(SK_DTYPE_INT32, i32) X(SK_DTYPE_INT64, i64) X(SK_DTYPE_FLOAT16, f16)                        \
    X(SK_DTYPE_BFLOAT16, bf16) X(SK_DTYPE_FLOAT32, f32) X(SK_DTYPE_FLOAT64, f64)
#define SK_REDUCES(X, DT, N)                                                                       \
    X(DT, N, SK_REDUCE_NONE, none) X(DT, N, SK_REDUCE_SUM, sum) X(DT, N, SK_REDUCE_PROD, prod)     \
    X(DT, N, SK_REDUCE_MEAN, mean) X(DT, N, SK_REDUCE_AMAX, amax) X(DT, N, SK_REDUCE_AMIN, amin)

#define SK_DEFINE_KERNELS(DT, N, RED, R)                                                          \
    static void sk_pass_direct_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, void *acc,   \
                                         int64_t *cnt) {                                         \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, SK_PATH_DIRECT);                          \
    }                                                                                             \
    static void sk_pass_scratch_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, void *acc,  \
                                          int64_t *cnt) {                                        \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, SK_PATH_SCRATCH);                         \
    }                                                                                             \
    static void sk_pass_preload_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, void *acc,  \
                                          int64_t *cnt) {                                        \
        if (SK_IS_HALF(DT)) {                                                                     \
            sk_scatter_preload(p, clo, chi, (float *)acc, DT);                                    \
            sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, SK_PATH_PRELOAD);                     \
        }                                                                                         \
    }                                                                                             \
    static void sk_finish_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, const void *acc,  \
                                    const int64_t *cnt) {                                        \
        sk_scatter_finish(p, clo, chi, acc, cnt, DT, RED, SK_PATH_SCRATCH);                       \
    }                                                                                             \
    static void sk_finish_preload_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi,           \
                                            const void *acc, const int64_t *cnt) {                \
        if (SK_IS_HALF(DT)) sk_scatter_finish(p, clo, chi, acc, cnt, DT, RED, SK_PATH_PRELOAD);   \
    }
#define SK_DEFINE_FOR_DTYPE(DT, N) SK_REDUCES(SK_DEFINE_KERNELS, DT, N)
SK_DTYPES(SK_DEFINE_FOR_DTYPE)

#define SK_SELECT_KERNEL(DT, N, RED, R)                                                           \
    if (p->dtype == DT && p->reduce == RED) {                                                     \
        job.pass = job.path == SK_PATH_SCRATCH   ? sk_pass_scratch_##N##_##R                       \
                   : job.path == SK_PATH_PRELOAD ? sk_pass_preload_##N##_##R                       \
                                                 : sk_pass_direct_##N##_##R;                       \
        job.finish = job.path == SK_PATH_PRELOAD ? sk_finish_preload_##N##_##R                     \
                                                 : sk_finish_##N##_##R;                            \
    }
#define SK_SELECT_FOR_DTYPE(DT, N) SK_REDUCES(SK_SELECT_KERNEL, DT, N)

static void sk_scatter_task(void *arg, int tid, int nthreads) {
    sk_scatter_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->target_numel, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    if (job->path == SK_PATH_DIRECT) {
        job->pass(p, lo, hi, NULL, NULL);
        return;
    }
    double *acc = job->acc[tid]; /* 8-byte slots: double, int64_t, or float in PRELOAD */
    int64_t *cnt = job->cnt[tid];
    for (int64_t clo = lo; clo < hi; clo += job->chunk) {
        int64_t chi = clo + job->chunk < hi ? clo + job->chunk : hi;
        if (cnt) memset(cnt, 0, (size_t)(chi - clo) * sizeof(int64_t));
        job->pass(p, clo, chi, acc, cnt);
        job->finish(p, clo, chi, acc, cnt);
    }
}

/* The identity of a reduction in dtype dt (bytes), for include_self=false. */
static void sk_identity(sk_reduce red, sk_dtype dt, void *out) {
    double f = red == SK_REDUCE_SUM ? -0.0 : red == SK_REDUCE_PROD ? 1.0
             : red == SK_REDUCE_AMAX ? -INFINITY : INFINITY;
    int64_t i = red == SK_REDUCE_SUM ? 0 : red == SK_REDUCE_PROD ? 1 : 0;
    if (red == SK_REDUCE_AMAX || red == SK_REDUCE_AMIN) {
        bool mx = red == SK_REDUCE_AMAX;
        switch (dt) {
        case SK_DTYPE_BOOL: i = mx ? 0 : 1; break;
        case SK_DTYPE_UINT8: i = mx ? 0 : UINT8_MAX; break;
        case SK_DTYPE_INT8: i = mx ? INT8_MIN : INT8_MAX; break;
        case SK_DTYPE_INT16: i = mx ? INT16_MIN : INT16_MAX; break;
        case SK_DTYPE_INT32: i = mx ? INT32_MIN : INT32_MAX; break;
        default: i = mx ? INT64_MIN : INT64_MAX; break;
        }
    }
    switch (dt) {
    case SK_DTYPE_FLOAT16: { uint16_t h = sk_f32_to_f16((float)f); memcpy(out, &h, 2); } break;
    case SK_DTYPE_BFLOAT16: { uint16_t h = sk_f32_to_bf16((float)f); memcpy(out, &h, 2); } break;
    case SK_DTYPE_FLOAT32: { float v = (float)f; memcpy(out, &v, 4); } break;
    case SK_DTYPE_FLOAT64: memcpy(out, &f, 8); break;
    default: {
        uint64_t u = (uint64_t)i;
        size_t es = sk_dtype_size(dt);
        for (size_t b = 0; b < es; b++) ((uint8_t *)out)[b] = (uint8_t)(u >> (8 * b)); /* little endian */
    }
    }
}

/* Picks pass/finish kernels for plan q and path into job. */
static void sk_select_kernels(sk_scatter_job *jp, const sk_plan *p) {
    sk_scatter_job job = *jp;
    SK_DTYPES(SK_SELECT_FOR_DTYPE) /* picks job.pass and job.finish */
    *jp = job;
}

sk_status sk_run_scatter(sk_plan *p, const sk_tensor *copy_from, int nthreads) {
    sk_plan_normalize(p);
    sk_scatter_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.total = sk_plan_numel(p);
    job.target_numel = sk_tensor_numel(p->out);
    bool half = SK_IS_HALF(p->dtype);
    job.path = p->reduce == SK_REDUCE_NONE ? SK_PATH_DIRECT
               : p->reduce == SK_REDUCE_MEAN ? SK_PATH_SCRATCH
               : half ? SK_PATH_PRELOAD : SK_PATH_DIRECT;
    sk_select_kernels(&job, p);
    if (!job.pass) return sk_fail(SK_STATUS_INTERNAL, "%s: no kernel for this dtype", p->op);
    int64_t work = job.total > job.target_numel ? job.total : job.target_numel;
    int nt = sk_threads_for_work(nthreads, work);
    if (nt > SK_SCATTER_MAX_THREADS) nt = SK_SCATTER_MAX_THREADS;
    if (job.target_numel > 0 && nt > job.target_numel) nt = (int)job.target_numel;
    sk_status st = SK_STATUS_OK;
    bool run = job.total > 0 && job.target_numel > 0;
    if (job.path != SK_PATH_DIRECT && run) {
        /* Scratch: 16 bytes (SCRATCH) or 4 (PRELOAD) per target of a chunk; a
         * chunk holds about updates/threads targets (at least 64k), so scratch
         * stays near 16 bytes per update. Allocated before anything is written. */
        int64_t per_thread = (job.target_numel + nt - 1) / nt;
        job.chunk = job.total / nt;
        if (job.chunk < (1 << 16)) job.chunk = 1 << 16;
        if (job.chunk > per_thread) job.chunk = per_thread;
        for (int t = 0; t < nt && st == SK_STATUS_OK; t++) {
            job.acc[t] = malloc((size_t)job.chunk * sizeof(double));
            job.cnt[t] = job.path == SK_PATH_SCRATCH ? malloc((size_t)job.chunk * sizeof(int64_t)) : NULL;
            if (!job.acc[t] || (job.path == SK_PATH_SCRATCH && !job.cnt[t]))
                st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the reduction scratch",
                             p->op);
        }
    }
    if (st == SK_STATUS_OK) {
        if (copy_from) sk_copy_unchecked(copy_from, (sk_tensor *)p->out, nthreads);
        if (run && !p->include_self && p->reduce != SK_REDUCE_NONE && p->reduce != SK_REDUCE_MEAN) {
            /* touched targets start from the identity: an assign pass whose
             * every update reads one identity element */
            uint64_t identity = 0;
            sk_identity(p->reduce, p->dtype, &identity);
            sk_plan q = *p;
            q.dense = (char *)&identity;
            memset(q.dense_stride, 0, sizeof q.dense_stride);
            q.reduce = SK_REDUCE_NONE;
            sk_scatter_job ij = job;
            ij.p = &q;
            ij.path = SK_PATH_DIRECT;
            sk_select_kernels(&ij, &q);
            sk_parallel_run(nt, sk_scatter_task, &ij);
        }
        if (run) sk_parallel_run(nt, sk_scatter_task, &job);
    }
    for (int t = 0; t < nt; t++) {
        free(job.acc[t]);
        free(job.cnt[t]);
    }
    return st;
}
