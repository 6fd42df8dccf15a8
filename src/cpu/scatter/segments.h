/* Segments (segments.c): the job shared by the path, its sort
 * (segments_sort.c) and its fold kernels (segments_fold.h).
 *
 * The update rows are sorted by target ("key": a target row, or a target
 * element when rows are single elements) with a stable counting sort, so
 * each key's rows form one segment of `perm`, in position order. Folding a
 * segment in order, in chunks of SK_CANONICAL_CHUNK rows, is the canonical order
 * (docs/CONTRACT.md) by construction, and no thread ever walks rows that
 * are not its own: the work is the same for any thread count. */
#ifndef SK_CPU_SCATTER_SEGMENTS_H
#define SK_CPU_SCATTER_SEGMENTS_H

#include "cpu/scatter/path.h"

typedef struct sk_seg_job sk_seg_job;
/* Folds the keys in [klo, khi) of the window whose hotness is `hot`. */
typedef void (*sk_seg_keys_fn)(const sk_seg_job *, int64_t klo, int64_t khi, bool hot);
/* Hot key `key`, canonical chunk `c`, folded into the partial `part`
 * (len values of the working type; chunk 0 starts from out's row). */
typedef void (*sk_seg_chunk_fn)(const sk_seg_job *, int64_t key, int64_t c, void *part);
/* Hot key `key`: its chunks' partials folded in order into out (parts is
 * its first partial; the fold runs in it). */
typedef void (*sk_seg_merge_fn)(const sk_seg_job *, int64_t key, void *parts);

struct sk_seg_job {
    const sk_plan *p;
    const sk_exec *ex;
    sk_plan rows;                /* the row dimensions; linear strides count keys */
    int64_t nrows, len, nkeys;   /* update rows, elements per row, keys of out */
    int64_t src_col;             /* src's stride within a row, in elements */
    bool rows_tight;             /* one row dimension, one component: no cursor */
    bool out_row_major;          /* key k's row of out starts at k * len */
    size_t work_size;            /* bytes of one value of the working type */
    /* the window of keys [k0, k0 + nwin) this round sorts and folds */
    int64_t k0, nwin;
    int shift;                   /* bucket of a window key: key >> shift */
    int64_t nbuckets, nchunks;   /* buckets; row chunks of the key and bucket passes */
    int64_t nitems;              /* fold items (row ranges cut at key boundaries) */
    int32_t *key;                /* [nrows]: window key of row r, or -1 (elsewhere, dropped) */
    int32_t *hist;               /* [nchunks][nbuckets]: counts, then first positions */
    int32_t *bucket_end;         /* [nbuckets]: end of each bucket in tmp */
    int32_t *tmp;                /* rows by bucket */
    int32_t *perm;               /* rows by key, in position order within a key */
    int32_t *end;                /* [nwin]: end of key k's segment in perm (start: end[k-1]) */
    int64_t *item_key;           /* [nitems + 1]: first key of each fold item */
    int64_t *hot_at;             /* [nitems + 1]: first hot chunk of each item, then running */
    /* x's data when the path fuses the copy (x and out row-major, whole
     * rows): start values come from it, and untouched rows are copied */
    const char *copy_src;
    char *parts;                 /* [slots][len]: partials of the hot keys' chunks */
    int64_t *slot_key;           /* [slots]: the hot key of each chunk slot */
    int32_t *slot_c;             /* [slots]: its canonical chunk number */
    void *own;                   /* sk_seg_sort_all's scratch, own_bytes long */
    size_t own_bytes;
    sk_seg_keys_fn fold_keys;
    sk_seg_chunk_fn fold_chunk;
    sk_seg_merge_fn merge_hot;
};

SK_INLINE int64_t sk_seg_begin(const sk_seg_job *job, int64_t k) {
    return k > 0 ? job->end[k - 1] : 0;
}
/* A key whose segment is folded by chunks spread over the threads. */
SK_INLINE bool sk_seg_is_hot(int64_t rows) { return rows > SK_SEG_HOT_ROWS; }
/* Element offset of window key k's row in out. */
SK_INLINE int64_t sk_seg_out_offset(const sk_seg_job *job, int64_t k) {
    int64_t lin = (job->k0 + k) * job->len;
    return job->out_row_major ? lin : sk_offset_of_linear(job->ex->out, lin);
}
/* Where key k's start values are: x's row when the copy is fused, else
 * its row o of out (holding x's copy). */
SK_INLINE const char *sk_seg_start_row(const sk_seg_job *job, int64_t k, const char *o,
                                       size_t es) {
    return job->copy_src ? job->copy_src + (size_t)((job->k0 + k) * job->len) * es : o;
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

/* The stable counting sort of the window's rows into perm/end (segments_sort.c). */
void sk_seg_sort(sk_seg_job *job, int nthreads);
/* Sets the window [k0, k0 + nwin) and its buckets. */
void sk_seg_window(sk_seg_job *job, int64_t k0, int64_t nwin);
/* Row chunks of the sort's passes for nrows rows (fixed by the problem). */
int64_t sk_seg_sort_chunks(int64_t nrows);
/* For other passes that go by target (the scatter backward's counts): the
 * rows of `rows` (a row plan: linear strides count keys) sorted into one
 * window of all nkeys keys, in scratch of the job's own; false (nothing
 * done) without memory or beyond int32 sizes. sk_seg_sort_free releases it. */
bool sk_seg_sort_all(sk_seg_job *job, const sk_plan *rows, int64_t nkeys, int nthreads);
void sk_seg_sort_free(sk_seg_job *job);

SK_INTERNAL extern const sk_seg_keys_fn sk_seg_keys_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_seg_chunk_fn sk_seg_chunk_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_seg_merge_fn sk_seg_merge_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];

#endif /* SK_CPU_SCATTER_SEGMENTS_H */
