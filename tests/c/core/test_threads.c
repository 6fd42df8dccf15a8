/* the thread-count setting, the pool's wakes, the scratch cache. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "core.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* thread count                                                             */
/* ------------------------------------------------------------------------ */

void test_threads(void) {
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
void test_env_threads(void) {
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

/* Run by ctest with OMP_NUM_THREADS set and SCATTERKIT_NUM_THREADS unset:
 * OpenMP's variable (its first entry) is the default. */
void test_omp_threads(void) {
    const char *env = getenv("OMP_NUM_THREADS");
    if (!env || getenv("SCATTERKIT_NUM_THREADS")) {
        skt_fail("omp_threads must run with OMP_NUM_THREADS set, SCATTERKIT_NUM_THREADS unset");
        return;
    }
    int want = atoi(env);
    SKT_CHECK(sk_get_num_threads() == want, "OMP_NUM_THREADS=%s -> get %d", env,
              (int)sk_get_num_threads());
}

/* Internal to src/cpu/threads.c, declared here for the test. */
int sk_threads_from_env_text(const char *text);
int sk_cgroup_cpu_quota(const char *root);

static void skt_write(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        skt_fail("cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static void skt_remove(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

/* The parsing of the thread-count variables and of the cgroup CPU quota
 * files (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us), on files
 * written into a temporary directory standing for /sys/fs/cgroup. */
void test_threads_default(void) {
    const struct { const char *text; int want; } env[] = {
        {"4", 4}, {"4,2", 4}, {"1", 1}, {"0", 0}, {"-3", 0}, {"", 0}, {"x", 0}, {"3x", 0},
        {"100000", 256}, /* the most threads (scatterkit.set_num_threads says so) */
    };
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        SKT_CHECK(sk_threads_from_env_text(env[i].text) == env[i].want, "\"%s\" -> %d, want %d",
                  env[i].text, sk_threads_from_env_text(env[i].text), env[i].want);
    SKT_CHECK(sk_threads_from_env_text(NULL) == 0, "NULL -> 0");
    char root[] = "/tmp/skt_cgroupXXXXXX", v1[64];
    if (!mkdtemp(root)) {
        skt_fail("mkdtemp failed");
        return;
    }
    SKT_CHECK(sk_cgroup_cpu_quota(root) == 0, "no files -> no quota");
    snprintf(v1, sizeof v1, "%s/cpu", root);
    mkdir(v1, 0700);
    const struct { const char *quota; int want; } v1_cases[] = {
        {"-1\n", 0}, {"300000\n", 3}, {"150000\n", 2}, {"50000\n", 1},
    };
    skt_write(v1, "cpu.cfs_period_us", "100000\n");
    for (size_t i = 0; i < sizeof v1_cases / sizeof v1_cases[0]; i++) {
        skt_write(v1, "cpu.cfs_quota_us", v1_cases[i].quota);
        SKT_CHECK(sk_cgroup_cpu_quota(root) == v1_cases[i].want, "v1 quota %s -> %d, want %d",
                  v1_cases[i].quota, sk_cgroup_cpu_quota(root), v1_cases[i].want);
    }
    skt_write(root, "cpu.max", "max 100000\n"); /* v2 wins over v1 */
    SKT_CHECK(sk_cgroup_cpu_quota(root) == 0, "v2 max -> no quota");
    skt_write(root, "cpu.max", "250000 100000\n");
    SKT_CHECK(sk_cgroup_cpu_quota(root) == 3, "v2 250000/100000 -> %d, want 3",
              sk_cgroup_cpu_quota(root));
    skt_remove(root, "cpu.max");
    skt_remove(v1, "cpu.cfs_quota_us");
    skt_remove(v1, "cpu.cfs_period_us");
    rmdir(v1);
    rmdir(root);
}

/* The pool's workers poll for the next job for SCATTERKIT_SPIN_US after a
 * call, then sleep (threads.c). Parallel calls come here back to back and
 * after gaps shorter and longer than the polling time, with 2, 3 and 4
 * threads, so a worker takes its job both while polling and after sleeping;
 * a lost wake-up would hang the test (ctest's timeout), a stale job would
 * give a wrong copy. ctest also runs it with SCATTERKIT_SPIN_US=0 (always
 * sleep) and 500 (gaps of 1 and 3 ms outlast the polling). */
void test_pool_wakes(void) {
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

/* Large scratch is kept between calls (memory.c): a segments row scatter
 * (the sort's arrays: 12 bytes per row) run twice gives the same exact sums from a reused
 * block, and sk_release_cached_memory gives the blocks back. Under
 * AddressSanitizer scratch comes from malloc and nothing is kept; with
 * SCATTERKIT_SCRATCH_CACHE_MB=0 (ctest runs this part that way too) neither. */
void test_scratch_cache(void) {
    enum { T = 3000, ROWS = 90000, C = 16 };
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
        SKT_CHECK(freed >= (size_t)ROWS * 3 * sizeof(int32_t),
                  "%zu bytes cached, expected the sort's arrays", freed);
    SKT_CHECK(sk_release_cached_memory() == 0, "a second release found bytes");
    free(x);
    free(src);
    free(out);
    free(want);
    free(idx);
}
