/* Column tiles and plan slices: how the CPU engines walk a plan. */
#include "cpu/cpu.h"

int64_t sk_plan_column_tile(const sk_plan *p) {
    if (p->ndim != 2 || p->ncomp != 1 || p->target_stride[0] != 0 || p->index_stride[1] == 0 ||
        p->target_stride[1] != 1)
        return 0;
    int64_t es = (int64_t)p->elem_size, n = p->comp_size[0], rows = p->shape[0], cols = p->shape[1];
    /* target rows apart by at least the plan's columns (tiles never share a
     * target), a tile of n rows within SK_TILE_BYTES at one line per row,
     * and rows enough to repay packing each tile (a plan row per 8 target
     * rows) */
    if (p->comp_target_stride[0] < cols || n * SK_CACHE_LINE > SK_TILE_BYTES || rows * 8 < n ||
        n < 2)
        return 0;
    int64_t line = SK_CACHE_LINE / es, width = SK_TILE_BYTES / (n * es) / line * line;
    return width * 2 <= cols ? width : 0;
}

sk_plan sk_plan_slice(const sk_plan *p, int d, int64_t lo, int64_t hi) {
    sk_plan s = *p;
    ptrdiff_t es = (ptrdiff_t)p->elem_size;
    s.shape[d] = hi - lo;
    s.dense += (ptrdiff_t)(lo * p->dense_stride[d]) * es;
    s.target += (ptrdiff_t)(lo * p->target_stride[d]) * es;
    s.index = (const char *)p->index + (ptrdiff_t)(lo * p->index_stride[d]) * (p->index_is64 ? 8 : 4);
    return s;
}

/* Asks for the index and dense lines of rows [r0, r1) of a 2-d plan (up to
 * 1 KiB of each): short rows in pages of their own, which the hardware
 * prefetchers do not follow (without, the index loads of a tiled gather
 * took half of its time). */
static void sk_plan_prefetch_rows(const sk_plan *p, int64_t r0, int64_t r1) {
    size_t ies = p->index_is64 ? 8 : 4, es = p->elem_size;
    size_t ispan = (size_t)(p->shape[1] * llabs(p->index_stride[1])) * ies,
           dspan = (size_t)(p->shape[1] * llabs(p->dense_stride[1])) * es;
    for (int64_t r = r0; r < r1 && r < p->shape[0]; r++) {
        const char *ia = (const char *)p->index + (ptrdiff_t)(r * p->index_stride[0]) * (ptrdiff_t)ies;
        const char *da = p->dense + (ptrdiff_t)(r * p->dense_stride[0]) * (ptrdiff_t)es;
        for (size_t b = 0; b < ispan && b < 1024; b += 64) __builtin_prefetch(ia + b);
        for (size_t b = 0; b < dspan && b < 1024; b += 64) __builtin_prefetch(da + b, 1);
    }
}

void sk_plan_walk_tile(const sk_plan *p, int64_t c0, int64_t c1, const char *from, char *pack,
                       void (*fn)(void *ctx, const sk_plan *strip), void *ctx) {
    size_t w = (size_t)(c1 - c0) * p->elem_size;
    sk_copy_rows(pack, (ptrdiff_t)w, from, (ptrdiff_t)(p->comp_target_stride[0] * (int64_t)p->elem_size),
                 p->comp_size[0], w);
    sk_plan tile = sk_plan_slice(p, 1, c0, c1);
    tile.target = pack;
    tile.comp_target_stride[0] = c1 - c0;
    enum { STRIP = SK_TILE_STRIP };
    for (int64_t r = 0; r < tile.shape[0]; r += STRIP) {
        sk_plan_prefetch_rows(&tile, r + STRIP, r + 2 * STRIP);
        sk_plan strip =
            sk_plan_slice(&tile, 0, r, r + STRIP < tile.shape[0] ? r + STRIP : tile.shape[0]);
        fn(ctx, &strip);
    }
}
