/* Blocked rows (blocked_rows.c): the job shared by the path and its kernels
 * (blocked_rows_kernels.c). */
#ifndef SK_CPU_SCATTER_BLOCKED_ROWS_H
#define SK_CPU_SCATTER_BLOCKED_ROWS_H

#include "cpu/scatter/path.h"

typedef struct sk_blocks_job sk_blocks_job;
typedef void (*sk_block_fn)(const sk_blocks_job *, int b, int64_t klo, int64_t khi);
typedef void (*sk_merge_fn)(const sk_blocks_job *, int64_t klo, int64_t khi);
struct sk_blocks_job {
    const sk_plan *p;
    const sk_exec *ex;
    sk_plan rows;                  /* the row dimensions; linear strides count keys */
    int64_t nrows, len, nkeys;
    int64_t src_col;               /* src's column stride: 1, or rows packed first (sk_block_packed) */
    int nblocks;
    char *part[SK_ROW_BLOCKS];     /* block b's row of key k at k * len; NULL: out itself */
    int32_t *cnt[SK_ROW_BLOCKS];   /* updates per key */
    bool all_partials;             /* block 0 has a partial too (always for 16-bit types) */
    /* with every block in a partial, out is not touched until the merge, so
     * the merge copies x's row just before folding into it (x and out both
     * row-major), instead of a pass over all of out up front; else NULL */
    const char *copy_src;
    sk_block_fn block;
    sk_merge_fn merge;
};

/* Block b's rows whose key is in [klo, khi), and the fold of the blocks of
 * keys [klo, khi) into out in block order, per [dtype][reduce] (no assign). */
SK_INTERNAL extern const sk_block_fn sk_blocked_rows_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_merge_fn sk_blocked_merge_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];

/* Whether block rows take sk_block_tight (or sk_block_packed): one row
 * dimension that does not move the target, one index component, values
 * already checked. */
SK_INLINE bool sk_block_is_tight(const sk_plan *rp) {
    return rp->ndim == 1 && rp->ncomp == 1 && rp->target_stride[0] == 0 &&
           rp->linear_stride[0] == 0 && rp->mode == SK_INDEX_MODE_ERROR;
}

#endif /* SK_CPU_SCATTER_BLOCKED_ROWS_H */
