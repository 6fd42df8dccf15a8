/*
 * tensor_scatter (ONNX TensorScatter): for each batch b (dimension 0),
 * update[b] is written into cache[b] along axis starting at
 * write_indices[b] (0 when write_indices is NULL); circular mode wraps
 * around the axis, linear mode requires the update to fit. out == cache is
 * in place.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    skt_shape cache;
    int64_t seq;
    int32_t axis;
    bool big;
} ts_case;

static const ts_case cases[] = {
    {{3, {2, 5, 3}}, 2, -2, false},
    {{3, {3, 4, 6}}, 2, 2, false},
    {{4, {2, 3, 6, 4}}, 3, 2, false},
    {{4, {2, 1, 4, 5}}, 1, -2, false},
    {{3, {2, 5, 3}}, 0, 1, false},
    {{3, {0, 5, 3}}, 2, 1, false},
    {{3, {2, 5, 3}}, 5, 1, false},
    {{2, {3, 7}}, 3, 1, false},
    {{2, {3, 7}}, 7, -1, false},
    {{4, {4, 2, 256, 64}}, 100, 2, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, tensor_scatter)(x, SKT_T(a->src), SKT_T(a->index), a->axis, a->ts_mode,
                                         out, o);
}

/* Six runs per point: mode linear, circular times write_indices NULL, int32,
 * int64. */
static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const ts_case *c = (const ts_case *)cv;
    int32_t ax = skt_wrap_axis(c->axis, c->cache.ndim);
    int64_t len = c->cache.d[ax], nb = c->cache.d[0];
    int mode = p->sub / 3, wv = p->sub % 3;
    skt_shape us = c->cache;
    us.d[ax] = c->seq;
    skt_make_x_out(b, p->dt, &c->cache, p->caseno % 3 == 1, SKT_VAL_NAN, r);
    b->name[0] = "cache";
    skt_buf *upd = skt_new(b, "update");
    skt_make(upd, p->dt, us.ndim, us.d, skt_in_layout(r), 0, r);
    skt_fill(upd, r, SKT_VAL_NAN);
    /* linear: the update must fit; keep the start inside the axis */
    int64_t lo = 0, hi = mode || c->seq == 0 ? len - 1 : len - c->seq;
    skt_buf *wi = skt_new(b, wv ? "write_indices" : "write_indices=NULL");
    skt_make(wi, wv == 1 ? SK_DTYPE_INT32 : SK_DTYPE_INT64, 1, &nb, skt_in_layout(r), 0, r);
    skt_fill_index(wi, r, -1, &lo, &hi);
    b->a = (skt_args){.src = upd, .index = wv ? wi : NULL, .axis = c->axis,
                      .ts_mode = (sk_tensor_scatter_mode)mode};
    if (b->inplace) skt_set_inputs(b, 2, upd, wi);
    else skt_set_inputs(b, 3, upd, wi, b->x);
    snprintf(b->desc, sizeof b->desc, "tensor_scatter%s axis=%d mode=%s",
             b->inplace ? " in-place" : "", (int)c->axis, mode ? "circular" : "linear");
    return true;
}

/* ---- errors: cache float32 [2, 5, 3], update [2, 2, 3], axis -2 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t cs[3] = {2, 5, 3}, us[3] = {2, 2, 3}, ws[1] = {2};
    b->x = skt_mk(b, "cache", SK_DTYPE_FLOAT32, 3, cs, r);
    b->a.src = skt_mk(b, "update", SK_DTYPE_FLOAT32, 3, us, r);
    b->a.index = skt_mk_index(b, "write_indices", SK_DTYPE_INT64, 1, ws, 3, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT32, 3, cs, r);
    b->a.axis = 1;
    b->a.ts_mode = SK_TENSOR_SCATTER_LINEAR;
    b->bad_at[0] = 1;
}

static void bad_start(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index(b, arg, r);
    b->a.axis = -2;
}
static void ts_mode(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.ts_mode = (sk_tensor_scatter_mode)arg;
}
static void write_indices_f32(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.index = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 1, b->a.index->t.shape, r);
}

static const skt_error_case errors[] = {
    /* the offending argument is write_indices: its name and value must appear */
    {"tensor_scatter linear, write index 4 + 2 updates past a length of 5", bad_start, 4,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"tensor_scatter", "write_indices", "4"}, NULL},
    {"tensor_scatter axis=0 (the batch axis)", skt_mut_axis, 0, SK_STATUS_INVALID_ARGUMENT, {0},
     NULL},
    {"tensor_scatter axis=3 on 3-d cache", skt_mut_axis, 3, SK_STATUS_INVALID_ARGUMENT, {0},
     NULL},
    {"tensor_scatter mode=9", ts_mode, 9, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"tensor_scatter update=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"tensor_scatter with a float32 write_indices", write_indices_f32, 0,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
};

const skt_op skt_op_tensor_scatter = {
    .name = "tensor_scatter",
    .requires = {SKT_SYMBOL(sk_tensor_scatter)},
    .cases = SKT_CASES(cases, ts_case),
    .reps = 2,
    .subs = 6,
    .seed = 114,
    .error_seed = 21,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
