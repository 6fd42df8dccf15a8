/*
 * gather: index.ndim == x.ndim, index.shape[d] <= x.shape[d] for d != axis;
 * out.shape == index.shape; out[p] = x[p with p[axis] = index[p]].
 * sk_gather_shape gives out's shape; fill_value (a 0-d tensor of x's dtype,
 * NULL: zero) is read with SK_INDEX_MODE_FILL only; mode drop is refused.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const skt_op skt_op_gather;

typedef struct {
    skt_shape x, idx;
    int32_t axis;
    bool big;
} gather_case;

static const gather_case cases[] = {
    {{1, {5}}, {1, {3}}, 0, false},
    {{1, {5}}, {1, {9}}, 0, false},
    {{1, {5}}, {1, {9}}, -1, false},
    {{2, {4, 3}}, {2, {2, 3}}, 0, false},
    {{2, {4, 3}}, {2, {4, 5}}, 1, false},
    {{2, {4, 3}}, {2, {3, 2}}, -1, false},
    {{3, {3, 4, 5}}, {3, {3, 2, 5}}, 1, false},
    {{3, {3, 4, 5}}, {3, {2, 4, 7}}, 2, false},
    {{3, {1, 5, 1}}, {3, {1, 3, 1}}, 1, false},
    {{4, {2, 3, 2, 3}}, {4, {2, 2, 2, 4}}, -1, false},
    {{2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {4, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 2}}, 1, false}, /* empty axis: only fill can succeed */
    {{12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3}}, {12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 4}}, -1,
     false},
    {{12, {2, 1, 2, 1, 2, 3, 2, 1, 2, 1, 2, 2}}, {12, {1, 1, 2, 1, 2, 4, 2, 1, 1, 1, 2, 2}}, 5,
     false},
    {{2, {300, 256}}, {2, {300, 256}}, 1, true},
    {{2, {256, 300}}, {2, {300, 200}}, 0, true},
    {{2, {3, 1100}}, {2, {3, 1100}}, 1, true}, /* last axis in blocks of 512 (and a tail) */
    {{2, {512, 300}}, {2, {100, 290}}, 0, true}, /* column tiles: 128 float32 columns */
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, gather)(x, SKT_T(a->index), a->axis, a->mode, a->fill, out, o);
}

/* x of shape xs (NaN-rich values), an index of shape is with values over n
 * (edge values of the mode sprinkled in), a fill value per variant. */
static void build(skt_bufs *b, sk_dtype dt, sk_dtype it, sk_index_mode mode, const skt_shape *xs,
                  skt_layout xl, const skt_shape *is, skt_layout il, skt_layout ol, int32_t axis,
                  int64_t n, int variant, skt_rng *r) {
    int64_t lo, hi;
    b->x = skt_new(b, "x");
    skt_make(b->x, dt, xs->ndim, xs->d, xl, 0, r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    skt_buf *idx = skt_new(b, "index");
    skt_make(idx, it, is->ndim, is->d, il, 0, r);
    skt_index_bounds(n, mode, &lo, &hi);
    skt_fill_index(idx, r, -1, &lo, &hi);
    skt_sprinkle_extremes(idx, mode, r);
    b->out = skt_new(b, "out");
    skt_make(b->out, dt, is->ndim, is->d, ol, 0, r);
    b->a.index = idx;
    b->a.axis = axis;
    b->a.mode = mode;
    skt_gather_fill(b, dt, variant, r);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const gather_case *c = (const gather_case *)cv;
    int64_t n = c->x.d[skt_wrap_axis(c->axis, c->x.ndim)];
    if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
    skt_layout xl = skt_in_layout(r), il = skt_in_layout(r), ol = skt_out_layout(r);
    build(b, p->dt, p->it, p->mode, &c->x, xl, &c->idx, il, ol, c->axis, n, p->variant, r);
    if (skt_shape_probe(p)) {
        int32_t nd = -1;
        int64_t shape[SK_MAX_DIMS];
        sk_status st = sk_gather_shape(&b->x->t, &b->a.index->t, c->axis, &nd, shape);
        skt_check_shape("sk_gather_shape", st, nd, shape, c->idx.ndim, c->idx.d);
    }
    snprintf(b->desc, sizeof b->desc, "gather axis=%d mode=%s fill=%s", (int)c->axis,
             skt_mode_names[p->mode], b->a.fill ? "7" : "NULL");
    return true;
}

/* ---- errors: x float32 [4, 5], index int64 [4, 5], axis 1 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t s[2] = {4, 5};
    b->x = skt_mk(b, "x", SK_DTYPE_FLOAT32, 2, s, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 2, s, 4, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT32, 2, s, r);
    b->a.axis = 1;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 2;
    b->bad_at[1] = 3;
}

/* a bad value at the very end of a big index, validated by several threads */
static void big_bad_last(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t big[2] = {300, 256}, last[2] = {299, 255};
    b->x = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, big, r);
    b->a.index = skt_mk_index(b, NULL, SK_DTYPE_INT32, 2, big, 255, r);
    b->out = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, big, r);
    skt_set_index(b->a.index, last, arg);
    b->opts = &skt_three_threads;
}
static void int32_fill(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.fill = &skt_mk(b, NULL, (sk_dtype)arg, 0, NULL, r)->t;
    b->a.mode = SK_INDEX_MODE_FILL;
}
static void x_data_null(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)arg, (void)r;
    b->x->t.data = NULL;
}
static void out_shape(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t s[2] = {4, arg};
    b->out = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, s, r);
}
static void tall_index(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t tall[2] = {arg, arg};
    b->a.index = skt_mk_index(b, NULL, SK_DTYPE_INT64, 2, tall, 1, r);
    b->out = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, tall, r);
}
/* out a view of x's own buffer shifted by one element */
static void out_overlaps_x(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t s3[2] = {3, 5};
    sk_tensor ov = b->x->t;
    ov.data = (float *)b->x->t.data + 1;
    ov.shape[0] = 3;
    b->a.index = skt_mk_index(b, NULL, SK_DTYPE_INT64, 2, s3, 4, r);
    b->out = skt_view(b, &ov);
    b->watch = b->x;
    (void)arg;
}
static sk_status shape_x_null(skt_bufs *b) {
    int32_t nd;
    int64_t shape[SK_MAX_DIMS];
    return sk_gather_shape(NULL, &b->a.index->t, 1, &nd, shape);
}
static sk_status shape_ndim_null(skt_bufs *b) {
    int64_t shape[SK_MAX_DIMS];
    return sk_gather_shape(&b->x->t, &b->a.index->t, 1, NULL, shape);
}
static sk_status shape_shape_null(skt_bufs *b) {
    int32_t nd;
    return sk_gather_shape(&b->x->t, &b->a.index->t, 1, &nd, NULL);
}

#define OOB SK_STATUS_INDEX_OUT_OF_RANGE
#define ARG SK_STATUS_INVALID_ARGUMENT
static const skt_error_case errors[] = {
    {"gather with index 9005 on an axis of 5", skt_mut_bad_index, 9005, OOB,
     {"gather", "index", "9005"}, NULL},
    {"gather with index -6 on an axis of 5", skt_mut_bad_index_3t, -6, OOB,
     {"gather", "index", "-6"}, NULL},
    {"gather with index INT64_MIN", skt_mut_bad_index, INT64_MIN, OOB,
     {"gather", "index", "-9223372036854775808"}, NULL},
    {"gather with index INT64_MAX", skt_mut_bad_index, INT64_MAX, OOB,
     {"gather", "index", "9223372036854775807"}, NULL},
    {"gather, big index, last value 256 on an axis of 256", big_bad_last, 256, OOB,
     {"gather", "index", "256"}, NULL},
    {"gather axis=2 on 2-d x", skt_mut_axis, 2, ARG, {0}, NULL},
    {"gather axis=-3 on 2-d x", skt_mut_axis, -3, ARG, {0}, NULL},
    {"gather with mode drop", skt_mut_mode, SK_INDEX_MODE_DROP, ARG, {0}, NULL},
    {"gather with mode 42", skt_mut_mode, 42, ARG, {0}, NULL},
    {"gather with a float32 index", skt_mut_index_dtype, SK_DTYPE_FLOAT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"gather with an int32 out for float32 x", skt_mut_out_dtype, SK_DTYPE_INT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"gather with an int32 fill_value for float32 x", int32_fill, SK_DTYPE_INT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"gather x=NULL", skt_mut_x_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather index=NULL", skt_mut_index_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather out=NULL", skt_mut_out_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather_shape x=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0}, shape_x_null},
    {"gather_shape out_ndim=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     shape_ndim_null},
    {"gather_shape out_shape=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     shape_shape_null},
    {"gather x.data=NULL", x_data_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather with out of the wrong shape", out_shape, 4, SK_STATUS_INVALID_SHAPE, {0}, NULL},
    {"gather with index.shape[0] > x.shape[0]", tall_index, 5, SK_STATUS_INVALID_SHAPE, {0},
     NULL},
    {"gather with out overlapping x", out_overlaps_x, 0, SK_STATUS_OVERLAP, {0}, NULL},
    {"gather with a zero-stride out", skt_mut_zero_stride_out, 0, SK_STATUS_OVERLAP, {0}, NULL},
};

/* A bad value (past n, below -n, past 2^32) in the middle of a block, in its
 * last elements or in the last block, with and without a fresh out. */
static void streamed_bad_values(const sk_tensor *tx, const sk_tensor *ti, sk_tensor *to, char *idx,
                                bool i32, int64_t R, int64_t C) {
    const int64_t bad[] = {C, -C - 1, (int64_t)1 << 32};
    const int64_t at[] = {C * 3 + 700, C * 5 + 511, R * C - 1};
    sk_options opts = {0};
    opts.num_threads = 2;
    for (int k = 0; k < 3 * 3 * 2; k++) {
        int64_t value = bad[k % 3], pos = at[(k / 3) % 3];
        if (i32 && value > INT32_MAX) continue;
        int64_t kept = i32 ? ((int32_t *)(void *)idx)[pos] : ((int64_t *)(void *)idx)[pos];
        if (i32) ((int32_t *)(void *)idx)[pos] = (int32_t)value;
        else ((int64_t *)(void *)idx)[pos] = value;
        opts.flags = k >= 9 ? SK_OPTION_FRESH_OUT : 0;
        if (sk_gather(tx, ti, 1, SK_INDEX_MODE_ERROR, NULL, to, &opts) !=
            SK_STATUS_INDEX_OUT_OF_RANGE)
            skt_fail("gather (streamed last axis, %d-byte, int%d index): value %lld at %lld "
                     "not reported", (int)sk_dtype_size(tx->dtype), i32 ? 32 : 64,
                     (long long)value, (long long)pos);
        if (i32) ((int32_t *)(void *)idx)[pos] = (int32_t)kept;
        else ((int64_t *)(void *)idx)[pos] = kept;
    }
}

/* Along the last axis into an out of 32 MiB or more: 4- and 8-byte elements
 * are streamed 16 bytes at a time once out is 16-byte aligned (out starts
 * one element off here), 4-byte ones through the AVX2 gather where the CPU
 * has it, whose blocks check their values as they load them; a block with
 * negative values takes the careful loop. Then bad values are errors. */
static void gather_streamed_last_axis(void) {
    enum { C = 8192 };
    for (int variant = 0; variant < 3; variant++) {
        bool wide = variant == 1, i32 = variant == 2;
        size_t es = wide ? 8 : 4, is = i32 ? 4 : 8;
        int64_t R = (int64_t)((32u << 20) / (C * es)) + 1;
        char *x = malloc((size_t)(R * C) * es);
        char *idx = malloc((size_t)(R * C) * is);
        char *buf = malloc((size_t)(R * C + 2) * es);
        if (!x || !idx || !buf) skt_fail("gather (streamed last axis): out of memory");
        for (int64_t k = 0; k < R * C; k++) {
            if (wide) ((double *)(void *)x)[k] = (double)k;
            else ((float *)(void *)x)[k] = (float)k;
            int64_t v = (k * 7919 + k / C) % C;
            v = (k / 512) % 7 == 3 && k % 5 == 0 ? v - C : v;
            if (i32) ((int32_t *)(void *)idx)[k] = (int32_t)v;
            else ((int64_t *)(void *)idx)[k] = v;
        }
        memset(buf, 0xAB, (size_t)(R * C + 2) * es);
        sk_tensor tx, ti, to;
        const int64_t shape[2] = {R, C};
        sk_tensor_init(&tx, x, wide ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32, 2, shape, NULL);
        sk_tensor_init(&ti, idx, i32 ? SK_DTYPE_INT32 : SK_DTYPE_INT64, 2, shape, NULL);
        sk_tensor_init(&to, buf + es, wide ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32, 2, shape, NULL);
        sk_options opts = {0};
        opts.num_threads = 2;
        if (sk_gather(&tx, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, &opts))
            skt_fail("gather (streamed last axis): %s", sk_last_error());
        for (int64_t k = 0; k < R * C; k++) {
            int64_t v = i32 ? ((int32_t *)(void *)idx)[k] : ((int64_t *)(void *)idx)[k];
            v += v < 0 ? C : 0;
            int64_t src = (k / C) * C + v;
            bool same = wide ? ((double *)(void *)(buf + es))[k] == ((double *)(void *)x)[src]
                             : ((float *)(void *)(buf + es))[k] == ((float *)(void *)x)[src];
            if (!same) skt_fail("gather (streamed last axis, %d-byte): out[%lld] wrong", (int)es,
                                (long long)k);
        }
        for (size_t b = 0; b < es; b++)
            if ((unsigned char)buf[b] != 0xAB || (unsigned char)buf[(size_t)(R * C + 1) * es + b] != 0xAB)
                skt_fail("gather (streamed last axis): wrote outside out");
        streamed_bad_values(&tx, &ti, &to, idx, i32, R, C);
        free(x);
        free(idx);
        free(buf);
    }
}

/* The last-axis gather checks blocks of int64 values before copying (AVX2
 * where the CPU has it, 8 values a step): n - 1, -n and -1 are fine, n, -n - 1
 * and a value near 2^63 anywhere in a block are errors, with or without a
 * fresh out, and nothing is written. */
static void gather_last_axis_bounds(void) {
    enum { R = 2, C = 40 };
    float x[R * C], out[R * C];
    int64_t idx[R * C];
    for (int k = 0; k < R * C; k++) x[k] = (float)k;
    static const int64_t bad[] = {C, -C - 1, INT64_MAX, INT64_MIN, (int64_t)1 << 32};
    static const int at[] = {0, 5, 17, 31, 39, 40, 63, 79};
    const int64_t shape[2] = {R, C};
    sk_tensor tx, ti, to;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, shape, NULL);
    sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 2, shape, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, shape, NULL);
    for (int fresh = 0; fresh < 4; fresh++) /* bit 1: negative values too (careful loop) */
        for (size_t bi = 0; bi <= SKT_COUNT(bad); bi++)
            for (size_t ai = 0; ai < SKT_COUNT(at); ai++) {
                for (int k = 0; k < R * C; k++)
                    idx[k] = k % 3 == 0 ? C - 1 : (fresh & 2) ? (k % 3 == 1 ? -C : -1) : k % C;
                if (bi < SKT_COUNT(bad)) idx[at[ai]] = bad[bi];
                for (int k = 0; k < R * C; k++) out[k] = -7.0f;
                sk_options opts = {0};
                opts.flags = (fresh & 1) ? SK_OPTION_FRESH_OUT : 0;
                sk_status st = sk_gather(&tx, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, &opts);
                if (bi < SKT_COUNT(bad)) {
                    if (st != SK_STATUS_INDEX_OUT_OF_RANGE)
                        skt_fail("gather (last-axis bounds): value %lld at %d gave status %d",
                                 (long long)bad[bi], at[ai], (int)st);
                    if (!(fresh & 1))
                        for (int k = 0; k < R * C; k++)
                            if (out[k] != -7.0f) skt_fail("gather (last-axis bounds): wrote out on error");
                    continue;
                }
                if (st) skt_fail("gather (last-axis bounds): %s", sk_last_error());
                for (int k = 0; k < R * C; k++) {
                    int64_t v = idx[k] < 0 ? idx[k] + C : idx[k];
                    if (out[k] != x[(k / C) * C + v]) skt_fail("gather (last-axis bounds): out[%d] wrong", k);
                }
                break; /* the valid index once per fresh */
            }
}

/* Column tiles (sk_plan_column_tile): a gather along axis 0 with x, index
 * and out row-major, wide enough for several tiles of 64 to 256 columns and a
 * partial last one, every mode and both index widths. */
static void gather_column_tiles(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_BFLOAT16};
    static const sk_index_mode modes[] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                          SK_INDEX_MODE_FILL};
    const skt_shape xs = {2, {512, 700}}, is = {2, {100, 650}};
    skt_rng r;
    skt_seed(&r, 111);
    for (size_t di = 0; di < SKT_COUNT(dts); di++)
        for (int ii = 0; ii < 2; ii++)
            for (int mi = 0; mi < 3; mi++) {
                skt_bufs b;
                memset(&b, 0, sizeof b);
                build(&b, dts[di], skt_index_dtypes[ii], modes[mi], &xs, SKT_CONTIG, &is,
                      SKT_CONTIG, SKT_CONTIG, 0, 512, mi, &r);
                snprintf(b.desc, sizeof b.desc, "gather (column tiles) axis=0 mode=%s fill=%s",
                         skt_mode_names[modes[mi]], b.a.fill ? "7" : "NULL");
                skt_run(&skt_op_gather, &b, 0);
            }
}

static void extra(void) {
    gather_streamed_last_axis();
    gather_last_axis_bounds();
    gather_column_tiles();
}

const skt_op skt_op_gather = {
    .name = "gather",
    .requires = {SKT_SYMBOL(sk_gather), SKT_SYMBOL(sk_gather_shape)},
    .cases = SKT_CASES(cases, gather_case),
    .sweep = SKT_INDEX_DTYPES | SKT_GATHER_MODES,
    .seed = 101,
    .error_seed = 7,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = extra,
};
