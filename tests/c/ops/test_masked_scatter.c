/*
 * masked_scatter: out has x's shape and dtype (out == x: in place); the bool
 * mask broadcasts to x.shape; the k-th True position in row-major order
 * receives source (flattened, row-major) element k, every other position
 * keeps x. source needs at least as many elements as there are True values.
 */
#include "mask_cases.h"
#include "ref.h"

#include <stdio.h>
#include <stdlib.h>

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    return SKT_PICK(ref, masked_scatter)(x, SKT_T(a->mask), SKT_T(a->src), out, o);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const mask_case *c = (const mask_case *)cv;
    int64_t n = skt_numel(c->x.ndim, c->x.d);
    int caseno = p->variant;
    /* source: x's shape, a longer 1-d tensor, or 2-d */
    skt_shape ss;
    if (caseno % 3 == 0 && c->x.ndim > 0) ss = c->x;
    else if (caseno % 3 == 1) ss = (skt_shape){1, {n + 3}};
    else ss = (skt_shape){2, {(n + 2) / 2, 2}};
    bool inplace = caseno % 4 == 1;
    b->x = skt_new(b, "x");
    skt_make(b->x, p->dt, c->x.ndim, c->x.d, inplace ? skt_out_layout(r) : skt_in_layout(r), 0,
             r);
    skt_fill(b->x, r, SKT_VAL_NAN);
    skt_buf *m = skt_new(b, "mask"), *src = skt_new(b, "source");
    skt_make(m, SK_DTYPE_BOOL, c->mask.ndim, c->mask.d, skt_in_layout(r), 0, r);
    skt_fill_mask(m, r, p->density);
    skt_make(src, p->dt, ss.ndim, ss.d, skt_in_layout(r), 0, r);
    skt_fill(src, r, SKT_VAL_NAN);
    b->out = skt_new(b, "out");
    if (inplace) skt_clone(b->out, b->x);
    else skt_make(b->out, p->dt, c->x.ndim, c->x.d, skt_out_layout(r), 0, r);
    b->inplace = inplace;
    b->a.mask = m;
    b->a.src = src;
    skt_set_inputs(b, 3, b->x, m, src);
    snprintf(b->desc, sizeof b->desc, "masked_scatter density=%d%%%s", p->density,
             inplace ? " in-place" : "");
    return true;
}

/* ---- errors: x bfloat16 [4, 3], mask all True, source [11] (too small) ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t xs[2] = {4, 3}, ss[1] = {11};
    b->x = skt_mk(b, "x", SK_DTYPE_BFLOAT16, 2, xs, r);
    skt_buf *m = skt_new(b, "mask");
    skt_make(m, SK_DTYPE_BOOL, 2, xs, SKT_CONTIG, 0, r);
    skt_fill_mask(m, r, 100);
    b->a.mask = m;
    b->a.src = skt_mk(b, "source", SK_DTYPE_BFLOAT16, 1, ss, r);
    b->out = skt_mk(b, "out", SK_DTYPE_BFLOAT16, 2, xs, r);
}

static void float32_source(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.src = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, b->x->t.shape, r);
}
static void float32_mask(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.mask = skt_mk(b, NULL, SK_DTYPE_FLOAT32, 2, b->x->t.shape, r);
    b->a.src = b->x;
}
static void source_x(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.src = b->x;
    if (arg == 1) b->a.mask = NULL;
    if (arg == 2) b->a.src = NULL;
    if (arg == 3) b->out = NULL;
}

static const skt_error_case errors[] = {
    {"masked_scatter with a float32 source for bfloat16 x", float32_source, 0,
     SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"masked_scatter with a float32 mask", float32_mask, 0, SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"masked_scatter mask=NULL", source_x, 1, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"masked_scatter source=NULL", source_x, 2, SK_STATUS_NULL_POINTER, {0}, NULL},
    {"masked_scatter out=NULL", source_x, 3, SK_STATUS_NULL_POINTER, {0}, NULL},
};

/* 11 source elements for 12 True: a shape or an argument error, the same
 * one in place, and nothing written. */
static void source_too_small(void) {
    skt_rng r;
    skt_seed(&r, 12);
    skt_bufs b = {0};
    fixture(&b, &r);
    unsigned char *snap = skt_snapshot(b.out);
    sk_status st = sk_masked_scatter(&b.x->t, &b.a.mask->t, &b.a.src->t, &b.out->t, NULL);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE || st == SK_STATUS_INVALID_ARGUMENT,
              "masked_scatter with 11 source elements for 12 True: expected a shape or "
              "argument error, got '%s'", sk_status_string(st));
    skt_expect_fail("masked_scatter, source too small (in place)",
                    sk_masked_scatter(&b.out->t, &b.a.mask->t, &b.a.src->t, &b.out->t, NULL),
                    st, b.out, snap, NULL, NULL, NULL);
    free(snap);
    skt_bufs_free(&b);
}

const skt_op skt_op_masked_scatter = {
    .name = "masked_scatter",
    .requires = {SKT_SYMBOL(sk_masked_scatter)},
    .cases = SKT_CASES(mask_cases, mask_case),
    .sweep = SKT_DENSITIES,
    .reps = 3,
    .seed = 106,
    .error_seed = 12,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = source_too_small,
};
