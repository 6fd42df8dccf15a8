/*
 * test_core.c - the core of the C API: float16/bfloat16 conversion, status
 * strings, the thread-local last error, dtypes, the tensor descriptor,
 * DLPack conversion, the thread-count setting and the thread pool's wakes
 * (one file each under tests/c/core/).
 *
 * Usage: test_core <part> | all. Each part is its own ctest test.
 */
#include "core/core.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

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
    {"threads_default", test_threads_default, true},
    {"pool_wakes", test_pool_wakes, true},
    {"scratch_cache", test_scratch_cache, true},
    {"env_threads", test_env_threads, false},
    {"omp_threads", test_omp_threads, false},
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
