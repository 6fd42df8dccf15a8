/*
 * masked_select: the bool mask broadcasts to x; out is 1-d with as many
 * elements as the broadcast mask has True values (sk_masked_select_count
 * tells how many), x's elements at the True positions in row-major order.
 */
#include "mask_cases.h"
#include "ref.h"

#include <stdio.h>

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, masked_select)(x, SKT_T(a->mask), out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const mask_case *c = (const mask_case *)cv;
    b->x = skt_new(b, "x");
    skt_make(b->x, p->dt, c->x.ndim, c->x.d, skt_in_layout(r), 0, r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    skt_buf *m = skt_new(b, "mask");
    skt_make(m, SK_DTYPE_BOOL, c->mask.ndim, c->mask.d, skt_in_layout(r), 0, r);
    skt_fill_mask(m, r, p->density);
    int64_t want = 0, got = -1;
    skref_masked_select_count(&b->x->t, &m->t, &want, NULL);
    sk_status st = sk_masked_select_count(&b->x->t, &m->t, &got, NULL);
    SKT_CHECK(st == SK_STATUS_OK && got == want,
              "masked_select_count: status '%s', count %lld, expected %lld (%s)",
              sk_status_string(st), (long long)got, (long long)want, sk_last_error());
    b->out = skt_new(b, "out");
    skt_make(b->out, p->dt, 1, &want, skt_out_layout(r), 0, r);
    b->a.mask = m;
    skt_set_inputs(b, 2, b->x, m);
    snprintf(b->desc, sizeof b->desc, "masked_select density=%d%%", p->density);
    return true;
}

/* ---- errors: x int32 [4, 3], mask all True, out [12] ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 3}, os[1] = {12};
    b->x = skt_mk(b, "x", SK_DTYPE_INT32, 2, xs, r);
    skt_buf *m = skt_new(b, "mask");
    skt_make(m, SK_DTYPE_BOOL, 2, xs, SKT_CONTIG, 0, r);
    skt_fill_mask(m, r, 100);
    b->a.mask = m;
    b->out = skt_mk(b, "out", SK_DTYPE_INT32, 1, os, r);
}

static void int32_mask(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.mask = skt_mk(b, NULL, SK_DTYPE_INT32, 2, b->x->t.shape, r);
}
static void mask_4x2(skt_bufs *b, int64_t arg, skt_rng *r) {
    const int64_t bad[2] = {4, 2};
    skt_buf *m = skt_new(b, NULL);
    skt_make(m, SK_DTYPE_BOOL, 2, bad, SKT_CONTIG, 0, r);
    skt_fill_mask(m, r, 50);
    b->a.mask = m;
}
static void out_len(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->out = skt_mk(b, NULL, SK_DTYPE_INT32, 1, &arg, r);
}
static sk_status count(skt_bufs *b) {
    int64_t n = -1;
    return sk_masked_select_count(&b->x->t, &b->a.mask->t, &n, NULL);
}
static sk_status count_null(skt_bufs *b) {
    return sk_masked_select_count(&b->x->t, &b->a.mask->t, NULL, NULL);
}
static sk_status count_x_null(skt_bufs *b) {
    int64_t count;
    return sk_masked_select_count(NULL, &b->x->t, &count, NULL);
}

static const skt_error_case errors[] = {
    {"masked_select_count with an int32 mask", int32_mask, 0, SK_STATUS_INVALID_DTYPE, {0},
     count},
    {"masked_select_count count=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     count_null},
    {"masked_select with an int32 mask", int32_mask, 0, SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"masked_select mask=NULL", skt_mut_mask_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"masked_select x=NULL", skt_mut_x_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"masked_select out=NULL", skt_mut_out_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"masked_select with a mask that does not broadcast", mask_4x2, 0, SK_STATUS_INVALID_SHAPE,
     {0}, NULL},
    {"masked_select with out of 11 elements for 12 True", out_len, 11, SK_STATUS_INVALID_SHAPE,
     {0}, NULL},
    {"masked_select_count x=NULL", NULL, 0, SK_STATUS_NULL_POINTER, {0},
     count_x_null},
};

const skt_op skt_op_masked_select = {
    .name = "masked_select",
    .requires = {SKT_SYMBOL(sk_masked_select), SKT_SYMBOL(sk_masked_select_count)},
    .cases = SKT_CASES(mask_cases, mask_case),
    .sweep = SKT_DENSITIES,
    .reps = 2,
    .seed = 105,
    .error_seed = 11,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
};
