/* Transposing copies: a plain copy (no index) whose source is contiguous
 * along one dimension (b) and the output along another (a), such as x.T
 * into a row-major out. Walked in output order every element of a row comes
 * from a line of its own (and with power-of-two strides all of them from
 * one L1 set), gone before the next row would use it. A strip of TB
 * elements along b is read a tile of SK_TRANSPOSE_TA source runs at a time
 * into a buffer and written out as TB runs of TA elements along a. */
#include "cpu/gather/gather.h"

typedef struct {
    const sk_plan *p;
    int a, b;         /* output-contiguous and source-contiguous dimensions */
    int64_t strips_b; /* strips of TB along b per outer position */
} sk_transpose_job;

/* The two dimensions of a copy plan worth tiling, or false. */
static bool sk_transpose_dims(const sk_plan *p, int *a, int *b) {
    if (p->ncomp != 0 || p->ndim < 2) return false;
    int64_t es = (int64_t)p->elem_size;
    int da = -1, db = -1;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] < 8) continue;
        if (da < 0 || llabs(p->dense_stride[d]) < llabs(p->dense_stride[da])) da = d;
        if (db < 0 || llabs(p->target_stride[d]) < llabs(p->target_stride[db])) db = d;
    }
    if (da < 0 || db < 0 || da == db) return false;
    /* each side near-contiguous along its own dimension, and a line or more
     * apart along the other one's */
    if (llabs(p->dense_stride[da]) * es > 16 || llabs(p->target_stride[db]) * es > 16) return false;
    if (llabs(p->target_stride[da]) * es < SK_CACHE_LINE ||
        llabs(p->dense_stride[db]) * es < SK_CACHE_LINE)
        return false;
    *a = da;
    *b = db;
    return true;
}

/* Strips [lo, hi): an outer position (the plan's other dimensions, row-major)
 * and TB elements along b, all of a, in tiles of TA along a; ES a constant. */
SK_INLINE void sk_transpose_strips(const sk_transpose_job *job, int64_t lo, int64_t hi,
                                   const size_t ES) {
    const sk_plan *p = job->p;
    const int64_t TB = SK_TRANSPOSE_BYTES_B / (int64_t)ES;
    const int64_t na = p->shape[job->a], nb = p->shape[job->b];
    const int64_t dsa = p->dense_stride[job->a], dsb = p->dense_stride[job->b];
    const int64_t tsa = p->target_stride[job->a], tsb = p->target_stride[job->b];
    /* through a buffer: the source lines of a tile are often a page apart,
     * all in one L1 set, so each is read whole at once */
    uint64_t buf[SK_TRANSPOSE_TA * SK_TRANSPOSE_BYTES_B / sizeof(uint64_t)];
    char *tile = (char *)buf;
    for (int64_t s = lo; s < hi; s++) {
        int64_t outer = s / job->strips_b, b0 = (s % job->strips_b) * TB;
        int64_t nbt = (b0 + TB < nb ? b0 + TB : nb) - b0, doff = b0 * dsb, toff = b0 * tsb;
        for (int d = p->ndim - 1; d >= 0; d--) { /* the outer position's offsets */
            if (d == job->a || d == job->b) continue;
            int64_t c = outer % p->shape[d];
            outer /= p->shape[d];
            doff += c * p->dense_stride[d];
            toff += c * p->target_stride[d];
        }
        char *dst = p->dense + (ptrdiff_t)doff * (ptrdiff_t)ES;
        const char *src = p->target + (ptrdiff_t)toff * (ptrdiff_t)ES;
        for (int64_t a0 = 0; a0 < na; a0 += SK_TRANSPOSE_TA) {
            int64_t ta = na - a0 < SK_TRANSPOSE_TA ? na - a0 : SK_TRANSPOSE_TA;
            for (int64_t j = 0; j < ta; j++) /* source runs along b into the tile's rows */
                sk_move(tile + (size_t)(j * TB) * ES, 1,
                        src + (ptrdiff_t)((a0 + j) * tsa) * (ptrdiff_t)ES, tsb, nbt, ES, false);
            for (int64_t i = 0; i < nbt; i++) /* the tile's columns into out's runs along a */
                sk_move(dst + (ptrdiff_t)(i * dsb + a0 * dsa) * (ptrdiff_t)ES, dsa,
                        tile + (size_t)i * ES, TB, ta, ES, false);
        }
    }
}

static void sk_transpose_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_transpose_job *job = arg;
    (void)tid;
    (void)chunk;
    switch (job->p->elem_size) {
    case 1: sk_transpose_strips(job, lo, hi, 1); break;
    case 2: sk_transpose_strips(job, lo, hi, 2); break;
    case 4: sk_transpose_strips(job, lo, hi, 4); break;
    default: sk_transpose_strips(job, lo, hi, 8); break;
    }
}

/* A copy (no index) between two layouts contiguous along different
 * dimensions, each a line or more apart along the other's: walked in either
 * order, one side would touch a line per element. */
static bool sk_transpose_applies(const sk_plan *p, const sk_exec *ex, size_t *scratch) {
    int a, b;
    (void)ex;
    (void)scratch;
    return sk_transpose_dims(p, &a, &b);
}

static sk_status sk_transpose_run(const sk_plan *p, const sk_exec *ex, void *scratch) {
    (void)scratch;
    int64_t total = sk_plan_numel(p);
    int nt = sk_threads_for_work(ex->nthreads, total);
    sk_transpose_job tj = {p, 0, 0, 0};
    sk_transpose_dims(p, &tj.a, &tj.b);
    int64_t tb = SK_TRANSPOSE_BYTES_B / (int64_t)p->elem_size;
    tj.strips_b = (p->shape[tj.b] + tb - 1) / tb;
    int64_t units = total / p->shape[tj.a] / p->shape[tj.b] * tj.strips_b;
    sk_parallel_chunks(nt, units, sk_chunks_for(nt, units, tb * p->shape[tj.a]), sk_transpose_chunk,
                       &tj);
    return SK_STATUS_OK;
}

/* No index: nothing to check. */
const sk_gather_path sk_gather_path_transpose = {
    "cpu/gather/transpose", true, sk_transpose_applies, sk_transpose_run};
