/*
 * test_plan.c - the plan layer alone: sk_plan_normalize drops size-1
 * dimensions, merges dimensions that are contiguous in every stride array at
 * once, keeps the row-major order of the iteration, and reduces an empty
 * plan to one empty dimension and a single element to one dimension of 1.
 * Each case gives the plan before and after (XNNPACK's slice normalisation
 * test in spirit); a second check walks every plan before and after and
 * compares the offsets visited, so any merge that changes the iteration fails.
 */
#include "harness.h"
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

enum { NA = 5 }; /* stride arrays: dense, target, linear, index, aux */

typedef struct {
    const char *what;
    int ndim;
    int64_t shape[6];
    int64_t strides[NA][6];
    int want_ndim;
    int64_t want_shape[6];
    int64_t want_strides[NA][6];
} plan_case;

static const plan_case cases[] = {
    {"contiguous 2-d merges into 1-d", 2, {3, 4}, {{4, 1}, {4, 1}, {4, 1}, {4, 1}, {4, 1}},
     1, {12}, {{1}, {1}, {1}, {1}, {1}}},
    {"size-1 dimensions dropped", 4, {1, 3, 1, 5}, {{99, 5, 7, 1}, {0, 5, 0, 1}, {1, 5, 1, 1},
     {3, 5, 3, 1}, {0, 5, 0, 1}}, 1, {15}, {{1}, {1}, {1}, {1}, {1}}},
    {"one array not contiguous keeps both", 2, {3, 4}, {{4, 1}, {8, 1}, {4, 1}, {4, 1}, {4, 1}},
     2, {3, 4}, {{4, 1}, {8, 1}, {4, 1}, {4, 1}, {4, 1}}},
    {"zero strides merge with zero strides", 2, {3, 4}, {{4, 1}, {0, 0}, {4, 1}, {4, 1}, {0, 0}},
     1, {12}, {{1}, {0}, {1}, {1}, {0}}},
    {"a broadcast dimension does not merge", 2, {3, 4}, {{4, 1}, {0, 1}, {4, 1}, {4, 1}, {4, 1}},
     2, {3, 4}, {{4, 1}, {0, 1}, {4, 1}, {4, 1}, {4, 1}}},
    {"transposed stays 2-d", 2, {3, 4}, {{1, 3}, {1, 3}, {4, 1}, {1, 3}, {1, 3}},
     2, {3, 4}, {{1, 3}, {1, 3}, {4, 1}, {1, 3}, {1, 3}}},
    {"mixed signs merge when each array is contiguous", 2, {3, 4},
     {{-4, -1}, {-4, -1}, {4, 1}, {-4, -1}, {-4, -1}}, 1, {12},
     {{-1}, {-1}, {1}, {-1}, {-1}}},
    {"fully negative contiguous merges", 2, {3, 4},
     {{-4, -1}, {-4, -1}, {-4, -1}, {-4, -1}, {-4, -1}}, 1, {12},
     {{-1}, {-1}, {-1}, {-1}, {-1}}},
    {"inner pair merges, outer gap kept", 3, {2, 3, 4},
     {{24, 4, 1}, {24, 4, 1}, {12, 4, 1}, {12, 4, 1}, {0, 4, 1}}, 2, {2, 12},
     {{24, 1}, {24, 1}, {12, 1}, {12, 1}, {0, 1}}},
    {"empty plan: one empty dimension", 3, {2, 0, 4},
     {{0, 4, 1}, {0, 4, 1}, {0, 4, 1}, {0, 4, 1}, {0, 4, 1}}, 1, {0},
     {{0}, {0}, {0}, {0}, {0}}},
    {"single element: one dimension of 1", 3, {1, 1, 1},
     {{5, 6, 7}, {5, 6, 7}, {5, 6, 7}, {5, 6, 7}, {5, 6, 7}}, 1, {1},
     {{0}, {0}, {0}, {0}, {0}}},
    {"0-d plan", 0, {0}, {{0}}, 1, {1}, {{0}, {0}, {0}, {0}, {0}}},
    {"padded rows do not merge", 2, {3, 4}, {{5, 1}, {5, 1}, {4, 1}, {4, 1}, {4, 1}},
     2, {3, 4}, {{5, 1}, {5, 1}, {4, 1}, {4, 1}, {4, 1}}},
    {"size-1 between mergeable dimensions", 3, {3, 1, 4},
     {{4, 100, 1}, {4, 100, 1}, {4, 100, 1}, {4, 100, 1}, {4, 100, 1}}, 1, {12},
     {{1}, {1}, {1}, {1}, {1}}},
};

static void build(sk_plan *p, const plan_case *c) {
    sk_plan_init(p, "test", SK_DTYPE_FLOAT32);
    for (int d = 0; d < c->ndim; d++)
        sk_plan_add_dim(p, c->shape[d], c->strides[0][d], c->strides[1][d], c->strides[2][d],
                        c->strides[3][d]);
    for (int d = 0; d < c->ndim; d++) p->aux_stride[d] = c->strides[4][d];
}

static int64_t *array_of(sk_plan *p, int a) {
    int64_t *arrays[NA] = {p->dense_stride, p->target_stride, p->linear_stride, p->index_stride,
                           p->aux_stride};
    return arrays[a];
}

/* The offsets of each stride array at row-major position pos of a plan. */
static void offsets_at(sk_plan *p, int64_t pos, int64_t *off) {
    for (int a = 0; a < NA; a++) off[a] = 0;
    for (int d = p->ndim - 1; d >= 0; d--) {
        int64_t i = pos % p->shape[d];
        pos /= p->shape[d];
        for (int a = 0; a < NA; a++) off[a] += i * array_of(p, a)[d];
    }
}

static void check_case(const plan_case *c) {
    sk_plan before, p;
    build(&before, c);
    p = before;
    sk_plan_normalize(&p);
    SKT_CHECK(p.ndim == c->want_ndim, "%s: ndim %d, want %d", c->what, p.ndim, c->want_ndim);
    for (int d = 0; d < c->want_ndim && d < p.ndim; d++) {
        SKT_CHECK(p.shape[d] == c->want_shape[d], "%s: shape[%d] = %lld, want %lld", c->what, d,
                  (long long)p.shape[d], (long long)c->want_shape[d]);
        for (int a = 0; a < NA; a++)
            SKT_CHECK(array_of(&p, a)[d] == c->want_strides[a][d],
                      "%s: stride array %d [%d] = %lld, want %lld", c->what, a, d,
                      (long long)array_of(&p, a)[d], (long long)c->want_strides[a][d]);
    }
    /* the iteration itself is unchanged: same positions, same offsets */
    int64_t n = sk_plan_numel(&before);
    SKT_CHECK(sk_plan_numel(&p) == n, "%s: %lld positions after, %lld before", c->what,
              (long long)sk_plan_numel(&p), (long long)n);
    for (int64_t pos = 0; pos < n; pos++) {
        int64_t a[NA], b[NA];
        offsets_at(&before, pos, a);
        offsets_at(&p, pos, b);
        SKT_CHECK(memcmp(a, b, sizeof a) == 0, "%s: position %lld moved", c->what,
                  (long long)pos);
    }
    /* normalising twice changes nothing */
    sk_plan again = p;
    sk_plan_normalize(&again);
    SKT_CHECK(again.ndim == p.ndim && memcmp(again.shape, p.shape, sizeof p.shape) == 0,
              "%s: not idempotent", c->what);
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
    printf("plan: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}
