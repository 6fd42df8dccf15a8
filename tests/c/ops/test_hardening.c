/*
 * The findings of the hardening campaign (issue 28), each a call that went
 * wrong before its fix: a broadcast count that wrapped, work proportional to
 * a size with nothing to do, and undefined behaviour that only the
 * sanitizers see (the sanitizer run makes UBSan fatal, so there an overflow
 * stops this test).
 */
#include "tester.h"

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

void skt_test_hardening(void) {
    if (!sk_masked_select_count || !sk_masked_select || !sk_tensor_scatter || !sk_gather ||
        !sk_scatter || !sk_index_scatter)
        return;
    hd_masked_select_count();
    hd_tensor_scatter_batches();
    hd_gather_zero_stride();
    hd_empty_huge();
    hd_negative_strides();
}
