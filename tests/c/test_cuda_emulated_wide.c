/*
 * test_cuda_emulated_wide.c - the segment scheme's 64-bit keys and row
 * numbers (used from 2^32 - 1 targets or rows on, too large to emulate)
 * against its 32-bit ones on the same small plan: a 1-d scatter of 3000
 * float32 updates into 5 targets (chunk partials included), every
 * reduction, each run through the emulated kernels (test_cuda_emulated.c).
 */
#include "cuda/cuda.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

enum { WIDE_N = 3000, WIDE_TARGETS = 5 };

/* out = x, then the scheme over index/src with 32- or 64-bit keys. */
static int run_seg(const sk_plan *p, bool wide, float *out, const float *x) {
    sk_cuda_seg s;
    sk_cuda_plan_seg(p, WIDE_TARGETS, &s);
    s.wide = wide;
    s.out = (char *)out;
    memcpy(out, x, WIDE_TARGETS * sizeof *out);
    void *keys = NULL, *rows = NULL;
    int err = sk_cuda_seg_sort(&s, &keys, &rows, NULL);
    if (!err) err = sk_cuda_launch_seg_reduce(&s, keys, rows, NULL);
    sk_cuda_rt_free(keys, NULL);
    sk_cuda_rt_free(rows, NULL);
    return err;
}

void skt_emulated_wide(skt_rng *r) {
    static int64_t index[WIDE_N];
    static float src[WIDE_N], x[WIDE_TARGETS], narrow[WIDE_TARGETS], wide[WIDE_TARGETS];
    for (int i = 0; i < WIDE_N; i++) {
        index[i] = skt_range(r, 0, 9) ? 2 : skt_range(r, -5, 4);
        src[i] = (float)skt_range(r, -1000, 1000) / 997.0f;
    }
    for (int t = 0; t < WIDE_TARGETS; t++) x[t] = (float)t / 3.0f;
    for (int red = SK_REDUCE_NONE; red <= SK_REDUCE_AMIN; red++) {
        sk_plan p;
        sk_plan_init(&p, "scatter", SK_DTYPE_FLOAT32);
        sk_plan_add_dim(&p, WIDE_N, 1, 0, 0, 1);
        p.ncomp = 1;
        p.comp_size[0] = WIDE_TARGETS;
        p.comp_target_stride[0] = p.comp_linear_stride[0] = 1;
        p.dense = (char *)src;
        p.index = index;
        p.index_is64 = true;
        p.reduce = (sk_reduce)red;
        p.include_self = red % 2;
        sk_plan_normalize(&p);
        int e1 = run_seg(&p, false, narrow, x), e2 = run_seg(&p, true, wide, x);
        SKT_CHECK(!e1 && !e2, "wide keys, reduce %d: errors %d %d", red, e1, e2);
        SKT_CHECK(memcmp(narrow, wide, sizeof wide) == 0, "wide keys, reduce %d: %g vs %g", red,
                  (double)narrow[2], (double)wide[2]);
        SKT_CHECK(memcmp(narrow, x, sizeof x) != 0, "wide keys, reduce %d: nothing reduced", red);
    }
}
