/* A float sum or prod of an element scatter along the last axis whose
 * targets may pass a canonical chunk (an index row longer than
 * SK_CANONICAL_CHUNK), for the chunks of inner_elems.c: each update is
 * applied and its target counted in the same loop. Where no target of the
 * chunk passes SK_CANONICAL_CHUNK updates, folding each target's updates
 * one after another in position order is the canonical order, so the
 * chunk is done; where one does, the chunk's targets get their values from
 * before back and the caller folds the chunk in the canonical order. A
 * separate counting pass over the chunk's index before the plain fold had
 * cost about a quarter of the call (PERF-LOG, 2026-11-29). */
#include "cpu/scatter/inner_axis.h"
#include "cpu/arch/x86/keep_nan_sse.h"
#include "cpu/scatter/reduce.h"

/* Updates a piece (at most SK_CANONICAL_CHUNK long, so that a uint16 count
 * cannot wrap between the caller's checks) of one row: d[v] (op)= s[j] and
 * cnt[v] += 1 for v = x[j] (negative values wrapped); returns the highest
 * count the piece reached, or SK_COUNTED_BAD where a value lies outside
 * [-n, n) (checked here, not in a pass of its own: the pass was the first
 * to touch the index row and took its misses). */
enum { SK_COUNTED_BAD = 0xffffffffu }; /* a piece's value outside [-n, n) */
typedef uint32_t (*sk_counted_fn)(void *d, const void *s, const void *x, uint16_t *cnt,
                                  int64_t run, int64_t n);
#define SK_DEFINE_COUNTED(NAME, IT, FT, APPLY)                                                \
    static uint32_t NAME(void *dv, const void *sv, const void *xv, uint16_t *restrict cnt,         \
                         int64_t run, int64_t n) {                                                 \
        FT *restrict d = dv;                                                                       \
        const FT *restrict s = sv;                                                                 \
        const IT *restrict x = xv;                                                                 \
        uint32_t most = 0;                                                                         \
        uint64_t bad = 0;                                                                          \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = x[j];                                                                      \
            v += v < 0 ? n : 0;                                                                    \
            uint64_t out = (uint64_t)v >= (uint64_t)n;                                             \
            bad |= out;                                                                            \
            v = out ? 0 : v;                                                                       \
            uint32_t c = (uint32_t)cnt[v] + 1u;                                                    \
            cnt[v] = (uint16_t)c;                                                                  \
            most = c > most ? c : most;                                                            \
            d[v] = APPLY(d[v], s[j]);                                                         \
        }                                                                                          \
        return bad ? SK_COUNTED_BAD : most;                                                        \
    }
SK_DEFINE_COUNTED(sk_counted_sum_i32_f32, int32_t, float, sk_add_keep_f32)
SK_DEFINE_COUNTED(sk_counted_sum_i64_f32, int64_t, float, sk_add_keep_f32)
SK_DEFINE_COUNTED(sk_counted_sum_i32_f64, int32_t, double, sk_add_keep_f64)
SK_DEFINE_COUNTED(sk_counted_sum_i64_f64, int64_t, double, sk_add_keep_f64)
SK_DEFINE_COUNTED(sk_counted_prod_i32_f32, int32_t, float, sk_mul_keep_f32)
SK_DEFINE_COUNTED(sk_counted_prod_i64_f32, int64_t, float, sk_mul_keep_f32)
SK_DEFINE_COUNTED(sk_counted_prod_i32_f64, int32_t, double, sk_mul_keep_f64)
SK_DEFINE_COUNTED(sk_counted_prod_i64_f64, int64_t, double, sk_mul_keep_f64)
#undef SK_DEFINE_COUNTED

/* [prod][float64][int64 index] */
static const sk_counted_fn sk_counted_kernels[2][2][2] = {
    {{sk_counted_sum_i32_f32, sk_counted_sum_i64_f32}, {sk_counted_sum_i32_f64, sk_counted_sum_i64_f64}},
    {{sk_counted_prod_i32_f32, sk_counted_prod_i64_f32},
     {sk_counted_prod_i32_f64, sk_counted_prod_i64_f64}}};

/* What a row's pieces found. */
typedef enum { SK_COUNTED_OK, SK_COUNTED_PASSES, SK_COUNTED_HAS_BAD } sk_counted_end;

/* One row's pieces, until a target passes SK_CANONICAL_CHUNK updates or a
 * value lies outside [-n, n) (applied at target 0: never out of bounds). */
static sk_counted_end sk_counted_row(sk_counted_fn fn, char *d, const char *s, const char *x,
                                     uint16_t *cnt, int64_t len, int64_t n, size_t es, size_t ies) {
    for (int64_t j = 0; j < len; j += SK_CANONICAL_CHUNK) {
        int64_t run = len - j < SK_CANONICAL_CHUNK ? len - j : SK_CANONICAL_CHUNK;
        uint32_t most = fn(d, s + (size_t)j * es, x + (size_t)j * ies, cnt, run, n);
        if (most == SK_COUNTED_BAD) return SK_COUNTED_HAS_BAD;
        if (most > SK_CANONICAL_CHUNK) return SK_COUNTED_PASSES;
    }
    return SK_COUNTED_OK;
}

/* The rows' pattern: every row a contiguous run of updates along the last
 * axis of a row-major out, its index and src contiguous, its targets one
 * row of out inside [clo, chi). */
static bool sk_counted_fits(const sk_inner_job *job, const sk_plan *rows, int64_t lin_base,
                            int64_t clo, int64_t chi) {
    const sk_plan *w = rows;
    if (w->ndim != 2 || w->ncomp != 1 || w->mode != SK_INDEX_MODE_ERROR ||
        (w->dtype != SK_DTYPE_FLOAT32 && w->dtype != SK_DTYPE_FLOAT64) ||
        (w->reduce != SK_REDUCE_SUM && w->reduce != SK_REDUCE_PROD) || !sk_row_major(job->ex->out))
        return false;
    if (w->linear_stride[1] != 0 || w->target_stride[1] != 0 || w->comp_linear_stride[0] != 1 ||
        w->comp_target_stride[0] != 1 || w->dense_stride[1] != 1 || w->index_stride[1] != 1 ||
        w->shape[0] < 1)
        return false;
    int64_t n = w->comp_size[0], first = lin_base, last = lin_base + (w->shape[0] - 1) * w->linear_stride[0];
    int64_t lo = first < last ? first : last, hi = first < last ? last : first;
    return lo >= clo && hi + n <= chi;
}

bool sk_inner_fold_counted(const sk_inner_job *job, const sk_plan *rows, int64_t lin_base,
                           int64_t clo, int64_t chi, char *scratch) {
    if (!sk_counted_fits(job, rows, lin_base, clo, chi)) return false;
    const sk_plan *w = rows;
    const sk_exec *ex = job->ex;
    const size_t es = w->elem_size, ies = w->index_is64 ? 8 : 4;
    const int64_t n = w->comp_size[0], len = w->shape[1];
    sk_counted_fn fn = sk_counted_kernels[w->reduce == SK_REDUCE_PROD][w->dtype == SK_DTYPE_FLOAT64]
                                         [w->index_is64];
    char *chunk = (char *)ex->out->data + (size_t)clo * es;
    /* the chunk's values from before: x's, or saved here (in place) */
    uint16_t *cnt = (uint16_t *)(void *)scratch;
    char *saved = scratch + (size_t)(chi - clo) * sizeof(uint16_t);
    const char *before = job->copy_src ? job->copy_src + (size_t)clo * es : saved;
    if (!job->copy_src) memcpy(saved, chunk, (size_t)(chi - clo) * es);
    memset(cnt, 0, (size_t)(chi - clo) * sizeof(uint16_t));
    for (int64_t r = 0; r < w->shape[0]; r++) {
        int64_t lin = lin_base + r * w->linear_stride[0];
        const char *x = (const char *)w->index + (ptrdiff_t)(r * w->index_stride[0]) * (ptrdiff_t)ies;
        char *d = w->target + (ptrdiff_t)(r * w->target_stride[0]) * (ptrdiff_t)es;
        const char *s = w->dense + (ptrdiff_t)(r * w->dense_stride[0]) * (ptrdiff_t)es;
        sk_counted_end end = sk_counted_row(fn, d, s, x, cnt + (lin - clo), len, n, es, ies);
        if (end == SK_COUNTED_HAS_BAD && ex->invalid != NULL) {
            /* a fresh out, thrown away: the caller's full check names the value */
            __atomic_store_n(ex->invalid, 1, __ATOMIC_RELAXED);
            return true;
        }
        if (end != SK_COUNTED_OK) {
            memcpy(chunk, before, (size_t)(chi - clo) * es);
            return false;
        }
    }
    return true;
}
