/* The staging of segments (segments.h): one window of update rows sorted
 * by bucket, each row copied into its bucket's place as it is placed; or,
 * for segments_direct, only the rows' positions and keys, by group (with
 * at most SK_SEG_SCAN_MAX_GROUPS groups not even those: each group's key
 * range, which its thread scans the keys for).
 *   A. per chunk of the window's rows: their keys, and the chunk's count of
 *      rows per bucket;
 *   B. the counts turned into first positions, bucket by bucket and chunk by
 *      chunk (serial: chunks x buckets is small);
 *   C. per chunk: its rows read in order from src and written with their
 *      keys at their bucket's next places.
 * A bucket's rows keep their position order (C fills each bucket chunk by
 * chunk in order), whichever thread runs which chunk. */
#include "cpu/scatter/segments.h"

#include <stdatomic.h>

static void sk_stage_place(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    int32_t *restrict h = job->hist + chunk * job->nbuckets;
    const int32_t *restrict key = job->key;
    const int sh = job->shift;
    const size_t es = job->p->elem_size, bytes = job->stage_row;
    /* a staging area past the caches is written without reading it first */
    const bool stream = job->src_col == 1 && bytes % 16 == 0 &&
                        (int64_t)(bytes * (size_t)job->wrows) >= SK_STREAM_MIN_BYTES;
    for (int64_t i = i0; i < i1; i++) {
        int32_t k = key[i];
        if (k < 0) continue;
        int32_t at = h[k >> sh]++;
        job->staged_key[at] = k;
        const char *row = job->p->dense + (ptrdiff_t)sk_seg_src_offset(job, job->w0 + i) * (ptrdiff_t)es;
        char *to = job->staged + (size_t)at * bytes;
        if (stream) sk_stream_row(to, row, bytes);
        else sk_move(to, 1, row, job->src_col, job->len, es, false);
    }
    if (stream) sk_stream_fence();
}

void sk_seg_stage(sk_seg_job *job, int nthreads) {
    job->nchunks = sk_seg_sort_chunks(job->wrows);
    int nt = sk_threads_for_work(nthreads, job->wrows * job->len);
    sk_parallel_chunks(nt, job->wrows, job->nchunks, sk_seg_count_chunk, job);
    sk_seg_positions(job);
    sk_parallel_chunks(nt, job->wrows, job->nchunks, sk_stage_place, job);
}

/* ---- direct: positions by group ---- */

/* The most groups of segments_direct: SK_SEG_DIRECT_MAX_GROUPS, or
 * SCATTERKIT_SEG_DIRECT_GROUPS (a tuning override for measuring the two
 * engines against each other on a machine: both give the same bits). */
static int sk_seg_direct_max_groups(void) {
    static atomic_int cached = -1;
    return sk_env_count_once(&cached, "SCATTERKIT_SEG_DIRECT_GROUPS", SK_SEG_DIRECT_MAX_GROUPS,
                           SK_MAX_THREADS);
}

/* The most groups that scan the keys: SK_SEG_SCAN_MAX_GROUPS, or
 * SCATTERKIT_SEG_SCAN_GROUPS (a tuning override of the same kind: 0 places
 * every group's rows; the tests run both ways). */
static int sk_seg_scan_max_groups(void) {
    static atomic_int cached = -1;
    return sk_env_count_once(&cached, "SCATTERKIT_SEG_SCAN_GROUPS", SK_SEG_SCAN_MAX_GROUPS,
                           SK_SEG_SCAN_MAX_GROUPS);
}

bool sk_seg_direct_suits(sk_seg_job *job, const sk_exec *ex) {
    int groups = sk_seg_threads(job, ex), cpus = sk_exec_cpus(ex);
    if (groups > cpus) groups = cpus;
    if (job->src_col != 1 || job->stage_row < SK_SEG_DIRECT_MIN_ROW_BYTES ||
        groups > sk_seg_direct_max_groups())
        return false;
    job->direct = true;
    job->ngroups = groups;
    job->scan = groups <= sk_seg_scan_max_groups();
    job->stage_row = sizeof(int32_t);
    return true;
}

/* The buckets into groups of about equal rows (lead[b]: the first bucket
 * of b's group); sets ngroups to the groups that got buckets. */
static void sk_direct_groups(sk_seg_job *job) {
    const int64_t nb = job->nbuckets, nc = job->nchunks;
    int64_t total = 0;
    for (int64_t b = 0; b < nb; b++) {
        int64_t n = 0;
        for (int64_t c = 0; c < nc; c++) n += job->hist[c * nb + b];
        job->bucket_end[b] = (int32_t)n; /* the bucket's rows, for now */
        total += n;
    }
    int64_t g = 0, seen = 0, first = 0, groups = job->ngroups, ng = 0;
    for (int64_t b = 0; b < nb; b++) {
        job->lead[b] = (int32_t)first;
        ng += first == b;
        seen += job->bucket_end[b];
        if (g + 1 < groups && seen * groups >= (g + 1) * total) {
            g++;
            first = b + 1;
        }
    }
    job->ngroups = ng;
}

/* The first place of each chunk's rows in each group (in hist at the
 * group's lead bucket), and the groups' ends in bucket_end[0, ngroups). */
static void sk_direct_positions(sk_seg_job *job) {
    const int64_t nb = job->nbuckets, nc = job->nchunks;
    int64_t at = 0, g = 0;
    for (int64_t b0 = 0; b0 < nb; g++) {
        int64_t b1 = b0 + 1;
        while (b1 < nb && job->lead[b1] == b0) b1++;
        for (int64_t c = 0; c < nc; c++) {
            int32_t *h = job->hist + c * nb;
            int64_t n = 0;
            for (int64_t b = b0; b < b1; b++) n += h[b];
            h[b0] = (int32_t)at;
            at += n;
        }
        job->bucket_end[g] = (int32_t)at;
        b0 = b1;
    }
}

static void sk_direct_place(void *arg, int tid, int64_t chunk, int64_t i0, int64_t i1) {
    const sk_seg_job *job = arg;
    (void)tid;
    int32_t *restrict h = job->hist + chunk * job->nbuckets;
    const int32_t *restrict key = job->key, *restrict lead = job->lead;
    int32_t *restrict pos = job->staged_pos, *restrict skey = job->staged_key;
    const int sh = job->shift;
    for (int64_t i = i0; i < i1; i++) {
        int32_t k = key[i];
        if (k < 0) continue;
        int32_t at = h[lead[k >> sh]]++;
        skey[at] = k;
        pos[at] = (int32_t)i;
    }
}

/* Scan: each group's keys, from its first bucket (lead[b] == b). */
static void sk_scan_ranges(sk_seg_job *job) {
    int64_t g = 0;
    for (int64_t b = 0; b < job->nbuckets && g < job->ngroups; b++)
        if (job->lead[b] == b) job->scan_lo[g++] = (int32_t)(b << job->shift);
    job->scan_lo[job->ngroups] = (int32_t)job->nwin;
}

void sk_seg_stage_positions(sk_seg_job *job, int nthreads) {
    job->nchunks = sk_seg_sort_chunks(job->wrows);
    int nt = sk_threads_for_work(nthreads, job->wrows);
    sk_parallel_chunks(nt, job->wrows, job->nchunks, sk_seg_count_chunk, job);
    sk_direct_groups(job);
    if (job->scan) {
        sk_scan_ranges(job);
        return;
    }
    sk_direct_positions(job);
    sk_parallel_chunks(nt, job->wrows, job->nchunks, sk_direct_place, job);
}
