/* Validation of index values before anything is written. */
#include "cpu/cpu.h"

#include <stdio.h>

typedef struct {
    const sk_tensor *index;
    int32_t comp_dim;
    const int64_t *sizes;
    int64_t numel;
    int64_t first_bad; /* per thread, written by its owner only */
} sk_validate_job;

/* The first j < run with v = p[j * is] outside [-n, n), or -1. A block of
 * values is tested without a branch per value (v in [-n, n) <=> (uint64)(v +
 * n) < span = 2n), so that the loop vectorises (64-bit compares: the AVX2
 * clone); only a block with a bad value is searched again (an early exit per
 * value made the check a quarter of an element scatter: docs/PERF-LOG.md). */
#define SK_SCAN_RUN(NAME, IT)                                                                      \
    SK_HOT int64_t NAME(const IT *p, int64_t run, int64_t is, int64_t n, uint64_t span) {          \
        enum { BLOCK = 512 };                                                                      \
        for (int64_t j0 = 0; j0 < run; j0 += BLOCK) {                                              \
            int64_t m = run - j0 < BLOCK ? run - j0 : BLOCK;                                       \
            const IT *b = p + j0 * is;                                                             \
            uint64_t bad = 0;                                                                      \
            if (is == 1)                                                                           \
                for (int64_t j = 0; j < m; j++) bad |= (uint64_t)(int64_t)b[j] + (uint64_t)n >= span; \
            else                                                                                   \
                for (int64_t j = 0; j < m; j++)                                                    \
                    bad |= (uint64_t)(int64_t)b[j * is] + (uint64_t)n >= span;                    \
            if (!bad) continue;                                                                    \
            for (int64_t j = 0; j < m; j++)                                                        \
                if ((uint64_t)(int64_t)b[j * is] + (uint64_t)n >= span) return j0 + j;             \
        }                                                                                          \
        return -1;                                                                                 \
    }
SK_SCAN_RUN(sk_scan_run64, int64_t)
SK_SCAN_RUN(sk_scan_run32, int32_t)
#undef SK_SCAN_RUN

/* Finds the row-major position of the first invalid value in [lo, hi). */
static int64_t sk_scan_range(const sk_validate_job *job, int64_t lo, int64_t hi) {
    const sk_tensor *t = job->index;
    bool is64 = t->dtype == SK_DTYPE_INT64;
    int32_t nd = t->ndim;
    int64_t coord[SK_MAX_DIMS], off = sk_walk_seek(t, lo, coord);
    int32_t inner = nd - 1;
    int64_t pos = lo;
    while (pos < hi) {
        int64_t run = nd > 0 ? t->shape[inner] - coord[inner] : 1;
        if (run > hi - pos) run = hi - pos;
        int64_t is = nd > 0 ? t->strides[inner] : 0;
        if (job->comp_dim < 0 || job->comp_dim != inner) {
            int64_t n = job->sizes[job->comp_dim < 0 ? 0 : coord[job->comp_dim]];
            /* v in [-n, n) <=> (uint64)(v + n) < 2n; one compare per value */
            uint64_t span = (uint64_t)n * 2u;
            int64_t j = is64 ? sk_scan_run64((const int64_t *)t->data + off, run, is, n, span)
                             : sk_scan_run32((const int32_t *)t->data + off, run, is, n, span);
            if (j >= 0) return pos + j;
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t n = job->sizes[coord[inner] + j];
                int64_t v = sk_load_index(t->data, is64, off + j * is);
                if (v < -n || v >= n) return pos + j;
            }
        }
        pos += run;
        if (nd == 0) break;
        off += run * is;
        coord[inner] += run;
        for (int32_t d = inner; d > 0 && coord[d] == t->shape[d]; d--) {
            off -= coord[d] * t->strides[d];
            coord[d] = 0;
            coord[d - 1]++;
            off += t->strides[d - 1];
        }
    }
    return -1;
}

enum { SK_VALIDATE_MAX_CHUNKS = 1024 };
typedef struct {
    sk_validate_job *job;
    int64_t bad[SK_VALIDATE_MAX_CHUNKS]; /* per chunk: its first bad position, or -1 */
} sk_validate_ctx;

static void sk_validate_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_validate_ctx *c = arg;
    (void)tid;
    c->bad[chunk] = sk_scan_range(c->job, lo, hi);
}

/* The message for the first bad value: its position in index (scan
 * position `bad` of the scanned dimensions dim_of), value, axis and size. */
static sk_status sk_report_bad(const char *op, const char *arg, const sk_tensor *index,
                               const sk_tensor *scan, const int32_t *dim_of, int32_t comp_dim,
                               const int32_t *axes, const int64_t *sizes, int64_t bad) {
    int64_t coord[SK_MAX_DIMS] = {0}, off = 0, rem = bad;
    for (int32_t d = scan->ndim - 1; d >= 0; d--) {
        coord[dim_of[d]] = rem % scan->shape[d];
        rem /= scan->shape[d];
        off += coord[dim_of[d]] * scan->strides[d];
    }
    char pos[256];
    size_t n = 0;
    for (int32_t d = 0; d < index->ndim && n < sizeof pos; d++)
        n += (size_t)snprintf(pos + n, sizeof pos - n, d ? ", %lld" : "%lld", (long long)coord[d]);
    int k = comp_dim < 0 ? 0 : (int)coord[comp_dim];
    int64_t v = sk_load_index(index->data, index->dtype == SK_DTYPE_INT64, off);
    if (index->ndim == 0) /* a 0-d index has no position to name */
        return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                       "%s: %s = %lld is out of range for axis %d of size %lld", op, arg,
                       (long long)v, (int)axes[k], (long long)sizes[k]);
    return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                   "%s: %s[%s] = %lld is out of range for axis %d of size %lld", op, arg, pos,
                   (long long)v, (int)axes[k], (long long)sizes[k]);
}

sk_status sk_validate_index(const char *op, const char *arg, const sk_tensor *index,
                            int32_t comp_dim, const int32_t *axes, const int64_t *sizes,
                            sk_index_mode mode, int nthreads) {
    int64_t numel = sk_tensor_numel(index);
    if (numel == 0) return SK_STATUS_OK;
    if (mode == SK_INDEX_MODE_CLIP) {
        int ncomp = comp_dim < 0 ? 1 : (int)index->shape[comp_dim];
        for (int k = 0; k < ncomp; k++)
            if (sizes[k] == 0)
                return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                               "%s: cannot clip %s into axis %d of size 0", op, arg, (int)axes[k]);
        return SK_STATUS_OK;
    }
    if (mode != SK_INDEX_MODE_ERROR) return SK_STATUS_OK;
    /* A broadcast (stride 0) dimension repeats the same values: scan it once.
     * The first bad value in row-major order then has coordinate 0 there.
     * Such dimensions and those of size 1 are left out of the scan, so the
     * inner loop runs over a real dimension. */
    sk_tensor scan = *index;
    int32_t dim_of[SK_MAX_DIMS]; /* scan dimension -> index dimension */
    int32_t scan_comp = -1;
    scan.ndim = 0;
    for (int32_t d = 0; d < index->ndim; d++) {
        bool keep = d == comp_dim ? index->shape[d] > 1
                                  : index->strides[d] != 0 && index->shape[d] > 1;
        if (!keep) continue;
        if (d == comp_dim) scan_comp = scan.ndim;
        dim_of[scan.ndim] = d;
        scan.shape[scan.ndim] = index->shape[d];
        scan.strides[scan.ndim] = index->strides[d];
        scan.ndim++;
    }
    numel = sk_tensor_numel(&scan);
    sk_validate_job job = {&scan, scan_comp, sizes, numel, -1};
    sk_validate_ctx ctx;
    ctx.job = &job;
    int nt = sk_threads_for_work(nthreads, numel);
    int64_t nchunks = sk_chunks_for(nt, numel, 1);
    if (nchunks > SK_VALIDATE_MAX_CHUNKS) nchunks = SK_VALIDATE_MAX_CHUNKS;
    sk_parallel_chunks(nt, numel, nchunks, sk_validate_chunk, &ctx);
    int64_t bad = -1;
    for (int64_t c = 0; c < nchunks && bad < 0; c++) bad = ctx.bad[c];
    return bad < 0 ? SK_STATUS_OK : sk_report_bad(op, arg, index, &scan, dim_of, comp_dim, axes,
                                                  sizes, bad);
}

sk_status sk_check_values(const sk_index_check *c, int nthreads) {
    return sk_validate_index(c->op, "index", c->index, c->comp_dim, c->axes, c->sizes, c->mode,
                             nthreads);
}
