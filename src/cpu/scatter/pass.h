/* The owner-computes walk, as static inline bodies instantiated by pass.c:
 * out[target(p)] = reduce(out[target(p)], src[p]) for the updates whose
 * target lies in a span.
 *
 * Determinism: threads own disjoint ranges of the target's row-major linear
 * index. Every thread walks all updates in row-major order and applies only
 * those that land in its range, so each target sees its updates in the same
 * order whatever the thread count (assign is last-wins, float sums are
 * reproducible bit for bit).
 *
 * Reductions run in place in out, except float16/bfloat16, which accumulate
 * in a float32 copy of the span's targets (acc) and are rounded once at the
 * end. A per-target count (cnt) is kept only when it is needed: mean
 * divides by it, and include_self=false uses it to start each touched
 * target from its first update (the identity). */
#ifndef SK_CPU_SCATTER_PASS_H
#define SK_CPU_SCATTER_PASS_H

#include "cpu/arch/x86/keep_nan_sse.h"
#include "cpu/cursor.h"
#include "cpu/scatter/path.h"
#include "cpu/scatter/reduce.h"

/* ---- one update ---- */
/* j indexes the chunk's scratch (acc for 16-bit types, cnt when counted). */
SK_INLINE void sk_apply(const sk_plan *p, const char *src, int64_t toff, int64_t j, float *acc,
                        int64_t *cnt, const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                        const size_t ES) {
    char *dst = p->target + (ptrdiff_t)toff * (ptrdiff_t)ES;
    if (RED == SK_REDUCE_NONE) {
        memcpy(dst, src, ES);
        return;
    }
    bool first = false; /* include_self=false: the first update replaces the old value */
    if (COUNTED) first = cnt[j]++ == 0 && !p->include_self;
    if (SK_USES_ACC(DT, RED)) {
        float v = sk_load_half_f32(src, DT);
        acc[j] = first ? sk_start_f32(v, RED) : sk_op_f32(acc[j], v, RED, DT);
    } else if (DT == SK_DTYPE_FLOAT32) {
        /* in float: amax/amin keep a signalling NaN as it is (sk_op_f32) */
        float v, *d = (float *)(void *)dst;
        memcpy(&v, src, sizeof v);
        *d = first ? sk_start_f32(v, RED) : sk_op_f32(*d, v, RED, DT);
    } else if (SK_IS_FLOAT(DT)) {
        double v = sk_load_f(src, DT);
        sk_store_f(dst, first ? sk_start_f(v, RED) : sk_op_f(sk_load_f(dst, DT), v, RED, DT), DT);
    } else {
        int64_t v = sk_load_i(src, DT);
        sk_store_i(dst, first ? v : sk_op_i(sk_load_i(dst, DT), v, RED, DT), DT);
    }
}

/* A row of a counted float reduction (mean, include_self=false): within a
 * chunk, every row that hits these targets covers exactly this segment
 * (rows of one target row start at the same linear index and are clipped
 * alike), so the targets share one count and the first-touch test is made
 * once for the row. */
SK_INLINE void sk_apply_row_counted(const sk_plan *p, char *restrict dst,
                                    const char *restrict src, int64_t j0, int64_t n, float *acc,
                                    int64_t *cnt, const sk_dtype DT, const sk_reduce RED) {
    bool first = cnt[j0] == 0 && !p->include_self;
    int64_t *restrict c = cnt + j0;
    for (int64_t j = 0; j < n; j++) c[j]++;
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    if (DT == SK_DTYPE_FLOAT32) {
        float *restrict d = (float *)(void *)dst;
        const float *restrict s = (const float *)(const void *)src;
        if (first) for (int64_t j = 0; j < n; j++) d[j] = sk_start_f32(s[j], OP);
        else for (int64_t j = 0; j < n; j++) d[j] = sk_op_f32(d[j], s[j], OP, DT);
        return;
    }
    if (DT == SK_DTYPE_FLOAT64) {
        double *restrict d = (double *)(void *)dst;
        const double *restrict s = (const double *)(const void *)src;
        if (first) for (int64_t j = 0; j < n; j++) d[j] = sk_start_f(s[j], OP);
        else for (int64_t j = 0; j < n; j++) d[j] = sk_op_f(d[j], s[j], OP, DT);
        return;
    }
    float *restrict a = acc + j0;
    const uint16_t *restrict s = (const uint16_t *)(const void *)src;
    for (int64_t j = 0; j < n; j++) {
        float v = sk_load_half_f32((const char *)(s + j), DT);
        a[j] = first ? sk_start_f32(v, OP) : sk_op_f32(a[j], v, OP, DT);
    }
}

/* A row of n updates into n contiguous targets. Without counts the typed
 * loops vectorise (src and out never overlap: sk_check_out). src_step 0: one
 * value for the whole row (a scalar src). */
SK_INLINE void sk_apply_row(const sk_plan *p, const char *restrict src, int64_t src_step,
                            int64_t toff, int64_t j0, int64_t n, float *acc, int64_t *cnt,
                            const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                            const size_t ES) {
    char *restrict dst = p->target + (ptrdiff_t)toff * (ptrdiff_t)ES;
    if (RED == SK_REDUCE_NONE && src_step == 1) {
        memcpy(dst, src, (size_t)n * ES);
        return;
    }
    if (COUNTED && src_step == 1 && (SK_IS_FLOAT(DT)) && RED != SK_REDUCE_NONE) {
        sk_apply_row_counted(p, dst, src, j0, n, acc, cnt, DT, RED);
        return;
    }
    if (!COUNTED && src_step == 1) {
        if (DT == SK_DTYPE_FLOAT32) {
            float *restrict d = (float *)(void *)dst;
            const float *restrict s = (const float *)(const void *)src;
            for (int64_t j = 0; j < n; j++) d[j] = sk_op_f32(d[j], s[j], RED, DT);
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
                float v = sk_load_half_f32((const char *)(s + j), DT);
                a[j] = sk_op_f32(a[j], v, RED, DT);
            }
            return;
        }
    }
    for (int64_t j = 0; j < n; j++)
        sk_apply(p, src + (ptrdiff_t)(j * src_step) * (ptrdiff_t)ES, toff + j, j0 + j, acc, cnt, DT, RED, COUNTED,
                 ES);
}

/* Rows walk: each row's targets are contiguous in the linear order, so the
 * chunk test is an interval intersection; the target rows of later updates
 * are prefetched because they come from random places. */
SK_INLINE void sk_scatter_rows(const sk_plan *p, const sk_span *s, float *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                               const size_t ES) {
    const int64_t clo = s->clo, chi = s->chi, col_lo = s->col_lo, col_hi = s->col_hi;
    int d = p->ndim - 1, r2 = d - 1;
    int64_t len = p->shape[d], step = p->dense_stride[d];
    int64_t ds = p->dense_stride[r2], ts = p->target_stride[r2], ls = p->linear_stride[r2],
            is = p->index_stride[r2];
    sk_plan outer = *p;
    outer.ndim--;
    int64_t nrows = sk_plan_numel(&outer);
    enum { AHEAD = SK_OWNER_ROWS_AHEAD };
    sk_cursor c;
    sk_cursor_seek(&outer, &c, 0);
    for (int64_t pos = 0; pos < nrows;) {
        int64_t run = sk_cursor_run(&outer, &c);
        for (int64_t r = 0; r < run; r++) {
            if (r + AHEAD < run) {
                int64_t toff = c.target + (r + AHEAD) * ts, lin = c.linear + (r + AHEAD) * ls;
                if (sk_plan_resolve(p, c.index + (r + AHEAD) * is, &toff, &lin) && lin < chi &&
                    lin + len > clo) {
                    int64_t c0 = col_lo < len ? col_lo : 0;
                    const char *q = SK_USES_ACC(DT, RED) ? (const char *)(acc + (lin - clo))
                                                   : p->target + (ptrdiff_t)(toff + c0) * (ptrdiff_t)ES;
                    sk_prefetch_row_w(q, len * (int64_t)ES < 128 ? (size_t)len * ES : 128);
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
            if (jlo < col_lo) jlo = col_lo; /* a column block (cols.c) */
            if (jhi > col_hi) jhi = col_hi;
            if (jlo >= jhi) continue;
            sk_apply_row(p, p->dense + (ptrdiff_t)(c.dense + r * ds + jlo * step) * (ptrdiff_t)ES, step,
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

/* a (op) b for the typed loops of an element scatter along the last axis:
 * assign moves the bits; amax/amin pick through a mask (random data, no
 * mispredicted branches: `?:` on floats was a branch); sums and products
 * are the one instruction that keeps the NaN rule (keep_nan_sse.h). */
SK_INLINE float sk_tight_f32(float a, float b, const sk_reduce RED) {
    if (RED == SK_REDUCE_NONE) return b;
    if (RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN) return sk_pick_f32(a, b, RED);
    return RED == SK_REDUCE_PROD ? sk_mul_keep_f32(a, b) : sk_add_keep_f32(a, b);
}
SK_INLINE double sk_tight_f64(double a, double b, const sk_reduce RED) {
    if (RED == SK_REDUCE_NONE) return b;
    if (RED == SK_REDUCE_AMAX || RED == SK_REDUCE_AMIN) return sk_pick_f64(a, b, RED);
    return RED == SK_REDUCE_PROD ? sk_mul_keep_f64(a, b) : sk_add_keep_f64(a, b);
}
#define SK_TIGHT_BITS(a, b, RED) (b)

/* Runs of an element scatter along the last axis whose values are checked
 * and whose targets all lie in the span: typed and hoisted so the loop
 * stays short. d: target of index value 0, s: src, x: the index. */
#define SK_DEFINE_TIGHT(NAME, IT, FT, APPLY)                                                       \
    SK_INLINE void NAME(FT *restrict d, const FT *restrict s, const IT *restrict x, int64_t run,   \
                        int64_t n, int64_t ts, int64_t cts, int64_t ds, int64_t is,                \
                        const sk_reduce RED) {                                                     \
        (void)RED;                                                                                 \
        if (ts == 0 && cts == 1 && ds == 1 && is == 1) { /* all contiguous */                     \
            for (int64_t j = 0; j < run; j++) {                                                    \
                int64_t v = x[j];                                                                  \
                v += v < 0 ? n : 0;                                                                \
                d[v] = APPLY(d[v], s[j], RED);                                                     \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = x[j * is];                                                                 \
            v += v < 0 ? n : 0;                                                                    \
            FT *t = d + j * ts + v * cts;                                                          \
            *t = APPLY(*t, s[j * ds], RED);                                                        \
        }                                                                                          \
    }
SK_DEFINE_TIGHT(sk_tight_i32_f32, int32_t, float, sk_tight_f32)
SK_DEFINE_TIGHT(sk_tight_i64_f32, int64_t, float, sk_tight_f32)
SK_DEFINE_TIGHT(sk_tight_i32_f64, int32_t, double, sk_tight_f64)
SK_DEFINE_TIGHT(sk_tight_i64_f64, int64_t, double, sk_tight_f64)
SK_DEFINE_TIGHT(sk_tight_i32_b8, int32_t, uint8_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i64_b8, int64_t, uint8_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i32_b16, int32_t, uint16_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i64_b16, int64_t, uint16_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i32_b32, int32_t, uint32_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i64_b32, int64_t, uint32_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i32_b64, int32_t, uint64_t, SK_TIGHT_BITS)
SK_DEFINE_TIGHT(sk_tight_i64_b64, int64_t, uint64_t, SK_TIGHT_BITS)
#undef SK_DEFINE_TIGHT
#undef SK_TIGHT_BITS

/* The typed loops of sk_tight_*, for the element's type and width. */
#define SK_TIGHT_CALL(IT, FT, NAME)                                                                \
    NAME((FT *)(void *)p->target + c->target, (const FT *)(const void *)src,                       \
         (const IT *)p->index + c->index, run, n, ts, cts, ds, is, RED)
SK_INLINE void sk_pass_tight(const sk_plan *p, const sk_cursor *c, const char *src, int64_t run,
                             int64_t ts, int64_t ds, int64_t is, const sk_dtype DT,
                             const sk_reduce RED, const size_t ES, const bool IS64) {
    const int64_t n = p->comp_size[0], cts = p->comp_target_stride[0];
    if (RED != SK_REDUCE_NONE && DT == SK_DTYPE_FLOAT32) {
        if (IS64) SK_TIGHT_CALL(int64_t, float, sk_tight_i64_f32);
        else SK_TIGHT_CALL(int32_t, float, sk_tight_i32_f32);
    } else if (RED != SK_REDUCE_NONE) {
        if (IS64) SK_TIGHT_CALL(int64_t, double, sk_tight_i64_f64);
        else SK_TIGHT_CALL(int32_t, double, sk_tight_i32_f64);
    } else if (ES == 8) {
        if (IS64) SK_TIGHT_CALL(int64_t, uint64_t, sk_tight_i64_b64);
        else SK_TIGHT_CALL(int32_t, uint64_t, sk_tight_i32_b64);
    } else if (ES == 4) {
        if (IS64) SK_TIGHT_CALL(int64_t, uint32_t, sk_tight_i64_b32);
        else SK_TIGHT_CALL(int32_t, uint32_t, sk_tight_i32_b32);
    } else if (ES == 2) {
        if (IS64) SK_TIGHT_CALL(int64_t, uint16_t, sk_tight_i64_b16);
        else SK_TIGHT_CALL(int32_t, uint16_t, sk_tight_i32_b16);
    } else {
        if (IS64) SK_TIGHT_CALL(int64_t, uint8_t, sk_tight_i64_b8);
        else SK_TIGHT_CALL(int32_t, uint8_t, sk_tight_i32_b8);
    }
}
#undef SK_TIGHT_CALL

SK_INLINE int64_t sk_index_at(const void *ix, int64_t k, const bool IS64) {
    return IS64 ? ((const int64_t *)ix)[k] : ((const int32_t *)ix)[k];
}

/* A run along which one index component varies (typed index loads). A
 * fresh out's values are checked here, a run at a time (in L1 for its
 * updates) when ex->invalid is set; a run with a bad value is not applied. */
SK_INLINE void sk_pass_varying(const sk_plan *p, const sk_exec *ex, const sk_cursor *c,
                               const char *src, int64_t run, int64_t clo, int64_t chi,
                               float *acc, int64_t *cnt, const sk_dtype DT, const sk_reduce RED,
                               const bool COUNTED, const size_t ES, const bool IS64) {
    const int64_t d = p->ndim - 1, n = p->comp_size[0], cts = p->comp_target_stride[0],
                  cls = p->comp_linear_stride[0];
    const int64_t ds = p->dense_stride[d], ts = p->target_stride[d], ls = p->linear_stride[d],
                  is = p->index_stride[d];
    const sk_index_mode mode = p->mode;
    const void *ix = IS64 ? (const void *)((const int64_t *)p->index + c->index)
                          : (const void *)((const int32_t *)p->index + c->index);
    if (SK_UNLIKELY(ex->invalid != NULL) && sk_run_has_bad(ix, IS64, run, is, n)) {
        __atomic_store_n(ex->invalid, 1, __ATOMIC_RELAXED);
        return;
    }
    /* every target the run can reach is in the span: no range test */
    const bool inside = ls == 0 && c->linear >= clo && c->linear + (n - 1) * cls < chi;
    if (inside && mode == SK_INDEX_MODE_ERROR &&
        ((!COUNTED && RED != SK_REDUCE_NONE &&
          (DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_FLOAT64)) ||
         RED == SK_REDUCE_NONE)) {
        sk_pass_tight(p, c, src, run, ts, ds, is, DT, RED, ES, IS64);
        return;
    }
    if (inside && mode == SK_INDEX_MODE_ERROR) {
        for (int64_t j = 0; j < run; j++) {
            int64_t v = sk_index_at(ix, j * is, IS64);
            v += v < 0 ? n : 0;
            sk_apply(p, src + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, c->target + j * ts + v * cts,
                     c->linear + v * cls - clo, acc, cnt, DT, RED, COUNTED, ES);
        }
        return;
    }
    for (int64_t j = 0; j < run; j++) {
        int64_t v = sk_index_at(ix, j * is, IS64);
        if (v < 0) v += n;
        if (SK_UNLIKELY((uint64_t)v >= (uint64_t)n) &&
            !sk_resolve_index(sk_index_at(ix, j * is, IS64), n, mode, &v))
            continue;
        int64_t lin = c->linear + j * ls + v * cls;
        if (lin < clo || lin >= chi) continue;
        sk_apply(p, src + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, c->target + j * ts + v * cts, lin - clo, acc,
                 cnt, DT, RED, COUNTED, ES);
    }
}

/* A run along which the target does not depend on the index (no index
 * component, or the index constant along the run). */
SK_INLINE void sk_pass_const(const sk_plan *p, const sk_cursor *c, const char *src, int64_t run,
                             int64_t clo, int64_t chi, float *acc, int64_t *cnt,
                             const sk_dtype DT, const sk_reduce RED, const bool COUNTED,
                             const size_t ES) {
    const int d = p->ndim - 1;
    const int64_t ds = p->dense_stride[d], ts = p->target_stride[d], ls = p->linear_stride[d];
    int64_t toff = c->target, lin = c->linear;
    if (!sk_plan_resolve(p, c->index, &toff, &lin)) return;
    int64_t jlo, jhi; /* the part of the run inside the span */
    sk_clip_run(lin, ls, run, clo, chi, &jlo, &jhi);
    if (jlo >= jhi) return;
    if ((ds == 1 || ds == 0) && ts == 1 && ls == 1) {
        sk_apply_row(p, src + (ptrdiff_t)(jlo * ds) * (ptrdiff_t)ES, ds, toff + jlo, lin + jlo - clo, jhi - jlo,
                     acc, cnt, DT, RED, COUNTED, ES);
        return;
    }
    for (int64_t j = jlo; j < jhi; j++)
        sk_apply(p, src + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, toff + j * ts, lin + j * ls - clo, acc, cnt, DT,
                 RED, COUNTED, ES);
}

/* One walk over every update, applying those whose target is in the span. */
SK_INLINE void sk_scatter_pass(const sk_plan *p, const sk_exec *ex, const sk_span *s, float *acc,
                               int64_t *cnt, const sk_dtype DT, const sk_reduce RED,
                               const bool COUNTED) {
    const size_t ES = sk_es(DT);
    const int64_t clo = s->clo, chi = s->chi;
    int64_t total = sk_plan_numel(p);
    if (total == 0) return;
    if (sk_scatter_is_rows(p)) {
        sk_scatter_rows(p, s, acc, cnt, DT, RED, COUNTED, ES);
        return;
    }
    int d = p->ndim - 1;
    int64_t ts = p->target_stride[d], ls = p->linear_stride[d], is = p->index_stride[d];
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    for (int64_t pos = 0; pos < total;) {
        int64_t run = sk_cursor_run(p, &c);
        const char *src = p->dense + (ptrdiff_t)c.dense * (ptrdiff_t)ES;
        if (p->ncomp == 0 || is == 0) {
            sk_pass_const(p, &c, src, run, clo, chi, acc, cnt, DT, RED, COUNTED, ES);
        } else if (p->ncomp == 1 && ls == 0 &&
                   (c.linear >= chi ||
                    c.linear + (p->comp_size[0] - 1) * p->comp_linear_stride[0] < clo)) {
            /* every target this run can reach lies outside the span */
        } else if (p->ncomp == 1 && p->index_is64) {
            sk_pass_varying(p, ex, &c, src, run, clo, chi, acc, cnt, DT, RED, COUNTED, ES, true);
        } else if (p->ncomp == 1) {
            sk_pass_varying(p, ex, &c, src, run, clo, chi, acc, cnt, DT, RED, COUNTED, ES, false);
        } else {
            int64_t ds = p->dense_stride[d];
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = c.target + j * ts, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < clo || lin >= chi) continue;
                sk_apply(p, src + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, toff, lin - clo, acc, cnt, DT, RED,
                         COUNTED, ES);
            }
        }
        pos += run;
        if (pos < total) sk_cursor_advance(p, &c, run);
    }
}

/* Walks targets of out in row-major order from linear index clo: runs of
 * targets `inner` elements apart; off is the element offset in out. */
typedef struct {
    int64_t coord[SK_MAX_DIMS], off, inner;
} sk_targets;

SK_INLINE void sk_targets_seek(sk_targets *w, const sk_tensor *out, int64_t clo) {
    int32_t nd = out->ndim;
    int64_t rem = clo;
    w->off = 0;
    for (int32_t d = nd - 1; d >= 0; d--) {
        w->coord[d] = rem % out->shape[d];
        rem /= out->shape[d];
        w->off += w->coord[d] * out->strides[d];
    }
    w->inner = nd ? out->strides[nd - 1] : 0;
}
/* The length of the run at the walk, at most `left`. */
SK_INLINE int64_t sk_targets_run(const sk_targets *w, const sk_tensor *out, int64_t left) {
    int32_t nd = out->ndim;
    int64_t run = nd ? out->shape[nd - 1] - w->coord[nd - 1] : 1;
    return run > left ? left : run;
}
/* Past a run whose targets the caller stepped through (off moved by run *
 * inner); false for a 0-d out (its one target done). */
SK_INLINE bool sk_targets_next(sk_targets *w, const sk_tensor *out, int64_t run) {
    int32_t nd = out->ndim;
    if (nd == 0) return false;
    w->coord[nd - 1] += run;
    for (int32_t d = nd - 1; d > 0 && w->coord[d] >= out->shape[d]; d--) {
        w->off -= w->coord[d] * out->strides[d];
        w->coord[d] = 0;
        w->coord[d - 1]++;
        w->off += out->strides[d - 1];
    }
    return true;
}

/* 16-bit types: the float32 accumulators start as out's values. */
SK_INLINE void sk_scatter_preload(const sk_exec *ex, int64_t clo, int64_t chi, float *acc,
                                  const sk_dtype DT) {
    const uint16_t *base = (const uint16_t *)ex->out->data;
    sk_targets w;
    sk_targets_seek(&w, ex->out, clo);
    for (int64_t j = 0; j < chi - clo;) {
        int64_t run = sk_targets_run(&w, ex->out, chi - clo - j);
        for (int64_t r = 0; r < run; r++, j++, w.off += w.inner)
            acc[j] = DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(base[w.off])
                                             : sk_f16_to_f32(base[w.off]);
        if (!sk_targets_next(&w, ex->out, run)) break;
    }
}

/* mean of a type reduced in place: the targets with updates divided by
 * their count (and one for x's value with include_self). */
SK_INLINE void sk_scatter_divide(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi,
                                 const int64_t *cnt, const sk_dtype DT) {
    const size_t es = p->elem_size;
    const int64_t self = p->include_self ? 1 : 0;
    char *base = (char *)ex->out->data;
    sk_targets w;
    sk_targets_seek(&w, ex->out, clo);
    for (int64_t j = 0; j < chi - clo;) {
        int64_t run = sk_targets_run(&w, ex->out, chi - clo - j);
        for (int64_t r = 0; r < run; r++, j++, w.off += w.inner) {
            if (cnt[j] <= 0) continue;
            char *dst = base + (ptrdiff_t)w.off * (ptrdiff_t)es;
            int64_t n = cnt[j] + self;
            if (SK_IS_FLOAT(DT)) {
                double v = sk_load_f(dst, DT);
                sk_store_f(dst, SK_FOP(DT, (float)v / (float)n, v / (double)n), DT);
            } else {
                sk_store_i(dst, sk_floor_div(sk_load_i(dst, DT), n), DT);
            }
        }
        if (!sk_targets_next(&w, ex->out, run)) break;
    }
}

/* Ends a span: mean divides by the counts; 16-bit types round their
 * accumulators once (an unchanged value rounds back to itself; a NaN that
 * was already there keeps its bits, a signalling one included, which the
 * trip through float32 would have made quiet). */
SK_INLINE void sk_scatter_finish(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi,
                                 const float *acc, const int64_t *cnt, const sk_dtype DT,
                                 const sk_reduce RED) {
    if (!SK_USES_ACC(DT, RED)) {
        if (RED == SK_REDUCE_MEAN) sk_scatter_divide(p, ex, clo, chi, cnt, DT);
        return;
    }
    const int64_t self = p->include_self ? 1 : 0;
    uint16_t *base = (uint16_t *)ex->out->data;
    sk_targets w;
    sk_targets_seek(&w, ex->out, clo);
    for (int64_t j = 0; j < chi - clo;) {
        int64_t run = sk_targets_run(&w, ex->out, chi - clo - j);
        for (int64_t r = 0; r < run; r++, j++, w.off += w.inner) {
            float v = acc[j];
            if (RED == SK_REDUCE_MEAN && cnt[j] > 0) v = v / (float)(cnt[j] + self);
            base[w.off] = sk_half_round(v, base[w.off], DT == SK_DTYPE_BFLOAT16, p->include_self);
        }
        if (!sk_targets_next(&w, ex->out, run)) break;
    }
}

#endif /* SK_CPU_SCATTER_PASS_H */
