/* The scatter engine: out[target(p)] = reduce(out[target(p)], src[p]).
 *
 * Determinism: threads own disjoint ranges of the target's row-major linear
 * index. Every thread walks all updates in row-major order and applies only
 * those that land in its range, so each target sees its updates in the same
 * order whatever the thread count (assign is last-wins, float sums are
 * reproducible bit for bit).
 *
 * Reductions run in place in out, except float16/bfloat16, which accumulate
 * in a float32 copy of the thread's targets ("half" path) and are rounded
 * once at the end. A per-target count is kept only when it is needed
 * ("counted" path): mean divides by it, and include_self=false uses it to
 * start each touched target from its first update (the identity). Scratch is
 * cut into chunks of about updates/threads targets (at least 64k), so it
 * stays under 16 bytes per update; a chunk costs one more walk.
 *
 * Large row scatters with a reduction take the blocked path instead (see
 * "blocked rows" below): fixed blocks of update rows, one partial each,
 * folded in block order. sk_run_scatter picks it when it applies. */
#include "cpu/cursor.h"

#include <math.h>
#include <stdlib.h>

#define SK_SCATTER_MAX_THREADS 256

typedef struct {
    const sk_plan *p;
    int64_t total;          /* updates */
    int64_t target_numel;
    int64_t chunk;          /* targets per chunk (the whole range when no scratch) */
    bool half, counted;
    void (*pass)(const sk_plan *, int64_t clo, int64_t chi, float *acc, int64_t *cnt);
    void (*finish)(const sk_plan *, int64_t clo, int64_t chi, const float *acc, const int64_t *cnt);
    float *acc[SK_SCATTER_MAX_THREADS];
    int64_t *cnt[SK_SCATTER_MAX_THREADS];
    /* inner-axis pattern or column tiles with out != x (both row-major):
     * each chunk or tile first copies its targets from here, so they are
     * still in cache when its updates arrive; NULL when x was copied up
     * front */
    const char *copy_src;
    /* inner-axis sum of floats on a 2-d plan (W6): the index copied once,
     * negatives wrapped, as uint16 when the axis has at most 65536 entries
     * (else int32), and a loop of its own (sk_inner_sum below); NULL: the
     * generic pass */
    const void *inner_index;
    bool inner_index16;
    /* float32 with contiguous out rows: a buffer of 4 out rows, interleaved,
     * per thread (sk_inner_sum4 below); NULL: one row at a time */
    float *inner_rows;
    int64_t inner_rows_stride; /* floats per thread in inner_rows */
    /* float16/bfloat16: one float32 row of out per thread (n floats each),
     * where a row accumulates and is rounded once */
    float *half_rows;
    /* column tiles (sk_plan_column_tile), a tile of out packed per thread in
     * pack (pack_bytes each); tile 0: not used */
    int64_t tile;
    char *pack;
    size_t pack_bytes;
    bool touch; /* inner-axis chunks in place, out row-major: prefetch each chunk first */
} sk_scatter_job;

/* ---- per-dtype arithmetic (value semantics in the accumulation type) ---- */

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
 * back to bits, where a NaN already in `old` keeps its bits when the result
 * is NaN (the trip through float32 would make a signalling one quiet).
 * Masks, not branches, and the dtype tested outside the loops, so that they
 * vectorise. */
SK_INLINE void sk_half_run_to_f32(float *restrict dst, const uint16_t *restrict src, ptrdiff_t ss,
                                  int64_t n, bool bf16) {
    if (bf16) for (int64_t k = 0; k < n; k++) dst[k] = sk_bf16_to_f32(src[k * ss]);
    else for (int64_t k = 0; k < n; k++) dst[k] = sk_f16_to_f32(src[k * ss]);
}
SK_INLINE uint16_t sk_half_round(float v, uint16_t old, const bool bf16) {
    uint16_t h = bf16 ? sk_f32_to_bf16(v) : sk_f32_to_f16(v);
    unsigned nan_above = bf16 ? 0x7f80u : 0x7c00u; /* the bits of infinity */
    uint16_t keep = (uint16_t)(0u - (unsigned)((v != v) & ((old & 0x7fffu) > nan_above)));
    return (uint16_t)((old & keep) | (h & (uint16_t)~keep));
}
/* dst and old may be the same memory (stride ds, os) */
SK_INLINE void sk_f32_run_to_half(uint16_t *dst, ptrdiff_t ds, const uint16_t *old, ptrdiff_t os,
                                  const float *restrict v, int64_t n, bool bf16) {
    if (bf16) for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_half_round(v[k], old[k * os], true);
    else for (int64_t k = 0; k < n; k++) dst[k * ds] = sk_half_round(v[k], old[k * os], false);
}

/* Values: floats go through sk_load_f/sk_store_f (internal.h); integers and
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

SK_INLINE double sk_op_f(double a, double b, const sk_reduce RED, const sk_dtype DT) {
    float af = (float)a, bf = (float)b;
    switch (RED) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SK_FOP(DT, af + bf, a + b);
    case SK_REDUCE_PROD: return SK_FOP(DT, af * bf, a * b);
    /* NaN propagates; a tie keeps the current value a (+0.0 against -0.0
     * keeps whichever came first, as PyTorch does). `|`, not `||`: one select
     * the compiler vectorises (with `||` the float64 row loops branched per
     * element, W2's shape in float64 amax: 108 against 43 ms for sum) */
    case SK_REDUCE_AMAX: return ((a >= b) | (a != a)) ? a : b;
    case SK_REDUCE_AMIN: return ((a <= b) | (a != a)) ? a : b;
    default: return b;
    }
}
/* amax/amin of floats without a branch: a when it wins, ties or is NaN,
 * else b (sk_op_f's rule), chosen by masking the bits */
#define SK_DEFINE_PICK(NAME, FT, UT)                                                               \
    SK_INLINE FT NAME(FT a, FT b, const sk_reduce RED) {                                           \
        UT ua, ub, take = (UT)0 - (UT)((RED == SK_REDUCE_AMAX ? a >= b : a <= b) | (a != a));    \
        memcpy(&ua, &a, sizeof a);                                                                 \
        memcpy(&ub, &b, sizeof b);                                                                 \
        ub ^= (ua ^ ub) & take;                                                                    \
        memcpy(&b, &ub, sizeof b);                                                                 \
        return b;                                                                                  \
    }
SK_DEFINE_PICK(sk_pick_f32, float, uint32_t)
SK_DEFINE_PICK(sk_pick_f64, double, uint64_t)
#undef SK_DEFINE_PICK
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
/* j indexes the chunk's scratch (acc for 16-bit types, cnt when counted). */
SK_INLINE void sk_apply(const sk_plan *p, const char *src, int64_t toff, int64_t j, float *acc,
                        int64_t *cnt, const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                        const size_t ES) {
    char *dst = p->target + (size_t)toff * ES;
    if (RED == SK_REDUCE_NONE) {
        memcpy(dst, src, ES);
        return;
    }
    bool first = false; /* include_self=false: the first update replaces the old value */
    if (COUNTED) first = cnt[j]++ == 0 && !p->include_self;
    if (SK_USES_ACC(DT, RED)) {
        double v = sk_load_f(src, DT);
        acc[j] = first ? (float)v : (float)sk_op_f(acc[j], v, RED, DT);
    } else if (SK_IS_FLOAT(DT)) {
        double v = sk_load_f(src, DT);
        sk_store_f(dst, first ? v : sk_op_f(sk_load_f(dst, DT), v, RED, DT), DT);
    } else {
        int64_t v = sk_load_i(src, DT);
        sk_store_i(dst, first ? v : sk_op_i(sk_load_i(dst, DT), v, RED, DT), DT);
    }
}

/* A row of n updates into n contiguous targets. Without counts the typed
 * loops vectorise (src and out never overlap: sk_check_out). src_step 0: one
 * value for the whole row (a scalar src). */
SK_INLINE void sk_apply_row(const sk_plan *p, const char *restrict src, int64_t src_step,
                            int64_t toff, int64_t j0, int64_t n, float *acc, int64_t *cnt,
                            const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                            const size_t ES) {
    char *restrict dst = p->target + (size_t)toff * ES;
    if (RED == SK_REDUCE_NONE && src_step == 1) {
        memcpy(dst, src, (size_t)n * ES);
        return;
    }
    if (COUNTED && src_step == 1 && (SK_IS_FLOAT(DT)) && RED != SK_REDUCE_NONE) {
        /* Within a chunk, every row that hits these targets covers exactly
         * this segment (rows of one target row start at the same linear
         * index and are clipped alike), so the targets share one count and
         * the first-touch test is made once for the row. */
        bool first = cnt[j0] == 0 && !p->include_self;
        int64_t *restrict c = cnt + j0;
        for (int64_t j = 0; j < n; j++) c[j]++;
        const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
        if (DT == SK_DTYPE_FLOAT32) {
            float *restrict d = (float *)(void *)dst;
            const float *restrict s = (const float *)(const void *)src;
            if (first) memcpy(d, s, (size_t)n * sizeof(float));
            else for (int64_t j = 0; j < n; j++) d[j] = (float)sk_op_f(d[j], s[j], OP, DT);
            return;
        }
        if (DT == SK_DTYPE_FLOAT64) {
            double *restrict d = (double *)(void *)dst;
            const double *restrict s = (const double *)(const void *)src;
            if (first) memcpy(d, s, (size_t)n * sizeof(double));
            else for (int64_t j = 0; j < n; j++) d[j] = sk_op_f(d[j], s[j], OP, DT);
            return;
        }
        float *restrict a = acc + j0;
        const uint16_t *restrict s = (const uint16_t *)(const void *)src;
        for (int64_t j = 0; j < n; j++) {
            float v = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(s[j]) : sk_f16_to_f32(s[j]);
            a[j] = first ? v : (float)sk_op_f(a[j], v, OP, DT);
        }
        return;
    }
    if (!COUNTED && src_step == 1) {
        if (DT == SK_DTYPE_FLOAT32) {
            float *restrict d = (float *)(void *)dst;
            const float *restrict s = (const float *)(const void *)src;
            for (int64_t j = 0; j < n; j++) d[j] = (float)sk_op_f(d[j], s[j], RED, DT);
            return;
        }
        if (DT == SK_DTYPE_FLOAT64) {
            double *restrict d = (double *)(void *)dst;
            const double *restrict s = (const double *)(const void *)src;
            for (int64_t j = 0; j < n; j++) d[j] = sk_op_f(d[j], s[j], RED, DT);
            return;
        }
        if (SK_USES_ACC(DT, RED)) {
            float *restrict a = acc + j0;
            const uint16_t *restrict s = (const uint16_t *)(const void *)src;
            for (int64_t j = 0; j < n; j++) {
                float v = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(s[j]) : sk_f16_to_f32(s[j]);
                a[j] = (float)sk_op_f(a[j], v, RED, DT);
            }
            return;
        }
    }
    for (int64_t j = 0; j < n; j++)
        sk_apply(p, src + (size_t)(j * src_step) * ES, toff + j, j0 + j, acc, cnt, DT, RED, COUNTED,
                 ES);
}

/* Row pattern: the index is constant along a contiguous inner dimension of
 * src and out (message passing, embedding gradients, index_add on axis 0). */
static inline bool sk_scatter_is_rows(const sk_plan *p) {
    int d = p->ndim - 1;
    return p->ndim >= 2 && p->ncomp >= 1 && p->index_stride[d] == 0 && p->target_stride[d] == 1 &&
           p->linear_stride[d] == 1 && p->index_stride[d - 1] != 0;
}

/* Rows walk: each row's targets are contiguous in the linear order, so the
 * chunk test is an interval intersection; the target rows of later updates
 * are prefetched because they come from random places. */
SK_INLINE void sk_scatter_rows(const sk_plan *p, int64_t clo, int64_t chi, float *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                               const size_t ES) {
    int d = p->ndim - 1, r2 = d - 1;
    int64_t len = p->shape[d], step = p->dense_stride[d];
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
                    int64_t c0 = p->col_lo < len ? p->col_lo : 0;
                    const char *q = SK_USES_ACC(DT, RED) ? (const char *)(acc + (lin - clo))
                                                   : p->target + (size_t)(toff + c0) * ES;
                    __builtin_prefetch(q, 1);
                    if (len * (int64_t)ES > 64) __builtin_prefetch(q + 64, 1);
                    if (COUNTED) { /* the row's counts are as scattered as its targets */
                        const char *k = (const char *)(cnt + (lin < clo ? 0 : lin - clo));
                        for (int64_t b = 0; b < len * 8 && b < 512; b += 64) __builtin_prefetch(k + b, 1);
                    }
                }
            }
            int64_t toff = c.target + r * ts, lin = c.linear + r * ls;
            if (!sk_plan_resolve(p, c.index + r * is, &toff, &lin)) continue;
            if (lin >= chi || lin + len <= clo) continue;
            int64_t jlo = lin < clo ? clo - lin : 0, jhi = lin + len > chi ? chi - lin : len;
            if (jlo < p->col_lo) jlo = p->col_lo; /* a column block (sk_scatter_cols_task) */
            if (jhi > p->col_hi) jhi = p->col_hi;
            if (jlo >= jhi) continue;
            sk_apply_row(p, p->dense + (size_t)(c.dense + r * ds + jlo * step) * ES, step,
                         toff + jlo, lin + jlo - clo, jhi - jlo, acc, cnt, DT, RED, COUNTED, ES);
        }
        pos += run;
        if (pos < nrows) sk_cursor_advance(&outer, &c, run);
    }
}

/* Whether a run of index values (stride is) has one outside [-n, n). */
SK_INLINE bool sk_run_has_bad(const void *ix, bool is64, int64_t run, int64_t is, int64_t n) {
    uint64_t span = 2u * (uint64_t)n;
    return (is64 ? sk_scan_run64((const int64_t *)ix, run, is, n, span)
                 : sk_scan_run32((const int32_t *)ix, run, is, n, span)) >= 0;
}

/* One walk over every update, applying those whose target is in [clo, chi). */
SK_INLINE void sk_scatter_pass(const sk_plan *p, int64_t clo, int64_t chi, float *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const bool COUNTED) {
    const size_t ES = sk_es(DT);
    int64_t total = sk_plan_numel(p);
    if (total == 0) return;
    if (sk_scatter_is_rows(p)) {
        sk_scatter_rows(p, clo, chi, acc, cnt, DT, RED, COUNTED, ES);
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
                int64_t jlo, jhi; /* the part of the run inside the owned chunk */
                sk_clip_run(lin, ls, run, clo, chi, &jlo, &jhi);
                if (jlo >= jhi) {
                    /* no target of this run is in the chunk */
                } else if ((ds == 1 || ds == 0) && ts == 1 && ls == 1) {
                    sk_apply_row(p, src + (size_t)(jlo * ds) * ES, ds, toff + jlo, lin + jlo - clo,
                                 jhi - jlo, acc, cnt, DT, RED, COUNTED, ES);
                } else {
                    for (int64_t j = jlo; j < jhi; j++)
                        sk_apply(p, src + (size_t)(j * ds) * ES, toff + j * ts, lin + j * ls - clo,
                                 acc, cnt, DT, RED, COUNTED, ES);
                }
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
            /* every target the run can reach is in the chunk: no range test */
            const bool inside = ls == 0 && c.linear >= clo && c.linear + (n - 1) * cls < chi;
/* a (op) b for the typed loops below: assign moves the bits; amax/amin pick
 * through a mask, so that random data costs no mispredicted branches (the
 * compiler made `?:` on floats a branch: an element scatter along the last
 * axis with amax took twice the time of sum) */
#define SK_TIGHT_APPLY(FT, dst, b)                                                                 \
    do {                                                                                           \
        if (RED == SK_REDUCE_NONE) (dst) = (b);                                                    \
        else if ((RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN) && DT == SK_DTYPE_FLOAT32)       \
            (dst) = (FT)sk_pick_f32((float)(dst), (float)(b), RED);                                \
        else if ((RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN) && DT == SK_DTYPE_FLOAT64)       \
            (dst) = (FT)sk_pick_f64((double)(dst), (double)(b), RED);                              \
        else (dst) = (FT)sk_op_f((dst), (b), RED, DT);                                             \
    } while (0)
#define SK_VARYING_TIGHT(IT, FT)                                                                   \
    do {                                                                                           \
        FT *restrict d_ = (FT *)(void *)p->target + c.target;                                      \
        const FT *restrict s_ = (const FT *)(const void *)src;                                     \
        const IT *restrict x_ = (const IT *)p->index + c.index;                                    \
        if (ts == 0 && cts == 1 && ds == 1 && is == 1) { /* all contiguous (W6) */                 \
            for (int64_t j = 0; j < run; j++) {                                                    \
                int64_t v = x_[j];                                                                 \
                v += v < 0 ? n : 0;                                                                \
                SK_TIGHT_APPLY(FT, d_[v], s_[j]);                                                  \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = x_[j * is];                                                                \
            v += v < 0 ? n : 0;                                                                    \
            FT *t_ = d_ + j * ts + v * cts;                                                        \
            SK_TIGHT_APPLY(FT, *t_, s_[j * ds]);                                                   \
        }                                                                                          \
    } while (0)
#define SK_VARYING_SCATTER(IT)                                                                     \
    do {                                                                                           \
        const IT *ix = (const IT *)p->index + c.index;                                             \
        /* a fresh out's values are checked here, a run at a time (in L1 for     \
         * its updates); a run with a bad value is not applied */                  \
        if (SK_UNLIKELY(p->invalid != NULL) && sk_run_has_bad(ix, sizeof(IT) == 8, run, is, n)) { \
            __atomic_store_n(p->invalid, 1, __ATOMIC_RELAXED);                                     \
            break;                                                                                 \
        }                                                                                          \
        if (inside && mode == SK_INDEX_MODE_ERROR && !COUNTED && RED != SK_REDUCE_NONE &&         \
            (DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_FLOAT64)) {                                  \
            /* index_add along an inner axis: values checked, targets in one                      \
             * cache-resident row; typed and hoisted so the loop stays short */                    \
            if (DT == SK_DTYPE_FLOAT32)                                                            \
                SK_VARYING_TIGHT(IT, float);                                                       \
            else                                                                                   \
                SK_VARYING_TIGHT(IT, double);                                                      \
            break;                                                                                 \
        }                                                                                          \
        if (inside && mode == SK_INDEX_MODE_ERROR && RED == SK_REDUCE_NONE) {                     \
            /* assign: a typed store of the element's bits */                                      \
            if (ES == 8) SK_VARYING_TIGHT(IT, uint64_t);                                           \
            else if (ES == 4) SK_VARYING_TIGHT(IT, uint32_t);                                      \
            else if (ES == 2) SK_VARYING_TIGHT(IT, uint16_t);                                      \
            else SK_VARYING_TIGHT(IT, uint8_t);                                                    \
            break;                                                                                 \
        }                                                                                          \
        if (inside && mode == SK_INDEX_MODE_ERROR) {                                               \
            for (int64_t j = 0; j < run; j++) {                                                    \
                int64_t v = ix[j * is];                                                            \
                v += v < 0 ? n : 0;                                                                \
                sk_apply(p, src + (size_t)(j * ds) * ES, c.target + j * ts + v * cts,              \
                         c.linear + v * cls - clo, acc, cnt, DT, RED, COUNTED, ES);                \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = ix[j * is];                                                                \
            if (v < 0) v += n;                                                                     \
            if (SK_UNLIKELY((uint64_t)v >= (uint64_t)n) &&                                         \
                !sk_resolve_index(ix[j * is], n, mode, &v))                                        \
                continue;                                                                          \
            int64_t lin = c.linear + j * ls + v * cls;                                             \
            if (lin < clo || lin >= chi) continue;                                                 \
            sk_apply(p, src + (size_t)(j * ds) * ES, c.target + j * ts + v * cts, lin - clo, acc,  \
                     cnt, DT, RED, COUNTED, ES);                                                   \
        }                                                                                          \
    } while (0)
            if (p->index_is64) SK_VARYING_SCATTER(int64_t);
            else SK_VARYING_SCATTER(int32_t);
#undef SK_VARYING_SCATTER
#undef SK_VARYING_TIGHT
#undef SK_TIGHT_APPLY
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = c.target + j * ts, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < clo || lin >= chi) continue;
                sk_apply(p, src + (size_t)(j * ds) * ES, toff, lin - clo, acc, cnt, DT, RED, COUNTED,
                         ES);
            }
        }
        pos += run;
        if (pos < total) sk_cursor_advance(p, &c, run);
    }
}

/* Walks the targets [clo, chi) of out in row-major order; BODY sees `off`
 * (the element offset in out) and `j` (the index in the chunk). */
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

/* 16-bit types: the float32 accumulators start as out's values. */
SK_INLINE void sk_scatter_preload(const sk_plan *p, int64_t clo, int64_t chi, float *acc,
                                  const sk_dtype DT) {
    const uint16_t *base = (const uint16_t *)p->out->data;
    SK_FOR_TARGETS(p->out, clo, chi, {
        acc[j] = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(base[off]) : sk_f16_to_f32(base[off]);
    });
}

/* Ends a chunk: mean divides by the counts; 16-bit types round their
 * accumulators once (an unchanged value rounds back to itself; a NaN that
 * was already there keeps its bits, a signalling one included, which the
 * trip through float32 would have made quiet). */
SK_INLINE void sk_scatter_finish(const sk_plan *p, int64_t clo, int64_t chi, const float *acc,
                                 const int64_t *cnt, const sk_dtype DT, const sk_reduce RED) {
    const size_t es = p->elem_size;
    int64_t self = p->include_self ? 1 : 0;
    if (SK_USES_ACC(DT, RED)) {
        uint16_t *base = (uint16_t *)p->out->data;
        SK_FOR_TARGETS(p->out, clo, chi, {
            float v = acc[j];
            if (RED == SK_REDUCE_MEAN && cnt[j] > 0) v = v / (float)(cnt[j] + self);
            base[off] = sk_half_round(v, base[off], DT == SK_DTYPE_BFLOAT16);
        });
        return;
    }
    if (RED != SK_REDUCE_MEAN) return;
    char *base = (char *)p->out->data;
    SK_FOR_TARGETS(p->out, clo, chi, {
        if (cnt[j] > 0) {
            char *dst = base + (size_t)off * es;
            int64_t n = cnt[j] + self;
            if (SK_IS_FLOAT(DT)) {
                double v = sk_load_f(dst, DT);
                sk_store_f(dst, SK_FOP(DT, (float)v / (float)n, v / (double)n), DT);
            } else {
                sk_store_i(dst, sk_floor_div(sk_load_i(dst, DT), n), DT);
            }
        }
    });
}

/* ---- instantiation: pass and finish per (dtype, reduce, counted) ---- */
#define SK_DTYPES(X)                                                                              \
    X(SK_DTYPE_BOOL, bool) X(SK_DTYPE_UINT8, u8) X(SK_DTYPE_INT8, i8) X(SK_DTYPE_INT16, i16)      \
    X(SK_DTYPE_INT32, i32) X(SK_DTYPE_INT64, i64) X(SK_DTYPE_FLOAT16, f16)                        \
    X(SK_DTYPE_BFLOAT16, bf16) X(SK_DTYPE_FLOAT32, f32) X(SK_DTYPE_FLOAT64, f64)
#define SK_REDUCES(X, DT, N)                                                                       \
    X(DT, N, SK_REDUCE_NONE, none) X(DT, N, SK_REDUCE_SUM, sum) X(DT, N, SK_REDUCE_PROD, prod)     \
    X(DT, N, SK_REDUCE_MEAN, mean) X(DT, N, SK_REDUCE_AMAX, amax) X(DT, N, SK_REDUCE_AMIN, amin)

#define SK_DEFINE_KERNELS(DT, N, RED, R)                                                          \
    SK_HOT static void sk_pass_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, float *acc,  \
                                  int64_t *cnt) {                                                \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(p, clo, chi, acc, DT);                       \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, false);                                   \
    }                                                                                             \
    static void sk_pass_counted_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi,             \
                                          float *acc,                                             \
                                          int64_t *cnt) {                                        \
        if (SK_USES_ACC(DT, RED)) sk_scatter_preload(p, clo, chi, acc, DT);                       \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, true);                                    \
    }                                                                                             \
    static void sk_finish_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, const float *acc, \
                                    const int64_t *cnt) {                                        \
        sk_scatter_finish(p, clo, chi, acc, cnt, DT, RED);                                        \
    }
#define SK_DEFINE_FOR_DTYPE(DT, N) SK_REDUCES(SK_DEFINE_KERNELS, DT, N)
SK_DTYPES(SK_DEFINE_FOR_DTYPE)

#define SK_SELECT_KERNEL(DT, N, RED, R)                                                           \
    if (p->dtype == DT && p->reduce == RED) {                                                     \
        job->pass = job->counted ? sk_pass_counted_##N##_##R : sk_pass_##N##_##R;                 \
        job->finish = sk_finish_##N##_##R;                                                        \
    }
#define SK_SELECT_FOR_DTYPE(DT, N) SK_REDUCES(SK_SELECT_KERNEL, DT, N)

static void sk_select_kernels(sk_scatter_job *job, const sk_plan *p) {
    SK_DTYPES(SK_SELECT_FOR_DTYPE)
}

/* out[r, index[j]] += updates[r, j] for the rows r of a 2-d plan whose
 * targets lie in [clo, chi) (whole rows of out). The index values are
 * already wrapped and checked, so the loop is four instructions and a half
 * per update: load index, load and add, store, and a share of the loop
 * control. With an index of 16-bit values the copy read for every row is
 * half as large (W6: 128 KB next to a 64 KB out row in a 512 KB L2). Each
 * target still sees its updates in index order: the same bits as the
 * generic pass. */
#define SK_INNER_SUM_ROW(T, IT)                                                                    \
    SK_HOT static void sk_inner_sum_row_##T##_##IT(T *o, const T *restrict u, const IT *restrict ix, \
                                                   int64_t L, int64_t cts) {                       \
        if (cts != 1) {                                                                            \
            for (int64_t j = 0; j < L; j++) o[ix[j] * cts] += u[j];                                \
            return;                                                                                \
        }                                                                                          \
        int64_t j = 0;                                                                             \
        for (; j + 4 <= L; j += 4) {                                                               \
            o[ix[j]] += u[j];                                                                      \
            o[ix[j + 1]] += u[j + 1];                                                              \
            o[ix[j + 2]] += u[j + 2];                                                              \
            o[ix[j + 3]] += u[j + 3];                                                              \
        }                                                                                          \
        for (; j < L; j++) o[ix[j]] += u[j];                                                       \
    }
SK_INNER_SUM_ROW(float, uint16_t)
SK_INNER_SUM_ROW(float, int32_t)
SK_INNER_SUM_ROW(double, uint16_t)
SK_INNER_SUM_ROW(double, int32_t)
/* integers through their unsigned type of the same width: the two's
 * complement wrap of SPEC, without signed overflow */
SK_INNER_SUM_ROW(uint8_t, uint16_t)
SK_INNER_SUM_ROW(uint8_t, int32_t)
SK_INNER_SUM_ROW(uint16_t, uint16_t)
SK_INNER_SUM_ROW(uint16_t, int32_t)
SK_INNER_SUM_ROW(uint32_t, uint16_t)
SK_INNER_SUM_ROW(uint32_t, int32_t)
SK_INNER_SUM_ROW(uint64_t, uint16_t)
SK_INNER_SUM_ROW(uint64_t, int32_t)
#undef SK_INNER_SUM_ROW

/* float16/bfloat16: the updates of a row, converted, into its float32 copy
 * acc (contiguous); the caller rounds acc once (W6 in float16: 11.6 against
 * 3.0 ms for PyTorch on owner-computes, which converted per update through
 * the generic pass). */
#define SK_INNER_SUM_HALF(IT)                                                                      \
    SK_HOT static void sk_inner_sum_half_##IT(float *restrict acc, const uint16_t *restrict u,     \
                                              const IT *restrict ix, int64_t L, bool bf16) {       \
        float v[1024]; /* a strip of updates converted in a loop that vectorises */              \
        for (int64_t j0 = 0; j0 < L; j0 += 1024) {                                                 \
            int64_t m = L - j0 < 1024 ? L - j0 : 1024;                                             \
            sk_half_run_to_f32(v, u + j0, 1, m, bf16);                                             \
            for (int64_t k = 0; k < m; k++) acc[ix[j0 + k]] += v[k];                               \
        }                                                                                          \
    }
SK_INNER_SUM_HALF(uint16_t)
SK_INNER_SUM_HALF(int32_t)
#undef SK_INNER_SUM_HALF

/* Row r of a 16-bit out (n targets cts apart) through the thread's float32
 * row: converted, summed into, rounded back once. A NaN already in out keeps
 * its bits when the result is NaN, as in sk_scatter_finish. */
static void sk_inner_sum_half_row(const sk_scatter_job *job, int tid, int64_t r) {
    const sk_plan *p = job->p;
    int64_t L = p->shape[1], n = p->comp_size[0], cts = p->comp_target_stride[0];
    bool bf16 = p->dtype == SK_DTYPE_BFLOAT16;
    uint16_t *o = (uint16_t *)(void *)p->target + r * p->target_stride[0];
    const uint16_t *u = (const uint16_t *)(const void *)p->dense + r * p->dense_stride[0];
    float *acc = job->half_rows ? job->half_rows + tid * n
                                : job->inner_rows + tid * job->inner_rows_stride;
    if (job->inner_rows && job->copy_src) /* a single row: copied here (see sk_scatter_claimed) */
        memcpy(o, job->copy_src + (size_t)(r * p->linear_stride[0]) * 2, (size_t)n * 2);
    sk_half_run_to_f32(acc, o, cts, n, bf16);
    if (job->inner_index16) sk_inner_sum_half_uint16_t(acc, u, job->inner_index, L, bf16);
    else sk_inner_sum_half_int32_t(acc, u, job->inner_index, L, bf16);
    sk_f32_run_to_half(o, cts, o, cts, acc, n, bf16);
}

/* Four float rows at once through a buffer sc[n][4] that interleaves them:
 * out[r + q, k] sits at sc[4 k + q]. One 16-byte add then does the update of
 * index position j in all four rows (four values of updates, one per row,
 * brought together by a 4x4 transpose of 16-byte loads), a quarter of the
 * scalar loop's read-modify-writes, and the index is read once for four
 * rows. The buffer (16 n bytes, 256 KB for W6) stays in the L2 while the
 * updates stream past. Each out[r + q, k] still receives its updates in
 * index order, starting from its own value: the same bits as one row at a
 * time. W6 in C at 1 thread: 2.4-2.6 against 4.4-5.0 ms. */
#if defined(__x86_64__) || defined(_M_X64)
/* The updates of index positions [0, L) into the interleaved buffer sc of
 * four rows (sc[4 k + q] is row q's target k): each 4x4 block of updates
 * transposed, one 16-byte add per index position. */
#define SK_INNER_ACC4(IT)                                                                          \
    SK_HOT static void sk_inner_acc4_##IT(float *restrict sc, const float *const u[4],             \
                                          const IT *restrict ix, int64_t L) {                      \
        int64_t j = 0;                                                                             \
        for (; j + 4 <= L; j += 4) {                                                               \
            __m128 a = _mm_loadu_ps(u[0] + j), b = _mm_loadu_ps(u[1] + j);                         \
            __m128 c = _mm_loadu_ps(u[2] + j), d = _mm_loadu_ps(u[3] + j);                         \
            _MM_TRANSPOSE4_PS(a, b, c, d);                                                         \
            float *s0 = sc + 4 * (int64_t)ix[j], *s1 = sc + 4 * (int64_t)ix[j + 1];                \
            _mm_store_ps(s0, _mm_add_ps(_mm_load_ps(s0), a));                                      \
            _mm_store_ps(s1, _mm_add_ps(_mm_load_ps(s1), b));                                      \
            float *s2 = sc + 4 * (int64_t)ix[j + 2], *s3 = sc + 4 * (int64_t)ix[j + 3];            \
            _mm_store_ps(s2, _mm_add_ps(_mm_load_ps(s2), c));                                      \
            _mm_store_ps(s3, _mm_add_ps(_mm_load_ps(s3), d));                                      \
        }                                                                                          \
        for (; j < L; j++)                                                                         \
            for (int q = 0; q < 4; q++) sc[4 * (int64_t)ix[j] + q] += u[q][j];                     \
    }
SK_INNER_ACC4(uint16_t)
SK_INNER_ACC4(int32_t)
#undef SK_INNER_ACC4

#define SK_INNER_SUM4(IT)                                                                          \
    SK_HOT static void sk_inner_sum4_##IT(float *const o[4], const float *const from[4],            \
                                          const float *const u[4], const IT *restrict ix,          \
                                          int64_t L, int64_t n, float *restrict sc) {              \
        int64_t k = 0;                                                                             \
        for (; k + 4 <= n; k += 4) {                                                               \
            __m128 a = _mm_loadu_ps(from[0] + k), b = _mm_loadu_ps(from[1] + k);                   \
            __m128 c = _mm_loadu_ps(from[2] + k), d = _mm_loadu_ps(from[3] + k);                   \
            _MM_TRANSPOSE4_PS(a, b, c, d);                                                         \
            _mm_store_ps(sc + 4 * k, a);                                                           \
            _mm_store_ps(sc + 4 * k + 4, b);                                                       \
            _mm_store_ps(sc + 4 * k + 8, c);                                                       \
            _mm_store_ps(sc + 4 * k + 12, d);                                                      \
        }                                                                                          \
        for (; k < n; k++)                                                                         \
            for (int q = 0; q < 4; q++) sc[4 * k + q] = from[q][k];                                \
        sk_inner_acc4_##IT(sc, u, ix, L);                                                          \
        for (k = 0; k + 4 <= n; k += 4) {                                                          \
            __m128 a = _mm_load_ps(sc + 4 * k), b = _mm_load_ps(sc + 4 * k + 4);                   \
            __m128 c = _mm_load_ps(sc + 4 * k + 8), d = _mm_load_ps(sc + 4 * k + 12);              \
            _MM_TRANSPOSE4_PS(a, b, c, d);                                                         \
            _mm_storeu_ps(o[0] + k, a);                                                            \
            _mm_storeu_ps(o[1] + k, b);                                                            \
            _mm_storeu_ps(o[2] + k, c);                                                            \
            _mm_storeu_ps(o[3] + k, d);                                                            \
        }                                                                                          \
        for (; k < n; k++)                                                                         \
            for (int q = 0; q < 4; q++) o[q][k] = sc[4 * k + q];                                   \
    }
SK_INNER_SUM4(uint16_t)
SK_INNER_SUM4(int32_t)
#undef SK_INNER_SUM4

/* float16/bfloat16 rows r .. r + 3 the same way: converted into the
 * interleaved float32 buffer (from x when out is x's fresh copy), the updates
 * converted a strip at a time (loops that vectorise), rounded back once with
 * sk_inner_sum_half_row's NaN rule (W6 in bfloat16 at 2 threads: 3.6-4.9
 * against 1.4-2.2 ms for float32 with one row at a time). */
SK_HOT static void sk_inner_sum_half4(const sk_scatter_job *job, int tid, int64_t r) {
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
        if (job->inner_index16) sk_inner_acc4_uint16_t(sc, up, (const uint16_t *)job->inner_index + j0, m);
        else sk_inner_acc4_int32_t(sc, up, (const int32_t *)job->inner_index + j0, m);
    }
    for (int64_t k0 = 0; k0 < n; k0 += STRIP) {
        int64_t m = n - k0 < STRIP ? n - k0 : STRIP;
        for (int64_t k = 0; k < m; k++)
            for (int q = 0; q < 4; q++) ub[q][k] = sc[4 * (k0 + k) + q];
        for (int q = 0; q < 4; q++) sk_f32_run_to_half(o[q] + k0, 1, from[q] + k0, 1, ub[q], m, bf16);
    }
}
#define SK_HAVE_INNER_SUM4 1
#else
#define SK_HAVE_INNER_SUM4 0
#endif

/* The rows of a 2-d plan whose targets lie in [clo, chi), four at a time
 * where the thread has a buffer (float32, contiguous out rows), else one by
 * one. */
static void sk_inner_sum(const sk_scatter_job *job, int tid, int64_t clo, int64_t chi) {
    const sk_plan *p = job->p;
    int64_t rows = p->shape[0], L = p->shape[1], n = p->comp_size[0];
    int64_t cts = p->comp_target_stride[0], ls = p->linear_stride[0];
    const void *ix = job->inner_index;
    bool i16 = job->inner_index16;
#define SK_IN_RANGE(r) ((r) * ls >= clo && (r) * ls < chi)
    for (int64_t r = 0; r < rows;) {
        if (!SK_IN_RANGE(r)) {
            r++;
            continue;
        }
        if (SK_IS_HALF(p->dtype)) {
#if SK_HAVE_INNER_SUM4
            if (job->inner_rows && r + 4 <= rows && SK_IN_RANGE(r + 1) && SK_IN_RANGE(r + 2) &&
                SK_IN_RANGE(r + 3)) {
                sk_inner_sum_half4(job, tid, r);
                r += 4;
                continue;
            }
#endif
            sk_inner_sum_half_row(job, tid, r++);
            continue;
        }
        if (!SK_IS_FLOAT(p->dtype)) { /* integer sums, by element width */
            char *o = p->target + (size_t)(r * p->target_stride[0]) * p->elem_size;
            const char *u = p->dense + (size_t)(r * p->dense_stride[0]) * p->elem_size;
#define SK_INT_ROW(UT)                                                                             \
    (i16 ? sk_inner_sum_row_##UT##_uint16_t((UT *)(void *)o, (const UT *)(const void *)u, ix, L, cts) \
         : sk_inner_sum_row_##UT##_int32_t((UT *)(void *)o, (const UT *)(const void *)u, ix, L, cts))
            switch (p->elem_size) {
            case 1: SK_INT_ROW(uint8_t); break;
            case 2: SK_INT_ROW(uint16_t); break;
            case 4: SK_INT_ROW(uint32_t); break;
            default: SK_INT_ROW(uint64_t); break;
            }
#undef SK_INT_ROW
            r++;
            continue;
        }
        if (p->dtype == SK_DTYPE_FLOAT64) {
            double *o = (double *)(void *)p->target + r * p->target_stride[0];
            const double *u = (const double *)(const void *)p->dense + r * p->dense_stride[0];
            if (i16) sk_inner_sum_row_double_uint16_t(o, u, ix, L, cts);
            else sk_inner_sum_row_double_int32_t(o, u, ix, L, cts);
            r++;
            continue;
        }
#if SK_HAVE_INNER_SUM4
        if (job->inner_rows && r + 4 <= rows && SK_IN_RANGE(r + 1) && SK_IN_RANGE(r + 2) &&
            SK_IN_RANGE(r + 3)) {
            float *o[4];
            const float *from[4], *u[4];
            for (int q = 0; q < 4; q++) {
                o[q] = (float *)(void *)p->target + (r + q) * p->target_stride[0];
                u[q] = (const float *)(const void *)p->dense + (r + q) * p->dense_stride[0];
                /* out != x: the rows are read from x into the buffer, with no
                 * copy into out first */
                from[q] = job->copy_src ? (const float *)(const void *)job->copy_src + (r + q) * ls : o[q];
            }
            float *sc = job->inner_rows + (int64_t)tid * job->inner_rows_stride;
            if (i16) sk_inner_sum4_uint16_t(o, from, u, ix, L, n, sc);
            else sk_inner_sum4_int32_t(o, from, u, ix, L, n, sc);
            r += 4;
            continue;
        }
#endif
        float *o = (float *)(void *)p->target + r * p->target_stride[0];
        if (job->inner_rows && job->copy_src) /* a single row: copied here (see sk_scatter_claimed) */
            memcpy(o, job->copy_src + (size_t)(r * ls) * sizeof(float), (size_t)n * sizeof(float));
        const float *u = (const float *)(const void *)p->dense + r * p->dense_stride[0];
        if (i16) sk_inner_sum_row_float_uint16_t(o, u, ix, L, cts);
        else sk_inner_sum_row_float_int32_t(o, u, ix, L, cts);
        r++;
    }
#undef SK_IN_RANGE
}

/* Chunks [u0, u1) of job->chunk targets each (the inner-axis pattern). */
static void sk_scatter_claimed(void *arg, int tid, int64_t chunk, int64_t u0, int64_t u1) {
    sk_scatter_job *job = arg;
    const sk_plan *p = job->p;
    (void)chunk;
    int64_t clo = u0 * job->chunk, chi = u1 * job->chunk;
    if (chi > job->target_numel) chi = job->target_numel;
    /* with the four-row buffers, sk_inner_sum copies the plan's rows itself;
     * only targets past them (a smaller index) are copied here */
    int64_t rows_end = p->shape[0] * p->linear_stride[0];
    int64_t cfrom = job->inner_rows && clo < rows_end ? rows_end : clo;
    char *at = (char *)p->out->data + (size_t)cfrom * p->elem_size;
    size_t bytes = (size_t)(chi - cfrom) * p->elem_size;
    if (job->copy_src && cfrom < chi) {
        memcpy(at, job->copy_src + (size_t)cfrom * p->elem_size, bytes);
    } else if (job->touch && cfrom < chi) {
        /* in place: the chunk's lines asked for in order first, so that its
         * random updates find them in the caches instead of missing on each
         * line (1024 x 4096 float32, assign in place, Python at 2 threads:
         * 12.4 against 8.1 ms) */
        for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(at + b, 1);
    }
    if (job->inner_index) {
        sk_inner_sum(job, tid, clo, chi);
    } else if (p->ndim == 2 && p->linear_stride[0] > 0) {
        /* only the plan rows that reach the chunk: a pass over the whole
         * plan would skip every other row one at a time (a chunk is a few
         * rows of out, so that is most of the work for a small row) */
        int64_t ls = p->linear_stride[0], reach = p->comp_size[0] * p->comp_linear_stride[0];
        int64_t r0 = clo >= reach ? (clo - reach) / ls + 1 : 0, r1 = (chi + ls - 1) / ls;
        if (r1 > p->shape[0]) r1 = p->shape[0];
        if (r0 >= r1) return;
        sk_plan rows = sk_plan_slice(p, 0, r0, r1);
        job->pass(&rows, clo - r0 * ls, chi - r0 * ls, NULL, NULL);
    } else {
        job->pass(p, clo, chi, NULL, NULL);
    }
}

/* A strip of a packed column tile: all its updates (the pack holds only
 * this tile's targets). */
static void sk_scatter_strip(void *ctx, const sk_plan *strip) {
    ((const sk_scatter_job *)ctx)->pass(strip, 0, INT64_MAX, NULL, NULL);
}

/* Column tiles [t0, t1) (elements along a leading axis, no scratch): each
 * tile of out is packed (from x when copy_src is set, so that x needs no
 * copy into out first), updated a strip of rows at a time, and written back.
 * A tile owns its targets, and each target sees its updates in row-major
 * order. */
static void sk_scatter_tiles(void *arg, int tid, int64_t chunk, int64_t t0, int64_t t1) {
    sk_scatter_job *job = arg;
    const sk_plan *p = job->p;
    (void)chunk;
    char *pack = job->pack + (size_t)tid * job->pack_bytes;
    const char *from = job->copy_src ? job->copy_src : p->target;
    ptrdiff_t row = (ptrdiff_t)(p->comp_target_stride[0] * (int64_t)p->elem_size);
    for (int64_t t = t0; t < t1; t++) {
        int64_t c0 = t * job->tile, c1 = c0 + job->tile < p->shape[1] ? c0 + job->tile : p->shape[1];
        size_t at = (size_t)c0 * p->elem_size, w = (size_t)(c1 - c0) * p->elem_size;
        sk_plan_walk_tile(p, c0, c1, from + at, pack, sk_scatter_strip, job);
        sk_copy_rows(p->target + at, row, pack, (ptrdiff_t)w, p->comp_size[0], w);
    }
}

static void sk_scatter_task(void *arg, int tid, int nthreads) {
    sk_scatter_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->target_numel, tid, nthreads, &lo, &hi);
    for (int64_t clo = lo; clo < hi; clo += job->chunk) {
        int64_t chi = clo + job->chunk < hi ? clo + job->chunk : hi;
        if (job->cnt[tid]) memset(job->cnt[tid], 0, (size_t)(chi - clo) * sizeof(int64_t));
        job->pass(p, clo, chi, job->acc[tid], job->cnt[tid]);
        if (job->half || p->reduce == SK_REDUCE_MEAN) job->finish(p, clo, chi, job->acc[tid], job->cnt[tid]);
    }
}

/* Rows without scratch: thread t owns a block of columns of every row (cut
 * at cache-line boundaries) instead of a range of targets. Each target still
 * has one owner that sees its updates in row-major order, and each thread
 * reads only its own cache lines of src; with a split by targets every
 * thread would walk, and the hardware would prefetch, all of src. */
typedef struct {
    sk_scatter_job *job;
    int64_t len, cols_per_thread;
} sk_cols_job;

static void sk_scatter_cols_task(void *arg, int tid, int nthreads) {
    sk_cols_job *cj = arg;
    sk_plan mine = *cj->job->p;
    mine.col_lo = tid * cj->cols_per_thread;
    mine.col_hi = tid == nthreads - 1 ? cj->len : mine.col_lo + cj->cols_per_thread;
    if (mine.col_lo >= mine.col_hi) return;
    cj->job->pass(&mine, 0, cj->job->target_numel, NULL, NULL);
}

/* ---- blocked rows: one partial result per fixed block of updates ----
 *
 * For the row pattern with a reduction (message passing, index_add on axis
 * 0, scatter_nd of rows), owner-computes makes every thread stream all of
 * src, which is most of the bytes. Here the update rows are cut instead into
 * SK_ROW_BLOCKS blocks, a number fixed by the problem and never by the
 * thread count: block 0 reduces into out, block b > 0 into a partial buffer
 * of its own (16-bit types, and any type when the scratch budget allows:
 * every block into a partial, float32 for 16-bit types). Each thread
 * streams only its blocks of src. A merge pass then folds the partials into
 * out in block order, so every target sees the same sequence of operations
 * whatever the thread count. A count per block and target row ("key":
 * linear index / row length) says whether the row was touched: the first
 * update of a row replaces the buffer's value, so partials need no
 * initialisation, and the merge knows what to fold and what mean divides
 * by. More threads than blocks: the threads of a block split its keys. */
enum { SK_ROW_BLOCKS = 2, SK_ROW_BLOCK_MIN_ROWS = 1 << 13 };

typedef struct sk_blocks_job sk_blocks_job;
struct sk_blocks_job {
    const sk_plan *p;
    sk_plan rows;                  /* the row dimensions; linear strides count keys */
    int64_t nrows, len, nkeys;
    int64_t src_col;               /* src's column stride: 1, or rows packed first (sk_block_packed) */
    int nblocks;
    char *part[SK_ROW_BLOCKS];     /* block b's row of key k at k * len; NULL: out itself */
    int32_t *cnt[SK_ROW_BLOCKS];   /* updates per key */
    bool all_partials;             /* block 0 has a partial too (always for 16-bit types) */
    /* with every block in a partial, out is not touched until the merge, so
     * the merge copies x's row just before folding into it (x and out both
     * row-major), instead of a pass over all of out up front; else NULL */
    const char *copy_src;
    void (*block)(const sk_blocks_job *, int b, int64_t klo, int64_t khi);
    void (*merge)(const sk_blocks_job *, int64_t klo, int64_t khi);
};

/* d = first ? s : d (op) s over n elements; d holds the block's value type
 * (float32 when src is 16-bit). mean sums here and divides in the merge. */
SK_INLINE void sk_block_row(char *restrict dst, const char *restrict src, int64_t n, bool first,
                            const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const size_t ES = sk_es(DT);
    /* Float rows go in whole 64-byte lines (W elements of the value type)
     * with fixed-length inner loops: the compiler unrolls them, and a row of
     * a few lines then issues all its loads at once (a loop of runtime
     * length here halved the speed). LOAD(i) is src element i as FT. */
#define SK_ROW_LINES(FT, W, LOAD)                                                                  \
    do {                                                                                           \
        FT *restrict d = (FT *)(void *)dst;                                                        \
        int64_t j = 0;                                                                             \
        if (first) {                                                                               \
            for (; j + W <= n; j += W)                                                             \
                for (int u = 0; u < W; u++) d[j + u] = LOAD(j + u);                                \
            for (; j < n; j++) d[j] = LOAD(j);                                                     \
        } else {                                                                                   \
            for (; j + W <= n; j += W)                                                             \
                for (int u = 0; u < W; u++) d[j + u] = (FT)sk_op_f(d[j + u], LOAD(j + u), OP, DT); \
            for (; j < n; j++) d[j] = (FT)sk_op_f(d[j], LOAD(j), OP, DT);                          \
        }                                                                                          \
    } while (0)
#define SK_LOAD_HALF(i)                                                                            \
    (DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(((const uint16_t *)(const void *)src)[i])           \
                             : sk_f16_to_f32(((const uint16_t *)(const void *)src)[i]))
#define SK_LOAD_F32(i) (((const float *)(const void *)src)[i])
#define SK_LOAD_F64(i) (((const double *)(const void *)src)[i])
    if (SK_IS_HALF(DT)) SK_ROW_LINES(float, 16, SK_LOAD_HALF); /* float32 partials */
    else if (DT == SK_DTYPE_FLOAT32) SK_ROW_LINES(float, 16, SK_LOAD_F32);
    else if (DT == SK_DTYPE_FLOAT64) SK_ROW_LINES(double, 8, SK_LOAD_F64);
    else if (first) memcpy(dst, src, (size_t)n * ES);
    else
        for (int64_t j = 0; j < n; j++)
            sk_store_i(dst + j * ES,
                       sk_op_i(sk_load_i(dst + j * ES, DT), sk_load_i(src + j * ES, DT), OP, DT),
                       DT);
#undef SK_ROW_LINES
#undef SK_LOAD_HALF
#undef SK_LOAD_F32
#undef SK_LOAD_F64
}

/* The common case of sk_block_walk, kept to a few instructions per row (the
 * loads of a row overlap with those of the next rows only while the loop is
 * short): one row dimension that does not move the target, one index
 * component, values already checked. Row r goes to base + v * vstride. */
SK_INLINE void sk_block_tight(const sk_blocks_job *job, int64_t r0, int64_t r1, int64_t klo,
                              int64_t khi, char *base, size_t vstride, int32_t *cnt,
                              bool replace_first, const bool IS64, const int64_t len,
                              const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    const int64_t n = rp->comp_size[0], cks = rp->comp_linear_stride[0],
                  is = rp->index_stride[0], ds = rp->dense_stride[0];
    /* lines of a target row and of a src row asked for ahead (up to 4) */
    const size_t part_row = (size_t)len * PES < 256 ? (size_t)len * PES : 256,
                 src_row = (size_t)len * ES < 256 ? (size_t)len * ES : 256;
    /* more threads than blocks: this thread applies the rows of keys [klo, khi) */
    const bool whole = klo == 0 && khi == job->nkeys;
    const char *src = rp->dense;
    const int64_t *ix64 = (const int64_t *)rp->index;
    const int32_t *ix32 = (const int32_t *)rp->index;
    /* target rows are random (into L2, far ahead); src is a stream (near) */
    enum { TARGET_AHEAD = SK_ROWS_AHEAD, SRC_AHEAD = 16 };
    for (int64_t r = r0; r < r1; r++) {
        if (r + TARGET_AHEAD < r1) { /* a negative value prefetches a harmless wrong line */
            int64_t va = IS64 ? ix64[(r + TARGET_AHEAD) * is] : ix32[(r + TARGET_AHEAD) * is];
            if (whole || (uint64_t)((va + (va < 0 ? n : 0)) * cks - klo) < (uint64_t)(khi - klo))
                sk_prefetch_row_l2(base + va * (ptrdiff_t)vstride, part_row);
        }
        if (r + SRC_AHEAD < r1) {
            /* src is read once: asked for with the non-temporal hint, so
             * that it displaces fewer of the target rows from the caches
             * (W5, one process: 21-29 against 23-34 ms) */
            const char *sq = src + (size_t)((r + SRC_AHEAD) * ds) * ES;
            for (size_t o = 0; o < src_row; o += 64) __builtin_prefetch(sq + o, 0, 0);
        }
        int64_t v = IS64 ? ix64[r * is] : ix32[r * is];
        v += v < 0 ? n : 0;
        if (!whole && (uint64_t)(v * cks - klo) >= (uint64_t)(khi - klo)) continue;
        bool first = cnt[v * cks]++ == 0 && replace_first;
        sk_block_row(base + (size_t)v * vstride, src + (size_t)(r * ds) * ES, len, first, DT, RED);
    }
}

/* A src whose rows are not contiguous (transposed: each element of a row in
 * a line, or a page, of its own) is read a group of rows at a time: each
 * column's run of the group in order, into a row-major buffer in L1 (and
 * the next group's runs asked for meanwhile). The rows are then applied
 * from the buffer in the same order as by sk_block_tight, so the bits are
 * the same. index_add of [2^20, 32] float32 updates given as the transpose
 * of a [32, 2^20] tensor, in Python at 2 threads: 225 -> 40-70 ms (PyTorch
 * 205-395). */
enum { SK_BLOCK_PACK_BYTES = 16384 };

/* Rows [g0, g0 + rows) of a strided src (row stride ds, column stride dj,
 * in elements) into buf, row-major: each column's run of the group in order,
 * the next group's run asked for first when `ahead`. */
static void sk_pack_rows(char *restrict buf, const char *src, int64_t g0, int64_t rows, int64_t ds,
                         int64_t dj, int64_t len, size_t es, bool ahead) {
    for (int64_t j = 0; j < len; j++) {
        const char *c = src + (ptrdiff_t)(g0 * ds + j * dj) * (ptrdiff_t)es;
        if (ahead) sk_prefetch_row_l2(c + (size_t)rows * es, (size_t)rows * es); /* follows these */
        sk_move(buf + (size_t)j * es, len, c, ds, rows, es, false);
    }
}

SK_INLINE void sk_block_packed(const sk_blocks_job *job, int64_t r0, int64_t r1, int64_t klo,
                               int64_t khi, char *base, size_t vstride, int32_t *cnt,
                               bool replace_first, const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    const int64_t n = rp->comp_size[0], cks = rp->comp_linear_stride[0],
                  is = rp->index_stride[0], ds = rp->dense_stride[0], len = job->len;
    const size_t part_row = (size_t)len * PES < 256 ? (size_t)len * PES : 256;
    const bool whole = klo == 0 && khi == job->nkeys;
    const int64_t group = SK_BLOCK_PACK_BYTES / (len * (int64_t)ES);
    _Alignas(64) char buf[SK_BLOCK_PACK_BYTES];
    enum { AHEAD = SK_ROWS_AHEAD };
    for (int64_t g0 = r0; g0 < r1; g0 += group) {
        int64_t g1 = g0 + group < r1 ? g0 + group : r1;
        sk_pack_rows(buf, rp->dense, g0, g1 - g0, ds, job->src_col, len, ES, ds == 1 && g1 < r1);
        for (int64_t r = g0; r < g1; r++) {
            if (r + AHEAD < r1) {
                int64_t va = sk_load_index(rp->index, rp->index_is64, (r + AHEAD) * is);
                if (whole || (uint64_t)((va + (va < 0 ? n : 0)) * cks - klo) < (uint64_t)(khi - klo))
                    sk_prefetch_row_l2(base + va * (ptrdiff_t)vstride, part_row);
            }
            int64_t v = sk_load_index(rp->index, rp->index_is64, r * is);
            v += v < 0 ? n : 0;
            if (!whole && (uint64_t)(v * cks - klo) >= (uint64_t)(khi - klo)) continue;
            bool first = cnt[v * cks]++ == 0 && replace_first;
            sk_block_row(base + (size_t)v * vstride, buf + (size_t)((r - g0) * len) * ES, len, first,
                         DT, RED);
        }
    }
}

/* Whether block rows take sk_block_tight (or sk_block_packed): one row
 * dimension that does not move the target, one index component, values
 * already checked. */
static inline bool sk_block_is_tight(const sk_plan *rp) {
    return rp->ndim == 1 && rp->ncomp == 1 && rp->target_stride[0] == 0 &&
           rp->linear_stride[0] == 0 && rp->mode == SK_INDEX_MODE_ERROR;
}

/* The update rows of block b. When block 0 reduces into out itself (no
 * partial for it), its row updates cost more than those of block 1, which go
 * to huge-page scratch (TLB misses on a caller's 4 KiB pages): block 0 then
 * takes 2/5 of the rows, so that two threads finish closer together (W5 at 2
 * threads, one process: 24-25 against 28-29 ms with halves). The cut still
 * depends only on the problem (the budget decides all_partials), never on
 * the thread count. */
static void sk_block_rows(const sk_blocks_job *job, int b, int64_t *r0, int64_t *r1) {
    if (job->all_partials || job->nblocks != 2) {
        sk_partition(job->nrows, b, job->nblocks, r0, r1);
        return;
    }
    int64_t cut = job->nrows / 5 * 2;
    *r0 = b == 0 ? 0 : cut;
    *r1 = b == 0 ? cut : job->nrows;
}

/* Block b's rows, applying those whose key is in [klo, khi). */
SK_INLINE void sk_block_walk(const sk_blocks_job *job, int b, int64_t klo, int64_t khi,
                             const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *p = job->p, *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    int64_t r0, r1;
    sk_block_rows(job, b, &r0, &r1);
    char *part = job->part[b];
    int32_t *cnt = job->cnt[b];
    const bool replace_first = part != NULL || !p->include_self;
    const int64_t len = job->len;
    const size_t row_bytes = (size_t)len * PES;
    const int d = rp->ndim - 1;
    const int64_t ds = rp->dense_stride[d], ts = rp->target_stride[d], ks = rp->linear_stride[d],
                  is = rp->index_stride[d];
    enum { AHEAD = SK_ROWS_AHEAD };
    if (sk_block_is_tight(rp)) {
        char *base = part ? part : p->target;
        size_t vstride = part ? (size_t)(rp->comp_linear_stride[0] * len) * PES
                              : (size_t)rp->comp_target_stride[0] * ES;
        if (job->src_col != 1) {
            sk_block_packed(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, DT, RED);
            return;
        }
        /* rows of 32 elements (W2-W5, W8) with the length a constant: the
         * row loops unroll and the loop keeps its state in registers (W2 at
         * 2 threads, one process: 13.7-15.8 against 15.3-17.4 ms) */
        if (len == 32 && rp->index_is64)
            sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, true, 32, DT, RED);
        else if (len == 32)
            sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, false, 32, DT, RED);
        else if (rp->index_is64)
            sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, true, len, DT, RED);
        else
            sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, false, len, DT, RED);
        return;
    }
    sk_cursor c;
    sk_cursor_seek(rp, &c, r0);
    for (int64_t pos = r0; pos < r1;) {
        int64_t run = sk_cursor_run(rp, &c);
        if (run > r1 - pos) run = r1 - pos;
        for (int64_t r = 0; r < run; r++) {
            if (r + AHEAD < run) { /* the target rows are random: fetch them early */
                int64_t t = c.target + (r + AHEAD) * ts, k = c.linear + (r + AHEAD) * ks;
                if (sk_plan_resolve(rp, c.index + (r + AHEAD) * is, &t, &k) && k >= klo &&
                    k < khi) {
                    const char *q = part ? part + (size_t)(k * len) * PES : p->target + (size_t)t * ES;
                    sk_prefetch_row_l2(q, row_bytes < 256 ? row_bytes : 256);
                }
            }
            int64_t t = c.target + r * ts, k = c.linear + r * ks;
            if (!sk_plan_resolve(rp, c.index + r * is, &t, &k) || k < klo || k >= khi) continue;
            bool first = cnt[k]++ == 0 && replace_first;
            char *dst = part ? part + (size_t)(k * len) * PES : p->target + (size_t)t * ES;
            sk_block_row(dst, p->dense + (size_t)(c.dense + r * ds) * ES, len, first, DT, RED);
        }
        pos += run;
        if (pos < r1) sk_cursor_advance(rp, &c, run);
    }
}

/* Folds the blocks of keys [klo, khi) into out, in block order. */
SK_INLINE void sk_block_merge(const sk_blocks_job *job, int64_t klo, int64_t khi,
                              const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *p = job->p;
    const sk_tensor *out = p->out;
    const size_t ES = sk_es(DT);
    const int64_t len = job->len, self = p->include_self ? 1 : 0;
    const int nb = job->nblocks;
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const bool row_major = sk_row_major(out); /* a key's row at k * len, no division per key */
    const int64_t out_numel = sk_tensor_numel(out);
    for (int64_t k = klo; k < khi; k++) {
        int64_t total = 0;
        for (int b = 0; b < nb; b++) total += job->cnt[b][k];
        if (job->copy_src) { /* row k of x, then the blocks on top */
            int64_t at = k * len, n = len < out_numel - at ? len : out_numel - at;
            memcpy((char *)out->data + (size_t)at * ES, job->copy_src + (size_t)at * ES,
                   (size_t)n * ES);
        }
        if (total == 0) continue; /* untouched: out keeps x */
        int64_t rem = k * len, off = 0;
        if (row_major) off = rem;
        else
            for (int dd = out->ndim - 1; dd >= 0; dd--) {
                off += rem % out->shape[dd] * out->strides[dd];
                rem /= out->shape[dd];
            }
        char *o = (char *)out->data + (size_t)off * ES;
        if (SK_IS_HALF(DT)) {
            uint16_t *oh = (uint16_t *)(void *)o;
            enum { STRIP = 256 };
            float a[STRIP];
            for (int64_t j0 = 0; j0 < len; j0 += STRIP) {
                int64_t n = len - j0 < STRIP ? len - j0 : STRIP;
                bool have = p->include_self;
                if (have) sk_half_run_to_f32(a, oh + j0, 1, n, DT == SK_DTYPE_BFLOAT16);
                for (int b = 0; b < nb; b++) {
                    if (job->cnt[b][k] == 0) continue;
                    const float *pv = (const float *)(const void *)job->part[b] + k * len + j0;
                    if (have) for (int64_t j = 0; j < n; j++) a[j] = (float)sk_op_f(a[j], pv[j], OP, DT);
                    else memcpy(a, pv, (size_t)n * sizeof(float));
                    have = true;
                }
                if (RED == SK_REDUCE_MEAN)
                    for (int64_t j = 0; j < n; j++) a[j] = a[j] / (float)(total + self);
                /* a NaN already in out keeps its bits (sk_half_round) */
                sk_f32_run_to_half(oh + j0, 1, oh + j0, 1, a, n, DT == SK_DTYPE_BFLOAT16);
            }
            continue;
        }
        /* block 0 reduced into out itself unless it has a partial too */
        bool have = p->include_self || (!job->part[0] && job->cnt[0][k] > 0);
        for (int b = job->part[0] ? 0 : 1; b < nb; b++) {
            if (job->cnt[b][k] == 0) continue;
            sk_block_row(o, job->part[b] + (size_t)(k * len) * ES, len, !have, DT, RED);
            have = true;
        }
        if (RED == SK_REDUCE_MEAN) {
            int64_t n = total + self;
            if (DT == SK_DTYPE_FLOAT32) {
                float *d = (float *)(void *)o;
                for (int64_t j = 0; j < len; j++) d[j] = d[j] / (float)n;
            } else if (DT == SK_DTYPE_FLOAT64) {
                double *d = (double *)(void *)o;
                for (int64_t j = 0; j < len; j++) d[j] = d[j] / (double)n;
            } else {
                for (int64_t j = 0; j < len; j++)
                    sk_store_i(o + j * ES, sk_floor_div(sk_load_i(o + j * ES, DT), n), DT);
            }
        }
    }
}

#define SK_DEFINE_BLOCKS(DT, N, RED, R)                                                           \
    SK_HOT static void sk_block_##N##_##R(const sk_blocks_job *job, int b, int64_t klo,           \
                                          int64_t khi) {                                          \
        sk_block_walk(job, b, klo, khi, DT, RED);                                                 \
    }                                                                                             \
    static void sk_merge_##N##_##R(const sk_blocks_job *job, int64_t klo, int64_t khi) {          \
        sk_block_merge(job, klo, khi, DT, RED);                                                   \
    }
#define SK_DEFINE_BLOCKS_FOR_DTYPE(DT, N) SK_REDUCES(SK_DEFINE_BLOCKS, DT, N)
SK_DTYPES(SK_DEFINE_BLOCKS_FOR_DTYPE)

#define SK_SELECT_BLOCKS(DT, N, RED, R)                                                           \
    if (p->dtype == DT && p->reduce == RED) {                                                     \
        job->block = sk_block_##N##_##R;                                                          \
        job->merge = sk_merge_##N##_##R;                                                          \
    }
#define SK_SELECT_BLOCKS_FOR_DTYPE(DT, N) SK_REDUCES(SK_SELECT_BLOCKS, DT, N)

/* Whether the blocked path applies, and its plan. Scratch: the partials and
 * the counts, at most 16 bytes per element of the caller's index. */
static bool sk_blocks_plan(sk_blocks_job *job, const sk_plan *p, int64_t target_numel) {
    if (p->reduce == SK_REDUCE_NONE || !sk_scatter_is_rows(p)) return false;
    int d = p->ndim - 1;
    int64_t len = p->shape[d];
    if (len < 2) return false;
    memset(job, 0, sizeof *job);
    job->src_col = p->dense_stride[d];
    job->p = p;
    job->rows = *p;
    sk_plan *rp = &job->rows;
    rp->ndim--;
    /* keys: every row starts at a multiple of len in out's linear order */
    for (int dd = 0; dd < rp->ndim; dd++) {
        if (rp->linear_stride[dd] % len) return false;
        rp->linear_stride[dd] /= len;
    }
    for (int k = 0; k < rp->ncomp; k++) {
        if (rp->comp_linear_stride[k] % len) return false;
        rp->comp_linear_stride[k] /= len;
    }
    /* rows of a strided src are packed a group of at least 4 at a time */
    if (job->src_col != 1 &&
        (!sk_block_is_tight(rp) || len * (int64_t)p->elem_size * 4 > SK_BLOCK_PACK_BYTES))
        return false;
    job->nrows = sk_plan_numel(rp);
    if (job->nrows < SK_ROW_BLOCK_MIN_ROWS || job->nrows > INT32_MAX) return false;
    bool half = SK_IS_HALF(p->dtype);
    job->len = len;
    job->nkeys = (target_numel + len - 1) / len;
    job->nblocks = SK_ROW_BLOCKS;
    double pes = half ? 4.0 : (double)p->elem_size;
    double part = (double)job->nkeys * (double)len * pes,
           counts = (double)job->nblocks * (double)job->nkeys * sizeof(int32_t),
           budget = 16.0 * (double)p->index_numel;
    /* Block 0 gets a partial as well when the budget allows: the random row
     * updates then go to scratch on huge pages (memory.c) instead of to an
     * out on 4 KB pages, where TLB misses made W2 1.2-1.8x slower. */
    job->all_partials = half || (double)job->nblocks * part + counts <= budget;
    /* 16-bit types need a float32 partial for every block: with room for
     * only one, a single block whose threads split the keys (index_add of
     * bfloat16 rows, W5's shape: 20-25 against 80-90 ms for owner-computes,
     * whose generic row loop converts and reduces element by element) */
    if (half && (double)job->nblocks * part + counts > budget) {
        job->nblocks = 1;
        counts = (double)job->nkeys * sizeof(int32_t);
    }
    if ((double)(job->all_partials ? job->nblocks : job->nblocks - 1) * part + counts > budget) {
        /* no room for a partial: one block reducing into out, its threads
         * splitting the keys, which still beats owner-computes (W5's shape
         * in float64, C, best of 15: 30-34 against 40-58 ms at 2 threads,
         * 34-44 against 40-53 at 1); never for 16-bit types, which must
         * accumulate in float32 */
        if (half) return false;
        job->nblocks = 1;
        job->all_partials = false;
        counts = (double)job->nkeys * sizeof(int32_t);
        if (counts > budget) return false;
    }
    SK_DTYPES(SK_SELECT_BLOCKS_FOR_DTYPE)
    return job->block != NULL;
}

static void sk_blocks_task(void *arg, int tid, int nthreads) {
    const sk_blocks_job *job = arg;
    int nb = job->nblocks;
    if (nthreads <= nb) {
        for (int b = tid; b < nb; b += nthreads) job->block(job, b, 0, job->nkeys);
        return;
    }
    int b = tid % nb, g = tid / nb, ng = (nthreads - b + nb - 1) / nb;
    int64_t klo, khi;
    sk_partition(job->nkeys, g, ng, &klo, &khi);
    job->block(job, b, klo, khi);
}

static void sk_blocks_merge_chunk(void *arg, int tid, int64_t chunk, int64_t klo, int64_t khi) {
    const sk_blocks_job *job = arg;
    (void)tid;
    (void)chunk;
    job->merge(job, klo, khi);
}

/* The data of copy_from when out = copy_from can be copied piece by piece at
 * the same offsets (both row-major with as many elements), else NULL. The
 * backward passes a 0-d zero to broadcast, which only a whole copy handles. */
static const char *sk_copy_source(const sk_tensor *copy_from, const sk_tensor *out) {
    if (!copy_from || !sk_row_major(out) || !sk_row_major(copy_from) ||
        sk_tensor_numel(copy_from) != sk_tensor_numel(out))
        return NULL;
    return copy_from->data;
}

/* Runs the blocked path; false (nothing written) when its scratch cannot be
 * had, so the caller falls back to owner-computes. */
static bool sk_run_blocks(sk_blocks_job *job, const sk_tensor *copy_from, int nthreads) {
    const sk_plan *p = job->p;
    bool ok = true;
    size_t pes = SK_IS_HALF(p->dtype) ? 4 : p->elem_size;
    size_t cnt_bytes = (size_t)job->nkeys * sizeof(int32_t),
           part_bytes = (size_t)(job->nkeys * job->len) * pes;
    for (int b = 0; b < job->nblocks && ok; b++) {
        if ((job->cnt[b] = sk_scratch_get(cnt_bytes))) memset(job->cnt[b], 0, cnt_bytes);
        if (b > 0 || job->all_partials) job->part[b] = sk_scratch_get(part_bytes);
        ok = job->cnt[b] && (job->part[b] || (b == 0 && !job->all_partials));
    }
    if (ok) {
        int nt = sk_threads_for_work(nthreads, job->nrows * job->len);
        if (job->all_partials) job->copy_src = sk_copy_source(copy_from, p->out);
        if (copy_from && !job->copy_src)
            sk_copy_unchecked(copy_from, (sk_tensor *)p->out, nthreads);
        sk_parallel_run(nt, sk_blocks_task, job);
        int mt = sk_threads_for_work(nthreads, job->nkeys * job->len);
        sk_parallel_chunks(mt, job->nkeys, sk_chunks_for(mt, job->nkeys, job->len),
                           sk_blocks_merge_chunk, job);
    }
    for (int b = 0; b < job->nblocks; b++) {
        sk_scratch_put(job->part[b], part_bytes);
        sk_scratch_put(job->cnt[b], cnt_bytes);
    }
    return ok;
}

/* index_add along the last axis of out (W6): each long run of updates lands
 * in one target row, and runs outside a chunk are skipped at once, so the
 * chunks can be small: whole target rows, about 64 KB. With out != x (both
 * row-major) each chunk copies its rows just before updating them (a copy
 * of all of x first would have pushed them out of the caches). Returns the
 * chunk, or 0 when the pattern differs. */
static int64_t sk_inner_axis_chunk(const sk_plan *p) {
    int d = p->ndim - 1;
    const sk_tensor *out = p->out;
    if (p->ncomp != 1 || p->ndim < 1 || p->linear_stride[d] != 0 || p->index_stride[d] == 0 ||
        p->shape[d] < 1024 || p->comp_linear_stride[0] != 1 || out->ndim < 1 ||
        p->comp_size[0] != out->shape[out->ndim - 1])
        return 0;
    int64_t row = p->comp_size[0], rows = (int64_t)(65536 / p->elem_size) / row;
    return row * (rows > 1 ? rows : 1);
}

/* Whether the plan takes the claimed inner-axis chunks with the caller's index
 * (an element scatter along the last axis: the index differs from row to row,
 * so no narrowed copy of it), whose typed loops check each run of values
 * before applying it, instead of a separate pass over the whole index first
 * (1024 x 4096 float32, int64 index of 32 MB, assign in C at 1 thread, best
 * of 21 in three runs each: 9.3-9.8 against 9.8-10.9 ms). */
static bool sk_scatter_checks_runs(const sk_plan *p) {
    bool reduces = p->reduce != SK_REDUCE_NONE;
    if (reduces && (SK_IS_HALF(p->dtype) || p->reduce == SK_REDUCE_MEAN || !p->include_self))
        return false;
    if (sk_plan_numel(p) == 0 || sk_tensor_numel(p->out) == 0 || !sk_inner_axis_chunk(p))
        return false;
    for (int d = 0; d < p->ndim - 1; d++)
        if (p->index_stride[d] != 0) return true;
    return false;
}

/* ---- Assign rows by winners --------------------------------------------
 * out[index[r], :] = src[r, :] with last-wins: only the last update of each
 * target row survives, so the rows of src that lose are never read. A pass
 * over the index records, per thread for its range of update rows, the last
 * row that reaches each target (int32, -1: none); the targets are then
 * written once each, from the winner (the largest row over the threads) or,
 * when out is a fresh copy of x, from x. Message-passing shapes (1M updates
 * of 32 into 100k rows): the other paths read all of src and write every
 * update. */
typedef struct {
    const sk_plan *p;
    int32_t *last;        /* nt arrays of n */
    int nt;
    int64_t rows, n, len;
    const char *copy_src; /* x, row-major like out, when out is to be its copy */
} sk_winners_job;

static void sk_winners_scan(void *arg, int tid, int nthreads) {
    const sk_winners_job *job = arg;
    const sk_plan *p = job->p;
    int32_t *last = job->last + (size_t)tid * (size_t)job->n;
    int64_t r0, r1;
    sk_partition(job->rows, tid, nthreads, &r0, &r1);
    for (int64_t t = 0; t < job->n; t++) last[t] = -1;
    const char *ix = (const char *)p->index;
    int64_t is = p->index_stride[0];
    for (int64_t r = r0; r < r1; r++) {
        int64_t v = sk_load_index(ix, p->index_is64, r * is);
        if (sk_resolve_index(v, job->n, p->mode, &v)) last[v] = (int32_t)r;
    }
}

static void sk_winners_write(void *arg, int tid, int64_t chunk, int64_t t0, int64_t t1) {
    const sk_winners_job *job = arg;
    const sk_plan *p = job->p;
    const size_t es = p->elem_size, row = (size_t)job->len * es;
    (void)tid;
    (void)chunk;
    for (int64_t t = t0; t < t1; t++) {
        int32_t w = -1;
        for (int k = 0; k < job->nt; k++) {
            int32_t v = job->last[(size_t)k * (size_t)job->n + (size_t)t];
            w = v > w ? v : w;
        }
        char *dst = p->target + (ptrdiff_t)(t * p->comp_target_stride[0]) * (ptrdiff_t)es;
        if (w >= 0) {
            const char *src = p->dense + (ptrdiff_t)(w * p->dense_stride[0]) * (ptrdiff_t)es;
            if (p->dense_stride[1] == 1) memcpy(dst, src, row);
            else for (int64_t j = 0; j < job->len; j++) memcpy(dst + (size_t)j * es, src, es);
        } else if (job->copy_src) {
            memcpy(dst, job->copy_src + (size_t)t * row, row);
        }
    }
}

/* Runs the winners path when it applies (true: done, out written). */
static bool sk_run_winners(const sk_plan *p, const sk_tensor *copy_from, int nthreads) {
    if (p->reduce != SK_REDUCE_NONE || p->invalid || p->ndim != 2 || p->ncomp != 1 ||
        !sk_scatter_is_rows(p) || p->target_stride[0] != 0 || p->linear_stride[0] != 0 ||
        (p->dense_stride[1] != 0 && p->dense_stride[1] != 1)) /* src rows whole, or one value */
        return false;
    sk_winners_job job = {p, NULL, 1, p->shape[0], p->comp_size[0], p->shape[1], NULL};
    /* enough update rows to repay the pass, and targets few enough that
     * walking all of them costs less than the updates */
    if (job.rows < 1024 || job.rows > INT32_MAX || job.n > 4 * job.rows || job.n < 1) return false;
    job.nt = sk_threads_for_work(nthreads, job.rows * job.len);
    if (job.nt > SK_SCATTER_MAX_THREADS) job.nt = SK_SCATTER_MAX_THREADS;
    size_t bytes = (size_t)job.nt * (size_t)job.n * sizeof(int32_t);
    if ((double)bytes > 16.0 * (double)p->index_numel || !(job.last = sk_scratch_get(bytes)))
        return false;
    /* out wholly made of the target rows, row-major: x's rows that no update
     * reaches are copied in the same pass */
    const sk_tensor *out = p->out;
    if (copy_from && p->comp_target_stride[0] == job.len &&
        sk_tensor_numel(out) == job.n * job.len && p->target == (char *)out->data)
        job.copy_src = sk_copy_source(copy_from, out);
    if (copy_from && !job.copy_src) sk_copy_unchecked(copy_from, (sk_tensor *)out, nthreads);
    sk_parallel_run(job.nt, sk_winners_scan, &job);
    int mt = sk_threads_for_work(nthreads, job.n * job.len);
    sk_parallel_chunks(mt, job.n, sk_chunks_for(mt, job.n, job.len), sk_winners_write, &job);
    sk_scratch_put(job.last, bytes);
    return true;
}

/* The four-row buffers of sk_inner_sum4 / sk_inner_sum_half4 (16 n bytes
 * per thread, float32): only for contiguous out rows, within the 16 bytes
 * per index element with the index copy (W6: 2 x 256 KB + 128 KB). */
static bool sk_inner_rows4(sk_scatter_job *job, const sk_plan *p, int nt, size_t index_copy_bytes,
                           int64_t ilen) {
    int64_t n = p->comp_size[0];
    size_t rows_bytes = (size_t)nt * 16u * (size_t)n;
    if (!SK_HAVE_INNER_SUM4 || p->shape[0] < 4 || p->comp_target_stride[0] != 1 ||
        p->linear_stride[0] != n || index_copy_bytes + rows_bytes > 16u * (size_t)ilen ||
        !(job->inner_rows = sk_scratch_get(rows_bytes)))
        return false;
    job->inner_rows_stride = 4 * n;
    return true;
}

static sk_status sk_run_scatter_plan(sk_plan *p, const sk_tensor *copy_from, int nthreads);

sk_status sk_run_scatter(sk_plan *p, const sk_tensor *copy_from,
                         const struct sk_index_check *unchecked, int nthreads) {
    sk_plan_normalize(p);
    int invalid = 0;
    p->invalid = NULL;
    if (unchecked && sk_scatter_checks_runs(p)) {
        p->invalid = &invalid;
    } else if (unchecked) {
        sk_status st = sk_check_values(unchecked, nthreads);
        if (st) return st;
    }
    sk_status st = sk_run_scatter_plan(p, copy_from, nthreads);
    p->invalid = NULL;
    /* a run was skipped: the full check names the first bad value */
    return st == SK_STATUS_OK && invalid ? sk_check_values(unchecked, nthreads) : st;
}

/* The normalized plan on the blocked rows, the column tiles, the claimed
 * inner-axis chunks or owner-computes. */
static sk_status sk_run_scatter_plan(sk_plan *p, const sk_tensor *copy_from, int nthreads) {
    int64_t target_numel = sk_tensor_numel(p->out);
    if (sk_plan_numel(p) > 0 && target_numel > 0 && sk_run_winners(p, copy_from, nthreads))
        return SK_STATUS_OK;
    if (sk_plan_numel(p) > 0 && target_numel > 0) {
        sk_blocks_job bj;
        if (sk_blocks_plan(&bj, p, target_numel) && sk_run_blocks(&bj, copy_from, nthreads))
            return SK_STATUS_OK;
    }
    sk_scatter_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.total = sk_plan_numel(p);
    job.target_numel = sk_tensor_numel(p->out);
    bool reduces = p->reduce != SK_REDUCE_NONE;
    job.half = reduces && SK_IS_HALF(p->dtype);
    job.counted = reduces && (p->reduce == SK_REDUCE_MEAN || !p->include_self);
    sk_select_kernels(&job, p);
    if (!job.pass) return sk_fail(SK_STATUS_INTERNAL, "%s: no kernel for this dtype", p->op);
    int64_t work = job.total > job.target_numel ? job.total : job.target_numel;
    int nt = sk_threads_for_work(nthreads, work);
    if (nt > SK_SCATTER_MAX_THREADS) nt = SK_SCATTER_MAX_THREADS;
    if (job.target_numel > 0 && nt > job.target_numel) nt = (int)job.target_numel;
    int64_t per_thread = job.target_numel > 0 ? (job.target_numel + nt - 1) / nt : 1;
    job.chunk = per_thread;
    /* 16-bit types only for a sum on sk_inner_sum (checked below) */
    int64_t fused = job.counted || job.total == 0 || job.target_numel == 0 ||
                            (job.half && p->reduce != SK_REDUCE_SUM)
                        ? 0
                        : sk_inner_axis_chunk(p);
    sk_plan narrow; /* the plan reading an int32 copy of the index (below) */
    void *index_copy = NULL;
    size_t index_copy_bytes = 0, half_rows_bytes = 0;
    /* Every target row reads the whole index again (W6: 64 times 512 KB,
     * more than the L2 holds next to the rows): it is copied once, with
     * negative values wrapped, to int32 (4 bytes per index element). A sum
     * on a 2-d plan takes sk_inner_sum, which reads a uint16 copy when n <=
     * 65536; the generic pass reads the int32 one. Only for a contiguous 1-d
     * index with checked values (they fit). */
    int64_t n = p->comp_size[0], ilen = p->shape[p->ndim - 1]; /* index length */
    bool inner = false, small = false;
    if (fused) {
        int d = p->ndim - 1;
        bool one_d = p->index_is64 && p->index_stride[d] == 1 && p->mode == SK_INDEX_MODE_ERROR &&
                     n <= INT32_MAX;
        for (int dd = 0; dd < d; dd++) one_d = one_d && p->index_stride[dd] == 0;
        inner = one_d && p->ndim == 2 && p->reduce == SK_REDUCE_SUM && p->dense_stride[1] == 1 &&
                p->dtype != SK_DTYPE_BOOL;
        small = inner && n <= 65536;
        if (one_d) {
            index_copy_bytes = (size_t)ilen * (small ? sizeof(uint16_t) : sizeof(int32_t));
            index_copy = sk_scratch_get(index_copy_bytes);
        }
        if (job.half) { /* a float32 row per thread, within the budget with the index copy */
            half_rows_bytes = (size_t)nt * (size_t)n * sizeof(float);
            if (inner && index_copy && sk_inner_rows4(&job, p, nt, index_copy_bytes, ilen)) {
                half_rows_bytes = 0; /* four rows at a time, in job.inner_rows */
            } else if (!inner || !index_copy ||
                       index_copy_bytes + half_rows_bytes > 16u * (size_t)ilen ||
                       !(job.half_rows = sk_scratch_get(half_rows_bytes))) {
                sk_scratch_put(index_copy, index_copy_bytes);
                index_copy = NULL;
                half_rows_bytes = 0;
                fused = 0; /* owner-computes */
            }
        }
    }
    if (fused) {
        job.chunk = fused;
        if ((job.copy_src = sk_copy_source(copy_from, p->out))) copy_from = NULL;
        job.touch = !copy_from && !job.copy_src && sk_row_major(p->out);
        if (index_copy) {
            const int64_t *ix = p->index;
            for (int64_t j = 0; j < ilen; j++) {
                int64_t v = ix[j] < 0 ? ix[j] + n : ix[j];
                if (small) ((uint16_t *)index_copy)[j] = (uint16_t)v;
                else ((int32_t *)index_copy)[j] = (int32_t)v;
            }
            if (inner) {
                job.inner_index = index_copy;
                job.inner_index16 = small;
                /* four float rows at a time (sk_inner_sum4): a buffer of 16 n
                 * bytes per thread, within the 16 bytes per index element of
                 * scratch with the index copy (W6: 2 x 256 KB + 128 KB); the
                 * chunks become whole groups of four rows */
                if (p->dtype == SK_DTYPE_FLOAT32)
                    sk_inner_rows4(&job, p, nt, index_copy_bytes, ilen);
                if (job.inner_rows) job.chunk = (fused / n + 3) / 4 * 4 * n;
            } else {
                narrow = *p;
                narrow.index = index_copy;
                narrow.index_is64 = false;
                job.p = &narrow;
            }
        }
    }
    sk_status st = SK_STATUS_OK;
    bool run = job.total > 0 && job.target_numel > 0;
    if (run && !fused && !job.half && !job.counted && p->linear_stride[0] == 0 &&
        (job.tile = sk_plan_column_tile(p))) {
        /* elements along a leading axis, out[index[r, c], c] (x, index and
         * src 1024 x 4096 float32, C at 2 threads: sum 170-200 against 17
         * ms, assign 64 against 15) */
        job.pack_bytes = (size_t)(p->comp_size[0] * job.tile) * p->elem_size;
        if ((double)nt * (double)job.pack_bytes > 16.0 * (double)p->index_numel ||
            !(job.pack = sk_scratch_get((size_t)nt * job.pack_bytes))) {
            job.tile = 0;
        } else if (sk_copy_source(copy_from, p->out) && p->target == (char *)p->out->data &&
                   p->shape[1] == p->comp_target_stride[0] &&
                   job.target_numel == p->comp_size[0] * p->comp_target_stride[0]) {
            /* the tiles cover all of out: packed from x, no copy pass first */
            job.copy_src = copy_from->data;
            copy_from = NULL;
        }
    }
    if ((job.half || job.counted) && run && !fused) {
        /* 4 bytes (half) + 8 (counted) per target of a chunk, allocated before
         * anything is written */
        job.chunk = job.total / nt;
        if (job.chunk < (1 << 16)) job.chunk = 1 << 16;
        if (job.chunk > per_thread) job.chunk = per_thread;
        for (int t = 0; t < nt && st == SK_STATUS_OK; t++) {
            if (job.half) job.acc[t] = sk_scratch_get((size_t)job.chunk * sizeof(float));
            if (job.counted) job.cnt[t] = sk_scratch_get((size_t)job.chunk * sizeof(int64_t));
            if ((job.half && !job.acc[t]) || (job.counted && !job.cnt[t]))
                st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the reduction scratch",
                             p->op);
        }
    }
    if (st == SK_STATUS_OK) {
        if (copy_from) sk_copy_unchecked(copy_from, (sk_tensor *)p->out, nthreads);
        int64_t len = p->shape[p->ndim - 1], line = 64 / (int64_t)p->elem_size;
        if (run && nt > 1 && !job.half && !job.counted && sk_scatter_is_rows(p) &&
            len >= (int64_t)nt * line) {
            sk_cols_job cj = {&job, len, (len / nt + line - 1) / line * line};
            sk_parallel_run(nt, sk_scatter_cols_task, &cj);
        } else if (run && job.tile) {
            int64_t units = (p->shape[1] + job.tile - 1) / job.tile;
            sk_parallel_chunks(nt, units, units, sk_scatter_tiles, &job);
        } else if (run && fused) { /* chunks of job.chunk targets, claimed one at a time */
            int64_t units = (job.target_numel + job.chunk - 1) / job.chunk;
            sk_parallel_chunks(nt, units, units, sk_scatter_claimed, &job);
        } else if (run) {
            sk_parallel_run(nt, sk_scatter_task, &job);
        }
    }
    sk_scratch_put(index_copy, index_copy_bytes);
    if (job.pack) sk_scratch_put(job.pack, (size_t)nt * job.pack_bytes);
    if (job.inner_rows) /* as sk_inner_rows4 took it */
        sk_scratch_put(job.inner_rows, (size_t)nt * (size_t)job.inner_rows_stride * sizeof(float));
    if (job.half_rows) sk_scratch_put(job.half_rows, half_rows_bytes);
    for (int t = 0; t < nt; t++) {
        sk_scratch_put(job.acc[t], (size_t)job.chunk * sizeof(float));
        sk_scratch_put(job.cnt[t], (size_t)job.chunk * sizeof(int64_t));
    }
    return st;
}
