/*
 * gather_axes: gather with a tuple of naxes distinct axes (CINN gather_nd
 * with dims): index.shape == out.shape + (naxes,), out.ndim == x.ndim, and
 * for d not in axes out.shape[d] <= x.shape[d];
 * out[p] = x[p with p[axes[k]] = index[p + (k,)]]. sk_gather_axes_shape
 * gives out's shape.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>

typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[4];
    skt_shape out;
    bool big;
} axes_case;

static const axes_case cases[] = {
    {{2, {4, 5}}, 2, {0, 1}, {2, {3, 2}}, false},
    {{2, {4, 5}}, 1, {1}, {2, {4, 7}}, false},
    {{3, {3, 4, 5}}, 2, {0, 2}, {3, {2, 4, 6}}, false},
    {{3, {3, 4, 5}}, 2, {2, 0}, {3, {3, 3, 2}}, false},
    {{3, {3, 4, 5}}, 2, {-1, -3}, {3, {1, 2, 2}}, false},
    {{3, {3, 4, 5}}, 3, {0, 1, 2}, {3, {2, 2, 2}}, false},
    {{4, {2, 3, 4, 5}}, 2, {1, 3}, {4, {2, 5, 3, 2}}, false},
    {{2, {4, 5}}, 2, {0, 1}, {2, {0, 3}}, false},
    {{2, {0, 5}}, 1, {1}, {2, {0, 5}}, false},
    {{1, {6}}, 1, {0}, {1, {10}}, false},
    {{2, {300, 256}}, 2, {0, 1}, {2, {300, 256}}, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, gather_axes)(x, SKT_T(a->index), a->axes, a->naxes, a->mode, a->fill,
                                      out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const axes_case *c = (const axes_case *)cv;
    skt_shape is = c->out;
    is.d[is.ndim++] = c->naxes;
    int64_t lo[4], hi[4];
    for (int32_t k = 0; k < c->naxes; k++) {
        int64_t n = c->x.d[skt_wrap_axis(c->axes[k], c->x.ndim)];
        if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
        skt_index_bounds(n, p->mode, &lo[k], &hi[k]);
    }
    b->x = skt_new(b, "x");
    skt_make(b->x, p->dt, c->x.ndim, c->x.d, skt_in_layout(r), 0, r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    /* the component dimension must not be broadcast: its entries address
     * different axes */
    skt_buf *idx = skt_new(b, "index");
    skt_make(idx, p->it, is.ndim, is.d, skt_in_layout(r), 1u << (is.ndim - 1), r);
    skt_fill_index(idx, r, is.ndim - 1, lo, hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    b->out = skt_new(b, "out");
    skt_make(b->out, p->dt, c->out.ndim, c->out.d, skt_out_layout(r), 0, r);
    b->a = (skt_args){.index = idx, .naxes = c->naxes, .axes = c->axes, .mode = p->mode};
    skt_gather_fill(b, p->dt, p->variant, r);
    if (skt_shape_probe(p)) {
        int32_t nd = -1;
        int64_t shape[SK_MAX_DIMS];
        sk_status st = sk_gather_axes_shape(&b->x->t, &idx->t, c->axes, c->naxes, &nd, shape);
        skt_check_shape("sk_gather_axes_shape", st, nd, shape, c->out.ndim, c->out.d);
    }
    snprintf(b->desc, sizeof b->desc, "gather_axes axes=(%d,%d,%d)[:%d] mode=%s",
             (int)c->axes[0], (int)c->axes[1], (int)c->axes[2], (int)c->naxes,
             skt_mode_names[p->mode]);
    return true;
}

/* ---- errors: x int16 [4, 5], index int32 [3, 2, 2], axes (0, 1) ---- */

static const int32_t axes01[2] = {0, 1}, dup[2] = {1, 1}, bad[2] = {0, 2};

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 5}, is[3] = {3, 2, 2}, os[2] = {3, 2};
    b->x = skt_mk(b, "x", SK_DTYPE_INT16, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT32, 3, is, 3, r);
    b->out = skt_mk(b, "out", SK_DTYPE_INT16, 2, os, r);
    b->a.axes = axes01;
    b->a.naxes = 2;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 2;
    b->bad_at[1] = 1;
    b->bad_at[2] = 1;
}

static void set_axes(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)r;
    b->a.axes = arg ? bad : dup;
}
static void naxes1(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)r;
    b->a.naxes = (int32_t)arg;
}
static sk_status shape_ndim_null(skt_bufs *b) {
    int64_t shape[SK_MAX_DIMS];
    return sk_gather_axes_shape(&b->x->t, &b->a.index->t, axes01, 1, NULL, shape);
}

static const skt_error_case errors[] = {
    {"gather_axes with index 7005 on an axis of 5", skt_mut_bad_index, 7005,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"gather", "index", "7005"}, NULL},
    {"gather_axes with a repeated axis", set_axes, 0, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"gather_axes with axis 2 on 2-d x", set_axes, 1, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"gather_axes axes=NULL", skt_mut_axes_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather_axes x=NULL", skt_mut_x_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"gather_axes with index.shape[-1] != naxes", naxes1, 1, SK_STATUS_INVALID_SHAPE, {0}, NULL},
    {"gather_axes with a float64 out for int16 x", skt_mut_out_dtype, SK_DTYPE_FLOAT64,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"gather_axes_shape out_ndim=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     shape_ndim_null},
};

const skt_op skt_op_gather_axes = {
    .name = "gather_axes",
    .requires = {SKT_SYMBOL(sk_gather_axes), SKT_SYMBOL(sk_gather_axes_shape)},
    .cases = SKT_CASES(cases, axes_case),
    .sweep = SKT_INDEX_DTYPES | SKT_GATHER_MODES,
    .seed = 102,
    .error_seed = 8,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
