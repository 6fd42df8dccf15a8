/*
 * index_scatter: index 1-d of length L (or 0-d); updates.shape == x.shape
 * with axis replaced by L (removed for a 0-d index);
 * out[.., index[j], ..] = reduce(out[.., index[j], ..], updates[.., j, ..]).
 * reduce, include_self, modes and in place as for scatter.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    skt_shape x, idx;
    int32_t axis;
    bool big;
} select_case;

static const select_case cases[] = {
    {{1, {5}}, {1, {7}}, 0, false},
    {{1, {5}}, {0, {0}}, 0, false}, /* 0-d index: updates is 0-d */
    {{2, {4, 3}}, {1, {6}}, 0, false},
    {{2, {4, 3}}, {1, {5}}, 1, false},
    {{2, {4, 3}}, {0, {0}}, -1, false},
    {{3, {3, 4, 5}}, {0, {0}}, 1, false},
    {{3, {3, 4, 5}}, {1, {8}}, -1, false},
    {{3, {3, 4, 5}}, {1, {2}}, 1, false},
    {{2, {0, 3}}, {1, {2}}, 1, false},
    {{2, {4, 3}}, {1, {0}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 1, false}, /* empty axis */
    {{2, {300, 64}}, {1, {1200}}, 0, true},
    {{2, {64, 300}}, {1, {1200}}, 1, true},
    {{2, {8, 300}}, {1, {1500}}, 1, true}, /* inner axis: rows claimed, x copied per chunk */
};

static int32_t index_scatter_updates(const select_case *c, int64_t *shape) {
    int32_t ax = skt_wrap_axis(c->axis, c->x.ndim), n = 0;
    for (int32_t d = 0; d < c->x.ndim; d++) {
        if (d != ax) shape[n++] = c->x.d[d];
        else if (c->idx.ndim == 1) shape[n++] = c->idx.d[0];
    }
    return n;
}

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, index_scatter)(x, SKT_T(a->index), SKT_T(a->src), a->axis, a->reduce,
                                        a->include_self, a->mode, out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const select_case *c = (const select_case *)cv;
    int64_t n = c->x.d[skt_wrap_axis(c->axis, c->x.ndim)], us[SK_MAX_DIMS], lo, hi;
    int32_t und = index_scatter_updates(c, us);
    if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 2, skt_values_for(p->reduce), r);
    skt_buf *idx = skt_new(b, "index"), *upd = skt_new(b, "updates");
    skt_make(idx, p->it, c->idx.ndim, c->idx.d, skt_in_layout(r), 0, r);
    skt_index_bounds(n, p->mode, &lo, &hi);
    skt_fill_index(idx, r, -1, &lo, &hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    skt_make(upd, p->dt, und, us, skt_in_layout(r), 0, r);
    skt_fill(upd, r, skt_values_for(p->reduce));
    b->a = (skt_args){.index = idx, .src = upd, .axis = c->axis, .reduce = p->reduce,
                      .include_self = p->include_self, .mode = p->mode};
    if (b->inplace) skt_set_inputs(b, 2, idx, upd);
    else skt_set_inputs(b, 3, idx, upd, b->x);
    skt_reduce_desc(b, "index_scatter", p);
    skt_appendf(b->desc, sizeof b->desc, " axis=%d", (int)c->axis);
    return true;
}

/* ---- errors: x int64 [5, 3], index int32 [4], updates [4, 3], axis 0 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {5, 3}, is[1] = {4}, us[2] = {4, 3};
    b->x = skt_mk(b, "x", SK_DTYPE_INT64, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT32, 1, is, 4, r);
    b->a.src = skt_mk(b, "updates", SK_DTYPE_INT64, 2, us, r);
    b->out = skt_mk(b, "out", SK_DTYPE_INT64, 2, xs, r);
    b->a.include_self = true;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 2;
}

static void bad_mean(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index(b, arg, r);
    b->a.reduce = SK_REDUCE_MEAN;
    b->a.include_self = false;
}
static void bad_in_place(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index_3t(b, arg, r);
    b->x = b->out;
}
static void updates_4x2(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t bad[2] = {4, 2};
    b->a.src = skt_mk(b, NULL, SK_DTYPE_INT64, 2, bad, r);
}

static const skt_error_case errors[] = {
    {"index_scatter with index 3005 on an axis of 5", bad_mean, 3005,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"index_scatter", "index", "3005"}, NULL},
    {"index_scatter in place with index 3005", bad_in_place, 3005, SK_STATUS_INDEX_OUT_OF_RANGE,
     {"index_scatter", "index", "3005"}, NULL},
    {"index_scatter axis=-3 on 2-d x", skt_mut_axis, -3, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"index_scatter updates=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"index_scatter with updates of the wrong shape", updates_4x2, 0, SK_STATUS_INVALID_SHAPE,
     {0}, NULL},
    {"index_scatter with int32 updates for int64 x", skt_mut_src_dtype, SK_DTYPE_INT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
};

/* index_add along the last axis with a long contiguous int64 index (W6):
 * sums take their own loop over a wrapped uint16 copy of the index (n <=
 * 65536) or an int32 one; float32, float16 and bfloat16 four rows at a time
 * through an interleaved float32 buffer when the scratch budget has room (7
 * rows: one group of four and three single rows; n and L not multiples of
 * 4), integers through their unsigned type. Same bits as src/ref (float
 * sums in the canonical order: some targets get far more than 256 updates;
 * 16-bit floats in float32, rounded once); out also as a
 * column-major buffer (strided along the axis, one row at a time). */
static double inner_value(sk_dtype dt, int64_t k, bool update) {
    double v = update ? 1.0 / (double)(k % 13 + 1) : 0.25 * (double)(k % 7);
    return sk_dtype_is_floating(dt) ? v : (double)(update ? k % 251 - 125 : k % 97);
}
static void inner_store(sk_dtype dt, char *p, double v) {
    switch (dt) {
    case SK_DTYPE_FLOAT64: memcpy(p, &v, 8); break;
    case SK_DTYPE_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); } break;
    case SK_DTYPE_FLOAT16: { uint16_t h = sk_float_to_half((float)v); memcpy(p, &h, 2); } break;
    case SK_DTYPE_BFLOAT16: { uint16_t h = sk_float_to_bfloat16((float)v); memcpy(p, &h, 2); } break;
    default: { uint64_t u = (uint64_t)(int64_t)v; memcpy(p, &u, sk_dtype_size(dt)); } break;
    }
}
static void index_scatter_inner_sum(void) {
    static const int64_t widths[] = {301, 70001}, lengths[] = {1501, 190001};
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_FLOAT16,
                                   SK_DTYPE_BFLOAT16, SK_DTYPE_INT32, SK_DTYPE_UINT8,
                                   SK_DTYPE_INT64};
    for (int wi = 0; wi < 2; wi++)
        for (size_t di = 0; di < SKT_COUNT(dts); di++)
            for (int colmajor = 0; colmajor < 2; colmajor++) {
                const int64_t R = 7, n = widths[wi], L = lengths[wi];
                const sk_dtype dt = dts[di];
                if (wi == 1 && di >= 4) continue; /* the wide case: floats only */
                size_t es = sk_dtype_size(dt);
                char *x = malloc((size_t)(R * n) * es), *u = malloc((size_t)(R * L) * es);
                char *out = malloc((size_t)(R * n) * es), *want = malloc((size_t)(R * n) * es);
                int64_t *idx = malloc((size_t)L * sizeof(int64_t));
                if (!x || !u || !out || !want || !idx)
                    skt_fail("index_scatter (inner sum): out of memory");
                for (int64_t k = 0; k < R * n; k++) inner_store(dt, x + k * es, inner_value(dt, k, false));
                for (int64_t k = 0; k < R * L; k++) inner_store(dt, u + k * es, inner_value(dt, k, true));
                for (int64_t j = 0; j < L; j++) { /* duplicates, negatives, both ends */
                    int64_t v = (j * 7919) % (j % 4 == 0 ? 5 : n);
                    idx[j] = j % 3 == 0 ? v - n : v;
                }
                idx[1] = n - 1;
                idx[2] = -n;
                const int64_t xs[2] = {R, n}, us[2] = {R, L}, is[1] = {L};
                const int64_t cm[2] = {1, R}; /* out column-major */
                sk_tensor tx, ti, tu, to, tw;
                sk_tensor_init(&tx, x, dt, 2, xs, NULL);
                sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 1, is, NULL);
                sk_tensor_init(&tu, u, dt, 2, us, NULL);
                sk_tensor_init(&tw, want, dt, 2, xs, NULL);
                if (skref_index_scatter(&tx, &ti, &tu, 1, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR,
                                        &tw, NULL))
                    skt_fail("index_scatter (inner sum): the reference failed");
                sk_tensor_init(&to, out, dt, 2, xs, colmajor ? cm : NULL);
                for (int threads = 1; threads <= 2; threads++) {
                    memset(out, 0xAB, (size_t)(R * n) * es);
                    sk_options opts = {0};
                    opts.num_threads = threads;
                    if (sk_index_scatter(&tx, &ti, &tu, 1, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR,
                                         &to, &opts))
                        skt_fail("index_scatter (inner sum): %s", sk_last_error());
                    for (int64_t r = 0; r < R; r++)
                        for (int64_t c = 0; c < n; c++) {
                            size_t at = (size_t)(colmajor ? c * R + r : r * n + c) * es;
                            if (memcmp(out + at, want + (size_t)(r * n + c) * es, es))
                                skt_fail("index_scatter (inner sum, n=%lld, %s, %s, %d threads): "
                                         "out[%lld, %lld] differs", (long long)n, sk_dtype_name(dt),
                                         colmajor ? "column-major out" : "row-major out", threads,
                                         (long long)r, (long long)c);
                        }
                }
                free(x);
                free(u);
                free(out);
                free(want);
                free(idx);
            }
}

const skt_op skt_op_index_scatter = {
    .name = "index_scatter",
    .requires = {SKT_SYMBOL(sk_index_scatter)},
    .cases = SKT_CASES(cases, select_case),
    .sweep = SKT_INDEX_DTYPES | SKT_REDUCES | SKT_SELF | SKT_SCATTER_MODES,
    .seed = 109,
    .error_seed = 16,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = index_scatter_inner_sum,
};
