/*
 * scatter_backward against the rules written out here (docs/CONTRACT.md, Backward):
 * sum, mean, amax, amin, float32/float64, with an index broadcast along the
 * rows (the passes over rows) and a full index (the walk), at 1 and 2
 * threads. Values from {0, 1, 2} and NaN: ties.
 */
#include "tester.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double bwd_get(const char *a, int64_t i, bool f64) {
    return f64 ? ((const double *)(const void *)a)[i] : (double)((const float *)(const void *)a)[i];
}
static void bwd_set(char *a, int64_t i, double v, bool f64) {
    if (f64) ((double *)(void *)a)[i] = v;
    else ((float *)(void *)a)[i] = (float)v;
}
static bool bwd_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

enum { BWD_T = 7, BWD_C = 3, BWD_N = 3001 };
typedef struct {
    int64_t idx[BWD_N * BWD_C], cnt[BWD_T * BWD_C];
    double share[BWD_T * BWD_C];
    /* 8 bytes per element: room for float64 */
    char x[8 * BWD_T * BWD_C], src[8 * BWD_N * BWD_C], res[8 * BWD_T * BWD_C], g[8 * BWD_T * BWD_C];
    char gx[2][8 * BWD_T * BWD_C], gs[2][8 * BWD_N * BWD_C]; /* at 1 and 2 threads */
} bwd_case;

/* The rules (docs/CONTRACT.md, Backward) for case c: cnt = contributors (amax/amin: the
 * ties with the result, x among them when include_self), share = each
 * one's part of g, rounded to the dtype. */
/* The target of update element i, -1 when dropped (out of range). */
static int64_t bwd_target(const bwd_case *c, bool full, int64_t i) {
    int64_t v = c->idx[full ? i : i / BWD_C];
    if (v < -BWD_T || v >= BWD_T) return -1;
    return (v < 0 ? v + BWD_T : v) * BWD_C + i % BWD_C;
}

static void bwd_rules(bwd_case *c, bool f64, bool full, sk_reduce red, bool self) {
    bool amx = red == SK_REDUCE_AMAX || red == SK_REDUCE_AMIN;
    for (int64_t t = 0; t < BWD_T * BWD_C; t++)
        c->cnt[t] = amx && self && bwd_same(bwd_get(c->x, t, f64), bwd_get(c->res, t, f64));
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        int64_t t = bwd_target(c, full, i);
        if (t >= 0 && (!amx || bwd_same(bwd_get(c->src, i, f64), bwd_get(c->res, t, f64)))) c->cnt[t]++;
    }
    for (int64_t t = 0; t < BWD_T * BWD_C; t++) {
        double gv = bwd_get(c->g, t, f64), sh = gv;
        if (amx && c->cnt[t] > 0) sh = gv / (double)c->cnt[t];
        if (red == SK_REDUCE_MEAN) sh = gv / (double)(c->cnt[t] + self);
        c->share[t] = f64 ? sh : (double)(float)sh;
    }
}

/* DROP mode: some index values far out of range (dropped; their gradient
 * is 0), else ERROR mode. */
static void bwd_fill(bwd_case *c, skt_rng *rng, bool f64, bool drop) {
    for (int64_t i = 0; i < BWD_T * BWD_C; i++) {
        bwd_set(c->x, i, (double)skt_range(rng, 0, 2), f64);
        bwd_set(c->g, i, (double)skt_range(rng, -40, 40) / 8.0, f64);
    }
    bwd_set(c->x, 5, NAN, f64);
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        double v = skt_range(rng, 0, 60) == 0 ? NAN : (double)skt_range(rng, 0, 2);
        bwd_set(c->src, i, v, f64);
        c->idx[i] = skt_range(rng, -BWD_T, BWD_T - 1);
        if (drop && skt_range(rng, 0, 9) == 0) c->idx[i] = skt_range(rng, 0, 1) ? INT64_MAX / 3 : -BWD_T - 1;
    }
}

static void bwd_run_case(bwd_case *c, skt_rng *rng, bool f64, bool full, sk_reduce red, bool self,
                         bool drop) {
    sk_index_mode mode = drop ? SK_INDEX_MODE_DROP : SK_INDEX_MODE_ERROR;
    bool amx = red == SK_REDUCE_AMAX || red == SK_REDUCE_AMIN;
    sk_dtype dt = f64 ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32;
    const char *what = f64 ? (full ? "float64, full index" : "float64, row index")
                           : (full ? "float32, full index" : "float32, row index");
    bwd_fill(c, rng, f64, drop);
    const int64_t xs[2] = {BWD_T, BWD_C}, ss[2] = {BWD_N, BWD_C}, rowwise[2] = {1, 0};
    sk_tensor tx, ti, ts, tr, tg, tgx, tgs;
    sk_tensor_init(&tx, c->x, dt, 2, xs, NULL);
    sk_tensor_init(&ti, c->idx, SK_DTYPE_INT64, 2, ss, full ? NULL : rowwise);
    sk_tensor_init(&ts, c->src, dt, 2, ss, NULL);
    sk_tensor_init(&tr, c->res, dt, 2, xs, NULL);
    sk_tensor_init(&tg, c->g, dt, 2, xs, NULL);
    if (sk_scatter(&tx, &ti, &ts, 0, red, self, mode, &tr, NULL))
        skt_fail("scatter_backward: forward: %s", sk_last_error());
    bwd_rules(c, f64, full, red, self);
    for (int k = 0; k < 2; k++) {
        memset(c->gx[k], 0xAB, sizeof c->gx[k]);
        memset(c->gs[k], 0xAB, sizeof c->gs[k]);
        sk_tensor_init(&tgx, c->gx[k], dt, 2, xs, NULL);
        sk_tensor_init(&tgs, c->gs[k], dt, 2, ss, NULL);
        sk_options opts = {0};
        opts.num_threads = k + 1;
        if (sk_scatter_backward(&tx, &ti, &ts, 0, red, self, mode, &tr, &tg, &tgx, &tgs, &opts))
            skt_fail("scatter_backward: %s", sk_last_error());
    }
    size_t es = f64 ? 8 : 4;
    SKT_CHECK(!memcmp(c->gx[0], c->gx[1], es * BWD_T * BWD_C) &&
                  !memcmp(c->gs[0], c->gs[1], es * BWD_N * BWD_C),
              "scatter_backward (reduce %d, %s, self %d): 1 and 2 threads differ", (int)red, what,
              self);
    for (int64_t t = 0; t < BWD_T * BWD_C; t++) {
        double xv = bwd_get(c->x, t, f64), rv = bwd_get(c->res, t, f64), want;
        if (amx && self) want = bwd_same(xv, rv) ? c->share[t] : 0.0;
        else if (self) want = c->share[t];
        else want = c->cnt[t] > 0 ? 0.0 : bwd_get(c->g, t, f64);
        SKT_CHECK(bwd_get(c->gx[1], t, f64) == want,
                  "scatter_backward (reduce %d, %s, self %d): grad_x[%lld] = %g, want %g", (int)red,
                  what, self, (long long)t, bwd_get(c->gx[1], t, f64), want);
    }
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        int64_t t = bwd_target(c, full, i);
        bool tie = t >= 0 && bwd_same(bwd_get(c->src, i, f64), bwd_get(c->res, t, f64));
        double want = t >= 0 && (!amx || tie) ? c->share[t] : 0.0;
        SKT_CHECK(bwd_get(c->gs[1], i, f64) == want,
                  "scatter_backward (reduce %d, %s, self %d): grad_src[%lld] = %g, want %g", (int)red,
                  what, self, (long long)i, bwd_get(c->gs[1], i, f64), want);
    }
}
void skt_test_scatter_backward(void) {
    if (!sk_scatter || !sk_scatter_backward) return;
    static const sk_reduce reds[] = {SK_REDUCE_SUM, SK_REDUCE_MEAN, SK_REDUCE_AMAX, SK_REDUCE_AMIN};
    bwd_case *c = malloc(sizeof *c);
    if (!c) {
        skt_fail("scatter_backward: out of memory");
        return;
    }
    skt_rng rng;
    skt_seed(&rng, 77);
    for (int f64 = 0; f64 < 2; f64++)
        for (int full = 0; full < 2; full++)
            for (size_t ri = 0; ri < sizeof reds / sizeof reds[0]; ri++)
                for (int self = 0; self < 2; self++)
                    for (int drop = 0; drop < 2; drop++)
                        bwd_run_case(c, &rng, f64, full, reds[ri], self, drop);
    free(c);
}
