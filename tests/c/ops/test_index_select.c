/*
 * index_select: index of any rank (int32 or int64); out.shape ==
 * x.shape[:axis] + index.shape + x.shape[axis+1:]; out[.., p, ..] =
 * x[.., index[p], ..]. sk_index_select_shape gives out's shape; fill_value
 * as for gather.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    skt_shape x, idx;
    int32_t axis;
    bool big;
} select_case;

static const select_case cases[] = {
    {{1, {5}}, {0, {0}}, 0, false}, /* 0-d index: out is 0-d */
    {{1, {5}}, {1, {3}}, 0, false},
    {{1, {5}}, {1, {9}}, -1, false},
    {{2, {4, 3}}, {2, {2, 2}}, 1, false},
    {{2, {4, 3}}, {1, {6}}, 0, false},
    {{3, {3, 4, 5}}, {1, {6}}, 1, false},
    {{3, {3, 4, 5}}, {0, {0}}, 2, false},
    {{3, {3, 4, 5}}, {2, {2, 3}}, -1, false},
    {{3, {3, 4, 5}}, {3, {2, 1, 2}}, 0, false},
    {{2, {0, 3}}, {1, {2}}, 1, false},
    {{2, {4, 3}}, {1, {0}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 0, false},
    {{2, {4, 0}}, {1, {2}}, 1, false}, /* empty axis */
    {{6, {2, 1, 2, 3, 1, 2}}, {7, {1, 2, 1, 2, 1, 1, 2}}, 3, false}, /* 12-d out */
    {{2, {1000, 64}}, {1, {1500}}, 0, true},
    {{2, {64, 1000}}, {1, {1500}}, 1, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, index_select)(x, SKT_T(a->index), a->axis, a->mode, a->fill, out, o);
}

static int32_t out_shape(const skt_shape *x, const skt_shape *idx, int32_t ax, int64_t *shape) {
    int32_t n = 0;
    for (int32_t d = 0; d < ax; d++) shape[n++] = x->d[d];
    for (int32_t d = 0; d < idx->ndim; d++) shape[n++] = idx->d[d];
    for (int32_t d = ax + 1; d < x->ndim; d++) shape[n++] = x->d[d];
    return n;
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const select_case *c = (const select_case *)cv;
    int32_t ax = skt_wrap_axis(c->axis, c->x.ndim);
    int64_t n = c->x.d[ax], os[SK_MAX_DIMS], lo, hi;
    int32_t ond = out_shape(&c->x, &c->idx, ax, os);
    if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
    b->x = skt_new(b, "x");
    skt_make(b->x, p->dt, c->x.ndim, c->x.d, skt_in_layout(r), 0, r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    skt_buf *idx = skt_new(b, "index");
    skt_make(idx, p->it, c->idx.ndim, c->idx.d, skt_in_layout(r), 0, r);
    skt_index_bounds(n, p->mode, &lo, &hi);
    skt_fill_index(idx, r, -1, &lo, &hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    b->out = skt_new(b, "out");
    skt_make(b->out, p->dt, ond, os, skt_out_layout(r), 0, r);
    b->a = (skt_args){.index = idx, .axis = c->axis, .mode = p->mode};
    skt_gather_fill(b, p->dt, p->variant, r);
    if (skt_shape_probe(p)) {
        int32_t nd = -1;
        int64_t shape[SK_MAX_DIMS];
        sk_status st = sk_index_select_shape(&b->x->t, &idx->t, c->axis, &nd, shape);
        skt_check_shape("sk_index_select_shape", st, nd, shape, ond, os);
    }
    snprintf(b->desc, sizeof b->desc, "index_select axis=%d mode=%s", (int)c->axis,
             skt_mode_names[p->mode]);
    return true;
}

/* ---- errors: x uint8 [6, 3], index int64 [4], axis 0 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {6, 3}, is[1] = {4}, os[2] = {4, 3};
    b->x = skt_mk(b, "x", SK_DTYPE_UINT8, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 1, is, 5, r);
    b->out = skt_mk(b, "out", SK_DTYPE_UINT8, 2, os, r);
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 3;
}

static sk_status shape_index_null(skt_bufs *b) {
    int32_t nd;
    int64_t shape[SK_MAX_DIMS];
    return sk_index_select_shape(&b->x->t, NULL, 1, &nd, shape);
}

static const skt_error_case errors[] = {
    {"index_select with index 6006 on an axis of 6", skt_mut_bad_index, 6006,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"index_select", "index", "6006"}, NULL},
    {"index_select with index 6006, 3 threads", skt_mut_bad_index_3t, 6006,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"index_select", "index", "6006"}, NULL},
    {"index_select axis=2 on 2-d x", skt_mut_axis, 2, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"index_select index=NULL", skt_mut_index_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"index_select out=NULL", skt_mut_out_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"index_select with a uint8 index", skt_mut_index_dtype, SK_DTYPE_UINT8,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"index_select_shape index=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     shape_index_null},
};

/* A result of 32 MiB and more is written with streaming stores, row by row
 * when rows are a multiple of 16 bytes and out is 16-byte aligned: checked
 * into an aligned out, an out 4 bytes off (copied normally), and rows of 12
 * bytes, with the elements around out left alone. */
static void index_select_streamed_rows(void) {
    enum { T = 500, N = 560000 };
    static const int64_t widths[] = {16, 32, 3}; /* 64 and 128 bytes take sized loops */
    for (int wi = 0; wi < 3; wi++)
        for (int shift = 0; shift < 2; shift++) {
            int64_t w = widths[wi];
            float *table = malloc((size_t)(T * w) * sizeof(float));
            int64_t *idx = malloc((size_t)N * sizeof(int64_t));
            float *buf = malloc((size_t)(N * w + 2) * sizeof(float));
            if (!table || !idx || !buf) skt_fail("index_select (streamed rows): out of memory");
            for (int64_t k = 0; k < T * w; k++) table[k] = (float)k;
            for (int64_t k = 0; k < N; k++) idx[k] = (k * 7919) % T - (k % 3 == 0 ? T : 0);
            for (int64_t k = 0; k < N * w + 2; k++) buf[k] = -1.0f;
            sk_tensor tt, ti, to;
            const int64_t ts[2] = {T, w}, is[1] = {N}, os[2] = {N, w};
            sk_tensor_init(&tt, table, SK_DTYPE_FLOAT32, 2, ts, NULL);
            sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 1, is, NULL);
            sk_tensor_init(&to, buf + shift, SK_DTYPE_FLOAT32, 2, os, NULL);
            sk_options opts = {0};
            opts.num_threads = 2;
            sk_status st = sk_index_select(&tt, &ti, 0, SK_INDEX_MODE_ERROR, NULL, &to, &opts);
            if (st) skt_fail("index_select (streamed rows): %s", sk_last_error());
            for (int64_t k = 0; k < N; k++) {
                int64_t row = idx[k] < 0 ? idx[k] + T : idx[k];
                for (int64_t c = 0; c < w; c++)
                    if (buf[shift + k * w + c] != table[row * w + c])
                        skt_fail("index_select (streamed rows, width %d, shift %d): out[%lld, %lld] "
                                 "= %g, want %g", (int)w, shift, (long long)k, (long long)c,
                                 (double)buf[shift + k * w + c], (double)table[row * w + c]);
            }
            if ((shift && buf[0] != -1.0f) || buf[shift + N * w] != -1.0f)
                skt_fail("index_select (streamed rows): wrote outside out");
            free(table);
            free(idx);
            free(buf);
        }
}

const skt_op skt_op_index_select = {
    .name = "index_select",
    .requires = {SKT_SYMBOL(sk_index_select), SKT_SYMBOL(sk_index_select_shape)},
    .cases = SKT_CASES(cases, select_case),
    .sweep = SKT_INDEX_DTYPES | SKT_GATHER_MODES,
    .seed = 103,
    .error_seed = 9,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = index_select_streamed_rows,
};
