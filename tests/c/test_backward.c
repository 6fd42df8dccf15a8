/*
 * test_backward.c - every sk_<op>_backward against skref_<op>_backward
 * (src/ref) over sweeps of shapes (0-d, zero-size, duplicates, hot
 * targets), the floating dtypes, int32/int64 indices, every reduction and
 * include_self, the index modes (negative and out-of-range values), and
 * stride layouts, at 1 and 3 threads. Exact where no float sum is formed;
 * gradients that sum several terms get a per-dtype tolerance (the library
 * does not follow the canonical order (docs/CONTRACT.md) on every path yet).
 *
 * Usage: test_backward <operator> | all. Each operator is its own ctest test.
 * This file: the runner, the builders and the gather-type operators;
 * test_backward_scatter.c: the scatter-type ones.
 */
#include "test_backward.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sk_dtype bwd_dtypes[4] = {SK_DTYPE_FLOAT16, SK_DTYPE_BFLOAT16, SK_DTYPE_FLOAT32,
                                SK_DTYPE_FLOAT64};
const sk_dtype bwd_index_dt[2] = {SK_DTYPE_INT32, SK_DTYPE_INT64};

void bwd_desc(char *buf, size_t n, const char *what, const bwd_args *a) {
    const skt_buf *g = a->grad_out;
    snprintf(buf, n, "%s %s reduce=%s self=%d mode=%s", what, sk_dtype_name(g->t.dtype),
             skt_reduce_names[a->reduce], (int)a->include_self, skt_mode_names[a->mode]);
    if (a->x) skt_desc(buf, n, "x", &a->x->t);
    if (a->index) skt_desc(buf, n, "index", &a->index->t);
    if (a->src) skt_desc(buf, n, "src", &a->src->t);
    if (a->mask) skt_desc(buf, n, "mask", &a->mask->t);
    skt_desc(buf, n, "grad_out", &g->t);
}

static void bwd_clone(skt_buf *dst, const skt_buf *src) {
    if (src) skt_clone(dst, src);
    else dst->base = NULL;
}

static void bwd_free(skt_buf *b) {
    if (b->base) skt_free(b);
}

/* Compares one gradient output of the library with the reference's. */
static void bwd_compare(const char *what, const char *name, const skt_buf *got,
                        const skt_buf *want, double tol) {
    char why[512];
    skt_checks++;
    if (want->base && !skt_compare(got, want, tol, why, sizeof why))
        skt_fail("%s [threads=1]: %s: %s", what, name, why);
}

/* The library at 1 and 3 threads against want[] (the reference's result). */
static void bwd_run_library(const char *what, bwd_fn fn, const bwd_args *a,
                            const skt_buf *const g0[2], skt_buf want[2], sk_status rs, double tol) {
    skt_buf first[2] = {{0}, {0}};
    for (int nt = 1; nt <= 3; nt += 2) {
        sk_options opts = {.num_threads = nt};
        skt_buf got[2];
        bwd_clone(&got[0], g0[0]);
        bwd_clone(&got[1], g0[1]);
        sk_status st = fn(a, got[0].base ? &got[0].t : NULL, got[1].base ? &got[1].t : NULL,
                          &opts, false);
        skt_checks++;
        bool unwritten = true;
        for (int k = 0; k < 2; k++)
            if (g0[k] && memcmp(got[k].base, g0[k]->base, g0[k]->nbytes) != 0) unwritten = false;
        if (st != rs) {
            skt_fail("%s [threads=%d]: expected status '%s', got '%s' (%s)", what, nt,
                     sk_status_string(rs), sk_status_string(st), sk_last_error());
        } else if (rs != SK_STATUS_OK) {
            SKT_CHECK(unwritten, "%s [threads=%d]: failed but wrote a gradient", what, nt);
        } else if (nt == 1) {
            bwd_compare(what, "grad_x", &got[0], &want[0], tol);
            bwd_compare(what, "grad_src", &got[1], &want[1], tol);
            first[0] = got[0], first[1] = got[1];
            continue;
        } else {
            for (int k = 0; k < 2; k++)
                SKT_CHECK(!got[k].base || !first[k].base ||
                              !memcmp(got[k].base, first[k].base, got[k].nbytes),
                          "%s: gradient %d at 3 threads differs from 1 thread", what, k);
        }
        bwd_free(&got[0]);
        bwd_free(&got[1]);
    }
    bwd_free(&first[0]);
    bwd_free(&first[1]);
}

void bwd_run(const char *what, bwd_fn fn, const bwd_args *a, const skt_buf *g1, const skt_buf *g2,
             double tol) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("SKT_VERBOSE") != NULL;
    if (verbose) printf("case: %s\n", what);
    const skt_buf *inputs[] = {a->x, a->index, a->src, a->out, a->grad_out, a->mask};
    unsigned char *snaps[COUNT(inputs)];
    for (size_t i = 0; i < COUNT(inputs); i++) snaps[i] = skt_snapshot(inputs[i]);
    const skt_buf *g0[2] = {g1, g2};
    skt_buf want[2];
    bwd_clone(&want[0], g1);
    bwd_clone(&want[1], g2);
    sk_status rs = fn(a, want[0].base ? &want[0].t : NULL, want[1].base ? &want[1].t : NULL, NULL,
                      true);
    skt_checks++;
    if (rs != SK_STATUS_OK && rs != SK_STATUS_INDEX_OUT_OF_RANGE)
        skt_fail("%s: the reference failed with %s (test bug)", what, sk_status_string(rs));
    else bwd_run_library(what, fn, a, g0, want, rs, tol);
    bwd_free(&want[0]);
    bwd_free(&want[1]);
    for (size_t i = 0; i < COUNT(inputs); i++) {
        if (!inputs[i]) continue;
        SKT_CHECK(!memcmp(inputs[i]->base, snaps[i], inputs[i]->nbytes),
                  "%s: the library modified input #%zu", what, i);
        free(snaps[i]);
    }
}

void bwd_input(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_values v,
               skt_rng *r) {
    skt_make(b, dt, ndim, shape, (skt_layout)skt_range(r, 0, SKT_LAYOUT_COUNT - 1), 0, r);
    skt_fill(b, r, v);
}

void bwd_output(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_rng *r) {
    skt_make(b, dt, ndim, shape, (skt_layout)skt_range(r, 0, SKT_OUT_LAYOUTS - 1), 0, r);
}

void bwd_index(skt_buf *b, sk_dtype it, int32_t ndim, const int64_t *shape, int32_t comp_dim,
               const int64_t *n, sk_index_mode mode, bool hot, skt_rng *r) {
    int64_t lo[SK_MAX_DIMS], hi[SK_MAX_DIMS];
    int32_t ncomp = comp_dim >= 0 ? (int32_t)shape[comp_dim] : 1;
    for (int32_t k = 0; k < ncomp && k < SK_MAX_DIMS; k++) {
        bool valid = mode == SK_INDEX_MODE_ERROR && n[k] > 0;
        lo[k] = valid ? -n[k] : -n[k] - 3;
        hi[k] = valid ? n[k] - 1 : n[k] + 2;
        if (hot && n[k] > 0) lo[k] = -1, hi[k] = 0;
    }
    uint32_t no_bcast = comp_dim >= 0 ? 1u << comp_dim : 0;
    skt_make(b, it, ndim, shape, (skt_layout)skt_range(r, 0, SKT_LAYOUT_COUNT - 1), no_bcast, r);
    skt_fill_index(b, r, comp_dim, lo, hi);
    if (mode == SK_INDEX_MODE_ERROR || hot) return;
    /* every value is legal outside error mode: the extremes at a few positions */
    bool i32 = it == SK_DTYPE_INT32;
    int64_t total = skt_numel(ndim, shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < total; i++) {
        uint64_t v = skt_next(r) % 24;
        if (v > 1) continue;
        skt_unravel(i, ndim, shape, c);
        skt_set_index(b, c, v ? (i32 ? INT32_MAX : INT64_MAX) : (i32 ? INT32_MIN : INT64_MIN));
    }
}

void bwd_fill_values(skt_buf *b, sk_reduce reduce, skt_rng *r) {
    bool extreme = reduce == SK_REDUCE_AMAX || reduce == SK_REDUCE_AMIN;
    skt_fill(b, r, reduce == SK_REDUCE_PROD ? SKT_VAL_UNIT : extreme ? SKT_VAL_NAN : SKT_VAL_SMALL);
    if (reduce != SK_REDUCE_PROD) return;
    int64_t n = skt_numel(b->t.ndim, b->t.shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        if (skt_next(r) % 5) continue;
        skt_unravel(i, b->t.ndim, b->t.shape, c);
        skt_set(b, c, 0.0);
    }
}

/* ---- gather-type: grad_x is a scatter-sum, so compared within tolerance ---- */

static sk_status call_gather(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                             const sk_options *o, bool ref) {
    (void)g2;
    return PICK(ref, gather_backward)(T(a->grad_out), T(a->index), a->axis, a->mode, g1, o);
}
static sk_status call_gather_axes(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                  const sk_options *o, bool ref) {
    (void)g2;
    return PICK(ref, gather_axes_backward)(T(a->grad_out), T(a->index), a->axes, a->naxes,
                                           a->mode, g1, o);
}
static sk_status call_index_select(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                   const sk_options *o, bool ref) {
    (void)g2;
    return PICK(ref, index_select_backward)(T(a->grad_out), T(a->index), a->axis, a->mode, g1, o);
}
static sk_status call_gather_nd(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                const sk_options *o, bool ref) {
    (void)g2;
    return PICK(ref, gather_nd_backward)(T(a->grad_out), T(a->index), a->batch_dims, a->mode, g1,
                                         o);
}
static sk_status call_masked_select(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                    const sk_options *o, bool ref) {
    (void)g2;
    return PICK(ref, masked_select_backward)(T(a->grad_out), T(a->mask), g1, o);
}

/* One gather-type case family: x's shape, the index's shape, the axis
 * argument (axis, the axes, or batch_dims), and the output's shape. */
typedef enum { G_GATHER, G_AXES, G_SELECT, G_ND } gather_kind;
typedef struct {
    gather_kind kind;
    skt_shape x, idx;
    int32_t axis;      /* axis, or batch_dims */
    int32_t naxes, axes[3];
    bool hot;
} gather_case;

static const gather_case gather_cases[] = {
    {G_GATHER, {1, {5}}, {1, {9}}, 0, 0, {0}, false},
    {G_GATHER, {2, {4, 3}}, {2, {6, 3}}, 0, 0, {0}, false},
    {G_GATHER, {3, {3, 4, 5}}, {3, {2, 6, 5}}, -2, 0, {0}, false},
    {G_GATHER, {2, {4, 3}}, {2, {0, 3}}, 0, 0, {0}, false},
    {G_GATHER, {2, {3, 0}}, {2, {3, 2}}, 1, 0, {0}, false}, /* empty axis */
    {G_GATHER, {2, {3, 2}}, {2, {700, 2}}, 0, 0, {0}, true}, /* over 256 per target */
    {G_GATHER, {2, {64, 300}}, {2, {64, 600}}, 1, 0, {0}, false},
    {G_AXES, {2, {4, 5}}, {3, {3, 6, 2}}, 0, 2, {0, 1}, false},
    {G_AXES, {3, {3, 4, 5}}, {4, {2, 4, 3, 1}}, 0, 1, {-2}, false},
    {G_AXES, {3, {3, 4, 5}}, {4, {5, 2, 2, 2}}, 0, 2, {2, 0}, false},
    {G_AXES, {3, {2, 2, 5}}, {4, {300, 3, 5, 2}}, 0, 2, {0, 1}, true},
    {G_SELECT, {1, {5}}, {0, {0}}, 0, 0, {0}, false}, /* 0-d index: 0-d out */
    {G_SELECT, {2, {4, 3}}, {2, {2, 5}}, -1, 0, {0}, false},
    {G_SELECT, {3, {3, 4, 5}}, {1, {9}}, 1, 0, {0}, false},
    {G_SELECT, {2, {4, 3}}, {1, {0}}, 0, 0, {0}, false},
    {G_SELECT, {2, {6, 200}}, {1, {400}}, 0, 0, {0}, true},
    {G_ND, {2, {4, 3}}, {2, {5, 2}}, 0, 0, {0}, false},
    {G_ND, {2, {4, 3}}, {1, {2}}, 0, 0, {0}, false}, /* 0-d out */
    {G_ND, {3, {2, 3, 4}}, {3, {2, 5, 2}}, 1, 0, {0}, false},
    {G_ND, {3, {2, 3, 4}}, {3, {2, 300, 1}}, 1, 0, {0}, true},
    {G_ND, {2, {0, 3}}, {2, {2, 1}}, 0, 0, {0}, false},
};

/* out's shape, and the axis sizes the index components address. */
static void gather_geometry(const gather_case *c, skt_shape *out, int64_t *n, int32_t *comp) {
    int32_t x = c->x.ndim, ax = c->axis < 0 ? c->axis + x : c->axis;
    out->ndim = 0;
    *comp = -1;
    if (c->kind == G_GATHER) {
        *out = c->idx;
        n[0] = c->x.d[ax];
    } else if (c->kind == G_AXES) {
        out->ndim = c->idx.ndim - 1;
        for (int32_t d = 0; d < out->ndim; d++) out->d[d] = c->idx.d[d];
        for (int32_t k = 0; k < c->naxes; k++) n[k] = c->x.d[(c->axes[k] + x) % x];
        *comp = out->ndim;
    } else if (c->kind == G_SELECT) {
        for (int32_t d = 0; d < x; d++) {
            if (d != ax) out->d[out->ndim++] = c->x.d[d];
            for (int32_t e = 0; d == ax && e < c->idx.ndim; e++) out->d[out->ndim++] = c->idx.d[e];
        }
        n[0] = c->x.d[ax];
    } else {
        int32_t k = (int32_t)c->idx.d[c->idx.ndim - 1];
        for (int32_t d = 0; d < c->idx.ndim - 1; d++) out->d[out->ndim++] = c->idx.d[d];
        for (int32_t d = c->axis + k; d < x; d++) out->d[out->ndim++] = c->x.d[d];
        for (int32_t j = 0; j < k; j++) n[j] = c->x.d[c->axis + j];
        *comp = c->idx.ndim - 1;
    }
}

static void run_gather_case(const gather_case *c, sk_dtype dt, sk_dtype it, sk_index_mode mode,
                            skt_rng *r) {
    static const bwd_fn fns[] = {call_gather, call_gather_axes, call_index_select, call_gather_nd};
    static const char *const names[] = {"gather_backward", "gather_axes_backward",
                                        "index_select_backward", "gather_nd_backward"};
    skt_shape os;
    int64_t n[SK_MAX_DIMS];
    int32_t comp;
    gather_geometry(c, &os, n, &comp);
    skt_buf idx, go, gx;
    bwd_index(&idx, it, c->idx.ndim, c->idx.d, comp, n, mode, c->hot, r);
    bwd_input(&go, dt, os.ndim, os.d, SKT_VAL_SMALL, r);
    bwd_output(&gx, dt, c->x.ndim, c->x.d, r);
    bwd_args a = {.index = &idx, .grad_out = &go, .axis = c->axis, .batch_dims = c->axis,
                  .naxes = c->naxes, .mode = mode};
    memcpy(a.axes, c->axes, sizeof c->axes);
    char what[1024];
    bwd_desc(what, sizeof what, names[c->kind], &a);
    bwd_run(what, fns[c->kind], &a, &gx, NULL, skt_tolerance(dt));
    skt_free(&idx);
    skt_free(&go);
    skt_free(&gx);
}

static void test_gather_kind(gather_kind kind, uint64_t seed) {
    static const sk_index_mode modes[] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                          SK_INDEX_MODE_FILL};
    skt_rng r;
    skt_seed(&r, seed);
    for (size_t ci = 0; ci < COUNT(gather_cases); ci++)
        for (int di = 0; di < 4; di++)
            for (int ii = 0; ii < 2; ii++)
                for (size_t mi = 0; mi < COUNT(modes); mi++)
                    if (gather_cases[ci].kind == kind)
                        run_gather_case(&gather_cases[ci], bwd_dtypes[di], bwd_index_dt[ii],
                                        modes[mi], &r);
}

static void test_gather_bwd(void) { test_gather_kind(G_GATHER, 301); }
static void test_gather_axes_bwd(void) { test_gather_kind(G_AXES, 302); }
static void test_index_select_bwd(void) { test_gather_kind(G_SELECT, 303); }
static void test_gather_nd_bwd(void) { test_gather_kind(G_ND, 304); }

/* x (grad_x's shape) may broadcast against the mask either way. The last
 * five, with a row-major mask, take the runs kernel (backward/mask_sum.c)
 * past a chunk of 256: runs along x's last dimension after 700 broadcast
 * rows; runs within one x row; one x element across three outer blocks;
 * a single x element; more outer blocks than the kernel counts apart. */
static const skt_shape mask_cases[][2] = {
    {{0, {0}}, {0, {0}}},       {{1, {5}}, {1, {5}}},       {{2, {4, 3}}, {1, {3}}},
    {{1, {3}}, {2, {4, 3}}},    {{2, {4, 1}}, {2, {4, 3}}}, {{3, {2, 3, 4}}, {3, {1, 3, 1}}},
    {{2, {1, 3}}, {3, {2, 4, 1}}}, {{2, {0, 3}}, {1, {3}}}, {{2, {400, 1}}, {2, {400, 256}}},
    {{2, {300, 256}}, {2, {300, 256}}}, {{2, {1, 40}}, {2, {700, 40}}},
    {{1, {0}}, {2, {4, 1}}},
    {{2, {1, 300}}, {2, {700, 300}}}, {{3, {5, 1, 3}}, {3, {5, 600, 3}}},
    {{3, {1, 4, 1}}, {3, {3, 4, 700}}}, {{1, {1}}, {2, {30, 40}}},
    {{2, {1, 3}}, {2, {70000, 3}}},
};

static void test_masked_select_bwd(void) {
    skt_rng r;
    skt_seed(&r, 305);
    for (size_t ci = 0; ci < COUNT(mask_cases); ci++)
        for (int di = 0; di < 4; di++)
            for (int pct = 0; pct <= 100; pct += 50) {
                const skt_shape *xs = &mask_cases[ci][0], *ms = &mask_cases[ci][1];
                skt_buf mask, go, gx;
                /* a row-major mask half the time: the runs kernel's */
                skt_layout ml = (di + pct / 50) % 2 == 0
                                    ? SKT_CONTIG
                                    : (skt_layout)skt_range(&r, 0, SKT_LAYOUT_COUNT - 1);
                skt_make(&mask, SK_DTYPE_BOOL, ms->ndim, ms->d, ml, 0, &r);
                skt_fill_mask(&mask, &r, pct);
                bwd_output(&gx, bwd_dtypes[di], xs->ndim, xs->d, &r);
                int64_t count = 0;
                if (sk_masked_select_count(&gx.t, &mask.t, &count, NULL) != SK_STATUS_OK)
                    skt_fail("masked_select_count: %s", sk_last_error());
                bwd_input(&go, bwd_dtypes[di], 1, &count, SKT_VAL_SMALL, &r);
                bwd_args a = {.grad_out = &go, .mask = &mask};
                char what[1024];
                bwd_desc(what, sizeof what, "masked_select_backward", &a);
                skt_desc(what, sizeof what, "grad_x", &gx.t);
                /* the reference folds the same contributors in the same order: exact */
                bwd_run(what, call_masked_select, &a, &gx, NULL, 0.0);
                skt_free(&mask);
                skt_free(&go);
                skt_free(&gx);
            }
}

static const struct {
    const char *name;
    void (*run)(void);
} testers[] = {
    {"gather", test_gather_bwd},
    {"gather_axes", test_gather_axes_bwd},
    {"index_select", test_index_select_bwd},
    {"gather_nd", test_gather_nd_bwd},
    {"masked_select", test_masked_select_bwd},
    {"scatter", test_scatter_bwd},
    {"scatter_axes", test_scatter_axes_bwd},
    {"index_scatter", test_index_scatter_bwd},
    {"scatter_nd", test_scatter_nd_bwd},
    {"slice_scatter", test_slice_scatter_bwd},
    {"diagonal_scatter", test_diagonal_scatter_bwd},
    {"select_scatter", test_select_scatter_bwd},
    {"masked_scatter", test_masked_scatter_bwd},
    {"tensor_scatter", test_tensor_scatter_bwd},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <operator>|all\noperators:", argv[0]);
        for (size_t i = 0; i < COUNT(testers); i++) fprintf(stderr, " %s", testers[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    bool found = false;
    for (size_t i = 0; i < COUNT(testers); i++) {
        if (strcmp(argv[1], "all") != 0 && strcmp(argv[1], testers[i].name) != 0) continue;
        found = true;
        long f0 = skt_failures, c0 = skt_checks;
        testers[i].run();
        printf("%-18s %8ld checks, %ld failures\n", testers[i].name, skt_checks - c0,
               skt_failures - f0);
    }
    if (!found) {
        fprintf(stderr, "unknown operator '%s'\n", argv[1]);
        return 2;
    }
    return skt_failures ? 1 : 0;
}
