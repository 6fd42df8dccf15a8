/*
 * slice_scatter over naxes axes at once, Python slice rules (negative and
 * out-of-range bounds normalised, SK_SLICE_NONE for a bound left out, any
 * nonzero step): out = x with the slice replaced by src, which broadcasts to
 * the slice's shape. out has x's shape and dtype; out == x is in place.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>

#define NONE SK_SLICE_NONE
typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[3];
    int64_t starts[3], stops[3], steps[3];
    bool big;
} slice_case;

static const slice_case cases[] = {
    {{1, {10}}, 1, {0}, {2}, {8}, {2}, false},
    {{1, {10}}, 1, {0}, {NONE}, {NONE}, {-1}, false},
    {{1, {10}}, 1, {-1}, {-3}, {NONE}, {1}, false},
    {{1, {10}}, 1, {0}, {20}, {30}, {1}, false},
    {{1, {10}}, 1, {0}, {8}, {2}, {-2}, false},
    {{1, {10}}, 1, {0}, {-100}, {100}, {3}, false},
    {{1, {10}}, 1, {0}, {100}, {-100}, {-4}, false},
    {{2, {4, 6}}, 2, {0, 1}, {1, NONE}, {NONE, -1}, {2, 3}, false},
    {{2, {4, 6}}, 2, {1, 0}, {NONE, 3}, {NONE, NONE}, {-2, -1}, false},
    {{3, {3, 4, 5}}, 1, {2}, {-1}, {-6}, {-1}, false},
    {{3, {3, 4, 5}}, 1, {1}, {1}, {3}, {1}, false},
    {{3, {3, 4, 5}}, 3, {0, 1, 2}, {0, 3, 4}, {NONE, 0, 0}, {2, -1, -2}, false},
    {{2, {6, 40}}, 1, {1}, {NONE}, {NONE}, {2}, false}, /* step 2 on the last axis: */
    {{3, {2, 3, 37}}, 1, {2}, {1}, {30}, {2}, false},     /* rows merged in pairs */
    {{2, {4, 6}}, 0, {0}, {0}, {0}, {1}, false}, /* no axes: the whole of x */
    {{0, {0}}, 0, {0}, {0}, {0}, {1}, false},
    {{2, {0, 4}}, 1, {1}, {1}, {3}, {1}, false},
    {{12, {2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 2, 5}}, 3, {11, 2, 6}, {-1, 1, NONE}, {0, NONE, NONE},
     {-2, 1, -3}, false},
    {{2, {512, 256}}, 1, {1}, {NONE}, {NONE}, {2}, true},
    {{2, {512, 256}}, 2, {0, 1}, {-1, 1}, {NONE, NONE}, {-1, 1}, true},
    /* extreme bounds and steps last: a library overflow aborts a sanitizer
     * build, and the cases above should have run by then */
    {{1, {10}}, 1, {0}, {-INT64_MAX}, {INT64_MAX}, {INT64_MAX}, false},
    {{1, {10}}, 1, {0}, {INT64_MAX}, {-INT64_MAX}, {-INT64_MAX}, false},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, slice_scatter)(x, SKT_T(a->src), a->naxes, a->axes, a->starts, a->stops,
                                        a->steps, out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const slice_case *c = (const slice_case *)cv;
    skt_shape slice = c->x;
    for (int32_t k = 0; k < c->naxes; k++) {
        int32_t a = skt_wrap_axis(c->axes[k], c->x.ndim);
        int64_t first;
        skref_slice_indices(c->x.d[a], c->starts[k], c->stops[k], c->steps[k], &first,
                            &slice.d[a]);
    }
    skt_shape ss = skt_broadcast_variant(&slice, p->variant);
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 1, SKT_VAL_NAN, r);
    skt_buf *src = skt_new(b, "src");
    skt_make(src, p->dt, ss.ndim, ss.d, skt_in_layout(r), 0, r);
    skt_fill(src, r, SKT_VAL_NAN);
    b->a = (skt_args){.src = src, .naxes = c->naxes, .axes = c->axes, .starts = c->starts,
                      .stops = c->stops, .steps = c->steps};
    if (b->inplace) skt_set_inputs(b, 1, src);
    else skt_set_inputs(b, 2, src, b->x);
    snprintf(b->desc, sizeof b->desc, "slice_scatter%s naxes=%d", b->inplace ? " in-place" : "",
             (int)c->naxes);
    for (int32_t k = 0; k < c->naxes; k++)
        skt_appendf(b->desc, sizeof b->desc, " axis %d: start=%lld stop=%lld step=%lld",
                    (int)c->axes[k], (long long)c->starts[k], (long long)c->stops[k],
                    (long long)c->steps[k]);
    return true;
}

/* ---- errors: x int32 [4, 6], src [4, 3], axis 1, [0::2] ---- */

static const int32_t axis1[1] = {1}, axis2[1] = {2};
static const int64_t start0[1] = {0}, stop_none[1] = {NONE}, step2[1] = {2}, step0[1] = {0};

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 6}, ss[2] = {4, 3};
    b->x = skt_mk(b, "x", SK_DTYPE_INT32, 2, xs, r);
    b->a.src = skt_mk(b, "src", SK_DTYPE_INT32, 2, ss, r);
    b->out = skt_mk(b, "out", SK_DTYPE_INT32, 2, xs, r);
    b->a = (skt_args){.src = b->a.src, .naxes = 1, .axes = axis1, .starts = start0,
                      .stops = stop_none, .steps = step2};
}

static void step_0(skt_bufs *b, int64_t arg, skt_rng *r) { b->a.steps = step0; }
static void axis_2(skt_bufs *b, int64_t arg, skt_rng *r) { b->a.axes = axis2; }
static void src_4x2(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t wrong[2] = {4, 2};
    b->a.src = skt_mk(b, NULL, SK_DTYPE_INT32, 2, wrong, r);
}
/* out partly overlapping src: both views of one [5, 6] buffer */
static void out_overlaps_src(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t bs[2] = {5, 6};
    skt_buf *big = skt_mk(b, NULL, SK_DTYPE_INT32, 2, bs, r);
    sk_tensor s = big->t, o = big->t;
    s.shape[0] = 4;
    s.shape[1] = 3;
    o.shape[0] = 4;
    o.data = (int32_t *)big->t.data + 6;
    b->a.src = skt_view(b, &s);
    b->out = skt_view(b, &o);
    b->watch = big;
}

static const skt_error_case errors[] = {
    {"slice_scatter with step 0", step_0, 0, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"slice_scatter with axis 2 on 2-d x", axis_2, 0, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"slice_scatter with a float32 src for int32 x", skt_mut_src_dtype, SK_DTYPE_FLOAT32,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"slice_scatter with a src that does not broadcast to the slice", src_4x2, 0,
     SK_STATUS_INVALID_SHAPE, {0}, NULL},
    {"slice_scatter src=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"slice_scatter x=NULL", skt_mut_x_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"slice_scatter axes=NULL", skt_mut_axes_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"slice_scatter with out overlapping src", out_overlaps_src, 0, SK_STATUS_OVERLAP, {0}, NULL},
};

extern const skt_op skt_op_slice_scatter;

/* Step 2 on the last axis with x, out and src row-major: rows are merged
 * 16 bytes at a time (pairs of a src and an x element), for every element
 * width, views starting on odd elements and ending before the row does. */
static void slice_scatter_pairs(void) {
    static const int64_t starts[] = {0, 1, 3, NONE}, stops[] = {NONE, NONE, 30, 34}, two = 2;
    static const int32_t last = 2;
    skt_rng r;
    skt_seed(&r, 112);
    const skt_shape xs = {3, {2, 3, 37}};
    for (int di = 0; di < SK_DTYPE_COUNT; di++)
        for (int v = 0; v < 4; v++) {
            sk_dtype dt = skt_all_dtypes[di];
            int64_t first, len;
            skref_slice_indices(37, starts[v], stops[v], 2, &first, &len);
            const skt_shape ss = {3, {2, 3, len}};
            skt_bufs b = {0};
            b.x = skt_new(&b, "x");
            skt_make(b.x, dt, xs.ndim, xs.d, SKT_CONTIG, 0, &r);
            skt_fill(b.x, &r, SKT_VAL_NAN);
            b.out = skt_new(&b, NULL);
            skt_make(b.out, dt, xs.ndim, xs.d, SKT_CONTIG, 0, &r);
            skt_buf *src = skt_new(&b, NULL);
            skt_make(src, dt, ss.ndim, ss.d, SKT_CONTIG, 0, &r);
            skt_fill(src, &r, SKT_VAL_NAN);
            b.a = (skt_args){.src = src, .naxes = 1, .axes = &last, .starts = &starts[v],
                             .stops = &stops[v], .steps = &two};
            skt_set_inputs(&b, 2, src, b.x);
            snprintf(b.desc, sizeof b.desc, "slice_scatter (pairs) start=%lld stop=%lld",
                     (long long)starts[v], (long long)stops[v]);
            skt_run(&skt_op_slice_scatter, &b, 0);
        }
}

const skt_op skt_op_slice_scatter = {
    .name = "slice_scatter",
    .requires = {SKT_SYMBOL(sk_slice_scatter)},
    .cases = SKT_CASES(cases, slice_case),
    .reps = 4,
    .seed = 111,
    .error_seed = 18,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = slice_scatter_pairs,
};
