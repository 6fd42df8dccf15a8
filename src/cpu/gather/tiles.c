/* Column tiles: a gather of elements along a leading axis,
 * out[r, c] = x[index[r, c], c], a tile of columns at a time (tile.c). */
#include "cpu/gather/gather.h"

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    int64_t tile;      /* columns per tile */
    char *pack;        /* per thread, pack_bytes each: a tile of x's target rows, packed */
    size_t pack_bytes;
} sk_tiles_job;

/* A strip of a packed column tile (sk_plan_walk_tile), all of it. */
static void sk_tiles_strip(void *ctx, const sk_plan *strip) {
    const sk_tiles_job *job = ctx;
    sk_gather_positions(strip, job->ex, 0, sk_plan_numel(strip), false);
}

/* Tiles [lo, hi): each packed, then gathered from strip by strip. */
static void sk_tiles_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_tiles_job *job = arg;
    const sk_plan *p = job->p;
    (void)chunk;
    for (int64_t t = lo; t < hi; t++) {
        int64_t c0 = t * job->tile, c1 = c0 + job->tile < p->shape[1] ? c0 + job->tile : p->shape[1];
        sk_plan_walk_tile(p, c0, c1, p->target + (ptrdiff_t)c0 * (ptrdiff_t)p->elem_size,
                          job->pack + (size_t)tid * job->pack_bytes, sk_tiles_strip, (void *)job);
    }
}

SK_INLINE int sk_tiles_threads(const sk_plan *p, const sk_exec *ex) {
    return sk_threads_for_work(ex->nthreads, sk_plan_numel(p));
}

SK_INLINE size_t sk_tiles_pack_bytes(const sk_plan *p, int64_t tile) {
    return (size_t)(p->comp_size[0] * tile) * p->elem_size;
}

/* Walked row by row, each row of the iteration reaches one element in each
 * of n target rows at random, and every access misses; packed a tile of
 * columns at a time, the target rows of a tile stay in L2. Needs a pack per
 * thread within the scratch budget. */
static bool sk_tiles_applies(const sk_plan *p, const sk_exec *ex, size_t *scratch) {
    int64_t tile = sk_plan_column_tile(p);
    if (!tile) return false;
    int nt = sk_tiles_threads(p, ex);
    size_t pack_bytes = sk_tiles_pack_bytes(p, tile);
    if ((double)nt * (double)pack_bytes >
        (double)SK_SCRATCH_BYTES_PER_INDEX * (double)sk_plan_numel(p))
        return false;
    *scratch = (size_t)nt * pack_bytes;
    return true;
}

static sk_status sk_tiles_run(const sk_plan *p, const sk_exec *ex, void *scratch) {
    int nt = sk_tiles_threads(p, ex);
    int64_t tile = sk_plan_column_tile(p);
    sk_tiles_job job = {p, ex, tile, scratch, sk_tiles_pack_bytes(p, tile)};
    int64_t units = (p->shape[1] + tile - 1) / tile;
    sk_parallel_chunks(nt, units, units, sk_tiles_chunk, &job);
    return SK_STATUS_OK;
}

const sk_gather_path sk_gather_path_tiles = {
    "cpu/gather/tiles", true, sk_tiles_applies, sk_tiles_run};
