/*
 * test_cuda_emulated.c - the CUDA backend run on the CPU: the library's host
 * code for CUDA tensors (the .c files of src/cuda: validation, planning, the segment
 * scheme's setup) with the kernels of src/cuda/{walk,check,segments,
 * segments_sort,segments_grad}.cu compiled as C++ and their launches run
 * thread after thread (cuda_emulate/), over host memory flagged as CUDA
 * tensors. Every scatter-type operator (each reduction, dtype, include_self,
 * mode, rows and single elements, chunk boundaries, a hot target), their
 * backward and the gather-type backward are compared byte for byte with the
 * CPU backend on the same inputs (two NaNs pass: skt_compare), index errors
 * by status, message and untouched out. Built where the CUDA variant is
 * (it needs the CUDA backend's host objects); runs without a GPU.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

static const sk_reduce REDUCES[] = {SK_REDUCE_NONE, SK_REDUCE_SUM,  SK_REDUCE_PROD,
                                    SK_REDUCE_MEAN, SK_REDUCE_AMAX, SK_REDUCE_AMIN};
static const sk_index_mode MODES[] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                      SK_INDEX_MODE_DROP};

/* The operands of one call: x (and out's layout), index, src. */
typedef struct {
    int kind;                /* 0 scatter, 1 index_scatter, 2 scatter_nd */
    skt_buf x, index, src;
    int32_t axis;
    sk_reduce reduce;
    bool include_self;
    sk_index_mode mode;
} ecase;

static void to_cuda(sk_tensor *t) {
    t->device_type = SK_DEVICE_CUDA;
    t->device_id = 0;
}

static sk_status call(const ecase *c, const sk_tensor *x, const sk_tensor *index,
                      const sk_tensor *src, sk_tensor *out) {
    if (c->kind == 0)
        return sk_scatter(x, index, src, c->axis, c->reduce, c->include_self, c->mode, out, NULL);
    if (c->kind == 1)
        return sk_index_scatter(x, index, src, c->axis, c->reduce, c->include_self, c->mode, out,
                                NULL);
    return sk_scatter_nd(x, index, src, c->reduce, c->mode, out, NULL);
}

/* The call on the CPU and on the emulated GPU (copies of every operand,
 * flagged CUDA; out a fresh buffer of x's layout, or x itself in place). */
static void compare(const char *what, const ecase *c, bool inplace) {
    skt_buf out_c, out_g, xg, ig, sg;
    skt_clone(&out_c, &c->x);
    skt_clone(&out_g, &c->x);
    skt_clone(&xg, &c->x);
    skt_clone(&ig, &c->index);
    skt_clone(&sg, &c->src);
    to_cuda(&out_g.t), to_cuda(&xg.t), to_cuda(&ig.t), to_cuda(&sg.t);
    sk_status sc = call(c, inplace ? &out_c.t : &c->x.t, &c->index.t, &c->src.t, &out_c.t);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", sc ? sk_last_error() : "");
    sk_status sg_st = call(c, inplace ? &out_g.t : &xg.t, &ig.t, &sg.t, &out_g.t);
    char why[512] = "";
    SKT_CHECK(sc == sg_st, "%s: status %d on the CPU, %d emulated (%s)", what, (int)sc,
              (int)sg_st, sg_st ? sk_last_error() : "");
    if (sc && sc == sg_st)
        SKT_CHECK(strcmp(msg, sk_last_error()) == 0, "%s: message '%s' vs '%s'", what, msg,
                  sk_last_error());
    SKT_CHECK(skt_compare(&out_g, &out_c, 0, why, sizeof why), "%s: %s", what, why);
    skt_free(&out_c), skt_free(&out_g), skt_free(&xg), skt_free(&ig), skt_free(&sg);
}

/* prod: every mantissa bit in use half the time (the backward's one
 * rounding differs from a rounded running product), else small integers
 * with zeros and NaNs (the backward's counts of zeros). */
static skt_values values_for(sk_dtype dt, sk_reduce r) {
    static unsigned turn;
    bool flt = dt >= SK_DTYPE_FLOAT16;
    if (!flt) return SKT_VAL_WIDE;
    if (r == SK_REDUCE_PROD) return turn++ % 2 ? SKT_VAL_REAL : SKT_VAL_NAN;
    return r == SK_REDUCE_SUM || r == SK_REDUCE_MEAN ? SKT_VAL_REAL : SKT_VAL_NAN;
}

/* Operands of kind k: scatter [7, 11] <- index [9, 8] (elements),
 * index_scatter [10, 33] <- [40] rows of 33, scatter_nd [10, 33] <- [40, 2]. */
static void make_case(ecase *c, skt_rng *r, int k, sk_dtype dt, skt_layout lay) {
    static const int64_t xs[3][2] = {{7, 11}, {10, 33}, {10, 33}};
    static const int64_t is[3][2] = {{9, 8}, {40, 0}, {40, 2}};
    static const int64_t ss[3][2] = {{9, 11}, {40, 33}, {40, 0}};
    int32_t ind = k == 0 ? 2 : 1 + (k == 2), snd = k == 2 ? 1 : 2;
    c->kind = k;
    c->axis = 0;
    skt_make(&c->x, dt, 2, xs[k], lay, 0, r);
    skt_fill(&c->x, r, values_for(dt, c->reduce));
    skt_make(&c->src, dt, snd, ss[k], (skt_layout)skt_range(r, 0, 3), 0, r);
    skt_fill(&c->src, r, values_for(dt, c->reduce));
    skt_make(&c->index, skt_range(r, 0, 1) ? SK_DTYPE_INT64 : SK_DTYPE_INT32, ind, is[k],
             SKT_CONTIG, 0, r);
    bool wide = c->mode != SK_INDEX_MODE_ERROR;
    int64_t lo[2], hi[2];
    for (int j = 0; j < 2; j++) {
        int64_t n = xs[k][j];
        lo[j] = wide ? -2 * n - 1 : -n;
        hi[j] = wide ? 2 * n : n - 1;
    }
    skt_fill_index(&c->index, r, k == 2 ? 1 : -1, lo, hi);
}

static void free_case(ecase *c) {
    skt_free(&c->x), skt_free(&c->index), skt_free(&c->src);
}

static void test_forward(skt_rng *r) {
    char what[160];
    for (int dt = 0; dt < SK_DTYPE_COUNT; dt++)
        for (int ri = 0; ri < 6; ri++) {
            sk_reduce red = REDUCES[ri];
            if (dt == SK_DTYPE_BOOL && red != SK_REDUCE_NONE && red != SK_REDUCE_AMAX &&
                red != SK_REDUCE_AMIN)
                continue;
            for (int k = 0; k < 3; k++)
                for (int mi = 0; mi < 3; mi++)
                    for (int self = 0; self < 2; self++) {
                        ecase c = {.reduce = red, .include_self = self, .mode = MODES[mi]};
                        make_case(&c, r, k, (sk_dtype)dt, (skt_layout)((k + mi) % SKT_OUT_LAYOUTS));
                        snprintf(what, sizeof what, "kind %d dtype %d reduce %d mode %d self %d",
                                 k, dt, (int)red, mi, self);
                        compare(what, &c, (mi + self) % 3 == 0);
                        free_case(&c);
                    }
        }
}

/* One target taking n updates (index 1 for 9 in 10 of them) beside cold
 * ones: the chunk partials and their ordered fold; rows of 5 and elements. */
static void test_hot(skt_rng *r) {
    static const int64_t counts[] = {255, 256, 257, 512, 513, 3000};
    char what[160];
    for (int ci = 0; ci < 6; ci++)
        for (int dt = SK_DTYPE_INT32; dt < SK_DTYPE_COUNT; dt++)
            for (int ri = 0; ri < 6; ri++)
                for (int rows = 0; rows < 2; rows++) {
                    int64_t n = counts[ci], xs[2] = {4, 5}, us[2] = {n, 5};
                    ecase c = {.kind = 1, .reduce = REDUCES[ri], .include_self = ri % 2,
                               .mode = SK_INDEX_MODE_ERROR};
                    int32_t nd = rows ? 2 : 1;
                    skt_make(&c.x, (sk_dtype)dt, nd, xs, SKT_CONTIG, 0, r);
                    skt_fill(&c.x, r, values_for((sk_dtype)dt, c.reduce));
                    skt_make(&c.src, (sk_dtype)dt, nd, us, SKT_CONTIG, 0, r);
                    skt_fill(&c.src, r, values_for((sk_dtype)dt, c.reduce));
                    skt_make(&c.index, SK_DTYPE_INT64, 1, &n, SKT_CONTIG, 0, r);
                    for (int64_t i = 0; i < n; i++)
                        skt_set_index(&c.index, &i, skt_range(r, 0, 9) ? 1 : skt_range(r, -4, 3));
                    snprintf(what, sizeof what, "hot n %lld dtype %d reduce %d rows %d",
                             (long long)n, dt, (int)c.reduce, rows);
                    compare(what, &c, false);
                    free_case(&c);
                }
}

/* W2's shape in small: a 1-d index expanded over the columns (rows of 32
 * with an index stride of 0), and one expanded along the scatter axis. */
static void test_expanded(skt_rng *r) {
    for (int along = 0; along < 2; along++) {
        int64_t xs[2] = {20, 32}, ss[2] = {300, 32}, n = along ? 32 : 300;
        ecase c = {.kind = 0, .reduce = along ? SK_REDUCE_MEAN : SK_REDUCE_SUM,
                   .include_self = along, .mode = SK_INDEX_MODE_ERROR};
        skt_make(&c.x, SK_DTYPE_FLOAT32, 2, xs, SKT_CONTIG, 0, r);
        skt_fill(&c.x, r, SKT_VAL_REAL);
        skt_make(&c.src, SK_DTYPE_FLOAT32, 2, ss, SKT_CONTIG, 0, r);
        skt_fill(&c.src, r, SKT_VAL_REAL);
        skt_make(&c.index, SK_DTYPE_INT64, 1, &n, SKT_CONTIG, 0, r);
        int64_t lo = 0, hi = 19;
        skt_fill_index(&c.index, r, -1, &lo, &hi);
        int64_t strides[2] = {along ? 0 : 1, along ? 1 : 0};
        sk_tensor_init(&c.index.t, c.index.t.data, SK_DTYPE_INT64, 2, ss, strides);
        compare(along ? "index expanded along the axis" : "W2-like expanded index", &c, false);
        free_case(&c);
    }
}

/* A bad value: the same IndexError, out untouched (compare's byte check). */
static void test_errors(skt_rng *r) {
    for (int k = 0; k < 3; k++) {
        ecase c = {.reduce = SK_REDUCE_SUM, .include_self = true, .mode = SK_INDEX_MODE_ERROR};
        make_case(&c, r, k, SK_DTYPE_FLOAT32, SKT_CONTIG);
        int64_t at[2] = {3, k == 2 ? 1 : 0};
        skt_set_index(&c.index, at, k == 2 ? 40 : -12);
        compare("index error", &c, false);
        compare("index error in place", &c, true);
        free_case(&c);
    }
}

/* grad_x and grad_src of c (result: the forward's) on the CPU and emulated. */
static void compare_backward(const char *what, const ecase *c, const skt_buf *result,
                             const skt_buf *g, skt_rng *r) {
    skt_buf gx[2], gs[2], in[2][5];
    const skt_buf *orig[5] = {&c->x, &c->index, &c->src, result, g};
    skt_make(&gx[0], c->x.t.dtype, c->x.t.ndim, c->x.t.shape, SKT_CONTIG, 0, r);
    skt_make(&gs[0], c->src.t.dtype, c->src.t.ndim, c->src.t.shape, SKT_PADDED, 0, r);
    skt_clone(&gx[1], &gx[0]), skt_clone(&gs[1], &gs[0]);
    for (int dev = 0; dev < 2; dev++) {
        for (int i = 0; i < 5; i++) {
            skt_clone(&in[dev][i], orig[i]);
            if (dev) to_cuda(&in[dev][i].t);
        }
        if (dev) to_cuda(&gx[dev].t), to_cuda(&gs[dev].t);
        const sk_tensor *x = &in[dev][0].t, *ix = &in[dev][1].t, *s = &in[dev][2].t,
                        *o = &in[dev][3].t, *go = &in[dev][4].t;
        sk_status st;
        if (c->kind == 0)
            st = sk_scatter_backward(x, ix, s, c->axis, c->reduce, c->include_self, c->mode, o, go,
                                     &gx[dev].t, &gs[dev].t, NULL);
        else if (c->kind == 1)
            st = sk_index_scatter_backward(x, ix, s, c->axis, c->reduce, c->include_self, c->mode,
                                           o, go, &gx[dev].t, &gs[dev].t, NULL);
        else
            st = sk_scatter_nd_backward(x, ix, s, c->reduce, c->mode, o, go, &gx[dev].t,
                                        &gs[dev].t, NULL);
        SKT_CHECK(st == SK_STATUS_OK, "%s: status %d (%s)", what, (int)st, sk_last_error());
    }
    char why[512] = "";
    SKT_CHECK(skt_compare(&gx[1], &gx[0], 0, why, sizeof why), "%s grad_x: %s", what, why);
    SKT_CHECK(skt_compare(&gs[1], &gs[0], 0, why, sizeof why), "%s grad_src: %s", what, why);
    for (int dev = 0; dev < 2; dev++) {
        skt_free(&gx[dev]), skt_free(&gs[dev]);
        for (int i = 0; i < 5; i++) skt_free(&in[dev][i]);
    }
}

static void test_backward(skt_rng *r) {
    char what[160];
    for (int dt = SK_DTYPE_FLOAT16; dt < SK_DTYPE_COUNT; dt++)
        for (int ri = 0; ri < 6; ri++)
            for (int k = 0; k < 3; k++)
                for (int self = 0; self < 2; self++) {
                    ecase c = {.reduce = REDUCES[ri], .include_self = self,
                               .mode = MODES[(k + self) % 3]};
                    make_case(&c, r, k, (sk_dtype)dt, SKT_CONTIG);
                    /* sum, mean, and prod half the time: every mantissa bit in
                     * use; else small integers, with ties and zeros */
                    bool real = ri == 1 || ri == 3 || (ri == 2 && k != 1);
                    skt_values v = real ? SKT_VAL_REAL : SKT_VAL_SMALL;
                    skt_fill(&c.x, r, v), skt_fill(&c.src, r, v);
                    skt_buf result, g;
                    skt_clone(&result, &c.x);
                    call(&c, &c.x.t, &c.index.t, &c.src.t, &result.t);
                    skt_clone(&g, &c.x);
                    skt_fill(&g, r, SKT_VAL_REAL);
                    snprintf(what, sizeof what, "backward kind %d dtype %d reduce %d self %d", k,
                             dt, (int)c.reduce, self);
                    compare_backward(what, &c, &result, &g, r);
                    skt_free(&result), skt_free(&g);
                    free_case(&c);
                }
}

/* gather, index_select and gather_nd backward: grad_x [9, 13]. */
static void test_gather_backward(skt_rng *r) {
    int64_t xs[2] = {9, 13}, gs[2] = {9, 40}, ls[2] = {50, 13}, ns[2] = {50, 1};
    for (int dt = SK_DTYPE_FLOAT16; dt < SK_DTYPE_COUNT; dt++)
        for (int m = 0; m < 3; m++) {
            sk_index_mode mode = m == 2 ? SK_INDEX_MODE_FILL : MODES[m];
            for (int op = 0; op < 3; op++) {
                skt_buf go, ix, gx[2], go2, ix2;
                skt_make(&go, (sk_dtype)dt, 2, op == 0 ? gs : ls, SKT_TRANSPOSED, 0, r);
                skt_fill(&go, r, SKT_VAL_REAL);
                skt_make(&ix, SK_DTYPE_INT64, op == 1 ? 1 : 2, op == 0 ? gs : op == 1 ? ls : ns,
                         SKT_CONTIG, 0, r);
                int64_t n = op == 0 ? 13 : 9, lo = mode ? -2 * n : -n, hi = mode ? 2 * n : n - 1;
                skt_fill_index(&ix, r, -1, &lo, &hi);
                skt_clone(&go2, &go), skt_clone(&ix2, &ix);
                to_cuda(&go2.t), to_cuda(&ix2.t);
                skt_make(&gx[0], (sk_dtype)dt, 2, xs, SKT_PADDED, 0, r);
                skt_clone(&gx[1], &gx[0]);
                to_cuda(&gx[1].t);
                for (int dev = 0; dev < 2; dev++) {
                    const sk_tensor *g = dev ? &go2.t : &go.t, *i = dev ? &ix2.t : &ix.t;
                    sk_status st = op == 0   ? sk_gather_backward(g, i, 1, mode, &gx[dev].t, NULL)
                                   : op == 1 ? sk_index_select_backward(g, i, 0, mode, &gx[dev].t,
                                                                        NULL)
                                             : sk_gather_nd_backward(g, i, 0, mode, &gx[dev].t,
                                                                     NULL);
                    SKT_CHECK(st == SK_STATUS_OK, "gather-type backward %d: %s", op,
                              sk_last_error());
                }
                char why[512] = "";
                SKT_CHECK(skt_compare(&gx[1], &gx[0], 0, why, sizeof why),
                          "gather-type backward op %d dtype %d mode %d: %s", op, dt, m, why);
                skt_free(&go), skt_free(&ix), skt_free(&go2), skt_free(&ix2);
                skt_free(&gx[0]), skt_free(&gx[1]);
            }
        }
}

void skt_emulated_views(skt_rng *r); /* test_cuda_emulated_views.c */
void skt_emulated_wide(skt_rng *r);  /* test_cuda_emulated_wide.c */

int main(void) {
    skt_rng r;
    skt_seed(&r, 23);
    test_forward(&r);
    test_hot(&r);
    test_expanded(&r);
    test_errors(&r);
    test_backward(&r);
    test_gather_backward(&r);
    skt_emulated_views(&r);
    skt_emulated_wide(&r);
    printf("cuda_emulated: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}
