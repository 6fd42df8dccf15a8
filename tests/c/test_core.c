/*
 * test_core.c - the core of the C API: float16/bfloat16 conversion, status
 * strings, the thread-local last error, dtypes, the tensor descriptor,
 * DLPack conversion, the thread-count setting and the thread pool's wakes.
 *
 * Usage: test_core <part> | all. Each part is its own ctest test.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "harness.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ------------------------------------------------------------------------ */
/* float16                                                                  */
/* ------------------------------------------------------------------------ */

/* The value of half bits h, decoded from the IEEE binary16 definition. */
static double half_value(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 31) v = man ? NAN : INFINITY;
    else if (exp == 0) v = ldexp(man, -24);
    else v = ldexp(1024 + man, exp - 25);
    return sign ? -v : v;
}

/* The value used for rounding: bits 0x7c00 (infinity) counts as 2^16, the
 * next value the format would have, so ties at the top go to infinity. */
static double half_grid(uint16_t h) { return h == 0x7c00 ? 65536.0 : half_value(h); }

/* Reference float -> half: the nearest value of the grid 0 .. 0x7c00
 * (ties to the even bit pattern), found by bisection. */
static uint16_t ref_float_to_half(float f) {
    uint16_t sign = (f2u(f) >> 16) & 0x8000u;
    double a = fabs((double)f);
    if (a >= 65536.0) return sign | 0x7c00u;
    uint16_t lo = 0, hi = 0x7c00; /* half_grid(lo) <= a < half_grid(hi) */
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (half_grid(mid) <= a) lo = mid;
        else hi = mid;
    }
    double dl = a - half_grid(lo), dh = half_grid(hi) - a;
    uint16_t r = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return sign | r;
}

static void check_half(float f, uint16_t want, const char *what) {
    uint16_t got = sk_float_to_half(f);
    SKT_CHECK(got == want, "sk_float_to_half(%s = %.9g, bits 0x%08x) = 0x%04x, expected 0x%04x",
              what, (double)f, (unsigned)f2u(f), got, want);
}

static void test_half(void) {
    /* every half value: exact decoding, and back to the same bits */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = sk_half_to_float((uint16_t)h);
        double want = half_value((uint16_t)h);
        bool is_nan = ((h >> 10) & 31) == 31 && (h & 1023);
        if (is_nan) {
            SKT_CHECK(isnan(f) && (signbit(f) != 0) == ((h >> 15) != 0),
                      "sk_half_to_float(0x%04x) = %g: expected a NaN of the same sign", h,
                      (double)f);
            uint16_t back = sk_float_to_half(f);
            SKT_CHECK(((back >> 10) & 31) == 31 && (back & 1023) &&
                          (back & 0x8000) == (h & 0x8000) && (back & 0x200),
                      "half NaN 0x%04x -> float -> 0x%04x: expected a quiet NaN of the same sign",
                      h, back);
            continue;
        }
        SKT_CHECK((double)f == want && (signbit(f) != 0) == ((h >> 15) != 0),
                  "sk_half_to_float(0x%04x) = %.9g, expected %.9g", h, (double)f, want);
        uint16_t back = sk_float_to_half(f);
        SKT_CHECK(back == h, "half 0x%04x -> %.9g -> 0x%04x: the round trip is not exact", h,
                  (double)f, back);
    }
    /* named cases */
    check_half(65504.0f, 0x7bff, "max half");
    check_half(65519.0f, 0x7bff, "just under the midpoint to infinity");
    check_half(65520.0f, 0x7c00, "the midpoint to infinity (ties to even: infinity)");
    check_half(1e10f, 0x7c00, "overflow");
    check_half(-1e10f, 0xfc00, "negative overflow");
    check_half(INFINITY, 0x7c00, "+inf");
    check_half(-INFINITY, 0xfc00, "-inf");
    check_half(-0.0f, 0x8000, "-0");
    check_half(0x1p-24f, 0x0001, "smallest subnormal");
    check_half(0x1p-25f, 0x0000, "half the smallest subnormal (tie to even: 0)");
    check_half(0x1.000002p-25f, 0x0001, "just over half the smallest subnormal");
    check_half(0x3p-25f, 0x0002, "1.5 subnormal units (tie to even: 2)");
    check_half(0x5p-25f, 0x0002, "2.5 subnormal units (tie to even: 2)");
    check_half(0x1p-14f - 0x1p-25f, 0x0400, "midpoint of max subnormal and min normal");
    check_half(0x1p-30f, 0x0000, "underflow to 0");
    check_half(-0x1p-30f, 0x8000, "underflow to -0");
    check_half(1.0f + 0x1p-11f, 0x3c00, "1 + half an ulp (tie to even: 1)");
    check_half(1.0f + 0x3p-11f, 0x3c02, "1 + 1.5 ulp (tie to even: up)");
    check_half(1.0f + 0x1p-11f + 0x1p-20f, 0x3c01, "just over 1 + half an ulp");
    /* NaN in, NaN out, sign kept, even with payload bits only below the half's
     * mantissa (a plain truncation would make these infinity) */
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fa00000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = sk_float_to_half(u2f(nans[i]));
        SKT_CHECK(((h >> 10) & 31) == 31 && (h & 1023) && (h >> 15) == (nans[i] >> 31),
                  "sk_float_to_half(NaN 0x%08x) = 0x%04x: expected a NaN with the same sign",
                  (unsigned)nans[i], h);
    }
    /* every midpoint between neighbours, and a step either side of it */
    for (uint32_t h = 0; h < 0x7bff; h++) {
        double mid = (half_value((uint16_t)h) + half_value((uint16_t)(h + 1))) / 2;
        float m = (float)mid; /* exact: a midpoint needs 12 significant bits */
        check_half(m, ref_float_to_half(m), "a midpoint");
        check_half(-m, ref_float_to_half(-m), "a negative midpoint");
        check_half(nextafterf(m, 0), ref_float_to_half(nextafterf(m, 0)), "below a midpoint");
        check_half(nextafterf(m, INFINITY), ref_float_to_half(nextafterf(m, INFINITY)),
                   "above a midpoint");
    }
    /* random float bit patterns (NaNs excepted) */
    skt_rng r;
    skt_seed(&r, 1);
    for (int i = 0; i < 1000000; i++) {
        float f = u2f((uint32_t)skt_next(&r));
        if (isnan(f)) continue;
        check_half(f, ref_float_to_half(f), "random");
    }
}

/* ------------------------------------------------------------------------ */
/* bfloat16                                                                 */
/* ------------------------------------------------------------------------ */

/* bfloat16 is the top half of a float; bits 0x7f80 count as 2^128 when
 * rounding, so the tie above the largest finite value goes to infinity. */
static double bf16_grid(uint16_t b) {
    if ((b & 0x7fffu) == 0x7f80u) return b & 0x8000u ? -0x1p128 : 0x1p128;
    return (double)u2f((uint32_t)b << 16);
}

static uint16_t ref_float_to_bf16(float f) {
    uint16_t lo = (uint16_t)(f2u(f) >> 16); /* truncation: towards zero */
    if ((lo & 0x7fffu) == 0x7f80u) return lo; /* infinity */
    uint16_t hi = (uint16_t)(lo + 1);       /* next away from zero */
    double a = fabs((double)f), dl = a - fabs(bf16_grid(lo)), dh = fabs(bf16_grid(hi)) - a;
    return dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
}

static void check_bf16(float f, uint16_t want, const char *what) {
    uint16_t got = sk_float_to_bfloat16(f);
    SKT_CHECK(got == want, "sk_float_to_bfloat16(%s = %.9g, bits 0x%08x) = 0x%04x, expected 0x%04x",
              what, (double)f, (unsigned)f2u(f), got, want);
}

static void test_bfloat16(void) {
    for (uint32_t b = 0; b < 65536; b++) {
        float f = sk_bfloat16_to_float((uint16_t)b);
        bool is_nan = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
        SKT_CHECK(f2u(f) == b << 16,
                  "sk_bfloat16_to_float(0x%04x) has bits 0x%08x, expected 0x%08x", b,
                  (unsigned)f2u(f), (unsigned)(b << 16));
        uint16_t back = sk_float_to_bfloat16(f);
        if (is_nan)
            SKT_CHECK((back & 0x7f80u) == 0x7f80u && (back & 0x7fu) &&
                          (back & 0x8000u) == (b & 0x8000u),
                      "bfloat16 NaN 0x%04x -> float -> 0x%04x: expected a NaN of the same sign", b,
                      back);
        else
            SKT_CHECK(back == b, "bfloat16 0x%04x -> float -> 0x%04x: the round trip is not exact",
                      b, back);
    }
    check_bf16(u2f(0x7f7f8000u), 0x7f80, "midpoint of max and infinity (ties to even: inf)");
    check_bf16(u2f(0x7f7f7fffu), 0x7f7f, "just under that midpoint");
    check_bf16(u2f(0xff7f8000u), 0xff80, "negative midpoint to -inf");
    check_bf16(u2f(0x3f808000u), 0x3f80, "1 + half an ulp (tie to even: 1)");
    check_bf16(u2f(0x3f818000u), 0x3f82, "1 + 1.5 ulp (tie to even: up)");
    check_bf16(u2f(0x3f808001u), 0x3f81, "just over 1 + half an ulp");
    check_bf16(u2f(0x00008000u), 0x0000, "subnormal tie to even: 0");
    check_bf16(u2f(0x00018000u), 0x0002, "subnormal tie to even: up");
    check_bf16(u2f(0x00000001u), 0x0000, "smallest float subnormal");
    check_bf16(INFINITY, 0x7f80, "+inf");
    check_bf16(-INFINITY, 0xff80, "-inf");
    check_bf16(-0.0f, 0x8000, "-0");
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7f80ffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t b = sk_float_to_bfloat16(u2f(nans[i]));
        SKT_CHECK((b & 0x7f80u) == 0x7f80u && (b & 0x7fu) && (b >> 15) == (nans[i] >> 31),
                  "sk_float_to_bfloat16(NaN 0x%08x) = 0x%04x: expected a NaN with the same sign",
                  (unsigned)nans[i], b);
    }
    skt_rng r;
    skt_seed(&r, 2);
    for (int i = 0; i < 2000000; i++) {
        float f = u2f((uint32_t)skt_next(&r));
        if (isnan(f)) continue;
        check_bf16(f, ref_float_to_bf16(f), "random");
    }
}

/* ------------------------------------------------------------------------ */
/* status strings, dtypes                                                   */
/* ------------------------------------------------------------------------ */

static void test_status(void) {
    const char *seen[SK_STATUS_INTERNAL + 1];
    for (int s = 0; s <= SK_STATUS_INTERNAL; s++) {
        const char *m = sk_status_string((sk_status)s);
        seen[s] = m;
        SKT_CHECK(m && m[0], "sk_status_string(%d) is empty or NULL", s);
        for (int t = 0; m && t < s; t++)
            SKT_CHECK(!seen[t] || strcmp(seen[t], m) != 0,
                      "sk_status_string(%d) and (%d) are both \"%s\"", t, s, m);
    }
    const char *oob = sk_status_string(SK_STATUS_INDEX_OUT_OF_RANGE);
    SKT_CHECK(oob && strstr(oob, "index"), "sk_status_string(INDEX_OUT_OF_RANGE) = \"%s\"",
              oob ? oob : "(null)");
    const char *bad = sk_status_string((sk_status)999);
    SKT_CHECK(bad && bad[0], "sk_status_string(999) must still be a string");
}

static void test_dtype(void) {
    static const struct {
        sk_dtype dt;
        size_t size;
        const char *name;
        bool floating;
    } table[] = {
        {SK_DTYPE_BOOL, 1, "bool", false},         {SK_DTYPE_UINT8, 1, "uint8", false},
        {SK_DTYPE_INT8, 1, "int8", false},         {SK_DTYPE_INT16, 2, "int16", false},
        {SK_DTYPE_INT32, 4, "int32", false},       {SK_DTYPE_INT64, 8, "int64", false},
        {SK_DTYPE_FLOAT16, 2, "float16", true},    {SK_DTYPE_BFLOAT16, 2, "bfloat16", true},
        {SK_DTYPE_FLOAT32, 4, "float32", true},    {SK_DTYPE_FLOAT64, 8, "float64", true},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        SKT_CHECK(sk_dtype_size(table[i].dt) == table[i].size, "sk_dtype_size(%s) = %zu",
                  table[i].name, sk_dtype_size(table[i].dt));
        SKT_CHECK(strcmp(sk_dtype_name(table[i].dt), table[i].name) == 0, "sk_dtype_name(%d) = %s",
                  (int)table[i].dt, sk_dtype_name(table[i].dt));
        SKT_CHECK(sk_dtype_is_floating(table[i].dt) == table[i].floating,
                  "sk_dtype_is_floating(%s)", table[i].name);
    }
    SKT_CHECK(sk_dtype_size(SK_DTYPE_COUNT) == 0, "sk_dtype_size(invalid) must be 0");
    SKT_CHECK(sk_dtype_size((sk_dtype)-1) == 0, "sk_dtype_size(-1) must be 0");
    SKT_CHECK(strcmp(sk_dtype_name((sk_dtype)77), "invalid") == 0, "sk_dtype_name(77)");
    SKT_CHECK(!sk_dtype_is_floating((sk_dtype)77), "sk_dtype_is_floating(77)");
}

/* ------------------------------------------------------------------------ */
/* thread-local last error                                                  */
/* ------------------------------------------------------------------------ */

typedef struct {
    char first[512];  /* what the new thread saw before failing itself */
    char own[512];    /* its own message */
    int mismatches;   /* own message changed under it while the other thread failed */
} thread_result;

static void *error_thread(void *arg) {
    thread_result *res = (thread_result *)arg;
    snprintf(res->first, sizeof res->first, "%s", sk_last_error());
    int64_t shape[1] = {1};
    sk_tensor t;
    sk_status st = sk_tensor_init(&t, NULL, SK_DTYPE_INT8, SK_MAX_DIMS + 1, shape, NULL);
    (void)st;
    snprintf(res->own, sizeof res->own, "%s", sk_last_error());
    for (int i = 0; i < 20000; i++) {
        sk_tensor_init(&t, NULL, SK_DTYPE_INT8, SK_MAX_DIMS + 1, shape, NULL);
        if (strcmp(sk_last_error(), res->own) != 0) res->mismatches++;
    }
    return NULL;
}

static void test_last_error(void) {
    sk_status st = sk_tensor_init(NULL, NULL, SK_DTYPE_INT8, 0, NULL, NULL);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "sk_tensor_init(NULL) = %s", sk_status_string(st));
    char mine[512];
    snprintf(mine, sizeof mine, "%s", sk_last_error());
    SKT_CHECK(mine[0] != '\0', "sk_last_error() is empty after a failed call");

    thread_result res[2];
    memset(res, 0, sizeof res);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, error_thread, &res[i]);
    /* meanwhile this thread keeps failing with its own message */
    int mismatches = 0;
    for (int i = 0; i < 20000; i++) {
        sk_tensor_init(NULL, NULL, SK_DTYPE_INT8, 0, NULL, NULL);
        if (strcmp(sk_last_error(), mine) != 0) mismatches++;
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        SKT_CHECK(res[i].first[0] == '\0',
                  "a new thread sees another thread's error: \"%s\" (expected \"\")", res[i].first);
        SKT_CHECK(res[i].own[0] != '\0' && strcmp(res[i].own, mine) != 0,
                  "the thread's own error \"%s\" should differ from the main thread's \"%s\"",
                  res[i].own, mine);
        SKT_CHECK(res[i].mismatches == 0, "a thread's message changed %d times under it",
                  res[i].mismatches);
    }
    SKT_CHECK(mismatches == 0, "the main thread's message changed %d times under it", mismatches);
    SKT_CHECK(strcmp(sk_last_error(), mine) == 0,
              "the main thread's message became \"%s\" after other threads failed",
              sk_last_error());
}

/* ------------------------------------------------------------------------ */
/* tensor descriptor                                                        */
/* ------------------------------------------------------------------------ */

static void test_tensor(void) {
    float data[24];
    int64_t shape[3] = {2, 3, 4};
    sk_tensor t;
    sk_status st = sk_tensor_init(&t, data, SK_DTYPE_FLOAT32, 3, shape, NULL);
    SKT_CHECK(st == SK_STATUS_OK, "sk_tensor_init: %s", sk_status_string(st));
    SKT_CHECK(t.data == data && t.dtype == SK_DTYPE_FLOAT32 && t.ndim == 3,
              "sk_tensor_init: data/dtype/ndim not stored");
    SKT_CHECK(t.shape[0] == 2 && t.shape[1] == 3 && t.shape[2] == 4, "sk_tensor_init: shape");
    SKT_CHECK(t.strides[0] == 12 && t.strides[1] == 4 && t.strides[2] == 1,
              "sk_tensor_init: row-major strides are {%lld, %lld, %lld}, expected {12, 4, 1}",
              (long long)t.strides[0], (long long)t.strides[1], (long long)t.strides[2]);
    SKT_CHECK(t.device_type == SK_DEVICE_CPU && t.device_id == 0, "sk_tensor_init: device");
    SKT_CHECK(sk_tensor_numel(&t) == 24, "numel [2,3,4] = %lld", (long long)sk_tensor_numel(&t));

    int64_t strides[3] = {-1, 0, 7};
    st = sk_tensor_init(&t, data + 5, SK_DTYPE_INT32, 3, shape, strides);
    SKT_CHECK(st == SK_STATUS_OK && t.strides[0] == -1 && t.strides[1] == 0 && t.strides[2] == 7,
              "sk_tensor_init with explicit strides");

    st = sk_tensor_init(&t, data, SK_DTYPE_FLOAT64, 0, NULL, NULL);
    SKT_CHECK(st == SK_STATUS_OK && t.ndim == 0 && sk_tensor_numel(&t) == 1,
              "0-d tensor: status %s, numel %lld", sk_status_string(st),
              (long long)sk_tensor_numel(&t));

    int64_t zshape[3] = {5, 0, 7};
    st = sk_tensor_init(&t, NULL, SK_DTYPE_INT8, 3, zshape, NULL);
    SKT_CHECK(st == SK_STATUS_OK && sk_tensor_numel(&t) == 0, "zero-size tensor: %s, numel %lld",
              sk_status_string(st), (long long)sk_tensor_numel(&t));

    int64_t many[SK_MAX_DIMS + 1];
    for (int i = 0; i <= SK_MAX_DIMS; i++) many[i] = 1;
    st = sk_tensor_init(&t, data, SK_DTYPE_INT8, SK_MAX_DIMS, many, NULL);
    SKT_CHECK(st == SK_STATUS_OK, "SK_MAX_DIMS dimensions: %s", sk_status_string(st));
    st = sk_tensor_init(&t, data, SK_DTYPE_INT8, SK_MAX_DIMS + 1, many, NULL);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE, "SK_MAX_DIMS + 1 dimensions: %s",
              sk_status_string(st));
    st = sk_tensor_init(&t, data, SK_DTYPE_INT8, -1, many, NULL);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE, "ndim -1: %s", sk_status_string(st));
    int64_t neg[2] = {3, -2};
    st = sk_tensor_init(&t, data, SK_DTYPE_INT8, 2, neg, NULL);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE, "negative shape: %s", sk_status_string(st));
    st = sk_tensor_init(&t, data, SK_DTYPE_INT8, 2, NULL, NULL);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "shape NULL with ndim 2: %s", sk_status_string(st));
    st = sk_tensor_init(NULL, data, SK_DTYPE_INT8, 2, shape, NULL);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "t NULL: %s", sk_status_string(st));

    /* numel overflow: build descriptors by hand, init may refuse them */
    sk_tensor big;
    memset(&big, 0, sizeof big);
    big.dtype = SK_DTYPE_INT8;
    big.ndim = 2;
    big.shape[0] = (int64_t)1 << 32;
    big.shape[1] = (int64_t)1 << 32;
    SKT_CHECK(sk_tensor_numel(&big) == -1, "numel 2^32 x 2^32 = %lld, expected -1",
              (long long)sk_tensor_numel(&big));
    big.shape[0] = INT64_MAX;
    big.shape[1] = 2;
    SKT_CHECK(sk_tensor_numel(&big) == -1, "numel INT64_MAX x 2 = %lld, expected -1",
              (long long)sk_tensor_numel(&big));
    big.shape[0] = (int64_t)1 << 31;
    big.shape[1] = (int64_t)1 << 31;
    SKT_CHECK(sk_tensor_numel(&big) == (int64_t)1 << 62, "numel 2^31 x 2^31 = %lld",
              (long long)sk_tensor_numel(&big));
    big.ndim = 3;
    big.shape[0] = 5;
    big.shape[1] = (int64_t)1 << 61;
    big.shape[2] = 1;
    SKT_CHECK(sk_tensor_numel(&big) == -1, "numel 5 x 2^61 = %lld, expected -1",
              (long long)sk_tensor_numel(&big));
}

/* ------------------------------------------------------------------------ */
/* DLPack                                                                   */
/* ------------------------------------------------------------------------ */

/* DLPack's DLTensor, written out here: the library must accept this layout
 * without our including dlpack.h. */
typedef struct {
    void *data;
    struct {
        int32_t device_type;
        int32_t device_id;
    } device;
    int32_t ndim;
    struct {
        uint8_t code;
        uint8_t bits;
        uint16_t lanes;
    } dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} test_dltensor;

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6 };

static sk_status from_dl(test_dltensor *dl, sk_tensor *t) {
    return sk_tensor_from_dlpack((const struct DLTensor *)(void *)dl, t);
}

static void test_dlpack(void) {
    double buf[64];
    int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
    test_dltensor dl = {buf, {1, 0}, 2, {DL_FLOAT, 32, 1}, shape, NULL, 0};
    sk_tensor t;
    memset(&t, 0xab, sizeof t);
    sk_status st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK, "from_dlpack float32 [3, 4]: %s (%s)", sk_status_string(st),
              sk_last_error());
    SKT_CHECK(t.data == (void *)buf && t.dtype == SK_DTYPE_FLOAT32 && t.ndim == 2 &&
                  t.shape[0] == 3 && t.shape[1] == 4 && t.strides[0] == 4 && t.strides[1] == 1 &&
                  t.device_type == SK_DEVICE_CPU && t.device_id == 0,
              "from_dlpack float32 [3, 4] with NULL strides: wrong descriptor");

    dl.strides = strides;
    dl.byte_offset = 8;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.data == (void *)((char *)buf + 8) && t.strides[0] == 1 &&
                  t.strides[1] == 3,
              "from_dlpack with strides and byte_offset 8: %s", sk_status_string(st));

    static const struct {
        uint8_t code, bits;
        sk_dtype dt;
    } ok[] = {
        {DL_BOOL, 8, SK_DTYPE_BOOL},      {DL_UINT, 8, SK_DTYPE_UINT8},
        {DL_INT, 8, SK_DTYPE_INT8},       {DL_INT, 16, SK_DTYPE_INT16},
        {DL_INT, 32, SK_DTYPE_INT32},     {DL_INT, 64, SK_DTYPE_INT64},
        {DL_FLOAT, 16, SK_DTYPE_FLOAT16}, {DL_BFLOAT, 16, SK_DTYPE_BFLOAT16},
        {DL_FLOAT, 32, SK_DTYPE_FLOAT32}, {DL_FLOAT, 64, SK_DTYPE_FLOAT64},
    };
    dl.byte_offset = 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        dl.dtype.code = ok[i].code;
        dl.dtype.bits = ok[i].bits;
        st = from_dl(&dl, &t);
        SKT_CHECK(st == SK_STATUS_OK && t.dtype == ok[i].dt,
                  "from_dlpack code %u bits %u: %s, dtype %s (expected %s)", ok[i].code,
                  ok[i].bits, sk_status_string(st), sk_dtype_name(t.dtype),
                  sk_dtype_name(ok[i].dt));
    }
    static const struct {
        uint8_t code, bits;
        uint16_t lanes;
    } bad[] = {
        {DL_UINT, 16, 1}, {DL_UINT, 32, 1}, {DL_FLOAT, 8, 1}, {DL_BFLOAT, 32, 1},
        {DL_COMPLEX, 64, 1}, {DL_FLOAT, 32, 4}, {DL_INT, 32, 0}, {99, 32, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dl.dtype.code = bad[i].code;
        dl.dtype.bits = bad[i].bits;
        dl.dtype.lanes = bad[i].lanes;
        st = from_dl(&dl, &t);
        SKT_CHECK(st == SK_STATUS_INVALID_DTYPE,
                  "from_dlpack code %u bits %u lanes %u: %s, expected invalid dtype", bad[i].code,
                  bad[i].bits, bad[i].lanes, sk_status_string(st));
    }
    dl.dtype.code = DL_FLOAT;
    dl.dtype.bits = 32;
    dl.dtype.lanes = 1;
    dl.byte_offset = 2; /* not a multiple of 4 */
    st = from_dl(&dl, &t);
    SKT_CHECK(st != SK_STATUS_OK, "from_dlpack float32 with byte_offset 2 must be refused");
    dl.byte_offset = UINT64_MAX - 3; /* a multiple of 4 that wraps the pointer around */
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_SIZE_OVERFLOW, "from_dlpack with byte_offset 2^64 - 4: %s",
              sk_status_string(st));
    dl.byte_offset = 0;

    int64_t many[SK_MAX_DIMS + 1];
    for (int i = 0; i <= SK_MAX_DIMS; i++) many[i] = 1;
    dl.shape = many;
    dl.strides = NULL;
    dl.ndim = SK_MAX_DIMS + 1;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE, "from_dlpack with ndim %d: %s", SK_MAX_DIMS + 1,
              sk_status_string(st));
    dl.ndim = SK_MAX_DIMS;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.ndim == SK_MAX_DIMS, "from_dlpack with ndim %d: %s",
              SK_MAX_DIMS, sk_status_string(st));

    dl.ndim = 0; /* a 0-d tensor may have shape NULL */
    dl.shape = NULL;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.ndim == 0, "from_dlpack 0-d: %s", sk_status_string(st));

    dl.ndim = 2;
    dl.shape = shape;
    dl.device.device_type = 2; /* kDLCUDA */
    dl.device.device_id = 1;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.device_type == SK_DEVICE_CUDA && t.device_id == 1,
              "from_dlpack keeps the device: %s, device %d:%d", sk_status_string(st),
              (int)t.device_type, (int)t.device_id);

    st = from_dl(NULL, &t);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "from_dlpack(NULL): %s", sk_status_string(st));
    st = from_dl(&dl, NULL);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "from_dlpack(dl, NULL): %s", sk_status_string(st));
}

/* ------------------------------------------------------------------------ */
/* thread count                                                             */
/* ------------------------------------------------------------------------ */

static void test_threads(void) {
    int32_t def = sk_get_num_threads();
    SKT_CHECK(def >= 1, "default thread count %d", (int)def);
    sk_status st = sk_set_num_threads(3);
    SKT_CHECK(st == SK_STATUS_OK && sk_get_num_threads() == 3, "set 3 -> get %d",
              (int)sk_get_num_threads());
    sk_set_num_threads(1);
    SKT_CHECK(sk_get_num_threads() == 1, "set 1 -> get %d", (int)sk_get_num_threads());
    sk_set_num_threads(0);
    SKT_CHECK(sk_get_num_threads() == def, "set 0 -> get %d, expected the default %d",
              (int)sk_get_num_threads(), (int)def);
    sk_set_num_threads(5);
    sk_set_num_threads(-4);
    SKT_CHECK(sk_get_num_threads() == def, "set -4 -> get %d, expected the default %d",
              (int)sk_get_num_threads(), (int)def);
}

/* Run by ctest with SCATTERKIT_NUM_THREADS=5 in the environment. */
static void test_env_threads(void) {
    const char *env = getenv("SCATTERKIT_NUM_THREADS");
    if (!env) {
        skt_fail("env_threads must run with SCATTERKIT_NUM_THREADS set");
        return;
    }
    int want = atoi(env);
    SKT_CHECK(sk_get_num_threads() == want, "SCATTERKIT_NUM_THREADS=%s -> get %d", env,
              (int)sk_get_num_threads());
    sk_set_num_threads(2);
    sk_set_num_threads(0);
    SKT_CHECK(sk_get_num_threads() == want, "set 0 -> get %d, expected %d from the environment",
              (int)sk_get_num_threads(), want);
}

/* The pool's workers poll for the next job for SCATTERKIT_SPIN_US after a
 * call, then sleep (threads.c). Parallel calls come here back to back and
 * after gaps shorter and longer than the polling time, with 2, 3 and 4
 * threads, so a worker takes its job both while polling and after sleeping;
 * a lost wake-up would hang the test (ctest's timeout), a stale job would
 * give a wrong copy. ctest also runs it with SCATTERKIT_SPIN_US=0 (always
 * sleep) and 500 (gaps of 1 and 3 ms outlast the polling). */
static void test_pool_wakes(void) {
    enum { N = 1 << 18 };
    float *a = malloc((size_t)N * sizeof(float)), *b = malloc((size_t)N * sizeof(float));
    if (!a || !b) {
        skt_fail("pool_wakes: out of memory");
        free(a);
        free(b);
        return;
    }
    sk_tensor ta, tb;
    const int64_t shape[1] = {N};
    sk_tensor_init(&ta, a, SK_DTYPE_FLOAT32, 1, shape, NULL);
    sk_tensor_init(&tb, b, SK_DTYPE_FLOAT32, 1, shape, NULL);
    const long gaps_us[] = {0, 100, 1000, 3000};
    for (int round = 0; round < 24; round++) {
        for (int64_t k = 0; k < N; k++) a[k] = (float)((k * 31 + round) % 1009);
        memset(b, 0xFF, (size_t)N * sizeof(float));
        long us = gaps_us[round % 4];
        struct timespec gap = {0, us * 1000};
        if (us) nanosleep(&gap, NULL);
        sk_options opts = {0};
        opts.num_threads = 2 + round % 3;
        sk_status st = sk_copy(&ta, &tb, &opts);
        SKT_CHECK(st == SK_STATUS_OK, "copy, round %d: %s", round, sk_last_error());
        SKT_CHECK(memcmp(a, b, (size_t)N * sizeof(float)) == 0,
                  "round %d (%d threads, after %ld us): the copy differs", round,
                  (int)opts.num_threads, us);
    }
    free(a);
    free(b);
}

/* Large scratch is kept between calls (memory.c): a blocked row scatter
 * (partials of 1.5 MB) run twice gives the same exact sums from a reused
 * block, and sk_release_cached_memory gives the blocks back. Under
 * AddressSanitizer scratch comes from malloc and nothing is kept; with
 * SCATTERKIT_SCRATCH_CACHE_MB=0 (ctest runs this part that way too) neither. */
static void test_scratch_cache(void) {
    enum { T = 3000, ROWS = 9000, C = 128 };
    float *x = calloc((size_t)T * C, sizeof(float)), *src = malloc((size_t)ROWS * C * sizeof(float));
    float *out = malloc((size_t)T * C * sizeof(float)), *want = calloc((size_t)T * C, sizeof(float));
    int64_t *idx = malloc((size_t)ROWS * sizeof(int64_t));
    if (!x || !src || !out || !want || !idx) {
        skt_fail("scratch_cache: out of memory");
        return;
    }
    for (int64_t r = 0; r < ROWS; r++) {
        idx[r] = (r * 7919) % T;
        for (int64_t c = 0; c < C; c++) {
            src[r * C + c] = (float)((r + c) % 17); /* small integers: exact sums */
            want[idx[r] * C + c] += src[r * C + c];
        }
    }
    sk_tensor tx, ti, ts, to;
    const int64_t xs[2] = {T, C}, is[2] = {ROWS, C}, istr[2] = {1, 0};
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, xs, NULL);
    sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 2, is, istr);
    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 2, is, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, xs, NULL);
    sk_release_cached_memory();
    for (int round = 0; round < 2; round++) {
        memset(out, 0xFF, (size_t)T * C * sizeof(float));
        sk_options opts = {0};
        opts.num_threads = 2;
        sk_status st = sk_scatter(&tx, &ti, &ts, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &to,
                                  &opts);
        SKT_CHECK(st == SK_STATUS_OK, "scatter: %s", sk_last_error());
        SKT_CHECK(memcmp(out, want, (size_t)T * C * sizeof(float)) == 0,
                  "round %d: sums differ from the direct ones", round);
    }
    size_t freed = sk_release_cached_memory();
    const char *env = getenv("SCATTERKIT_SCRATCH_CACHE_MB");
    bool off = env && strcmp(env, "0") == 0;
#if defined(__SANITIZE_ADDRESS__)
    off = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    off = true;
#endif
#endif
    if (off)
        SKT_CHECK(freed == 0, "nothing should be cached, %zu bytes were", freed);
    else
        SKT_CHECK(freed >= (size_t)T * C * sizeof(float), "%zu bytes cached, expected the partials",
                  freed);
    SKT_CHECK(sk_release_cached_memory() == 0, "a second release found bytes");
    free(x);
    free(src);
    free(out);
    free(want);
    free(idx);
}

static const struct {
    const char *name;
    void (*run)(void);
    bool in_all;
} parts[] = {
    {"half", test_half, true},
    {"bfloat16", test_bfloat16, true},
    {"status", test_status, true},
    {"dtype", test_dtype, true},
    {"last_error", test_last_error, true},
    {"tensor", test_tensor, true},
    {"dlpack", test_dlpack, true},
    {"threads", test_threads, true},
    {"pool_wakes", test_pool_wakes, true},
    {"scratch_cache", test_scratch_cache, true},
    {"env_threads", test_env_threads, false},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <part>|all\n", argv[0]);
        return 2;
    }
    bool found = false;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        bool all = strcmp(argv[1], "all") == 0;
        if (all ? !parts[i].in_all : strcmp(argv[1], parts[i].name) != 0) continue;
        found = true;
        long f0 = skt_failures, c0 = skt_checks;
        parts[i].run();
        printf("%-12s %9ld checks, %ld failures\n", parts[i].name, skt_checks - c0,
               skt_failures - f0);
    }
    if (!found) {
        fprintf(stderr, "unknown part '%s'\n", argv[1]);
        return 2;
    }
    return skt_failures ? 1 : 0;
}
