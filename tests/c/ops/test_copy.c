/*
 * copy: out = src broadcast to out's shape (slice_scatter over no axes,
 * which is its reference); same dtype; any layouts.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <string.h>

extern const skt_op skt_op_copy;

typedef struct {
    skt_shape s;
    bool big;
} copy_case;

static const copy_case cases[] = {
    {{0, {0}}, false},  {{1, {7}}, false},    {{2, {4, 3}}, false},
    {{3, {3, 4, 5}}, false}, {{2, {0, 3}}, false}, {{2, {512, 256}}, true},
};

static sk_status call(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o) {
    if (ref) return skref_slice_scatter(out, SKT_T(a->src), 0, NULL, NULL, NULL, NULL, out, o);
    return sk_copy(SKT_T(a->src), out, o);
}

static void set_src(skt_bufs *b, skt_buf *src, const char *what) {
    b->x = b->out;
    b->a.src = src;
    skt_set_inputs(b, 1, src);
    snprintf(b->desc, sizeof b->desc, "%s", what);
}

static bool make(const void *cv, const skt_params *p, skt_bufs *b, skt_rng *r) {
    const copy_case *c = (const copy_case *)cv;
    skt_shape ss = skt_broadcast_variant(&c->s, p->variant);
    skt_buf *src = skt_new(b, "src");
    skt_make(src, p->dt, ss.ndim, ss.d, skt_in_layout(r), 0, r);
    skt_fill(src, r, SKT_VAL_NAN);
    b->out = skt_new(b, "out");
    skt_make(b->out, p->dt, c->s.ndim, c->s.d, skt_out_layout(r), 0, r);
    set_src(b, src, "copy");
    return true;
}

/* ---- errors: src int8 [4, 3], out uint8 [4, 3] ---- */

static void fixture(skt_bufs *b, skt_rng *r) {
    const int64_t s[2] = {4, 3};
    b->a.src = skt_mk(b, "src", SK_DTYPE_INT8, 2, s, r);
    b->out = skt_mk(b, "out", SK_DTYPE_UINT8, 2, s, r);
}

static const skt_error_case errors[] = {
    {"copy int8 -> uint8", NULL, 0, SK_STATUS_INVALID_DTYPE, {0}, NULL},
    {"copy src=NULL", skt_mut_src_null, 0, SK_STATUS_NULL_POINTER, {0}, NULL},
};

/* Every pair of layouts, every element width: a transposed pair takes the
 * tiled transposing copy, in strips that do not divide these sizes. */
static void copy_layout_pairs(void) {
    static const skt_shape tiled[] = {{2, {300, 129}}, {3, {3, 70, 130}}};
    static const sk_dtype widths[] = {SK_DTYPE_UINT8, SK_DTYPE_INT16, SK_DTYPE_FLOAT32,
                                      SK_DTYPE_FLOAT64};
    skt_rng r;
    skt_seed(&r, 115);
    for (size_t ti = 0; ti < SKT_COUNT(tiled); ti++)
        for (size_t wi = 0; wi < SKT_COUNT(widths); wi++)
            for (int il = 0; il < SKT_OUT_LAYOUTS; il++)
                for (int ol = 0; ol < SKT_OUT_LAYOUTS; ol++) {
                    skt_bufs b;
                    memset(&b, 0, sizeof b);
                    skt_buf *src = skt_new(&b, "src");
                    skt_make(src, widths[wi], tiled[ti].ndim, tiled[ti].d, (skt_layout)il, 0, &r);
                    b.out = skt_new(&b, "out");
                    skt_make(b.out, widths[wi], tiled[ti].ndim, tiled[ti].d, (skt_layout)ol, 0,
                             &r);
                    set_src(&b, src, "copy (layout pairs)");
                    skt_run(&skt_op_copy, &b, 0);
                }
}

const skt_op skt_op_copy = {
    .name = "copy",
    .requires = {SKT_SYMBOL(sk_copy)},
    .cases = SKT_CASES(cases, copy_case),
    .reps = 4,
    .seed = 115,
    .error_seed = 22,
    .make = make,
    .call = call,
    .fixture = fixture,
    .errors = SKT_ERRORS(errors),
    .extra = copy_layout_pairs,
};
