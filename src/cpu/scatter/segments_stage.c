/* The staging of segments (segments.h): one window of update rows sorted
 * by bucket, each row copied into its bucket's place as it is placed.
 *   A. per chunk of the window's rows: their keys, and the chunk's count of
 *      rows per bucket;
 *   B. the counts turned into first positions, bucket by bucket and chunk by
 *      chunk (serial: chunks x buckets is small);
 *   C. per chunk: its rows read in order from src and written with their
 *      keys at their bucket's next places.
 * A bucket's rows keep their position order (C fills each bucket chunk by
 * chunk in order), whichever thread runs which chunk. */
#include "cpu/scatter/segments.h"

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
