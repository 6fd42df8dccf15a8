/*
 * test_ops_main.c - the operator tests: one tester per operator of
 * scatterkit_ops.def (kind SK_KIND_FORWARD), each in tests/c/ops/, run by
 * skt_sweep; then testers beyond one operator. `registry` fails when an
 * operator of the .def has no tester.
 *
 * Usage: test_ops <operator> | registry | all. Each is its own ctest test.
 */
#include "tester.h"

#include <stdio.h>
#include <string.h>

/* A tester missing for an operator is a NULL address (weak), not a link error. */
#if defined(__GNUC__)
#define SKT_WEAK __attribute__((weak))
#else
#define SKT_WEAK
#endif
#define SKT_DECLARE_SK_KIND_FORWARD(name) extern const skt_op skt_op_##name SKT_WEAK;
#define SKT_DECLARE_SK_KIND_BACKWARD(name)
#define SKT_DECLARE_SK_KIND_SHAPE(name)
#define SK_OP(name, kind, argspec, call) SKT_DECLARE_##kind(name)
#include "scatterkit_ops.def"
#undef SK_OP

#define SKT_ENTRY_SK_KIND_FORWARD(name) {#name, &skt_op_##name},
#define SKT_ENTRY_SK_KIND_BACKWARD(name)
#define SKT_ENTRY_SK_KIND_SHAPE(name)
#define SK_OP(name, kind, argspec, call) SKT_ENTRY_##kind(name)
static const struct {
    const char *name;
    const skt_op *op; /* NULL: no tester */
} operators[] = {
#include "scatterkit_ops.def"
};
#undef SK_OP

void skt_test_scatter_backward(void);
void skt_test_edge_descriptors(void);
void skt_test_hardening(void);
static void test_registry(void);

static const struct {
    const char *name;
    void (*run)(void);
} others[] = {
    {"scatter_backward", skt_test_scatter_backward},
    {"edge_descriptors", skt_test_edge_descriptors},
    {"hardening", skt_test_hardening},
    {"registry", test_registry},
};

static void test_registry(void) {
    for (size_t i = 0; i < SKT_COUNT(operators); i++) {
        const skt_op *op = operators[i].op;
        SKT_CHECK(op && strcmp(op->name, operators[i].name) == 0,
                  "operator %s (scatterkit_ops.def) has no tester in tests/c/ops/",
                  operators[i].name);
    }
}

static void run_operator(size_t i) {
    if (operators[i].op) skt_sweep(operators[i].op);
    else skt_fail("no tester for operator %s: add tests/c/ops/test_%s.c", operators[i].name,
                  operators[i].name);
}

static void report(const char *name, long f0, long c0) {
    printf("%-18s %8ld checks, %ld failures\n", name, skt_checks - c0, skt_failures - f0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <operator>|registry|all\noperators:", argv[0]);
        for (size_t i = 0; i < SKT_COUNT(operators); i++) fprintf(stderr, " %s", operators[i].name);
        for (size_t i = 0; i < SKT_COUNT(others); i++) fprintf(stderr, " %s", others[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    bool all = strcmp(argv[1], "all") == 0, found = false;
    for (size_t i = 0; i < SKT_COUNT(operators); i++) {
        if (!all && strcmp(argv[1], operators[i].name) != 0) continue;
        found = true;
        long f0 = skt_failures, c0 = skt_checks;
        run_operator(i);
        report(operators[i].name, f0, c0);
    }
    for (size_t i = 0; i < SKT_COUNT(others); i++) {
        if (!all && strcmp(argv[1], others[i].name) != 0) continue;
        found = true;
        long f0 = skt_failures, c0 = skt_checks;
        others[i].run();
        report(others[i].name, f0, c0);
    }
    if (!found) {
        fprintf(stderr, "unknown operator '%s'\n", argv[1]);
        return 2;
    }
    return skt_failures ? 1 : 0;
}
