/*
 * bucketize (scatterkit.distributed): index positions grouped by the rank
 * owning their id, a stable counting sort. Against the reference (src/ref)
 * over random partitions with empty shards, every mode, int32 and int64
 * index and local, strided tensors, at 1, 2 and 3 threads; then the errors:
 * status, message, and no output written.
 */
#include "ref.h"
#include "tester.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    skt_buf index, part, counts, perm, local;
} bk_bufs;

static sk_status bk_call(bk_bufs *b, sk_index_mode mode, bool ref, const sk_options *o) {
    return SKT_PICK(ref, bucketize)(&b->index.t, &b->part.t, mode, &b->counts.t, &b->perm.t,
                                     &b->local.t, o);
}

/* P ranks with random shard sizes (about one in four empty) over `rows`. */
static void bk_partition(skt_buf *part, int64_t nranks, int64_t rows, skt_layout lay, skt_rng *r) {
    int64_t n = nranks + 1, cut[64];
    skt_make(part, SK_DTYPE_INT64, 1, &n, lay, 1, r);
    for (int64_t k = 0; k < n; k++) cut[k] = k == 0 ? 0 : k == nranks ? rows : skt_range(r, 0, rows);
    for (int64_t k = 1; k < nranks; k++) /* sort the inner cuts */
        for (int64_t m = k; m > 1 && cut[m] < cut[m - 1]; m--) {
            int64_t t = cut[m];
            cut[m] = cut[m - 1], cut[m - 1] = t;
        }
    for (int64_t k = 0; k < n; k++) skt_set_index(part, &k, cut[k]);
}

static void bk_outputs(bk_bufs *b, int64_t nranks, int64_t len, sk_dtype local_dt, skt_rng *r) {
    int64_t n = nranks + 1;
    skt_make(&b->counts, SK_DTYPE_INT64, 1, &n, skt_out_layout(r), 1, r);
    skt_make(&b->perm, SK_DTYPE_INT64, 1, &len, skt_out_layout(r), 1, r);
    skt_make(&b->local, local_dt, 1, &len, skt_out_layout(r), 1, r);
}

static void bk_free(bk_bufs *b) {
    skt_free(&b->index), skt_free(&b->part), skt_free(&b->counts), skt_free(&b->perm);
    skt_free(&b->local);
}

static bool bk_same(const bk_bufs *got, const bk_bufs *want, const char *what) {
    char why[256];
    const skt_buf *g[3] = {&got->counts, &got->perm, &got->local};
    const skt_buf *w[3] = {&want->counts, &want->perm, &want->local};
    static const char *const names[3] = {"counts", "perm", "local"};
    for (int k = 0; k < 3; k++) {
        bool same = skt_compare(g[k], w[k], 0, why, sizeof why);
        SKT_CHECK(same, "bucketize %s: %s differs from the reference: %s", what, names[k], why);
        if (!same) return false;
    }
    return true;
}

/* One random case against the reference, at 1, 2, 3 and the default threads. */
static void bk_case(int64_t nranks, int64_t len, int64_t rows, sk_index_mode mode, sk_dtype it,
                    sk_dtype lt, skt_rng *r) {
    bk_bufs want, got;
    memset(&want, 0, sizeof want);
    skt_make(&want.index, it, 1, &len, skt_in_layout(r) % SKT_BROADCAST, 0, r);
    int64_t lo = rows ? -rows : 0, hi = rows ? rows - 1 : 0;
    if (mode != SK_INDEX_MODE_ERROR) lo -= 3, hi += 3;
    skt_fill_index(&want.index, r, -1, &lo, &hi);
    bk_partition(&want.part, nranks, rows, skt_in_layout(r) % SKT_BROADCAST, r);
    bk_outputs(&want, nranks, len, lt, r);
    char what[160];
    snprintf(what, sizeof what, "P=%lld L=%lld rows=%lld mode=%s index=%s local=%s",
             (long long)nranks, (long long)len, (long long)rows, skt_mode_names[mode],
             sk_dtype_name(it), sk_dtype_name(lt));
    bk_bufs fresh = want; /* the outputs before any call: gaps hold the same garbage */
    skt_clone(&fresh.counts, &want.counts), skt_clone(&fresh.perm, &want.perm);
    skt_clone(&fresh.local, &want.local);
    sk_status rs = bk_call(&want, mode, true, NULL);
    SKT_CHECK(rs == SK_STATUS_OK, "bucketize %s: reference status %s", what, sk_status_string(rs));
    for (int32_t nt = 0; nt <= 3; nt++) {
        got = want;
        skt_clone(&got.counts, &fresh.counts), skt_clone(&got.perm, &fresh.perm);
        skt_clone(&got.local, &fresh.local);
        sk_options o = {.num_threads = nt};
        sk_status st = bk_call(&got, mode, false, nt ? &o : NULL);
        SKT_CHECK(st == SK_STATUS_OK, "bucketize %s threads=%d: %s", what, (int)nt, sk_last_error());
        if (st == SK_STATUS_OK) bk_same(&got, &want, what);
        skt_free(&got.counts), skt_free(&got.perm), skt_free(&got.local);
    }
    skt_free(&fresh.counts), skt_free(&fresh.perm), skt_free(&fresh.local);
    bk_free(&want);
}

static void bk_sweep(void) {
    skt_rng r;
    skt_seed(&r, 0xb0c7e7);
    static const sk_index_mode modes[4] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                           SK_INDEX_MODE_DROP, SK_INDEX_MODE_FILL};
    static const int64_t sizes[][3] = {{1, 0, 5}, {1, 17, 5}, {2, 33, 9}, {3, 64, 3},
                                       {4, 100, 40}, {7, 257, 50}, {5, 12, 0}, {40, 3000, 200}};
    for (size_t s = 0; s < SKT_COUNT(sizes); s++)
        for (int m = 0; m < 4; m++)
            for (int k = 0; k < 4; k++) {
                if (sizes[s][2] == 0 && modes[m] == SK_INDEX_MODE_CLIP) continue;
                if (sizes[s][2] == 0 && modes[m] == SK_INDEX_MODE_ERROR && sizes[s][1] > 0) continue;
                bk_case(sizes[s][0], sizes[s][1], sizes[s][2], modes[m], skt_index_dtypes[k & 1],
                        skt_index_dtypes[k >> 1], &r);
            }
    /* many positions: several chunks at every thread count */
    bk_case(4, 300000, 1000, SK_INDEX_MODE_ERROR, SK_DTYPE_INT64, SK_DTYPE_INT32, &r);
    bk_case(3, 200001, 77, SK_INDEX_MODE_FILL, SK_DTYPE_INT32, SK_DTYPE_INT64, &r);
}

/* ---- errors: nothing written, status and message ---- */

static void bk_fixture(bk_bufs *b, int64_t len, skt_rng *r) {
    memset(b, 0, sizeof *b);
    skt_make(&b->index, SK_DTYPE_INT64, 1, &len, SKT_CONTIG, 0, r);
    for (int64_t i = 0; i < len; i++) skt_set_index(&b->index, &i, i % 10);
    int64_t n = 4;
    skt_make(&b->part, SK_DTYPE_INT64, 1, &n, SKT_CONTIG, 0, r);
    const int64_t cuts[4] = {0, 3, 3, 10};
    for (int64_t k = 0; k < 4; k++) skt_set_index(&b->part, &k, cuts[k]);
    bk_outputs(b, 3, len, SK_DTYPE_INT64, r);
}

static void bk_expect(bk_bufs *b, const char *what, sk_index_mode mode, sk_status want,
                      const char *w1, const char *w2) {
    unsigned char *s[3] = {skt_snapshot(&b->counts), skt_snapshot(&b->perm), skt_snapshot(&b->local)};
    sk_status st = bk_call(b, mode, false, &skt_three_threads);
    skt_expect_fail(what, st, want, &b->counts, s[0], w1, w2, NULL);
    SKT_CHECK(memcmp(b->perm.base, s[1], b->perm.nbytes) == 0 &&
                  memcmp(b->local.base, s[2], b->local.nbytes) == 0,
              "%s: the call failed but perm or local was written", what);
    free(s[0]), free(s[1]), free(s[2]);
    bk_free(b);
}

static void bk_set_part(bk_bufs *b, int64_t k, int64_t v) { skt_set_index(&b->part, &k, v); }

static void bk_errors(void) {
    skt_rng r;
    skt_seed(&r, 0xe44);
    bk_bufs b;
    bk_fixture(&b, 50, &r);
    int64_t at = 37;
    skt_set_index(&b.index, &at, 10);
    bk_expect(&b, "an id past the rows", SK_INDEX_MODE_ERROR, SK_STATUS_INDEX_OUT_OF_RANGE,
              "index[37] = 10", "size 10");
    bk_fixture(&b, 50, &r);
    skt_set_index(&b.index, &at, -11);
    bk_expect(&b, "an id below -rows", SK_INDEX_MODE_ERROR, SK_STATUS_INDEX_OUT_OF_RANGE,
              "index[37] = -11", NULL);
    bk_fixture(&b, 50, &r);
    bk_set_part(&b, 2, 2);
    bk_expect(&b, "decreasing offsets", SK_INDEX_MODE_ERROR, SK_STATUS_INVALID_ARGUMENT,
              "partition[2] = 2", "must not decrease");
    bk_fixture(&b, 50, &r);
    bk_set_part(&b, 0, 1);
    bk_expect(&b, "offsets not from 0", SK_INDEX_MODE_CLIP, SK_STATUS_INVALID_ARGUMENT,
              "partition[0]", "start at 0");
    bk_fixture(&b, 50, &r);
    bk_set_part(&b, 3, 0), bk_set_part(&b, 2, 0), bk_set_part(&b, 1, 0);
    bk_expect(&b, "clip into no rows", SK_INDEX_MODE_CLIP, SK_STATUS_INDEX_OUT_OF_RANGE,
              "size 0", NULL);
    bk_fixture(&b, 50, &r);
    b.local.t.dtype = SK_DTYPE_INT32;
    b.local.t.shape[0] = 25;
    bk_set_part(&b, 3, (int64_t)1 << 32), bk_set_part(&b, 2, (int64_t)1 << 32);
    b.index.t.shape[0] = b.perm.t.shape[0] = 25;
    bk_expect(&b, "int32 local, a shard of 2^32 rows", SK_INDEX_MODE_ERROR,
              SK_STATUS_INVALID_DTYPE, "int32", "rank 1");
    bk_fixture(&b, 50, &r);
    b.part.t.dtype = SK_DTYPE_INT32;
    b.part.t.shape[0] = 2;
    bk_expect(&b, "int32 partition", SK_INDEX_MODE_ERROR, SK_STATUS_INVALID_DTYPE, "partition",
              "int64");
    bk_fixture(&b, 50, &r);
    b.counts.t.shape[0] = 3;
    bk_expect(&b, "counts of P entries", SK_INDEX_MODE_ERROR, SK_STATUS_INVALID_SHAPE, "counts",
              NULL);
    bk_fixture(&b, 50, &r);
    b.local.t = b.perm.t;
    bk_expect(&b, "local is perm", SK_INDEX_MODE_ERROR, SK_STATUS_OVERLAP, "local", "perm");
    bk_fixture(&b, 50, &r);
    b.index.t.ndim = 2, b.index.t.shape[0] = 5, b.index.t.shape[1] = 10;
    b.index.t.strides[0] = 10, b.index.t.strides[1] = 1;
    bk_expect(&b, "a 2-d index", SK_INDEX_MODE_ERROR, SK_STATUS_INVALID_SHAPE, "1-d", NULL);
    bk_fixture(&b, 50, &r);
    bk_expect(&b, "mode 9", (sk_index_mode)9, SK_STATUS_INVALID_ARGUMENT, "mode", NULL);
}

static void bk_extra(void) {
    bk_sweep();
    bk_errors();
}

const skt_op skt_op_bucketize = {
    .name = "bucketize",
    .requires = {SKT_SYMBOL(sk_bucketize)},
    .extra = bk_extra,
};
