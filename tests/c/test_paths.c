/*
 * test_paths.c - every path of the CPU path tables (src/cpu/scatter/paths.c,
 * src/cpu/gather/paths.c) on a corpus of problems. Each path is forced in
 * turn (sk_force_kernel); where it applies (sk_last_kernel() names it), its
 * result must equal the reference bit for bit (where it declines, nothing
 * runs). The values are random
 * reals, so that only the canonical order of float sums, means and
 * products (docs/CONTRACT.md) gives the reference's bits; some targets get
 * more than 256 updates (several canonical chunks), and in the hot cases
 * three in four go to one target (segments_hot splits its chunks among
 * threads); a few targets with many rows each go to segments_few, whose
 * threads take stretches of positions across the chunks; a sorted index
 * goes to segments_runs. The unforced
 * call is also run at 1, 3, 7, 16 and 64 threads, and scatters once in
 * place: the same bits (not where the command line names one path). Each
 * scatter case runs again with NaNs of both signs, quiet and signalling,
 * among x and src (sum, prod, amax): the NaN bits of every path are the reference's too. The test fails if some path of a table
 * never applied: a moved threshold cannot silently drop a path from the
 * tests.
 */
#include "harness.h"
#include "ref.h"
#include "cpu/gather/path.h"
#include "cpu/scatter/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SCATTER, INDEX_SCATTER, GATHER, INDEX_SELECT, COPY } op_kind;

typedef struct {
    const char *what;
    op_kind kind;
    int64_t x[2], idx[2], src[2]; /* idx[1] == 0: a 1-d index (index ops) */
    int32_t axis;
    bool expand;     /* scatter: a 1-d index expanded along the columns (stride 0) */
    bool transposed; /* x is laid out column-major */
    bool hot;        /* three index values in four are 0 (a hot target) */
    int sorted;      /* 1: the index sorted (segments_runs); 2: then a few values swapped */
} path_case;

static const path_case corpus[] = {
    {"rows through an expanded index", SCATTER, {1000, 32}, {16384, 32}, {16384, 32}, 0, true, 0, false, 0},
    {"index_add along the last axis", INDEX_SCATTER, {8, 1024}, {4096, 0}, {8, 4096}, 1, 0, 0, false, 0},
    {"elements along the last axis", SCATTER, {64, 1024}, {64, 2048}, {64, 2048}, 1, 0, 0, false, 0},
    {"elements along axis 0", SCATTER, {1024, 1024}, {256, 1024}, {256, 1024}, 0, 0, 0, false, 0},
    {"a few long rows", INDEX_SCATTER, {64, 1024}, {512, 0}, {512, 1024}, 0, 0, 0, false, 0},
    {"a small scatter", SCATTER, {7, 5}, {9, 5}, {9, 5}, 0, 0, 0, false, 0},
    {"gather along the last axis", GATHER, {256, 1024}, {256, 1024}, {0, 0}, 1, 0, 0, false, 0},
    {"gather along axis 0", GATHER, {1024, 4096}, {256, 4096}, {0, 0}, 0, 0, 0, false, 0},
    {"row lookup", INDEX_SELECT, {1000, 32}, {4096, 0}, {0, 0}, 0, 0, 0, false, 0},
    {"gather from a transposed x", GATHER, {1024, 512}, {1024, 512}, {0, 0}, 1, false, true, false, 0},
    {"a copy of a transposed x", COPY, {1024, 512}, {0, 0}, {0, 0}, 0, false, true, false, 0},
    {"a small gather", GATHER, {7, 5}, {3, 5}, {0, 0}, 0, 0, 0, false, 0},
    {"rows into a hot target", INDEX_SCATTER, {50, 17}, {20000, 0}, {20000, 17}, 0, 0, 0, true, 0},
    {"index_add along the last axis, hot", INDEX_SCATTER, {4, 300}, {3000, 0}, {4, 3000}, 1, 0, 0, true, 0},
    {"deep elements along axis 0", SCATTER, {16, 64}, {2048, 64}, {2048, 64}, 0, 0, 0, false, 0},
    {"elements along the last axis, hot", SCATTER, {8, 64}, {8, 2048}, {8, 2048}, 1, 0, 0, true, 0},
    {"long rows of elements along the last axis, hot", SCATTER, {32, 1024}, {32, 2048}, {32, 2048}, 1, 0, 0, true, 0},
    /* more rows than a canonical chunk: tiles counts each target's
     * updates first, and declines the hot case */
    {"many elements along axis 0", SCATTER, {1024, 256}, {600, 256}, {600, 256}, 0, 0, 0, false, 0},
    {"many elements along axis 0, hot", SCATTER, {1024, 256}, {600, 256}, {600, 256}, 0, 0, 0, true, 0},
    /* a 1-d index's budget (16 bytes per row) holds no per-key state for a
     * table of more rows: key windows */
    {"rows into a larger table", INDEX_SCATTER, {40000, 8}, {8192, 0}, {8192, 8}, 0, 0, 0, false, 0},
    {"rows into a larger table, hot", INDEX_SCATTER, {40000, 8}, {8192, 0}, {8192, 8}, 0, 0, 0, true, 0},
    {"rows into as many rows", INDEX_SCATTER, {2500, 16}, {2500, 0}, {2500, 16}, 0, 0, 0, false, 0},
    /* few targets, many rows each (segments_few: stretches of positions);
     * hot, the other targets' chunks run past a stretch: declined */
    {"rows into a few targets", INDEX_SCATTER, {6, 32}, {16384, 0}, {16384, 32}, 0, 0, 0, false, 0},
    {"rows into a few targets, hot", INDEX_SCATTER, {6, 32}, {16384, 0}, {16384, 32}, 0, 0, 0, true, 0},
    {"a few targets through an expanded index", SCATTER, {5, 24}, {20000, 24}, {20000, 24}, 0, true, 0, false, 0},
    /* a sorted index (segments_runs: stretches of whole runs); runs of more
     * than a canonical chunk; a nearly sorted index, which the path checks
     * and declines before it writes (the next path runs) */
    {"rows, a sorted index", INDEX_SCATTER, {1000, 16}, {8192, 0}, {8192, 16}, 0, 0, 0, false, 1},
    {"rows through an expanded sorted index", SCATTER, {500, 8}, {8192, 8}, {8192, 8}, 0, true, 0, false, 1},
    {"rows, a sorted index, long runs", INDEX_SCATTER, {20, 16}, {8192, 0}, {8192, 16}, 0, 0, 0, false, 1},
    {"rows, a nearly sorted index", INDEX_SCATTER, {1000, 16}, {8192, 0}, {8192, 16}, 0, 0, 0, false, 2},
};

static const sk_reduce reduces[] = {SK_REDUCE_NONE, SK_REDUCE_SUM, SK_REDUCE_MEAN,
                                    SK_REDUCE_PROD, SK_REDUCE_AMAX};

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void fill_index(skt_buf *b, const path_case *c, skt_rng *r) {
    int64_t *v = (int64_t *)b->t.data, n = skt_numel(b->t.ndim, b->t.shape);
    for (int64_t i = 0; i < n; i++)
        v[i] = c->hot && skt_range(r, 0, 3) > 0 ? 0 : skt_range(r, 0, c->x[c->axis] - 1);
    if (c->sorted) qsort(v, (size_t)n, sizeof *v, by_value);
    for (int k = 0; c->sorted == 2 && k < 3; k++) { /* a decrease the sample hardly sees */
        int64_t i = skt_range(r, 1, n - 1);
        while (i < n - 1 && v[i - 1] == v[i]) i++;
        int64_t t = v[i];
        v[i] = v[i - 1];
        v[i - 1] = t;
    }
}

/* One call of the case, by the library (ref false) or the reference. */
typedef struct {
    sk_reduce red;
    bool self;
    int threads;
} call_args;

static sk_status call(const path_case *c, bool ref, call_args a, const skt_buf *x,
                      const skt_buf *idx, const skt_buf *src, skt_buf *out) {
    sk_options o = {.num_threads = a.threads};
    switch (c->kind) {
    case SCATTER:
        return (ref ? skref_scatter : sk_scatter)(&x->t, &idx->t, &src->t, c->axis, a.red, a.self,
                                                  SK_INDEX_MODE_ERROR, &out->t, &o);
    case INDEX_SCATTER:
        return (ref ? skref_index_scatter : sk_index_scatter)(
            &x->t, &idx->t, &src->t, c->axis, a.red, a.self, SK_INDEX_MODE_ERROR, &out->t, &o);
    case GATHER:
        return (ref ? skref_gather : sk_gather)(&x->t, &idx->t, c->axis, SK_INDEX_MODE_ERROR,
                                                NULL, &out->t, &o);
    case COPY:
        if (!ref) return sk_copy(&x->t, &out->t, &o);
        for (int64_t i = 0; i < c->x[0]; i++)
            for (int64_t j = 0; j < c->x[1]; j++) {
                int64_t at[2] = {i, j};
                skt_set(out, at, skt_get(x, at));
            }
        return SK_STATUS_OK;
    default:
        return (ref ? skref_index_select : sk_index_select)(&x->t, &idx->t, c->axis,
                                                            SK_INDEX_MODE_ERROR, NULL, &out->t, &o);
    }
}

static void out_shape(const path_case *c, int64_t *shape, int32_t *ndim) {
    *ndim = 2;
    if (c->kind == SCATTER || c->kind == INDEX_SCATTER) {
        memcpy(shape, c->x, sizeof c->x);
    } else if (c->kind == COPY) {
        memcpy(shape, c->x, sizeof c->x);
    } else if (c->kind == GATHER) {
        memcpy(shape, c->idx, sizeof c->idx);
    } else {
        shape[0] = c->idx[0];
        shape[1] = c->x[1];
    }
}

/* The reference's result of the call into `want`, computed once per call
 * and only where a result is compared (with a path forced by name, most
 * calls compare nothing). */
static void want_once(const path_case *c, call_args a, bool *have, skt_buf *const bufs[5]) {
    if (*have) return;
    a.threads = 2;
    SKT_CHECK(call(c, true, a, bufs[0], bufs[1], bufs[2], bufs[3]) == SK_STATUS_OK,
              "%s: the reference failed", c->what);
    *have = true;
}

/* Forces each path of `names` on one call of the case; marks those that
 * applied. Then, unless only one path is tested (`only`), the unforced call
 * at other thread counts. */
static void run_call(const path_case *c, call_args a, const char *const *names, int npaths,
                     bool only, bool *applied, skt_buf *const bufs[5]) {
    const skt_buf *x = bufs[0], *idx = bufs[1], *src = bufs[2];
    skt_buf *want = bufs[3], *got = bufs[4];
    bool have = false;
    a.threads = 2;
    for (int i = 0; i < npaths; i++) {
        memset(got->base, 0x5a, got->nbytes);
        sk_force_kernel(names[i]);
        sk_status st = call(c, false, a, x, idx, src, got);
        sk_force_kernel(NULL);
        if (strcmp(sk_last_kernel(), names[i]) != 0) continue;
        applied[i] = true;
        want_once(c, a, &have, bufs);
        SKT_CHECK(st == SK_STATUS_OK && memcmp(got->base, want->base, got->nbytes) == 0,
                  "%s, reduce %d, include_self %d, path %s: status %d, result differs from the "
                  "reference", c->what, (int)a.red, (int)a.self, names[i], (int)st);
    }
    /* in place (x is out: no copy to start from; paths that start a chunk
     * again take its values from a copy of their own) */
    bool scatter = c->kind == SCATTER || c->kind == INDEX_SCATTER;
    if (!only && scatter && !c->transposed && got->nbytes == x->nbytes) {
        want_once(c, a, &have, bufs);
        memcpy(got->base, x->base, got->nbytes);
        sk_status st = call(c, false, a, got, idx, src, got);
        SKT_CHECK(st == SK_STATUS_OK && memcmp(got->base, want->base, got->nbytes) == 0,
                  "%s, reduce %d, include_self %d, in place (%s): result differs from the "
                  "reference", c->what, (int)a.red, (int)a.self, sk_last_kernel());
    }
    static const int threads[] = {1, 3, 7, 16, 64};
    for (size_t t = 0; !only && a.red == SK_REDUCE_SUM && t < sizeof threads / sizeof threads[0];
         t++) {
        want_once(c, a, &have, bufs);
        a.threads = threads[t];
        memset(got->base, 0x5a, got->nbytes);
        sk_status st = call(c, false, a, x, idx, src, got);
        SKT_CHECK(st == SK_STATUS_OK && memcmp(got->base, want->base, got->nbytes) == 0,
                  "%s, reduce %d, include_self %d, %d threads (%s): result differs from the "
                  "reference", c->what, (int)a.red, (int)a.self, a.threads, sk_last_kernel());
    }
}

/* Half of the NaNs of a float32 buffer made signalling (the quiet bit
 * cleared, a payload kept): a sum or product quiets them, amax keeps them
 * as they are, on every path as in the reference. */
static void make_signalling(skt_buf *b, skt_rng *r) {
    uint32_t *v = (uint32_t *)b->base;
    for (size_t i = 0; i < b->nbytes / sizeof *v; i++)
        if ((v[i] & 0x7fffffffu) > 0x7f800000u && skt_range(r, 0, 1))
            v[i] = (v[i] & 0x80000000u) | 0x7fa00000u;
}

/* The case's buffers, then each reduction (scatters: with and without x). */
static void run_case(const path_case *c, const char *const *names, int npaths, bool only,
                     bool *applied, skt_rng *r) {
    bool scatter = c->kind == SCATTER || c->kind == INDEX_SCATTER;
    int64_t oshape[2];
    int32_t ond;
    out_shape(c, oshape, &ond);
    skt_buf x, idx, src = {0}, want, got;
    skt_make(&x, SK_DTYPE_FLOAT32, 2, c->x, c->transposed ? SKT_TRANSPOSED : SKT_CONTIG, 0, r);
    skt_make(&idx, SK_DTYPE_INT64, c->idx[1] && !c->expand ? 2 : 1, c->idx, SKT_CONTIG, 0, r);
    if (scatter) skt_make(&src, SK_DTYPE_FLOAT32, 2, c->src, SKT_CONTIG, 0, r);
    skt_make(&want, SK_DTYPE_FLOAT32, ond, oshape, SKT_CONTIG, 0, r);
    skt_make(&got, SK_DTYPE_FLOAT32, ond, oshape, SKT_CONTIG, 0, r);
    skt_fill(&x, r, SKT_VAL_REAL);
    if (scatter) skt_fill(&src, r, SKT_VAL_REAL);
    fill_index(&idx, c, r);
    if (c->expand) { /* i[:, None].expand(R, C) */
        idx.t.ndim = 2;
        idx.t.shape[1] = c->idx[1];
        idx.t.strides[1] = 0;
    }
    skt_buf *const bufs[5] = {&x, &idx, &src, &want, &got};
    for (size_t k = 0; k < (scatter ? sizeof reduces / sizeof reduces[0] : 1); k++)
        for (int self = 1; self >= (scatter && reduces[k] != SK_REDUCE_NONE ? 0 : 1); self--) {
            call_args a = {reduces[k], self == 1, 2};
            run_call(c, a, names, npaths, only, applied, bufs);
        }
    /* NaNs of both signs among x and src, one value in six, half of them
     * signalling: where two meet in a sum or product the running value's is
     * kept, every path the same bits as the reference (docs/CHOICES.md) */
    if (scatter) {
        skt_fill(&x, r, SKT_VAL_NAN);
        skt_fill(&src, r, SKT_VAL_NAN);
        make_signalling(&x, r);
        make_signalling(&src, r);
        static const sk_reduce nan_reduces[] = {SK_REDUCE_SUM, SK_REDUCE_PROD, SK_REDUCE_AMAX};
        for (size_t k = 0; k < sizeof nan_reduces / sizeof nan_reduces[0]; k++)
            for (int self = 1; self >= 0; self--) {
                call_args a = {nan_reduces[k], self == 1, 2};
                run_call(c, a, names, npaths, only, applied, bufs);
            }
    }
    skt_free(&x);
    skt_free(&idx);
    if (scatter) skt_free(&src);
    skt_free(&want);
    skt_free(&got);
}

/* test_paths [name]: with a name, only the scatter paths of that name are
 * forced (CMakeLists.txt runs segments_direct again with a tuning
 * variable set). */
int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    const char *scatter_names[16], *gather_names[16];
    bool scatter_applied[16] = {false}, gather_applied[16] = {false};
    int ns = 0, ng = 0;
    for (const sk_path *const *at = sk_cpu_scatter_paths; *at; at++)
        if (!only || strcmp((*at)->name, only) == 0) scatter_names[ns++] = (*at)->name;
    for (const sk_gather_path *const *at = sk_cpu_gather_paths; *at && !only; at++)
        gather_names[ng++] = (*at)->name;
    SKT_CHECK(ns > 0, "no scatter path named %s", only ? only : "");
    skt_rng r;
    skt_seed(&r, 20261127);
    for (size_t c = 0; c < sizeof corpus / sizeof corpus[0]; c++) {
        bool scatter = corpus[c].kind == SCATTER || corpus[c].kind == INDEX_SCATTER;
        if (only && !scatter) continue;
        run_case(&corpus[c], scatter ? scatter_names : gather_names, scatter ? ns : ng,
                 only != NULL, scatter ? scatter_applied : gather_applied, &r);
    }
    for (int i = 0; i < ns; i++)
        SKT_CHECK(scatter_applied[i], "path %s never applied to the corpus", scatter_names[i]);
    for (int i = 0; i < ng; i++)
        SKT_CHECK(gather_applied[i], "path %s never applied to the corpus", gather_names[i]);
    printf("paths: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}
