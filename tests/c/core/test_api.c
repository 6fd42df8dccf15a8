/* status strings, dtypes, the thread-local last error, the tensor
 * descriptor. */
#include "core.h"
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* status strings, dtypes                                                   */
/* ------------------------------------------------------------------------ */

void test_status(void) {
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

void test_dtype(void) {
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

void test_last_error(void) {
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

static void tensor_numel_overflow(void);

void test_tensor(void) {
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
    tensor_numel_overflow();
}

/* numel overflow: descriptors built by hand, which init may refuse */
static void tensor_numel_overflow(void) {
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
