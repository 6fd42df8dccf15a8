/*
 * The findings of the hardening campaign (issue 28), each a call that went
 * wrong before its fix: a broadcast count that wrapped, work proportional to
 * a size with nothing to do, and undefined behaviour that only the
 * sanitizers see (the sanitizer run makes UBSan fatal, so there an overflow
 * stops this test).
 */
#include "ref.h"
#include "tester.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A descriptor built by hand: sk_tensor_init refuses a shape whose
 * product overflows even where a size is 0. */
static sk_tensor hd_tensor(void *data, sk_dtype dt, int32_t ndim, const int64_t *shape,
                           const int64_t *strides) {
    sk_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dt;
    t.ndim = ndim;
    t.device_type = SK_DEVICE_CPU;
    memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(t.strides, strides, sizeof(int64_t) * (size_t)ndim);
    return t;
}

/* [2^32 + 1, 1] x [1, 2^32] broadcasts to 2^64 + 2^32 positions, which
 * wrapped to a count of 2^32. */
static void hd_masked_select_count(void) {
    uint8_t one = 1, o = 0;
    int64_t xs[2] = {((int64_t)1 << 32) + 1, 1}, ms[2] = {1, (int64_t)1 << 32}, z[2] = {0, 0};
    int64_t n0[1] = {0}, s1[1] = {1}, count = -7;
    sk_tensor x = hd_tensor(&one, SK_DTYPE_BOOL, 2, xs, z), m = hd_tensor(&one, SK_DTYPE_BOOL, 2, ms, z);
    sk_tensor out = hd_tensor(&o, SK_DTYPE_BOOL, 1, n0, s1);
    sk_status st = sk_masked_select_count(&x, &m, &count, NULL);
    if (st != SK_STATUS_SIZE_OVERFLOW || !strstr(sk_last_error(), "masked_select"))
        skt_fail("hardening: masked_select_count of 2^64 + 2^32 positions: status %d, count %lld, "
                 "%s", (int)st, (long long)count, sk_last_error());
    if ((st = sk_masked_select(&x, &m, &out, NULL)) != SK_STATUS_SIZE_OVERFLOW)
        skt_fail("hardening: masked_select of 2^64 + 2^32 positions: status %d", (int)st);
    /* an empty out (every mask value False) has no data: not even NULL + 0 */
    float xv[3] = {1, 2, 3};
    uint8_t none[3] = {0, 0, 0};
    int64_t n3[1] = {3};
    x = hd_tensor(xv, SK_DTYPE_FLOAT32, 1, n3, s1);
    m = hd_tensor(none, SK_DTYPE_BOOL, 1, n3, s1);
    out = hd_tensor(NULL, SK_DTYPE_FLOAT32, 1, n0, s1);
    if ((st = sk_masked_select(&x, &m, &out, NULL)) != SK_STATUS_OK)
        skt_fail("hardening: masked_select into an empty out: %s", sk_last_error());
}

/* 2^36 batches of an empty cache and one broadcast write index: the values
 * are read once, not 2^36 times (about 27 s, minutes under ASan). */
static void hd_tensor_scatter_batches(void) {
    int64_t b = (int64_t)1 << 36, cs[3] = {b, 0, 4}, st3[3] = {0, 4, 1}, ws[1] = {b}, z[1] = {0};
    int64_t w = 0;
    sk_tensor cache = hd_tensor(NULL, SK_DTYPE_FLOAT32, 3, cs, st3);
    sk_tensor update = cache, out = cache;
    sk_tensor wi = hd_tensor(&w, SK_DTYPE_INT64, 1, ws, z);
    if (sk_tensor_scatter(&cache, &update, &wi, 1, SK_TENSOR_SCATTER_LINEAR, &out, NULL))
        skt_fail("hardening: tensor_scatter of 2^36 empty batches: %s", sk_last_error());
    w = 1; /* beyond the empty axis: still refused */
    if (sk_tensor_scatter(&cache, &update, &wi, 1, SK_TENSOR_SCATTER_LINEAR, &out, NULL) !=
        SK_STATUS_INDEX_OUT_OF_RANGE)
        skt_fail("hardening: tensor_scatter, write index 1 of an empty axis: %s", sk_last_error());
}

/* gather from a valid zero-stride x of 2^62 elements (241 floats of data):
 * its size in bytes overflowed where the gather considered packing it. */
static void hd_gather_zero_stride(void) {
    static float data[241];
    int64_t xs[2] = {(int64_t)1 << 58, 16}, xst[2] = {0, 16}, is[2] = {1, 16}, one[2] = {16, 1};
    int64_t idx[16];
    float out[16];
    for (int i = 0; i < 241; i++) data[i] = (float)i;
    for (int i = 0; i < 16; i++) idx[i] = i;
    sk_tensor x = hd_tensor(data, SK_DTYPE_FLOAT32, 2, xs, xst);
    sk_tensor ti = hd_tensor(idx, SK_DTYPE_INT64, 2, is, one), to = hd_tensor(out, SK_DTYPE_FLOAT32, 2, is, one);
    if (sk_gather(&x, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, NULL))
        skt_fail("hardening: gather from a zero-stride x of 2^62 elements: %s", sk_last_error());
    for (int i = 0; i < 16; i++)
        if (out[i] != (float)(16 * i)) skt_fail("hardening: gather wrote %g at %d", out[i], i);
}

/* A zero-size tensor with huge sizes beside it: its row-major strides
 * overflowed (scatter builds them for every x). */
static void hd_empty_huge(void) {
    int64_t xs[3] = {(int64_t)1 << 40, 0, (int64_t)1 << 40}, st3[3] = {0, 0, 0};
    sk_tensor x = hd_tensor(NULL, SK_DTYPE_FLOAT32, 3, xs, st3), out = x, src = x, index = x;
    index.dtype = SK_DTYPE_INT64;
    sk_status st = sk_scatter(&x, &index, &src, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &out, NULL);
    if (st) skt_fail("hardening: scatter of an empty x with sizes 2^40: %s", sk_last_error());
    st = sk_index_scatter(&x, &index, &src, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &out, NULL);
    (void)st; /* refused or not, without undefined behaviour */
}

/* Negative strides: element offsets below data are pointer steps back,
 * never a wrapped unsigned offset. */
static void hd_negative_strides(void) {
    float x[4] = {1, 2, 3, 4}, out[4] = {0};
    int64_t n4[1] = {4}, neg[1] = {-1}, pos[1] = {1}, idx[4] = {3, 1, 0, 2};
    uint8_t mask[4] = {1, 0, 1, 1};
    sk_tensor tx = hd_tensor(x + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    sk_tensor to = hd_tensor(out + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    sk_tensor ti = hd_tensor(idx, SK_DTYPE_INT64, 1, n4, pos);
    sk_tensor tm = hd_tensor(mask, SK_DTYPE_BOOL, 1, n4, pos);
    if (sk_gather(&tx, &ti, 0, SK_INDEX_MODE_CLIP, NULL, &to, NULL))
        skt_fail("hardening: gather with negative strides: %s", sk_last_error());
    else if (out[3] != 1 || out[2] != 3 || out[1] != 4 || out[0] != 2)
        skt_fail("hardening: gather with negative strides wrote %g %g %g %g", out[3], out[2],
                 out[1], out[0]);
    int64_t three[1] = {3};
    sk_tensor sel = hd_tensor(out + 2, SK_DTYPE_FLOAT32, 1, three, neg);
    if (sk_masked_select(&tx, &tm, &sel, NULL))
        skt_fail("hardening: masked_select with negative strides: %s", sk_last_error());
    else if (out[2] != 4 || out[1] != 2 || out[0] != 1)
        skt_fail("hardening: masked_select with negative strides wrote %g %g %g", out[2], out[1],
                 out[0]);
}

/* The scatter engine and its backward with negative strides (in place,
 * reduce="sum", mode="clip", into an x of stride -1): element offsets
 * below data are pointer steps back, never `(size_t)off * es` wrapped
 * (UBSan's pointer-overflow, fatal in the sanitizer run). */
static void hd_scatter_negative_strides(void) {
    float x[4] = {1, 2, 3, 4}, src[4] = {10, 20, 30, 40}, g[4] = {1, 2, 3, 4}, gs[4] = {0};
    int64_t n4[1] = {4}, neg[1] = {-1}, pos[1] = {1}, idx[4] = {7, -9, 1, 1};
    sk_tensor tx = hd_tensor(x + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    sk_tensor ts = hd_tensor(src + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    sk_tensor ti = hd_tensor(idx, SK_DTYPE_INT64, 1, n4, pos);
    sk_tensor tg = hd_tensor(g + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    sk_tensor tgs = hd_tensor(gs + 3, SK_DTYPE_FLOAT32, 1, n4, neg);
    /* x in order: 4 3 2 1; src in order: 40 30 20 10; targets 3, 0, 1, 1 */
    if (sk_scatter(&tx, &ti, &ts, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_CLIP, &tx, NULL))
        skt_fail("hardening: scatter with negative strides: %s", sk_last_error());
    else if (x[3] != 34 || x[2] != 33 || x[1] != 2 || x[0] != 41)
        skt_fail("hardening: scatter with negative strides wrote %g %g %g %g", x[3], x[2], x[1],
                 x[0]);
    /* grad_src[i] = grad_out[target i]: g in order 4 3 2 1 */
    if (sk_scatter_backward(&tx, &ti, &ts, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_CLIP, NULL, &tg,
                            NULL, &tgs, NULL))
        skt_fail("hardening: scatter_backward with negative strides: %s", sk_last_error());
    else if (gs[3] != 1 || gs[2] != 4 || gs[1] != 3 || gs[0] != 3)
        skt_fail("hardening: scatter_backward with negative strides wrote %g %g %g %g", gs[3],
                 gs[2], gs[1], gs[0]);
}

/* Rows gathered from an x whose gathered axis has one element and a stride
 * of -INT64_MAX elements (valid: that stride is never stepped): the rows
 * kernel scaled it to bytes anyway, a signed overflow (found by the fuzz
 * target). Also with a 0-stride x and an out of negative row stride. */
static void hd_gather_rows_extreme_stride(void) {
    float x[16], out[8 * 16];
    int64_t idx[8] = {0, -1, 0, 0, -1, 0, 0, 0}, xs[2] = {1, 16}, xst[2] = {-INT64_MAX, 1};
    int64_t n8[1] = {8}, one[1] = {1}, os[2] = {8, 16}, ost[2] = {-16, 1};
    for (int i = 0; i < 16; i++) x[i] = (float)i;
    sk_tensor tx = hd_tensor(x, SK_DTYPE_FLOAT32, 2, xs, xst);
    sk_tensor ti = hd_tensor(idx, SK_DTYPE_INT64, 1, n8, one);
    sk_tensor to = hd_tensor(out + 7 * 16, SK_DTYPE_FLOAT32, 2, os, ost);
    if (sk_index_select(&tx, &ti, 0, SK_INDEX_MODE_ERROR, NULL, &to, NULL)) {
        skt_fail("hardening: index_select from an axis of stride -INT64_MAX: %s", sk_last_error());
        return;
    }
    for (int i = 0; i < 8 * 16; i++)
        if (out[i] != (float)(i % 16)) {
            skt_fail("hardening: index_select from an axis of stride -INT64_MAX wrote %g at %d",
                     out[i], i);
            return;
        }
}

/* masked_select's backward onto a broadcast x through an all-False
 * row-major mask: grad_out has no elements and a stride of -INT64_MAX
 * (valid: never stepped), which the runs kernel scaled to bytes anyway, a
 * signed overflow (found by the fuzz target: its input is in the seed
 * corpus, masked-select-grad-empty-stride). grad_x is all +0.0. */
static void hd_mask_grad_empty_extreme_stride(void) {
    bool mask[12] = {false};
    float g[1] = {5.0f}, gx[3] = {7.0f, 7.0f, 7.0f};
    int64_t ms[2] = {4, 3}, mst[2] = {3, 1}, zero[1] = {0}, gst[1] = {-INT64_MAX},
            xs[2] = {1, 3}, xst[2] = {3, 1};
    sk_tensor tm = hd_tensor(mask, SK_DTYPE_BOOL, 2, ms, mst);
    sk_tensor tg = hd_tensor(g, SK_DTYPE_FLOAT32, 1, zero, gst);
    sk_tensor tx = hd_tensor(gx, SK_DTYPE_FLOAT32, 2, xs, xst);
    sk_status st = sk_masked_select_backward(&tg, &tm, &tx, NULL);
    SKT_CHECK(st == SK_STATUS_OK && gx[0] == 0.0f && gx[1] == 0.0f && gx[2] == 0.0f,
              "hardening: masked_select_backward with an empty grad_out of stride -INT64_MAX: "
              "status %d (%s), grad_x %g %g %g", (int)st, sk_last_error(), gx[0], gx[1], gx[2]);
}

/* A row gather from an x with no elements along the gathered axis (no
 * data: NULL): every index value is out of range, and nothing is written.
 * (The fuzz target's input that reached the rows kernel this way, forming
 * an address from x's NULL pointer, is in its seed corpus:
 * gather-rows-null.) */
static void hd_gather_rows_empty_axis(void) {
    float out[3 * 32];
    int64_t idx[3] = {0, 0, 1}, xs[2] = {0, 32}, xst[2] = {32, 1}, n3[1] = {3}, one[1] = {1},
            os[2] = {3, 32};
    for (int i = 0; i < 3 * 32; i++) out[i] = 7.0f;
    sk_tensor tx = hd_tensor(NULL, SK_DTYPE_FLOAT32, 2, xs, xst);
    sk_tensor ti = hd_tensor(idx, SK_DTYPE_INT64, 1, n3, one);
    sk_tensor to = hd_tensor(out, SK_DTYPE_FLOAT32, 2, os, xst);
    sk_status st = sk_index_select(&tx, &ti, 0, SK_INDEX_MODE_ERROR, NULL, &to, NULL);
    SKT_CHECK(st == SK_STATUS_INDEX_OUT_OF_RANGE,
              "hardening: index_select from an empty axis: status %d", (int)st);
    for (int i = 0; i < 3 * 32; i++)
        if (out[i] != 7.0f) {
            skt_fail("hardening: index_select from an empty axis wrote %g at %d", out[i], i);
            return;
        }
}

/* The reference (src/ref), the C tests' and the fuzz target's oracle, was
 * wrong where the library was right: a 0-d x (read shape[0]), an empty out
 * (index values unchecked), select_scatter's index (unchecked), a mask of
 * more dimensions than x (its walk read below a stack array) and
 * tensor_scatter's write index near INT64_MAX (w + position overflowed). */
static void hd_ref_gather_select(void) {
    float x0 = 5, o0 = 0, x3[3] = {1, 2, 3}, s0 = 9, out3[3];
    int64_t i0 = -1, bad = 5, none[1] = {0}, s3[1] = {3}, one[1] = {1}, sh20[2] = {2, 0},
            sh10[2] = {1, 0}, z2[2] = {0, 1};
    sk_tensor x = hd_tensor(&x0, SK_DTYPE_FLOAT32, 0, none, none);
    sk_tensor i = hd_tensor(&i0, SK_DTYPE_INT64, 0, none, none);
    sk_tensor o = hd_tensor(&o0, SK_DTYPE_FLOAT32, 0, none, none);
    sk_status st = skref_gather(&x, &i, 0, SK_INDEX_MODE_ERROR, NULL, &o, NULL);
    SKT_CHECK(st == SK_STATUS_OK && o0 == 5, "hardening: reference gather from a 0-d x: "
              "status %d, %g", (int)st, o0);
    /* x [2, 0], index [1] = {5}: out [1, 0] is empty, the value still out of range */
    sk_tensor xe = hd_tensor(NULL, SK_DTYPE_FLOAT32, 2, sh20, z2);
    sk_tensor ib = hd_tensor(&bad, SK_DTYPE_INT64, 1, one, one);
    sk_tensor oe = hd_tensor(NULL, SK_DTYPE_FLOAT32, 2, sh10, z2);
    st = skref_index_select(&xe, &ib, 0, SK_INDEX_MODE_ERROR, NULL, &oe, NULL);
    SKT_CHECK(st == SK_STATUS_INDEX_OUT_OF_RANGE, "hardening: reference index_select, index 5 "
              "into an empty out: status %d", (int)st);
    sk_tensor t3 = hd_tensor(x3, SK_DTYPE_FLOAT32, 1, s3, one);
    sk_tensor src = hd_tensor(&s0, SK_DTYPE_FLOAT32, 0, none, none);
    sk_tensor to = hd_tensor(out3, SK_DTYPE_FLOAT32, 1, s3, one);
    st = skref_select_scatter(&t3, &src, 0, 5, &to, NULL);
    SKT_CHECK(st == SK_STATUS_INDEX_OUT_OF_RANGE, "hardening: reference select_scatter at 5 "
              "of 3: status %d", (int)st);
}

/* scatter_nd into an x whose trailing axes hold nothing (x [2, 2, 0],
 * index [4, 2] with one tuple out of range): no update is written, but the
 * index is still checked. The reference skipped the check where updates
 * had no elements (fuzz run 3); the library and the reference must both
 * refuse, forward and backward, and write nothing. */
static void hd_scatter_nd_empty_rows(void) {
    int64_t idx[8] = {-2, -2, -2, -2, -2, -2, -3, -4}, xs[3] = {2, 2, 0}, xst[3] = {0, 0, 1},
            is[2] = {4, 2}, ist[2] = {2, 1}, us[2] = {4, 0}, ust[2] = {0, 1};
    sk_tensor x = hd_tensor(NULL, SK_DTYPE_INT64, 3, xs, xst);
    sk_tensor ix = hd_tensor(idx, SK_DTYPE_INT64, 2, is, ist);
    sk_tensor u = hd_tensor(NULL, SK_DTYPE_INT64, 2, us, ust);
    for (int ref = 0; ref < 2; ref++) {
        sk_tensor out = hd_tensor(NULL, SK_DTYPE_INT64, 3, xs, xst);
        sk_status st = ref ? skref_scatter_nd(&x, &ix, &u, SK_REDUCE_MEAN, SK_INDEX_MODE_ERROR,
                                              &out, NULL)
                           : sk_scatter_nd(&x, &ix, &u, SK_REDUCE_MEAN, SK_INDEX_MODE_ERROR, &out,
                                           NULL);
        SKT_CHECK(st == SK_STATUS_INDEX_OUT_OF_RANGE,
                  "hardening: %s scatter_nd, index -3 of 2 into empty rows: status %d",
                  ref ? "reference" : "library", (int)st);
    }
}

static void hd_ref_mask_tensor_scatter(void) {
    float x3[3] = {1, 2, 3}, cache[4] = {0, 0, 0, 0}, upd[2] = {7, 8}, lib[4], ref[4];
    uint8_t m[6] = {1, 0, 1, 1, 1, 0};
    int64_t s3[1] = {3}, one[1] = {1}, ms[2] = {2, 3}, mst[2] = {3, 1}, count = -1, lc = -2;
    sk_tensor x = hd_tensor(x3, SK_DTYPE_FLOAT32, 1, s3, one);
    sk_tensor mask = hd_tensor(m, SK_DTYPE_BOOL, 2, ms, mst);
    sk_status st = skref_masked_select_count(&x, &mask, &count, NULL);
    sk_masked_select_count(&x, &mask, &lc, NULL);
    SKT_CHECK(st == SK_STATUS_OK && count == 4 && lc == 4, "hardening: masked_select_count of a "
              "[2, 3] mask over x [3]: reference %lld, library %lld", (long long)count,
              (long long)lc);
    int64_t cs[2] = {1, 4}, cst[2] = {4, 1}, us[2] = {1, 2}, ust[2] = {2, 1}, w = INT64_MAX;
    sk_tensor tc = hd_tensor(cache, SK_DTYPE_FLOAT32, 2, cs, cst);
    sk_tensor tu = hd_tensor(upd, SK_DTYPE_FLOAT32, 2, us, ust);
    sk_tensor tw = hd_tensor(&w, SK_DTYPE_INT64, 1, one, one);
    sk_tensor tl = hd_tensor(lib, SK_DTYPE_FLOAT32, 2, cs, cst);
    sk_tensor tr = hd_tensor(ref, SK_DTYPE_FLOAT32, 2, cs, cst);
    st = skref_tensor_scatter(&tc, &tu, &tw, 1, SK_TENSOR_SCATTER_LINEAR, &tr, NULL);
    SKT_CHECK(st == SK_STATUS_INDEX_OUT_OF_RANGE, "hardening: reference tensor_scatter, linear, "
              "write index INT64_MAX: status %d", (int)st);
    /* circular: INT64_MAX % 4 = 3, so positions 3 and 0 */
    st = skref_tensor_scatter(&tc, &tu, &tw, 1, SK_TENSOR_SCATTER_CIRCULAR, &tr, NULL);
    sk_status ls = sk_tensor_scatter(&tc, &tu, &tw, 1, SK_TENSOR_SCATTER_CIRCULAR, &tl, NULL);
    SKT_CHECK(st == SK_STATUS_OK && ls == SK_STATUS_OK && !memcmp(lib, ref, sizeof ref) &&
                  ref[3] == 7 && ref[0] == 8,
              "hardening: tensor_scatter, circular, write index INT64_MAX: reference %d "
              "{%g %g %g %g}, library %d", (int)st, ref[0], ref[1], ref[2], ref[3], (int)ls);
}

/* reduce="prod"'s gradient: g times the product of the other
 * contributors, exact until rounded once (docs/CONTRACT.md §7). It was the
 * running product of all of them divided by the contributor, rounded as it
 * went: NaN from inf / inf and NaN / NaN where the answer is 0, and inf or
 * 0 where the running product left the dtype's range though the product of
 * the others does not (found by the fuzz target: x = -4, an update inf,
 * g = -4 gave the update NaN, not 16). One target x[0] and n updates of it;
 * the library and the reference alike. */
typedef struct {
    sk_dtype dt;
    bool self;
    double x, g, u[3];
    int n;
    double gx, gu[3]; /* the gradients */
} hd_prod_case;

static const hd_prod_case hd_prod_cases[] = {
    {SK_DTYPE_FLOAT32, true, -4, -4, {INFINITY}, 1, -INFINITY, {16}},
    {SK_DTYPE_FLOAT32, true, 2, 1, {-INFINITY, 0, 3}, 3, NAN, {0, -INFINITY, NAN}},
    {SK_DTYPE_FLOAT64, true, 3, 1, {NAN, 0}, 2, NAN, {0, NAN}},
    {SK_DTYPE_FLOAT32, true, 0x1p100, 3, {0x1p100, 0x1p-100}, 2, 3, {3, INFINITY}},
    {SK_DTYPE_FLOAT32, true, 0x1p-100, 3, {0x1p-100, 0x1p100}, 2, 3, {3, 0}},
    {SK_DTYPE_BFLOAT16, false, 7, 1, {0x1p100, 0x1p100, 0x1p-100}, 3, 0, {1, 1, INFINITY}},
    {SK_DTYPE_FLOAT64, true, 0x1p1000, 1, {0x1p1000, 0x1p-1000}, 2, 1, {1, INFINITY}},
    /* zeros alone were right before; kept with them */
    {SK_DTYPE_FLOAT16, true, 0, 1, {0, 5}, 2, 0, {0, 0}},
    {SK_DTYPE_BFLOAT16, true, 0, 2, {3, -1}, 2, -6, {0, 0}},
    {SK_DTYPE_FLOAT16, true, 256, 1, {256, 1.0 / 256}, 2, 1, {1, INFINITY}},
};

static bool hd_same(double got, double want) { return got == want || (isnan(got) && isnan(want)); }

/* One case through scatter (kind 0), index_scatter (1) or scatter_nd (2):
 * the library (ref false) at 1 and 3 threads, or the reference. */
static void hd_prod_run(const hd_prod_case *c, int kind, bool ref, int threads) {
    static const char *const names[] = {"scatter", "index_scatter", "scatter_nd"};
    skt_rng r;
    skt_seed(&r, 28);
    int64_t one[1] = {1}, n[2] = {c->n, 1}, zero[1] = {0};
    skt_buf x, g, gx, u, gu, idx;
    skt_make(&x, c->dt, 1, one, SKT_CONTIG, 0, &r);
    skt_make(&g, c->dt, 1, one, SKT_CONTIG, 0, &r);
    skt_make(&gx, c->dt, 1, one, SKT_CONTIG, 0, &r);
    skt_make(&u, c->dt, 1, n, SKT_CONTIG, 0, &r);
    skt_make(&gu, c->dt, 1, n, SKT_CONTIG, 0, &r);
    skt_make(&idx, SK_DTYPE_INT64, kind == 2 ? 2 : 1, n, SKT_CONTIG, 0, &r);
    skt_set(&x, zero, c->x);
    skt_set(&g, zero, c->g);
    for (int64_t i = 0; i < c->n; i++) {
        int64_t at[2] = {i, 0};
        skt_set(&u, at, c->u[i]);
        skt_set_index(&idx, at, 0);
    }
    sk_options o = {.num_threads = threads};
    sk_status st;
    if (kind == 0)
        st = SKT_PICK(ref, scatter_backward)(&x.t, &idx.t, &u.t, 0, SK_REDUCE_PROD, c->self,
                                             SK_INDEX_MODE_ERROR, NULL, &g.t, &gx.t, &gu.t, &o);
    else if (kind == 1)
        st = SKT_PICK(ref, index_scatter_backward)(&x.t, &idx.t, &u.t, 0, SK_REDUCE_PROD, c->self,
                                                   SK_INDEX_MODE_ERROR, NULL, &g.t, &gx.t, &gu.t,
                                                   &o);
    else
        st = SKT_PICK(ref, scatter_nd_backward)(&x.t, &idx.t, &u.t, SK_REDUCE_PROD,
                                                SK_INDEX_MODE_ERROR, NULL, &g.t, &gx.t, &gu.t, &o);
    char what[160];
    snprintf(what, sizeof what, "hardening: %s %s_backward prod %s self=%d x=%g g=%g, u[0]=%g",
             ref ? "reference" : "library", names[kind], sk_dtype_name(c->dt), (int)c->self, c->x,
             c->g, c->u[0]);
    if (st != SK_STATUS_OK) {
        skt_fail("%s: %s", what, sk_last_error());
    } else {
        SKT_CHECK(hd_same(skt_get(&gx, zero), c->gx), "%s (threads %d): grad_x %g, not %g", what,
                  threads, skt_get(&gx, zero), c->gx);
        for (int64_t i = 0; i < c->n; i++) {
            int64_t at[1] = {i};
            SKT_CHECK(hd_same(skt_get(&gu, at), c->gu[i]), "%s (threads %d): grad u[%d] %g, not %g",
                      what, threads, (int)i, skt_get(&gu, at), c->gu[i]);
        }
    }
    skt_free(&x), skt_free(&g), skt_free(&gx), skt_free(&u), skt_free(&gu), skt_free(&idx);
}

static void hd_prod_gradients(void) {
    for (size_t i = 0; i < SKT_COUNT(hd_prod_cases); i++)
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 2 && !hd_prod_cases[i].self) continue; /* scatter_nd includes x */
            hd_prod_run(&hd_prod_cases[i], kind, true, 1);
            hd_prod_run(&hd_prod_cases[i], kind, false, 1);
            hd_prod_run(&hd_prod_cases[i], kind, false, 3);
        }
}

void skt_test_hardening(void) {
    if (!sk_masked_select_count || !sk_masked_select || !sk_tensor_scatter || !sk_gather ||
        !sk_scatter || !sk_index_scatter || !sk_scatter_backward || !sk_index_scatter_backward ||
        !sk_scatter_nd_backward || !sk_masked_select_count || !sk_index_select ||
        !sk_masked_select_backward)
        return;
    hd_masked_select_count();
    hd_tensor_scatter_batches();
    hd_gather_zero_stride();
    hd_empty_huge();
    hd_negative_strides();
    hd_scatter_negative_strides();
    hd_gather_rows_extreme_stride();
    hd_gather_rows_empty_axis();
    hd_mask_grad_empty_extreme_stride();
    hd_ref_gather_select();
    hd_ref_mask_tensor_scatter();
    hd_scatter_nd_empty_rows();
    hd_prod_gradients();
}
