/*
 * diagonal_scatter: src.shape must equal the shape of numpy.diagonal(x,
 * offset, axis1, axis2) (the other dimensions, then the diagonal's length);
 * out = x with that diagonal replaced by src. out == x is in place.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    skt_shape x;
    int64_t offset;
    int32_t axis1, axis2;
    bool big;
} diag_case;

static const diag_case cases[] = {
    {{2, {4, 4}}, 0, 0, 1, false},
    {{2, {4, 5}}, 1, 0, 1, false},
    {{2, {4, 5}}, -2, 0, 1, false},
    {{2, {4, 5}}, 7, 0, 1, false},
    {{2, {4, 5}}, -9, 0, 1, false},
    {{2, {4, 5}}, INT64_MAX, 0, 1, false},
    {{2, {4, 5}}, INT64_MIN, 0, 1, false},
    {{2, {4, 5}}, 0, 1, 0, false},
    {{2, {4, 5}}, 2, 1, 0, false},
    {{3, {3, 4, 5}}, 0, 0, 2, false},
    {{3, {3, 4, 5}}, 1, 2, 0, false},
    {{3, {2, 3, 4}}, -1, -1, -2, false},
    {{4, {2, 3, 4, 3}}, 1, 1, 3, false},
    {{12, {2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 2, 5}}, -1, 11, 2, false},
    {{2, {0, 3}}, 0, 0, 1, false},
    {{3, {2, 0, 3}}, 0, 0, 2, false},
    {{3, {40000, 2, 3}}, 0, 1, 2, true}, /* 80000 diagonal elements */
    {{3, {8, 300, 300}}, -3, 2, 1, true},
};

static int32_t diag_src_shape(const diag_case *c, int64_t *shape) {
    int32_t a1 = skt_wrap_axis(c->axis1, c->x.ndim), a2 = skt_wrap_axis(c->axis2, c->x.ndim), n = 0;
    for (int32_t d = 0; d < c->x.ndim; d++)
        if (d != a1 && d != a2) shape[n++] = c->x.d[d];
    shape[n++] = skref_diagonal_length(c->x.d[a1], c->x.d[a2], c->offset);
    return n;
}

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, diagonal_scatter)(x, SKT_T(a->src), a->offset, a->axis, a->axis2, out,
                                           o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const diag_case *c = (const diag_case *)cv;
    int64_t ss[SK_MAX_DIMS];
    int32_t snd = diag_src_shape(c, ss);
    skt_make_x_out(b, p->dt, &c->x, p->caseno % 3 == 1, SKT_VAL_NAN, r);
    skt_buf *src = skt_new(b, "src");
    skt_make(src, p->dt, snd, ss, skt_in_layout(r), 0, r);
    skt_fill(src, r, SKT_VAL_NAN);
    b->a = (skt_args){.src = src, .offset = c->offset, .axis = c->axis1, .axis2 = c->axis2};
    if (b->inplace) skt_set_inputs(b, 1, src);
    else skt_set_inputs(b, 2, src, b->x);
    snprintf(b->desc, sizeof b->desc, "diagonal_scatter%s offset=%lld axis1=%d axis2=%d",
             b->inplace ? " in-place" : "", (long long)c->offset, (int)c->axis1, (int)c->axis2);
    return true;
}

/* ---- errors: x float64 [4, 5], src [4], offset 0, axes (0, 1) ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 5}, ss[1] = {4};
    b->x = skt_mk(b, "x", SK_DTYPE_FLOAT64, 2, xs, r);
    b->a.src = skt_mk(b, "src", SK_DTYPE_FLOAT64, 1, ss, r);
    b->out = skt_mk(b, "out", SK_DTYPE_FLOAT64, 2, xs, r);
    b->a.axis = 0;
    b->a.axis2 = 1;
}

static void axes(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.axis = (int32_t)(arg / 10);
    b->a.axis2 = (int32_t)(arg % 10 - 1);
}
static void src_5(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.src = skt_mk(b, NULL, SK_DTYPE_FLOAT64, 1, &arg, r);
}

static const skt_error_case errors[] = {
    {"diagonal_scatter with axis1 == axis2", axes, 10, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"diagonal_scatter with axis2 = 2 on 2-d x", axes, 3, SK_STATUS_INVALID_ARGUMENT, {0}, NULL},
    {"diagonal_scatter with src of 5 for a diagonal of 4", src_5, 5, SK_STATUS_INVALID_SHAPE, {0},
     NULL},
    {"diagonal_scatter src=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
};

/* A 1-d x has no diagonal: an argument or a shape error, out untouched. */
static void diagonal_scatter_1d(void) {
    skt_rng r;
    skt_seed(&r, 19);
    const int64_t s1[1] = {4};
    skt_bufs b = {0};
    skt_buf *x1 = skt_mk(&b, NULL, SK_DTYPE_FLOAT64, 1, s1, &r);
    skt_buf *src = skt_mk(&b, NULL, SK_DTYPE_FLOAT64, 1, s1, &r);
    skt_buf *o1 = skt_mk(&b, NULL, SK_DTYPE_FLOAT64, 1, s1, &r);
    unsigned char *snap = skt_snapshot(o1);
    sk_status st = sk_diagonal_scatter(&x1->t, &src->t, 0, 0, 1, &o1->t, NULL);
    skt_checks++;
    if (st != SK_STATUS_INVALID_ARGUMENT && st != SK_STATUS_INVALID_SHAPE)
        skt_fail("diagonal_scatter on 1-d x: expected an argument or shape error, got '%s'",
                 sk_status_string(st));
    else if (memcmp(snap, o1->base, o1->nbytes) != 0)
        skt_fail("diagonal_scatter on 1-d x: failed but wrote to out");
    free(snap);
    skt_bufs_free(&b);
}

const skt_op skt_op_diagonal_scatter = {
    .name = "diagonal_scatter",
    .requires = {SKT_SYMBOL(sk_diagonal_scatter)},
    .cases = SKT_CASES(cases, diag_case),
    .reps = 3,
    .seed = 112,
    .error_seed = 19,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = diagonal_scatter_1d,
};
