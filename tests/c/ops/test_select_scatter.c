/*
 * select_scatter: src.shape == x.shape without axis; index wraps if
 * negative; out = x with x[.., index, ..] replaced by src. An index outside
 * the axis (every index of an empty axis) is SK_STATUS_INDEX_OUT_OF_RANGE.
 * out == x is in place.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    skt_shape x;
    int32_t axis;
    int64_t index;
    bool big;
} sel_case;

static const sel_case cases[] = {
    {{1, {5}}, 0, 2, false}, /* src is 0-d */
    {{1, {5}}, 0, -1, false},
    {{2, {4, 3}}, 1, 0, false},
    {{2, {4, 3}}, 0, -4, false},
    {{3, {3, 4, 5}}, -2, -4, false},
    {{3, {3, 4, 5}}, 2, 4, false},
    {{2, {0, 3}}, 1, 2, false},
    {{2, {4, 0}}, 0, 1, false},
    {{2, {0, 3}}, 0, 0, false}, /* empty axis: every index is out of range */
    {{3, {4, 300, 256}}, 0, -2, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, select_scatter)(x, SKT_T(a->src), a->axis, a->select, out, o);
}

/* Nothing to select on an empty axis: an index error, once per dtype. */
static void empty_axis(const sel_case *c, const skt_params *p, skt_bufs *b, int32_t snd,
                       const int64_t *ss, skt_rng *r) {
    skt_make_x_out(b, p->dt, &c->x, p->di % 3 == 1, SKT_VAL_NAN, r);
    skt_buf *src = skt_new(b, NULL);
    skt_make(src, p->dt, snd, ss, SKT_CONTIG, 0, r);
    char what[256];
    snprintf(what, sizeof what, "select_scatter %s index %lld on an empty axis",
             sk_dtype_name(p->dt), (long long)c->index);
    unsigned char *snap = skt_snapshot(b->out);
    sk_status st = sk_select_scatter(b->inplace ? &b->out->t : &b->x->t, &src->t, c->axis,
                                     c->index, &b->out->t, NULL);
    skt_expect_fail(what, st, SK_STATUS_INDEX_OUT_OF_RANGE, b->out, snap, NULL, NULL, NULL);
    free(snap);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const sel_case *c = (const sel_case *)cv;
    int32_t ax = skt_wrap_axis(c->axis, c->x.ndim), snd = 0;
    int64_t ss[SK_MAX_DIMS];
    for (int32_t d = 0; d < c->x.ndim; d++)
        if (d != ax) ss[snd++] = c->x.d[d];
    if (c->x.d[ax] == 0) {
        if (p->rep == 0) empty_axis(c, p, b, snd, ss, r);
        return false;
    }
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 1, SKT_VAL_NAN, r);
    skt_buf *src = skt_new(b, "src");
    skt_make(src, p->dt, snd, ss, skt_in_layout(r), 0, r);
    skt_fill(src, r, SKT_VAL_NAN);
    b->a = (skt_args){.src = src, .axis = c->axis, .select = c->index};
    if (b->inplace) skt_set_inputs(b, 1, src);
    else skt_set_inputs(b, 2, src, b->x);
    snprintf(b->desc, sizeof b->desc, "select_scatter%s axis=%d index=%lld",
             b->inplace ? " in-place" : "", (int)c->axis, (long long)c->index);
    return true;
}

/* ---- errors: x int16 [4, 3], src [3], axis 0 ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 3}, ss[1] = {3};
    b->x = skt_mk(b, "x", SK_DTYPE_INT16, 2, xs, r);
    b->a.src = skt_mk(b, "src", SK_DTYPE_INT16, 1, ss, r);
    b->out = skt_mk(b, "out", SK_DTYPE_INT16, 2, xs, r);
}

static void set_select(skt_bufs *b, int64_t arg, skt_rng *r) { b->a.select = arg; }

static const skt_error_case errors[] = {
    {"select_scatter with index 4 on an axis of 4", set_select, 4, SK_STATUS_INDEX_OUT_OF_RANGE,
     {"select_scatter", "index", NULL}, NULL},
    {"select_scatter with index -5 on an axis of 4", set_select, -5, SK_STATUS_INDEX_OUT_OF_RANGE,
     {"select_scatter", "index", NULL}, NULL},
    {"select_scatter axis=2 on 2-d x", skt_mut_axis, 2, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"select_scatter with src of the wrong shape", skt_mut_axis, 1, SK_STATUS_INVALID_SHAPE, {0},
     NULL},
    {"select_scatter src=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"select_scatter out=NULL", skt_mut_out_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
};

const skt_op skt_op_select_scatter = {
    .name = "select_scatter",
    .requires = {SKT_SYMBOL(sk_select_scatter)},
    .cases = SKT_CASES(cases, sel_case),
    .reps = 3,
    .seed = 113,
    .error_seed = 20,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
