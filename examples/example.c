/*
 * example.c - scatterkit from C: a scatter-sum with duplicate targets and a
 * gather, built against the installed library. Exits nonzero if a result is
 * wrong (the install test runs it).
 */
#include <scatterkit.h>

#include <stdio.h>

static int check(const char *what, const float *got, const float *want, int n) {
    int bad = 0;
    printf("%s:", what);
    for (int i = 0; i < n; i++) {
        printf(" %g", got[i]);
        if (got[i] != want[i]) bad = 1;
    }
    printf("%s\n", bad ? "  <-- WRONG" : "");
    return bad;
}

static int fail(const char *what, sk_status st) {
    fprintf(stderr, "%s failed: %s: %s\n", what, sk_status_string(st), sk_last_error());
    return 1;
}

int main(void) {
    int bad = 0;
    sk_status st;

    /* scatter-sum: out[index[i]] += src[i]; index 0 and 1 repeat */
    float x[5] = {0, 0, 0, 0, 0}, out[5];
    int64_t index[6] = {0, 1, 1, 3, 0, 1};
    float src[6] = {1, 2, 3, 4, 5, 6};
    const float want_sum[5] = {1 + 5, 2 + 3 + 6, 0, 4, 0};
    int64_t n5 = 5, n6 = 6;
    sk_tensor tx, ti, ts, to;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 1, &n5, NULL);
    sk_tensor_init(&ti, index, SK_DTYPE_INT64, 1, &n6, NULL);
    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 1, &n6, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 1, &n5, NULL);
    st = sk_scatter(&tx, &ti, &ts, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &to, NULL);
    if (st != SK_STATUS_OK) return fail("sk_scatter", st);
    bad |= check("scatter sum", out, want_sum, 5);

    /* gather along axis 1: g[i][j] = m[i][gi[i][j]] */
    float m[2][3] = {{1, 2, 3}, {4, 5, 6}}, g[2][2];
    int32_t gi[2][2] = {{2, 0}, {1, -2}}; /* -2 wraps to 1 */
    const float want_gather[4] = {3, 1, 5, 5};
    int64_t ms[2] = {2, 3}, gs[2] = {2, 2};
    sk_tensor tm, tgi, tg;
    sk_tensor_init(&tm, m, SK_DTYPE_FLOAT32, 2, ms, NULL);
    sk_tensor_init(&tgi, gi, SK_DTYPE_INT32, 2, gs, NULL);
    sk_tensor_init(&tg, g, SK_DTYPE_FLOAT32, 2, gs, NULL);
    st = sk_gather(&tm, &tgi, 1, SK_INDEX_MODE_ERROR, NULL, &tg, NULL);
    if (st != SK_STATUS_OK) return fail("sk_gather", st);
    bad |= check("gather", &g[0][0], want_gather, 4);

    /* an out-of-range index is an error, not a crash */
    gi[1][1] = 3;
    st = sk_gather(&tm, &tgi, 1, SK_INDEX_MODE_ERROR, NULL, &tg, NULL);
    printf("gather with index 3 on an axis of 3: %s (%s)\n", sk_status_string(st),
           sk_last_error());
    if (st != SK_STATUS_INDEX_OUT_OF_RANGE) bad = 1;

    printf("%s\n", bad ? "FAILED" : "ok");
    return bad;
}
