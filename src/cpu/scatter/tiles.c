/* Path "cpu/scatter/tiles": elements along a leading axis, out[index[r, c],
 * c], without scratch per target (no 16-bit sums, no counts). Each column
 * tile of out (sk_plan_column_tile) is packed into a per-thread buffer (from
 * x when the tiles cover all of out, so that x needs no copy into out
 * first), updated a strip of rows at a time, and written back. A tile owns
 * its targets, and each target sees its updates in row-major order: the
 * canonical order while none gets more than SK_CANONICAL_CHUNK of them,
 * which a float sum or prod whose plan allows more counts first
 * (declining when one does). */
#include <stdatomic.h>

#include "cpu/scatter/path.h"

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    sk_pass_fn pass;
    int64_t tile;
    char *pack;
    size_t pack_bytes;
    const char *copy_src; /* x, when the tiles are packed from it */
    atomic_bool passes;   /* a target passes a canonical chunk: declined */
} sk_tiles_job;

/* The tile width (0: the path does not apply) and a tile's pack bytes. */
static int64_t sk_tiles_layout(const sk_plan *p, const sk_exec *ex, size_t *pack_bytes) {
    bool reduces = p->reduce != SK_REDUCE_NONE;
    bool half = reduces && (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16);
    bool counted = reduces && (p->reduce == SK_REDUCE_MEAN || !p->include_self);
    if (half || counted || sk_plan_numel(p) == 0 || sk_tensor_numel(ex->out) == 0 ||
        p->linear_stride[0] != 0)
        return 0;
    int64_t tile = sk_plan_column_tile(p);
    *pack_bytes = (size_t)(p->comp_size[0] * tile) * p->elem_size;
    return tile;
}

/* Whether the tiles cover all of out, packed from x: no copy pass first. */
static bool sk_tiles_fuse(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from) {
    return sk_copy_source(copy_from, ex->out) && p->target == (char *)ex->out->data &&
           p->shape[1] == p->comp_target_stride[0] &&
           sk_tensor_numel(ex->out) == p->comp_size[0] * p->comp_target_stride[0];
}

static bool sk_tiles_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                             sk_path_need *need) {
    size_t pack_bytes;
    if (!sk_tiles_layout(p, ex, &pack_bytes)) return false;
    int nt = sk_scatter_threads(p, ex);
    if ((double)nt * (double)pack_bytes > sk_scatter_budget(p, ex)) return false;
    need->scratch_bytes = (size_t)nt * pack_bytes;
    need->fuses_copy = sk_tiles_fuse(p, ex, copy_from);
    return true;
}

/* A strip of a packed column tile: all its updates (the pack holds only
 * this tile's targets). */
static void sk_tiles_strip(void *ctx, const sk_plan *strip) {
    const sk_tiles_job *job = ctx;
    sk_span s = sk_span_all(0, INT64_MAX);
    job->pass(strip, job->ex, &s, NULL, NULL);
}

/* Whether a target of column tile t gets more than SK_CANONICAL_CHUNK
 * updates: counted (saturating) per target of the tile in cnt, the tile's
 * n x width counts (they fit its pack: a float is 2 bytes or more). */
static bool sk_tiles_passes_chunk(const sk_tiles_job *job, int64_t t, uint16_t *cnt) {
    const sk_plan *p = job->p;
    const int64_t n = p->comp_size[0], c0 = t * job->tile,
                  c1 = c0 + job->tile < p->shape[1] ? c0 + job->tile : p->shape[1], w = c1 - c0;
    memset(cnt, 0, (size_t)(n * w) * sizeof(uint16_t));
    uint16_t most = 0;
    for (int64_t r = 0; r < p->shape[0]; r++)
        for (int64_t c = c0; c < c1; c++) {
            int64_t v = sk_load_index(p->index, p->index_is64, r * p->index_stride[0] + c * p->index_stride[1]);
            if (!sk_resolve_index(v, n, p->mode, &v)) continue;
            uint16_t k = sk_chunk_count_add(cnt + v * w + (c - c0));
            most = k > most ? k : most;
        }
    return most > SK_CANONICAL_CHUNK;
}

static void sk_tiles_check_task(void *arg, int tid, int64_t chunk, int64_t t0, int64_t t1) {
    sk_tiles_job *job = arg;
    (void)chunk;
    uint16_t *cnt = (uint16_t *)(void *)(job->pack + (size_t)tid * job->pack_bytes);
    for (int64_t t = t0; t < t1 && !atomic_load_explicit(&job->passes, memory_order_relaxed); t++)
        if (sk_tiles_passes_chunk(job, t, cnt)) atomic_store(&job->passes, true);
}

/* Column tiles [t0, t1). */
static void sk_tiles_task(void *arg, int tid, int64_t chunk, int64_t t0, int64_t t1) {
    sk_tiles_job *job = arg;
    const sk_plan *p = job->p;
    (void)chunk;
    char *pack = job->pack + (size_t)tid * job->pack_bytes;
    const char *from = job->copy_src ? job->copy_src : p->target;
    ptrdiff_t row = (ptrdiff_t)(p->comp_target_stride[0] * (int64_t)p->elem_size);
    for (int64_t t = t0; t < t1; t++) {
        int64_t c0 = t * job->tile, c1 = c0 + job->tile < p->shape[1] ? c0 + job->tile : p->shape[1];
        size_t at = (size_t)c0 * p->elem_size, w = (size_t)(c1 - c0) * p->elem_size;
        sk_plan_walk_tile(p, c0, c1, from + at, pack, sk_tiles_strip, job);
        sk_copy_rows(p->target + at, row, pack, (ptrdiff_t)w, p->comp_size[0], w);
    }
}

static sk_status sk_tiles_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                              void *scratch) {
    sk_tiles_job job = {p, ex, sk_pass_kernels[p->dtype][p->reduce], 0, scratch, 0, NULL, false};
    job.tile = sk_tiles_layout(p, ex, &job.pack_bytes);
    if (sk_tiles_fuse(p, ex, copy_from)) job.copy_src = copy_from->data;
    int nt = sk_scatter_threads(p, ex);
    int64_t units = (p->shape[1] + job.tile - 1) / job.tile;
    /* each target's updates one after another is the canonical order
     * unless one gets more than a chunk of them: counted before anything
     * is written (a read of the index), else the next path */
    if (sk_scatter_needs_chunks(p)) {
        sk_parallel_chunks(nt, units, units, sk_tiles_check_task, &job);
        if (atomic_load(&job.passes)) return SK_PATH_DECLINED;
    }
    sk_parallel_chunks(nt, units, units, sk_tiles_task, &job);
    return SK_STATUS_OK;
}

const sk_path sk_path_tiles = {"cpu/scatter/tiles", false, true, sk_tiles_applies, sk_tiles_run};
