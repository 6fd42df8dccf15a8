/*
 * gather_nd: index.shape[-1] = k; the first batch_dims dimensions are shared
 * by x and index; out.shape == index.shape[:-1] + x.shape[batch_dims + k:];
 * out[b, i] = x[b, index[b, i, :]]. sk_gather_nd_shape gives out's shape;
 * fill_value as for gather.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>

typedef struct {
    skt_shape x, idx;
    int32_t batch_dims;
    bool big;
} nd_case;

static const nd_case cases[] = {
    {{1, {5}}, {2, {3, 1}}, 0, false},
    {{2, {4, 3}}, {2, {5, 2}}, 0, false},
    {{2, {4, 3}}, {2, {5, 1}}, 0, false},
    {{2, {4, 3}}, {1, {2}}, 0, false}, /* out is 0-d */
    {{3, {2, 3, 4}}, {3, {2, 2, 1}}, 1, false},
    {{3, {2, 3, 4}}, {3, {2, 5, 2}}, 1, false},
    {{4, {2, 3, 4, 5}}, {4, {2, 3, 1, 1}}, 2, false},
    {{3, {2, 3, 4}}, {4, {2, 2, 3, 2}}, 0, false},
    {{3, {2, 3, 4}}, {2, {2, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 2}}, 0, false},
    {{2, {4, 0}}, {2, {3, 1}}, 0, false},
    {{2, {0, 3}}, {2, {2, 1}}, 0, false}, /* empty axis */
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {2, {5, 12}}, 0, false},
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {10, {2, 2, 2, 1, 1, 1, 1, 1, 3, 6}}, 3, false},
    {{2, {1000, 64}}, {2, {1500, 1}}, 0, true},
    {{3, {4, 300, 64}}, {3, {4, 300, 1}}, 1, true},
};

static int32_t out_shape(const nd_case *c, int64_t *shape) {
    int32_t n = 0, k = (int32_t)c->idx.d[c->idx.ndim - 1];
    for (int32_t d = 0; d < c->idx.ndim - 1; d++) shape[n++] = c->idx.d[d];
    for (int32_t d = c->batch_dims + k; d < c->x.ndim; d++) shape[n++] = c->x.d[d];
    return n;
}

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, gather_nd)(x, SKT_T(a->index), a->batch_dims, a->mode, a->fill, out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const nd_case *c = (const nd_case *)cv;
    int32_t k = (int32_t)c->idx.d[c->idx.ndim - 1];
    int64_t os[SK_MAX_DIMS], lo[SK_MAX_DIMS], hi[SK_MAX_DIMS];
    int32_t ond = out_shape(c, os);
    for (int32_t j = 0; j < k; j++) {
        int64_t n = c->x.d[c->batch_dims + j];
        if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
        skt_index_bounds(n, p->mode, &lo[j], &hi[j]);
    }
    b->x = skt_new(b, "x");
    skt_make(b->x, p->dt, c->x.ndim, c->x.d, skt_in_layout(r), 0, r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    skt_buf *idx = skt_new(b, "index");
    skt_make(idx, p->it, c->idx.ndim, c->idx.d, skt_in_layout(r), 1u << (c->idx.ndim - 1), r);
    skt_fill_index(idx, r, c->idx.ndim - 1, lo, hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    b->out = skt_new(b, "out");
    skt_make(b->out, p->dt, ond, os, skt_out_layout(r), 0, r);
    b->a = (skt_args){.index = idx, .batch_dims = c->batch_dims, .mode = p->mode};
    skt_gather_fill(b, p->dt, p->variant, r);
    if (skt_shape_probe(p)) {
        int32_t nd = -1;
        int64_t shape[SK_MAX_DIMS];
        sk_status st = sk_gather_nd_shape(&b->x->t, &idx->t, c->batch_dims, &nd, shape);
        skt_check_shape("sk_gather_nd_shape", st, nd, shape, ond, os);
    }
    snprintf(b->desc, sizeof b->desc, "gather_nd batch_dims=%d mode=%s", (int)c->batch_dims,
             skt_mode_names[p->mode]);
    return true;
}

/* ---- errors: x float64 [2, 3, 4], index int64 [2, 2, 1], batch_dims 1 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[3] = {2, 3, 4}, is[3] = {2, 2, 1}, os[3] = {2, 2, 4};
    b->x = skt_mk(b, "x", SK_DTYPE_FLOAT64, 3, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 3, is, 2, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT64, 3, os, r);
    b->a.batch_dims = 1;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 1;
    b->bad_at[1] = 1;
}

static void batch_dims(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)r;
    b->a.batch_dims = (int32_t)arg;
}
static sk_status shape_shape_null(skt_bufs *b) {
    int32_t nd;
    return sk_gather_nd_shape(&b->x->t, &b->a.index->t, 0, &nd, NULL);
}

static const skt_error_case errors[] = {
    {"gather_nd with index 5003 on an axis of 3", skt_mut_bad_index, 5003,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"gather_nd", "index", "5003"}, NULL},
    {"gather_nd with batch_dims=-1", batch_dims, -1, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"gather_nd x=NULL", skt_mut_x_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather_nd index=NULL", skt_mut_index_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather_nd with mode drop", skt_mut_mode, SK_INDEX_MODE_DROP, SK_STATUS_INVALID_ARGUMENT,
     {0}, NULL},
    {"gather_nd with a float32 out for float64 x", skt_mut_out_dtype, SK_DTYPE_FLOAT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"gather_nd_shape out_shape=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     shape_shape_null},
};

const skt_op skt_op_gather_nd = {
    .name = "gather_nd",
    .requires = {SKT_SYMBOL(sk_gather_nd), SKT_SYMBOL(sk_gather_nd_shape)},
    .cases = SKT_CASES(cases, nd_case),
    .sweep = SKT_INDEX_DTYPES | SKT_GATHER_MODES,
    .seed = 104,
    .error_seed = 10,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
