/*
 * scatter: out has x's shape and dtype (out == x: in place); for every
 * position p of index, t = p with p[axis] = index[p], and
 * out[t] = reduce(out[t], src[p]). src.shape[d] >= index.shape[d] (a scalar
 * src is a tensor broadcast with zero strides). include_self == false: a
 * target that receives an update starts from the reduction's identity.
 * Modes error, clip and drop (fill is refused); bool takes none, amax, amin.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const skt_op skt_op_scatter;

typedef struct {
    skt_shape x, idx, src;
    int32_t axis;
    bool big;
} scatter_case;

static const scatter_case cases[] = {
    {{1, {5}}, {1, {8}}, {1, {8}}, 0, false},
    {{1, {5}}, {1, {3}}, {1, {6}}, -1, false},
    {{2, {4, 3}}, {2, {6, 3}}, {2, {6, 4}}, 0, false},
    {{2, {4, 3}}, {2, {4, 5}}, {2, {4, 5}}, 1, false},
    {{2, {4, 3}}, {2, {2, 2}}, {2, {3, 3}}, -1, false},
    {{3, {3, 4, 5}}, {3, {2, 6, 3}}, {3, {3, 6, 5}}, 1, false},
    {{3, {3, 4, 5}}, {3, {3, 2, 8}}, {3, {3, 2, 8}}, -1, false},
    {{3, {1, 5, 1}}, {3, {1, 7, 1}}, {3, {1, 7, 1}}, 1, false},
    {{4, {2, 3, 2, 3}}, {4, {2, 3, 2, 5}}, {4, {2, 3, 2, 5}}, 3, false},
    {{2, {0, 3}}, {2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {2, 0}}, {2, {2, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 2}}, {2, {3, 2}}, 1, false}, /* empty axis: drop or error */
    {{12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3}}, {12, {2, 1, 2, 1, 3, 1, 2, 1, 2, 1, 2, 3}},
     {12, {2, 1, 2, 1, 3, 1, 2, 1, 2, 1, 2, 3}}, 4, false},
    {{2, {200, 64}}, {2, {1200, 64}}, {2, {1200, 64}}, 0, true},
    {{2, {64, 300}}, {2, {64, 1200}}, {2, {64, 1200}}, 1, true},
    {{2, {512, 300}}, {2, {100, 290}}, {2, {100, 290}}, 0, true}, /* column tiles */
    {{2, {40, 1100}}, {2, {40, 1500}}, {2, {40, 1500}}, 1, true}, /* last axis, rows claimed */
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, scatter)(x, SKT_T(a->index), SKT_T(a->src), a->axis, a->reduce,
                                  a->include_self, a->mode, out, o);
}

static void set_args(skt_bufs *b, const skt_params *p, skt_buf *idx, skt_buf *src, int32_t axis) {
    b->a = (skt_args){.index = idx, .src = src, .axis = axis, .reduce = p->reduce,
                      .include_self = p->include_self, .mode = p->mode};
    if (b->inplace) skt_set_inputs(b, 2, idx, src);
    else skt_set_inputs(b, 3, idx, src, b->x);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const scatter_case *c = (const scatter_case *)cv;
    int64_t n = c->x.d[skt_wrap_axis(c->axis, c->x.ndim)], lo, hi;
    if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 2, skt_values_for(p->reduce), r);
    skt_buf *idx = skt_new(b, "index"), *src = skt_new(b, "src");
    skt_make(idx, p->it, c->idx.ndim, c->idx.d, skt_in_layout(r), 0, r);
    skt_index_bounds(n, p->mode, &lo, &hi);
    skt_fill_index(idx, r, -1, &lo, &hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    skt_make(src, p->dt, c->src.ndim, c->src.d, skt_in_layout(r), 0, r);
    skt_fill(src, r, skt_values_for(p->reduce));
    set_args(b, p, idx, src, c->axis);
    skt_reduce_desc(b, "scatter", p);
    skt_appendf(b->desc, sizeof b->desc, " axis=%d", (int)c->axis);
    return true;
}

/* ---- errors: x float32 [10, 10], index int64 [4, 8] (the contract's example:
 * index[3, 7] = 12 is out of range for axis 1 of size 10) ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {10, 10}, is[2] = {4, 8};
    b->x = skt_mk(b, "x", SK_DTYPE_FLOAT32, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 2, is, 9, r);
    b->a.src = skt_mk(b, "src", SK_DTYPE_FLOAT32, 2, is, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT32, 2, xs, r);
    b->a.axis = 1;
    b->a.include_self = true;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 3;
    b->bad_at[1] = 7;
}

static void bad_reduce(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index(b, 12, r);
    b->a.reduce = (sk_reduce)arg;
    b->a.include_self = arg % 2 == 0;
}
static void bad_in_place(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index_3t(b, arg, r);
    b->a.reduce = SK_REDUCE_SUM;
    b->x = b->out;
}
/* big in-place scatter whose last index is bad: validated before any write */
static void big_bad_last(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t bxs[2] = {300, 256}, bis[2] = {600, 256}, last[2] = {599, 255};
    b->x = b->out = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, bxs, r);
    b->a.index = skt_mk_index(b, NULL, SK_DTYPE_INT32, 2, bis, 299, r);
    b->a.src = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, bis, r);
    skt_set_index(b->a.index, last, arg);
    b->a.axis = 0;
    b->a.reduce = SK_REDUCE_SUM;
    b->opts = &skt_three_threads;
}
static void bool_reduce(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->x = skt_mk(b, NULL, SK_DTYPE_BOOL, 2, b->x->t.shape, r);
    b->a.src = skt_mk(b, NULL, SK_DTYPE_BOOL, 2, b->a.src->t.shape, r);
    b->out = skt_mk(b, NULL, SK_DTYPE_BOOL, 2, b->out->t.shape, r);
    b->a.reduce = (sk_reduce)arg;
}
static void src_4x7(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t small[2] = {4, 7};
    b->a.src = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, small, r);
}
/* out a view of x shifted by one element, over x's first 9 rows */
static void out_overlaps_x(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t is9[2] = {4, 8};
    sk_tensor ov = b->x->t;
    ov.data = (float *)b->x->t.data + 1;
    ov.shape[0] = 9;
    b->x->t.shape[0] = 9;
    b->a.index = skt_mk_index(b, NULL, SK_DTYPE_INT64, 2, is9, 8, r);
    b->out = skt_view(b, &ov);
    b->watch = b->x;
}
static void out_is_src(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t ss[2] = {10, 10};
    b->out = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, ss, r);
    b->a.src = b->out;
}

#define OOB SK_STATUS_INDEX_OUT_OF_RANGE
#define ARG SK_STATUS_INVALID_ARGUMENT
#define DTYPE SK_STATUS_INVALID_DTYPE
#define NUL SK_STATUS_NULL_POINTER
static const skt_error_case errors[] = {
    {"scatter reduce=none with index[3, 7] = 12 on an axis of 10", bad_reduce, 0, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter reduce=sum with index[3, 7] = 12 on an axis of 10", bad_reduce, 1, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter reduce=prod with index[3, 7] = 12 on an axis of 10", bad_reduce, 2, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter reduce=mean with index[3, 7] = 12 on an axis of 10", bad_reduce, 3, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter reduce=amax with index[3, 7] = 12 on an axis of 10", bad_reduce, 4, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter reduce=amin with index[3, 7] = 12 on an axis of 10", bad_reduce, 5, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter in place with an out-of-range index", bad_in_place, 12, OOB,
     {"scatter", "index", "12"}, NULL},
    {"scatter with index -11 on an axis of 10", skt_mut_bad_index, -11, OOB,
     {"scatter", "index", "-11"}, NULL},
    {"scatter in place, big, last index 300 on an axis of 300", big_bad_last, 300, OOB,
     {"scatter", "index", "300"}, NULL},
    {"scatter axis=2 on 2-d x", skt_mut_axis, 2, ARG, {0}, NULL},
    {"scatter reduce=17", skt_mut_reduce, 17, ARG, {0}, NULL},
    {"scatter mode=fill", skt_mut_mode, SK_INDEX_MODE_FILL, ARG, {0}, NULL},
    {"scatter bool with reduce=sum", bool_reduce, SK_REDUCE_SUM, DTYPE, {0}, NULL},
    {"scatter bool with reduce=prod", bool_reduce, SK_REDUCE_PROD, DTYPE, {0}, NULL},
    {"scatter bool with reduce=mean", bool_reduce, SK_REDUCE_MEAN, DTYPE, {0}, NULL},
    {"scatter with a float64 src for float32 x", skt_mut_src_dtype, SK_DTYPE_FLOAT64, DTYPE,
     {0}, NULL},
    {"scatter with a float32 index", skt_mut_index_dtype, SK_DTYPE_FLOAT32, DTYPE, {0}, NULL},
    {"scatter x=NULL", skt_mut_x_null, 0, NUL, {0}, NULL},
    {"scatter index=NULL", skt_mut_index_null, 0, NUL, {0}, NULL},
    {"scatter src=NULL", skt_mut_src_null, 0, NUL, {0}, NULL},
    {"scatter out=NULL", skt_mut_out_null, 0, NUL, {0}, NULL},
    {"scatter with src smaller than index", src_4x7, 0, SK_STATUS_INVALID_SHAPE, {0}, NULL},
    {"scatter with out partly overlapping x", out_overlaps_x, 0, SK_STATUS_OVERLAP, {0}, NULL},
    {"scatter with out == src", out_is_src, 0, SK_STATUS_OVERLAP, {0}, NULL},
    {"scatter with a zero-stride out", skt_mut_zero_stride_out, 1, SK_STATUS_OVERLAP, {0}, NULL},
};

/* Checks that float16 sums are accumulated in float32 and rounded once:
 * 2048 + 1 + 1 is 2050 that way, but 2048 if every step rounds to half. */
static void scatter_half_rounding(void) {
    skt_rng r;
    skt_seed(&r, 13);
    const int64_t xs[1] = {1}, is[1] = {2}, c0[1] = {0}, c1[1] = {1};
    for (int bf = 0; bf < 2; bf++) {
        sk_dtype dt = bf ? SK_DTYPE_BFLOAT16 : SK_DTYPE_FLOAT16;
        double base = bf ? 256 : 2048; /* bfloat16 has 8 significant bits, float16 11 */
        skt_bufs b = {0};
        skt_buf *x = skt_mk(&b, NULL, dt, 1, xs, &r);
        skt_buf *idx = skt_mk_index(&b, NULL, SK_DTYPE_INT64, 1, is, 0, &r);
        skt_buf *src = skt_mk(&b, NULL, dt, 1, is, &r), *out = skt_mk(&b, NULL, dt, 1, xs, &r);
        skt_set(x, c0, base);
        skt_set(src, c0, 1);
        skt_set(src, c1, 1);
        sk_status st = sk_scatter(&x->t, &idx->t, &src->t, 0, SK_REDUCE_SUM, true,
                                  SK_INDEX_MODE_ERROR, &out->t, NULL);
        double got = skt_get(out, c0);
        SKT_CHECK(st == SK_STATUS_OK && got == base + 2,
                  "scatter sum %s: %g + 1 + 1 gave %g (status '%s'); expected %g: accumulate "
                  "in float32, round once",
                  sk_dtype_name(dt), base, got, sk_status_string(st), base + 2);
        skt_bufs_free(&b);
    }
}

/* One case over x of shape xs (the layout given, or row-major when in
 * place) and an index and src of shape is (index values over n, then the
 * edge values of p's mode sprinkled in when asked); out row-major: the row
 * pattern and the tiles need contiguous targets. */
static void scatter_one(const char *what, const skt_params *p, bool inplace, const skt_shape *xs,
                        skt_layout x_layout, const skt_shape *is, skt_layout idx_layout,
                        skt_layout src_layout, int32_t axis, int64_t n, bool extremes,
                        skt_rng *r) {
    skt_bufs b = {0};
    int64_t lo, hi;
    b.x = skt_new(&b, NULL);
    skt_make(b.x, p->dt, xs->ndim, xs->d, inplace ? SKT_CONTIG : x_layout, 0, r);
    skt_fill(b.x, r, skt_values_for(p->reduce));
    b.out = skt_new(&b, NULL);
    if (inplace) skt_clone(b.out, b.x);
    else skt_make(b.out, p->dt, xs->ndim, xs->d, SKT_CONTIG, 0, r);
    b.inplace = inplace;
    skt_buf *idx = skt_new(&b, "index"), *src = skt_new(&b, NULL);
    skt_make(idx, p->it, is->ndim, is->d, idx_layout, 0, r);
    skt_index_bounds(n, p->mode, &lo, &hi);
    skt_fill_index(idx, r, -1, &lo, &hi);
    if (extremes) skt_sprinkle_extremes(idx, p->mode, r);
    skt_make(src, p->dt, is->ndim, is->d, src_layout, 0, r);
    skt_fill(src, r, skt_values_for(p->reduce));
    set_args(&b, p, idx, src, axis);
    skt_reduce_desc(&b, what, p);
    skt_run(&skt_op_scatter, &b, skt_reduce_tol(p->dt, p->reduce));
}

/* Row scatters large enough for the segments path of the scatter engine
 * (rows sorted by target into buckets, each folded by one thread): index
 * [1, 9000, 16] broadcast along its last dimension into x [1, 300, 16], at
 * 1, 2 and 3 threads. */
static void scatter_segment_rows(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_BFLOAT16,
                                   SK_DTYPE_INT32, SK_DTYPE_BOOL};
    const skt_shape xs = {3, {1, 300, 16}}, is = {3, {1, 9000, 16}};
    skt_rng r;
    skt_seed(&r, 108);
    for (size_t di = 0; di < SKT_COUNT(dts); di++)
        for (int ri = 1; ri < 6; ri++)
            for (int si = 0; si < 2; si++)
                for (int v = 0; v < 2; v++) {
                    skt_params p = {.dt = dts[di], .it = v ? SK_DTYPE_INT32 : SK_DTYPE_INT64,
                                    .reduce = (sk_reduce)ri, .include_self = si == 0,
                                    .mode = v ? SK_INDEX_MODE_DROP : SK_INDEX_MODE_ERROR};
                    if (!skt_reduce_ok(p.dt, p.reduce)) continue;
                    /* src rows not contiguous: packed a group at a time
                     * (mode error), or walked with their stride (drop) */
                    skt_layout sl = si == v ? (v ? SKT_MIXED : SKT_TRANSPOSED) : SKT_CONTIG;
                    scatter_one("scatter (blocked rows)", &p, v == 1, &xs, skt_in_layout(&r), &is,
                                SKT_BROADCAST, sl, 1, 300, false, &r);
                }
}

/* Column tiles: a scatter of elements along axis 0, x, index, src and out
 * row-major (the tiles are packed, updated and written back), every
 * reduction, with and without include_self (mean and include_self=false
 * keep owner-computes), every mode, in place too. */
static void scatter_column_tiles(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_INT32};
    static const sk_index_mode modes[] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                          SK_INDEX_MODE_DROP};
    /* index narrower than x (x copied into out first), and as wide (the
     * tiles cover all of out and are packed from x itself) */
    static const skt_shape index_shapes[] = {{2, {100, 650}}, {2, {100, 700}}};
    const skt_shape xs = {2, {512, 700}};
    skt_rng r;
    skt_seed(&r, 112);
    for (size_t ki = 0; ki < SKT_COUNT(index_shapes); ki++)
        for (size_t di = 0; di < SKT_COUNT(dts); di++)
            for (int ri = 0; ri < 6; ri++)
                for (int si = 0; si < 2; si++)
                    for (int mi = 0; mi < 3; mi++) {
                        skt_params p = {.dt = dts[di],
                                        .it = mi == 1 ? SK_DTYPE_INT32 : SK_DTYPE_INT64,
                                        .reduce = (sk_reduce)ri, .include_self = si == 0,
                                        .mode = modes[mi]};
                        if (!skt_reduce_ok(p.dt, p.reduce)) continue;
                        scatter_one("scatter (column tiles)", &p, mi == 2, &xs, SKT_CONTIG,
                                    &index_shapes[ki], SKT_CONTIG, SKT_CONTIG, 0, 512, true, &r);
                    }
}

/* assign-scatter of src along axis 1 of [rows, cols] float32 tensors */
static sk_status last_axis_call(float *x, void *idx, bool wide, float *src, float *out,
                                int64_t rows, int64_t cols, bool fresh, int threads) {
    const int64_t shape[2] = {rows, cols};
    sk_tensor tx, ti, ts, to;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, shape, NULL);
    sk_tensor_init(&ti, idx, wide ? SK_DTYPE_INT64 : SK_DTYPE_INT32, 2, shape, NULL);
    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 2, shape, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, shape, NULL);
    sk_options opts = {0};
    opts.flags = fresh ? SK_OPTION_FRESH_OUT : 0;
    opts.num_threads = threads;
    return sk_scatter(&tx, &ti, &ts, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR, &to, &opts);
}

/* With a fresh out, the element scatter along the last axis checks each run of
 * index values inside its kernel (rows of 1024 and more): a bad value
 * anywhere (int64 and int32, either end of a row, a later row than the
 * first bad one) still fails with the first one's position, x is never
 * written, and an out that is not fresh is not written either. Valid values
 * (negative ones too) give last-wins assign. */
static void scatter_last_axis_bounds(void) {
    enum { R = 3, C = 1100 };
    static float x[R * C], out[R * C], src[R * C];
    static int64_t i64[R * C];
    static int32_t i32[R * C];
    static const int64_t bad[] = {C, -C - 1, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    static const int at[] = {0, 513, C - 1, C + 7, 2 * C + 1099};
    for (int k = 0; k < R * C; k++) {
        x[k] = (float)k;
        src[k] = (float)(-k - 1);
    }
    for (int wide = 0; wide < 2; wide++)
        for (int fresh = 0; fresh < 2; fresh++)
            for (size_t bi = 0; bi <= SKT_COUNT(bad); bi++)
                for (size_t ai = 0; ai < SKT_COUNT(at); ai++) {
                    if (!wide && bi < SKT_COUNT(bad) && (bad[bi] > INT32_MAX || bad[bi] < INT32_MIN))
                        continue;
                    int64_t v[R * C];
                    for (int k = 0; k < R * C; k++) v[k] = (int64_t)((k * 7919) % (2 * C)) - C;
                    if (bi < SKT_COUNT(bad)) {
                        v[at[ai]] = bad[bi];
                        if (at[ai] < 2 * C)
                            v[2 * C + 50] = C + 5; /* a later bad value: not the one named */
                    }
                    for (int k = 0; k < R * C; k++) {
                        i64[k] = v[k];
                        i32[k] = (int32_t)v[k];
                        out[k] = -7.0f;
                    }
                    sk_status st = last_axis_call(x, wide ? (void *)i64 : (void *)i32, wide, src,
                                                  out, R, C, fresh, 1 + (int)(ai % 3));
                    for (int k = 0; k < R * C; k++)
                        if (x[k] != (float)k) skt_fail("scatter (last-axis bounds): wrote x");
                    if (bi < SKT_COUNT(bad)) {
                        char want[64];
                        snprintf(want, sizeof want, "index[%d, %d] = ", at[ai] / C, at[ai] % C);
                        if (st != SK_STATUS_INDEX_OUT_OF_RANGE || !strstr(sk_last_error(), want))
                            skt_fail("scatter (last-axis bounds): value %lld at %d: status %d, %s",
                                     (long long)bad[bi], at[ai], (int)st, sk_last_error());
                        if (!fresh)
                            for (int k = 0; k < R * C; k++)
                                if (out[k] != -7.0f) skt_fail("scatter (last-axis bounds): wrote out");
                        continue;
                    }
                    if (st) skt_fail("scatter (last-axis bounds): %s", sk_last_error());
                    float want[R * C];
                    memcpy(want, x, sizeof want);
                    for (int k = 0; k < R * C; k++)
                        want[(k / C) * C + (v[k] < 0 ? v[k] + C : v[k])] = src[k];
                    if (memcmp(want, out, sizeof want))
                        skt_fail("scatter (last-axis bounds): wrong values (fresh %d)", fresh);
                    break; /* the valid index once */
                }
}

static void extra(void) {
    scatter_last_axis_bounds();
    scatter_half_rounding();
    scatter_segment_rows();
    scatter_column_tiles();
}

const skt_op skt_op_scatter = {
    .name = "scatter",
    .requires = {SKT_SYMBOL(sk_scatter)},
    .cases = SKT_CASES(cases, scatter_case),
    .sweep = SKT_INDEX_DTYPES | SKT_REDUCES | SKT_SELF | SKT_SCATTER_MODES,
    .seed = 107,
    .error_seed = 14,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = extra,
};
