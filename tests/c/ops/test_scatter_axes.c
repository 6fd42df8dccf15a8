/*
 * scatter_axes: scatter with a tuple of naxes distinct axes:
 * index.shape == src_block + (naxes,); for every position p of the block,
 * t = p with p[axes[k]] = index[p + (k,)] and out[t] = reduce(out[t],
 * src[p]). reduce, include_self, modes and in place as for scatter.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>

typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[4];
    skt_shape block, src;
    bool big;
} scatter_axes_case;

static const scatter_axes_case cases[] = {
    {{2, {4, 5}}, 2, {0, 1}, {2, {3, 6}}, {2, {3, 6}}, false},
    {{2, {4, 5}}, 1, {1}, {2, {4, 7}}, {2, {4, 8}}, false},
    {{3, {3, 4, 5}}, 2, {0, 2}, {3, {4, 4, 6}}, {3, {4, 4, 6}}, false},
    {{3, {3, 4, 5}}, 2, {2, 0}, {3, {3, 3, 2}}, {3, {4, 3, 2}}, false},
    {{3, {3, 4, 5}}, 2, {-1, -3}, {3, {5, 2, 2}}, {3, {5, 2, 2}}, false},
    {{3, {2, 2, 3}}, 3, {0, 1, 2}, {3, {3, 3, 3}}, {3, {3, 3, 3}}, false},
    {{2, {4, 5}}, 2, {0, 1}, {2, {0, 3}}, {2, {0, 3}}, false},
    {{1, {6}}, 1, {0}, {1, {10}}, {1, {10}}, false},
    {{2, {256, 300}}, 2, {0, 1}, {2, {300, 300}}, {2, {300, 300}}, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, scatter_axes)(x, SKT_T(a->index), SKT_T(a->src), a->axes, a->naxes,
                                       a->reduce, a->include_self, a->mode, out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const scatter_axes_case *c = (const scatter_axes_case *)cv;
    skt_shape is = c->block;
    is.d[is.ndim++] = c->naxes;
    int64_t lo[4], hi[4];
    for (int32_t k = 0; k < c->naxes; k++) {
        int64_t n = c->x.d[skt_wrap_axis(c->axes[k], c->x.ndim)];
        if (p->mode == SK_INDEX_MODE_CLIP && n == 0) return false;
        skt_index_bounds(n, p->mode, &lo[k], &hi[k]);
    }
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 2, skt_values_for(p->reduce), r);
    skt_buf *idx = skt_new(b, "index"), *src = skt_new(b, "src");
    skt_make(idx, p->it, is.ndim, is.d, skt_in_layout(r), 1u << (is.ndim - 1), r);
    skt_fill_index(idx, r, is.ndim - 1, lo, hi);
    skt_sprinkle_extremes(idx, p->mode, r);
    skt_make(src, p->dt, c->src.ndim, c->src.d, skt_in_layout(r), 0, r);
    skt_fill(src, r, skt_values_for(p->reduce));
    b->a = (skt_args){.index = idx, .src = src, .naxes = c->naxes, .axes = c->axes,
                      .reduce = p->reduce, .include_self = p->include_self, .mode = p->mode};
    if (b->inplace) skt_set_inputs(b, 2, idx, src);
    else skt_set_inputs(b, 3, idx, src, b->x);
    skt_reduce_desc(b, "scatter_axes", p);
    skt_appendf(b->desc, sizeof b->desc, " axes=(%d,%d,%d)[:%d]", (int)c->axes[0],
                (int)c->axes[1], (int)c->axes[2], (int)c->naxes);
    return true;
}

/* ---- errors: x int8 [4, 5], index int64 [3, 6, 2], axes (0, 1) ---- */

static const int32_t axes01[2] = {0, 1}, dup[2] = {0, -2};

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 5}, is[3] = {3, 6, 2}, ss[2] = {3, 6};
    b->x = skt_mk(b, "x", SK_DTYPE_INT8, 2, xs, r);
    b->a.index = skt_mk_index(b, "index", SK_DTYPE_INT64, 3, is, 3, r);
    b->a.src = skt_mk(b, "src", SK_DTYPE_INT8, 2, ss, r);
    b->out = skt_mk(b, "out", SK_DTYPE_INT8, 2, xs, r);
    b->a.axes = axes01;
    b->a.naxes = 2;
    b->a.reduce = SK_REDUCE_SUM;
    b->a.include_self = true;
    b->a.mode = SK_INDEX_MODE_ERROR;
    b->bad_at[0] = 2;
    b->bad_at[1] = 5;
    b->bad_at[2] = 1;
}

static void dup_axes(skt_bufs *b, int64_t arg, skt_rng *r) { b->a.axes = dup; }

static const skt_error_case errors[] = {
    {"scatter_axes with index 4005 on an axis of 5", skt_mut_bad_index, 4005,
     SK_STATUS_INDEX_OUT_OF_RANGE, {"scatter", "index", "4005"}, NULL},
    {"scatter_axes with axes (0, -2) on 2-d x", dup_axes, 0, SK_STATUS_INVALID_ARGUMENT, {0},
     NULL},
    {"scatter_axes axes=NULL", skt_mut_axes_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"scatter_axes src=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
};

const skt_op skt_op_scatter_axes = {
    .name = "scatter_axes",
    .requires = {SKT_SYMBOL(sk_scatter_axes)},
    .cases = SKT_CASES(cases, scatter_axes_case),
    .sweep = SKT_INDEX_DTYPES | SKT_REDUCES | SKT_SELF | SKT_SCATTER_MODES,
    .seed = 108,
    .error_seed = 15,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
