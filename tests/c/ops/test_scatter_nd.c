/*
 * scatter_nd: index.shape[-1] = k; updates.shape == index.shape[:-1] +
 * x.shape[k:]; out[index[i, :]] = reduce(out[index[i, :]], updates[i]).
 * reduce, modes and in place as for scatter; include_self is always true.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>

typedef struct {
    skt_shape x, idx;
    int32_t batch_dims; /* always 0 here */
    bool big;
} nd_case;

static const nd_case cases[] = {
    {{1, {5}}, {2, {7, 1}}, 0, false},
    {{2, {4, 3}}, {2, {5, 2}}, 0, false},
    {{2, {4, 3}}, {2, {5, 1}}, 0, false},
    {{2, {4, 3}}, {1, {2}}, 0, false}, /* one 0-d update */
    {{3, {2, 3, 4}}, {3, {2, 3, 2}}, 0, false},
    {{3, {2, 3, 4}}, {3, {2, 2, 3}}, 0, false},
    {{3, {2, 3, 4}}, {2, {4, 1}}, 0, false},
    {{2, {4, 3}}, {2, {0, 1}}, 0, false},
    {{2, {4, 0}}, {2, {3, 1}}, 0, false},
    {{2, {0, 3}}, {2, {2, 1}}, 0, false}, /* empty axis */
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {2, {9, 12}}, 0, false},
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {3, {3, 2, 4}}, 0, false},
    {{2, {300, 64}}, {2, {1200, 1}}, 0, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, scatter_nd)(x, SKT_T(a->index), SKT_T(a->src), a->reduce, a->mode, out,
                                     o);
}

static int32_t updates_shape(const nd_case *c, int64_t *shape) {
    int32_t n = 0, k = (int32_t)c->idx.d[c->idx.ndim - 1];
    for (int32_t d = 0; d < c->idx.ndim - 1; d++) shape[n++] = c->idx.d[d];
    for (int32_t d = k; d < c->x.ndim; d++) shape[n++] = c->x.d[d];
    return n;
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const nd_case *c = (const nd_case *)cv;
    int32_t k = (int32_t)c->idx.d[c->idx.ndim - 1];
    int64_t us[SK_MAX_DIMS], lo[SK_MAX_DIMS], hi[SK_MAX_DIMS];
    int32_t und = updates_shape(c, us);
    for (int32_t j = 0; j < k; j++) {
        if (p->mode == SK_INDEX_MODE_CLIP && c->x.d[j] == 0) return false;
        skt_index_bounds(c->x.d[j], p->mode, &lo[j], &hi[j]);
    }
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 2, skt_values_for(p->reduce), r);
    skt_buf *idx = skt_new(b, "index"), *upd = skt_new(b, "updates");
    skt_make(idx, p->it, c->idx.ndim, c->idx.d, skt_in_layout(r), 1u << (c->idx.ndim - 1), r);
    skt_fill_index(idx, r, c->idx.ndim - 1, lo, hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    skt_make(upd, p->dt, und, us, skt_in_layout(r), 0, r);
    skt_fill(upd, r, skt_values_for(p->reduce));
    b->a = (skt_args){.index = idx, .src = upd, .reduce = p->reduce, .mode = p->mode};
    if (b->inplace) skt_set_inputs(b, 2, idx, upd);
    else skt_set_inputs(b, 3, idx, upd, b->x);
    skt_reduce_desc(b, "scatter_nd", p);
    return true;
}

/* ---- errors: x float16 [4, 3], index int64 [5, 1], updates [5, 3] ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 3}, is[2] = {5, 1}, us[2] = {5, 3};
    b->x = skt_mk(b, "x", SK_DTYPE_FLOAT16, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 2, is, 3, r);
    b->a.src = skt_mk(b, "updates", SK_DTYPE_FLOAT16, 2, us, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT16, 2, xs, r);
    b->a.reduce = SK_REDUCE_SUM;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 4;
}

static void updates_5x2(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t bad[2] = {5, 2};
    b->a.src = skt_mk(b, NULL, SK_DTYPE_FLOAT16, 2, bad, r);
}

static const skt_error_case errors[] = {
    {"scatter_nd with index 2004 on an axis of 4", skt_mut_bad_index, 2004,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"scatter_nd", "index", "2004"}, NULL},
    {"scatter_nd updates=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"scatter_nd reduce=-1", skt_mut_reduce, -1, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"scatter_nd with updates of the wrong shape", updates_5x2, 0, SK_STATUS_INVALID_SHAPE, {0},
     NULL},
};

const skt_op skt_op_scatter_nd = {
    .name = "scatter_nd",
    .requires = {SKT_SYMBOL(sk_scatter_nd)},
    .cases = SKT_CASES(cases, nd_case),
    .sweep = SKT_INDEX_DTYPES | SKT_REDUCES | SKT_SCATTER_MODES,
    .seed = 110,
    .error_seed = 17,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
