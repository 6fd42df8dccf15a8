/* The stable counting sort of segments (segments.h): the window's update
 * rows by key, in two levels so that every pass is split among the threads
 * by the data and no thread walks rows that are not its own:
 *   A. per chunk of rows (a number fixed by the problem): each row's window
 *      key, and the chunk's count of rows per bucket (a range of keys);
 *   B. the counts turned into first positions, bucket by bucket and chunk
 *      by chunk (serial: chunks x buckets is small);
 *   C. per chunk: its rows placed into tmp at their bucket's positions;
 *   D. (by key only) per bucket: its rows (in position order) counted and
 *      placed by key into perm, and end[k] set.
 * Rows keep their position order within a bucket (C walks chunks in order
 * into positions laid out chunk by chunk) and within a key (D walks the
 * bucket in order), whichever thread runs which chunk. */
#include "cpu/cursor.h"
#include "cpu/scatter/segments.h"

/* Keys of the rows [r0, r1) of a dense 1-d index naming keys directly (a
 * row's key is its index value: message passing, index_add), without a
 * clip: a loop without branches, which the compiler vectorises. */
#define SK_SEG_DIRECT_KEYS(IT)                                                                     \
    do {                                                                                           \
        const IT *restrict ix = (const IT *)rp->index + r0;                                        \
        for (int64_t i = 0; i < r1 - r0; i++) {                                                    \
            int64_t v = ix[i];                                                                     \
            v += (v >> 63) & n; /* a negative value counts from the end */                         \
            uint64_t k = (uint64_t)(v - k0);                                                       \
            key[r0 + i] = (uint64_t)v < (uint64_t)n && k < nwin ? (int32_t)k : -1;                 \
        }                                                                                          \
    } while (0)

SK_HOT SK_INTERNAL void sk_seg_keys_of(const sk_seg_job *job, int32_t *restrict key, int64_t r0,
                                       int64_t r1) {
    const sk_plan *rp = &job->rows;
    key -= r0;
    const uint64_t nwin = (uint64_t)job->nwin;
    const int64_t k0 = job->k0;
    if (job->rows_tight && rp->index_stride[0] == 1 && rp->comp_linear_stride[0] == 1 &&
        rp->linear_stride[0] == 0 && rp->mode != SK_INDEX_MODE_CLIP) {
        const int64_t n = rp->comp_size[0];
        if (rp->index_is64) SK_SEG_DIRECT_KEYS(int64_t);
        else SK_SEG_DIRECT_KEYS(int32_t);
        return;
    }
    if (job->rows_tight) {
        const int64_t n = rp->comp_size[0], cks = rp->comp_linear_stride[0],
                      is = rp->index_stride[0], ls = rp->linear_stride[0];
        for (int64_t r = r0; r < r1; r++) {
            int64_t v = sk_load_index(rp->index, rp->index_is64, r * is);
            bool ok = sk_resolve_index(v, n, rp->mode, &v);
            int64_t k = v * cks + r * ls - k0;
            key[r] = ok && (uint64_t)k < nwin ? (int32_t)k : -1;
        }
        return;
    }
    sk_cursor c;
    sk_cursor_seek(rp, &c, r0);
    for (int64_t r = r0; r < r1; r++) {
        int64_t toff = 0, lin = c.linear;
        bool ok = sk_plan_resolve(rp, c.index, &toff, &lin);
        int64_t k = lin - k0;
        key[r] = ok && (uint64_t)k < nwin ? (int32_t)k : -1;
        if (r + 1 < r1) sk_cursor_advance(rp, &c, 1);
    }
}

void sk_seg_count_chunk(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    int32_t *restrict key = job->key;
    sk_seg_keys_of(job, key + i0, job->w0 + i0, job->w0 + i1);
    int32_t *restrict h = job->hist + chunk * job->nbuckets;
    memset(h, 0, (size_t)job->nbuckets * sizeof(int32_t));
    const int sh = job->shift;
    for (int64_t i = i0; i < i1; i++)
        if (key[i] >= 0) h[key[i] >> sh]++;
}

int64_t sk_seg_positions(const sk_seg_job *job) {
    int64_t at = 0;
    for (int64_t b = 0; b < job->nbuckets; b++) {
        for (int64_t c = 0; c < job->nchunks; c++) {
            int32_t *h = job->hist + c * job->nbuckets + b;
            int32_t n = *h;
            *h = (int32_t)at;
            at += n;
        }
        job->bucket_end[b] = (int32_t)at;
    }
    return at;
}

/* C: the chunk's rows into tmp by bucket. */
static void sk_seg_place_chunk(void *arg, int tid, int64_t chunk, int64_t r0, int64_t r1) {
    const sk_seg_job *job = arg;
    (void)tid;
    int32_t *restrict h = job->hist + chunk * job->nbuckets;
    const int32_t *restrict key = job->key;
    int32_t *restrict tmp = job->tmp;
    const int sh = job->shift;
    for (int64_t r = r0; r < r1; r++)
        if (key[r] >= 0) tmp[h[key[r] >> sh]++] = (int32_t)r;
}

/* D: buckets [b0, b1) by key into perm. */
static void sk_seg_sort_buckets(void *arg, int tid, int64_t chunk, int64_t b0, int64_t b1) {
    const sk_seg_job *job = arg;
    (void)tid;
    (void)chunk;
    const int32_t *restrict key = job->key, *restrict tmp = job->tmp;
    int32_t *restrict end = job->end, *restrict perm = job->perm;
    for (int64_t b = b0; b < b1; b++) {
        int64_t klo = b << job->shift, khi = (b + 1) << job->shift;
        if (khi > job->nwin) khi = job->nwin;
        int32_t i0 = b > 0 ? job->bucket_end[b - 1] : 0, i1 = job->bucket_end[b];
        memset(end + klo, 0, (size_t)(khi - klo) * sizeof(int32_t));
        for (int32_t i = i0; i < i1; i++) end[key[tmp[i]]]++;
        int32_t at = i0;
        for (int64_t k = klo; k < khi; k++) { /* end[k]: the next free place of key k */
            int32_t n = end[k];
            end[k] = at;
            at += n;
        }
        for (int32_t i = i0; i < i1; i++) perm[end[key[tmp[i]]]++] = tmp[i];
    }
}

void sk_seg_window(sk_seg_job *job, int64_t k0, int64_t nwin, int shift) {
    job->k0 = k0;
    job->nwin = nwin;
    while ((nwin - 1) >> shift >= SK_SEG_BUCKETS) shift++;
    job->shift = shift;
    job->nbuckets = ((nwin - 1) >> shift) + 1;
}

int64_t sk_seg_sort_chunks(int64_t nrows) {
    int64_t n = nrows / SK_SEG_SORT_ROWS;
    return n < 1 ? 1 : n > SK_SEG_SORT_CHUNKS ? SK_SEG_SORT_CHUNKS : n;
}

/* The pieces of sk_seg_sort_all's scratch: key, tmp and perm (rb each),
 * the counts (hb), the bucket ends (bb), end (a key each). */
typedef struct {
    size_t rb, hb, bb, total;
} sk_sort_all_sizes;

static sk_sort_all_sizes sk_sort_all_sizes_of(const sk_seg_job *j, int64_t nrows, int64_t nkeys) {
    sk_sort_all_sizes z;
    z.rb = sk_scratch_round((size_t)nrows * sizeof(int32_t));
    z.hb = sk_scratch_round((size_t)(sk_seg_sort_chunks(nrows) * j->nbuckets) * sizeof(int32_t));
    z.bb = sk_scratch_round((size_t)j->nbuckets * sizeof(int32_t));
    z.total = 3 * z.rb + z.hb + z.bb + (size_t)nkeys * sizeof(int32_t);
    return z;
}

size_t sk_seg_sort_all_bytes(int64_t nrows, int64_t nkeys) {
    sk_seg_job j;
    memset(&j, 0, sizeof j);
    sk_seg_window(&j, 0, nkeys, 0);
    return sk_sort_all_sizes_of(&j, nrows, nkeys).total;
}

bool sk_seg_sort_all(sk_seg_job *job, const sk_plan *rows, int64_t nkeys, int nthreads) {
    memset(job, 0, sizeof *job);
    job->rows = *rows;
    job->nrows = sk_plan_numel(rows);
    job->len = 1;
    job->rows_tight = rows->ndim == 1 && rows->ncomp == 1;
    if (job->nrows <= 0 || job->nrows > INT32_MAX || nkeys <= 0 || nkeys > INT32_MAX) return false;
    job->nchunks = sk_seg_sort_chunks(job->nrows);
    sk_seg_window(job, 0, nkeys, 0);
    sk_sort_all_sizes z = sk_sort_all_sizes_of(job, job->nrows, nkeys);
    job->own_bytes = z.total;
    char *at = job->own = sk_scratch_get(job->own_bytes);
    if (!at) return false;
    job->key = sk_scratch_carve(&at, z.rb);
    job->tmp = sk_scratch_carve(&at, z.rb);
    job->perm = sk_scratch_carve(&at, z.rb);
    job->hist = sk_scratch_carve(&at, z.hb);
    job->bucket_end = sk_scratch_carve(&at, z.bb);
    job->end = (int32_t *)(void *)at;
    sk_seg_sort(job, nthreads, true);
    return true;
}

void sk_seg_sort_free(sk_seg_job *job) {
    if (job->own) sk_scratch_put(job->own, job->own_bytes);
    job->own = NULL;
}

void sk_seg_sort(sk_seg_job *job, int nthreads, bool by_key) {
    int nt = sk_threads_for_work(nthreads, job->nrows);
    sk_parallel_chunks(nt, job->nrows, job->nchunks, sk_seg_count_chunk, job);
    sk_seg_positions(job);
    sk_parallel_chunks(nt, job->nrows, job->nchunks, sk_seg_place_chunk, job);
    if (!by_key) return;
    if (job->shift == 0) { /* a bucket per key (SK_SEG_BUCKETS keys at most): tmp is by key */
        job->perm = job->tmp;
        job->end = job->bucket_end;
        return;
    }
    int bt = sk_threads_for_work(nthreads, job->nrows + job->nwin);
    sk_parallel_chunks(bt, job->nbuckets, sk_chunks_for(bt, job->nbuckets, job->nwin / job->nbuckets + 1),
                       sk_seg_sort_buckets, job);
}
