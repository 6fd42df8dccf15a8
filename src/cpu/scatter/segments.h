/* Segments (segments.c): the job shared by the path, its sort and staging
 * (segments_sort.c, segments_stage.c) and its fold kernels
 * (segments_fold.h).
 *
 * Update rows are sorted by target ("key": a target row, or a target
 * element when rows are single elements) with a stable counting sort into
 * buckets of keys, and each row is copied into its bucket's staging area
 * as it is placed: src is read once, in order, by every thread in its own
 * chunk of rows. A bucket is then folded by one thread, reading its staged
 * rows in position order into each key's row, chunk by chunk of
 * SK_CANONICAL_CHUNK rows: the canonical order (docs/CONTRACT.md) by
 * construction, whichever thread runs which chunk or bucket. Where the
 * staging area does not fit the scratch budget, the rows go a window of
 * rows at a time, in order; a key's running count and value live on
 * between windows (in a working row per key, or in out).
 * The sort's second level (by key within a bucket, into perm and end)
 * serves passes that go key by key (the scatter backward's counts). */
#ifndef SK_CPU_SCATTER_SEGMENTS_H
#define SK_CPU_SCATTER_SEGMENTS_H

#include <stdatomic.h>

#include "cpu/scatter/path.h"

typedef struct sk_seg_job sk_seg_job;
/* Folds the staged rows of bucket b (segments_fold_body.h). */
typedef void (*sk_seg_bucket_fn)(const sk_seg_job *, int64_t b);
/* Finishes keys [klo, khi): the last partial, mean's division, 16-bit rounding. */
typedef void (*sk_seg_finish_fn)(const sk_seg_job *, int64_t klo, int64_t khi);

struct sk_seg_job {
    const sk_plan *p;
    const sk_exec *ex;
    sk_plan rows;                /* the row dimensions; linear strides count keys */
    int64_t nrows, len, nkeys;   /* update rows, elements per row, keys of out */
    int64_t src_col;             /* src's stride within a row, in elements */
    bool rows_tight;             /* one row dimension, one component: no cursor */
    bool out_row_major;          /* key k's row of out starts at k * len */
    size_t acc_size;             /* bytes of a value where keys accumulate */
    /* the keys [k0, k0 + nwin) this sort takes: the scatter path takes
     * them kwin at a time where per-key state for all would not fit the
     * budget (each key window reads the index again) */
    int64_t k0, nwin, kwin;
    int shift;                   /* bucket of a key: key >> shift */
    int64_t nbuckets, nchunks;   /* buckets; row chunks of the key and bucket passes */
    int32_t *key;                /* key of each row (of the window), or -1 (dropped) */
    int32_t *hist;               /* [nchunks][nbuckets]: counts, then first positions */
    int32_t *bucket_end;         /* [nbuckets]: end of each bucket in tmp / staging */
    int32_t *tmp;                /* rows by bucket, in position order within a bucket */
    int32_t *perm;               /* second level: rows by key (position order within a key) */
    int32_t *end;                /* second level: [nwin] end of key k in perm (start: end[k-1]) */
    /* the scatter path's staging of one window of rows [w0, w0 + wrows) */
    int64_t w0, wrows, win_rows;
    char *staged;                /* rows by bucket, stage_row bytes apart */
    int32_t *staged_key;
    size_t stage_row;
    /* direct (segments_direct.c): instead of staged rows, the window
     * positions of the rows by group (ngroups ranges of buckets, one per
     * thread, staged_pos = staged), read from src where the fold needs
     * them; lead[b]: the first bucket of b's group */
    bool direct;
    int64_t ngroups;
    int32_t *staged_pos, *lead;
    /* direct with at most SK_SEG_SCAN_MAX_GROUPS groups: no positions are
     * placed; group g's thread scans the window's keys for its own, the
     * keys [scan_lo[g], scan_lo[g + 1]) (sk_seg_direct_suits) */
    bool scan;
    int32_t scan_lo[SK_SEG_SCAN_MAX_GROUPS + 1];
    /* per key: rows folded so far, and the slot of its partial row (the
     * canonical chunk in progress past the first), -1 for none */
    int32_t *seen, *part_slot;
    char *parts;                 /* partial rows, len values of acc_size each */
    _Atomic int32_t *next_part;  /* the next free partial slot */
    /* a working row per key on the scratch's huge pages (float32 for 16-bit
     * types, which need it; others where the budget has room), else NULL:
     * keys accumulate in out */
    char *acc;
    bool use_acc;                /* the layout: whether acc is kept */
    bool acc_from_x;             /* acc holds x's rows before the fold (an ordered copy) */
    /* with acc, x's data when the path fuses the copy (x and out row-major,
     * whole rows): start values are read from it and untouched rows copied
     * by the finish; NULL when out holds x's copy already */
    const char *copy_src;
    void *own;                   /* sk_seg_sort_all's scratch, own_bytes long */
    size_t own_bytes;
    sk_seg_bucket_fn fold_bucket;
    sk_seg_finish_fn finish;
};

SK_INLINE int64_t sk_seg_begin(const sk_seg_job *job, int64_t k) {
    return k > 0 ? job->end[k - 1] : 0;
}
/* Element offset of key k's row in out. */
SK_INLINE int64_t sk_seg_out_offset(const sk_seg_job *job, int64_t k) {
    int64_t lin = (job->k0 + k) * job->len;
    return job->out_row_major ? lin : sk_offset_of_linear(job->ex->out, lin);
}
/* Where key k's start values (x's row) are. */
SK_INLINE const char *sk_seg_x_row(const sk_seg_job *job, int64_t k, size_t es) {
    if (job->copy_src) return job->copy_src + (size_t)((job->k0 + k) * job->len) * es;
    return job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)es;
}
/* Element offset of update row r's first element in src. */
SK_INLINE int64_t sk_seg_src_offset(const sk_seg_job *job, int64_t r) {
    const sk_plan *rp = &job->rows;
    if (rp->ndim == 1) return r * rp->dense_stride[0];
    int64_t off = 0;
    for (int d = rp->ndim - 1; d >= 0; d--) {
        off += r % rp->shape[d] * rp->dense_stride[d];
        r /= rp->shape[d];
    }
    return off;
}

/* The window's row i (in position order) where it is in src. */
SK_INLINE const char *sk_seg_src_row(const sk_seg_job *job, int64_t i) {
    int64_t r = job->w0 + i;
    return job->p->dense + (ptrdiff_t)sk_seg_src_offset(job, r) * (ptrdiff_t)job->p->elem_size;
}
/* The window's rows in src for a loop over them, kept in its locals (the
 * loop's stores through char pointers may alias the job, whose fields the
 * compiler would otherwise read again at every row): with one row
 * dimension (flat) row i is at + i * step, else sk_seg_src_row's offsets. */
typedef struct sk_seg_src_rows {
    const char *at;
    ptrdiff_t step;
    bool flat;
} sk_seg_src_rows;
SK_INLINE sk_seg_src_rows sk_seg_src_rows_of(const sk_seg_job *job) {
    sk_seg_src_rows s = {NULL, 0, job->rows.ndim == 1};
    if (s.flat) {
        s.step = (ptrdiff_t)job->rows.dense_stride[0] * (ptrdiff_t)job->p->elem_size;
        s.at = job->p->dense + (ptrdiff_t)job->w0 * s.step;
    }
    return s;
}
SK_INLINE const char *sk_seg_src_rows_at(const sk_seg_job *job, const sk_seg_src_rows *s,
                                         int64_t i) {
    return s->flat ? s->at + (ptrdiff_t)i * s->step : sk_seg_src_row(job, i);
}
/* The lines a loop's look-ahead asks for of a src row (sk_prefetch_lines_l2). */
SK_INLINE int sk_seg_src_lines(const sk_seg_job *job, const sk_seg_src_rows *s) {
    return sk_prefetch_lines_of(s->flat && sk_rows_on_lines(s->at, s->step),
                                (size_t)job->len * job->p->elem_size);
}

/* The i-th row of the window's staging order: staged, or read from src. */
SK_INLINE const char *sk_seg_row(const sk_seg_job *job, int64_t i) {
    if (!job->direct) return job->staged + (size_t)i * job->stage_row;
    return sk_seg_src_row(job, job->staged_pos[i]);
}

/* ---- the path (segments.c), shared with segments_direct.c ---- */
/* The row plan of job->p into job->rows (nrows, len, src_col, rows_tight):
 * without the row dimension for the row pattern (linear strides then count
 * rows of out), else every update its own row; false beyond int32 rows. */
bool sk_seg_rows_of(sk_seg_job *job, const sk_plan *p);
/* The job of plan p without its scratch, staged or direct; false when
 * segments does not take the plan (or its windows cannot fit the budget). */
bool sk_seg_layout(sk_seg_job *job, const sk_plan *p, const sk_exec *ex, bool direct);
/* applies/run of the path with the layout of `direct`. */
bool sk_seg_applies_as(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                       sk_path_need *need, bool direct);
sk_status sk_seg_run_as(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                        void *scratch, bool direct);
/* Threads of the passes: by the rows' elements. */
SK_INLINE int sk_seg_threads(const sk_seg_job *job, const sk_exec *ex) {
    int nt = sk_threads_for_work(ex->nthreads, job->nrows * job->len);
    return nt > SK_MAX_THREADS ? SK_MAX_THREADS : nt;
}

/* ---- direct (segments_stage.c; the path: segments_direct.c) ---- */
/* Whether the direct fold suits the job as laid out for it: contiguous rows
 * of at least SK_SEG_DIRECT_MIN_ROW_BYTES, folded by one group per thread
 * running at once, up to SCATTERKIT_SEG_DIRECT_GROUPS (sets ngroups). */
bool sk_seg_direct_suits(sk_seg_job *job, const sk_exec *ex);
/* Sorts the window's row positions by group into staged_pos/staged_key. */
void sk_seg_stage_positions(sk_seg_job *job, int nthreads);

/* ---- the sort (segments_sort.c) ---- */
/* Keys of rows [r0, r1) into key[0, r1 - r0): -1 where the key is outside
 * [k0, k0 + nwin) or the index value is skipped (DROP). */
SK_INTERNAL void sk_seg_keys_of(const sk_seg_job *job, int32_t *key, int64_t r0, int64_t r1);
/* Pass A of a sort (a parallel-chunks task over the rows [w0, w0 + rows)):
 * the keys of chunk `chunk`'s rows into key[i0, i1), and its counts per
 * bucket into hist. */
void sk_seg_count_chunk(void *job, int tid, int64_t chunk, int64_t i0, int64_t i1);
/* The chunks' bucket counts into first positions, bucket by bucket and
 * chunk by chunk; sets bucket_end; returns the rows placed. */
int64_t sk_seg_positions(const sk_seg_job *job);
/* The stable counting sort of the window's rows: by bucket into tmp, and
 * with `by_key` also by key into perm/end. */
void sk_seg_sort(sk_seg_job *job, int nthreads, bool by_key);
/* Sets the keys [k0, k0 + nwin) and their buckets of 1 << shift keys. */
void sk_seg_window(sk_seg_job *job, int64_t k0, int64_t nwin, int shift);
/* Row chunks of the sort's passes for nrows rows (fixed by the problem). */
int64_t sk_seg_sort_chunks(int64_t nrows);
/* For passes that go key by key (the scatter backward's counts): the rows
 * of `rows` (a row plan: linear strides count keys) sorted by key, all
 * nkeys keys in one window, in scratch of the job's own; false (nothing
 * done) without memory or beyond int32 sizes. sk_seg_sort_free releases it. */
bool sk_seg_sort_all(sk_seg_job *job, const sk_plan *rows, int64_t nkeys, int nthreads);
void sk_seg_sort_free(sk_seg_job *job);
/* The bytes sk_seg_sort_all takes for nrows rows into nkeys keys. */
size_t sk_seg_sort_all_bytes(int64_t nrows, int64_t nkeys);

/* ---- the staging (segments_stage.c) ---- */
/* Sorts the window [w0, w0 + wrows) of rows by bucket into the staging
 * area (rows and keys). */
void sk_seg_stage(sk_seg_job *job, int nthreads);

/* ---- runs (segments_runs.c): a sorted index, each key's rows one run ---- */
typedef struct sk_seg_runs {
    sk_seg_job job;     /* the layout (sk_seg_rows_of): all keys one window, w0 = 0 */
    int64_t nstretch;   /* stretches of positions, each folded by one thread */
    int64_t *at;        /* [nstretch + 1]: each stretch's first row; at[nstretch] = nrows */
    int64_t *first_key; /* [nstretch + 1]: the first key each stretch writes; [nstretch] = nkeys */
    char *rows;         /* per thread: a partial row, then (16-bit types) a float32 value row */
    size_t thread_bytes;
} sk_seg_runs;
/* Folds stretch s: its runs into their keys' rows of out, the untouched keys
 * before the next stretch's first copied from x where the path fuses the
 * copy (job.copy_src); tid picks the thread's rows. */
typedef void (*sk_seg_runs_fn)(const sk_seg_runs *, int64_t s, int tid);

SK_INTERNAL extern const sk_seg_runs_fn sk_seg_runs_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_seg_bucket_fn sk_seg_bucket_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_seg_finish_fn sk_seg_finish_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];

#endif /* SK_CPU_SCATTER_SEGMENTS_H */
