/* Row gathers: the index is constant along a contiguous inner dimension
 * (embedding lookups, index_select along a leading axis, gather with an
 * index expanded along the last axis): out[r, :] = x[index[r], :]. */
#include "cpu/gather/gather.h"

/* A step of `stride` elements, in bytes; 0 along a dimension of at most one
 * element, whose stride may be anything a valid tensor has there (even
 * INT64_MAX elements: the step is never taken). */
SK_INLINE ptrdiff_t sk_rows_step(int64_t stride, int64_t size, size_t es) {
    return size > 1 ? (ptrdiff_t)(stride * (int64_t)es) : 0;
}

/* The rows come from random places, so the rows SK_ROWS_AHEAD ahead are
 * prefetched into L2 to keep many misses in flight (sk_prefetch_row_l2).
 *
 * The loop runs with the row size as a constant for the common sizes (16,
 * 32, 64 floats): its prefetches and copies are then straight-line code.
 * With misses in flight the limit is how many rows fit in the out-of-order
 * window, so every instruction per row counts. */
SK_INLINE void sk_gather_rows_sized(const sk_plan *p, const sk_exec *ex, const sk_cursor *c,
                                    int64_t nrows, const size_t ES, const bool IS64,
                                    const size_t ROW_BYTES, bool stream) {
    int d = p->ndim - 1, r2 = p->ndim - 2;
    int64_t len = p->shape[d], n = p->comp_size[0];
    /* everything the loop needs in locals: the stores go through char
     * pointers, which may alias the plan, and would make the compiler reload
     * its fields on every row */
    const char *index = IS64 ? (const char *)((const int64_t *)p->index + c->index)
                             : (const char *)((const int32_t *)p->index + c->index);
    ptrdiff_t istep = sk_rows_step(p->index_stride[r2], nrows, IS64 ? 8 : 4);
    /* x's rows as an address in integers: x may have no data at all (a
     * gathered axis of no elements, where no value resolves) */
    uintptr_t target = (uintptr_t)p->target + (uintptr_t)((ptrdiff_t)c->target * (ptrdiff_t)ES);
    ptrdiff_t tstep = sk_rows_step(p->target_stride[r2], nrows, ES);
    ptrdiff_t vstep = sk_rows_step(p->comp_target_stride[0], n, ES);
    char *dst = p->dense + (ptrdiff_t)c->dense * (ptrdiff_t)ES;
    ptrdiff_t dstep = sk_rows_step(p->dense_stride[r2], nrows, ES);
    sk_index_mode mode = p->mode;
    enum { AHEAD = SK_ROWS_AHEAD };
    /* the pointers step to the next row only when there is one */
    for (int64_t r = 0; r < nrows; index += istep, target += (uintptr_t)tstep, dst += dstep) {
        if (r + AHEAD < nrows) {
            /* an address only (a bad value's row is never read: prefetches
             * do not fault), so computed in integers */
            uintptr_t q = target + (uintptr_t)(AHEAD * tstep) +
                          (uintptr_t)sk_load_index(index + AHEAD * istep, IS64, 0) * (uintptr_t)vstep;
            sk_prefetch_row_l2((const void *)q, ROW_BYTES);
        }
        int64_t v = sk_load_index(index, IS64, 0);
        if (sk_resolve_index(v, n, mode, &v)) {
            const char *row = (const char *)(target + (uintptr_t)((ptrdiff_t)v * vstep));
            if (stream) sk_stream_row(dst, row, ROW_BYTES);
            else memcpy(dst, row, ROW_BYTES);
        } else {
            sk_gather_unresolved(p, ex);
            if (sk_gather_failed(ex)) return;
            sk_fill_run(dst, 1, p->fill, len, ES);
        }
        if (++r == nrows) break;
    }
}

SK_INLINE void sk_gather_rows(const sk_plan *p, const sk_exec *ex, const sk_cursor *c,
                              int64_t nrows, const size_t ES, const bool IS64) {
    int r2 = p->ndim - 2;
    size_t row_bytes = (size_t)p->shape[p->ndim - 1] * ES;
    /* rows written with non-temporal stores when every row starts 16-byte
     * aligned: a large out is not read for ownership first (sk_rows_range
     * fences once at the end) */
    bool stream = ex->stream && row_bytes % 16 == 0 &&
                  sk_rows_step(p->dense_stride[r2], p->shape[r2], ES) % 16 == 0 &&
                  ((uintptr_t)(p->dense + (ptrdiff_t)c->dense * (ptrdiff_t)ES) & 15) == 0;
    switch (row_bytes) {
    case 64: sk_gather_rows_sized(p, ex, c, nrows, ES, IS64, 64, stream); break;
    case 128: sk_gather_rows_sized(p, ex, c, nrows, ES, IS64, 128, stream); break;
    case 256: sk_gather_rows_sized(p, ex, c, nrows, ES, IS64, 256, stream); break;
    default: sk_gather_rows_sized(p, ex, c, nrows, ES, IS64, row_bytes, stream); break;
    }
}

/* Rows [lo, hi): the plan without its inner dimension is walked run by run;
 * each element of a run is a whole row. */
SK_INLINE void sk_gather_row_range(const sk_plan *p, const sk_exec *ex, int64_t lo, int64_t hi,
                                   const size_t ES, const bool IS64) {
    if (lo >= hi) return;
    sk_plan outer = *p;
    outer.ndim--;
    sk_cursor c;
    sk_cursor_seek(&outer, &c, lo);
    for (int64_t pos = lo; pos < hi;) {
        if (sk_gather_failed(ex)) return;
        int64_t run = sk_cursor_run(&outer, &c);
        if (run > hi - pos) run = hi - pos;
        sk_gather_rows(p, ex, &c, run, ES, IS64);
        pos += run;
        if (pos < hi) sk_cursor_advance(&outer, &c, run);
    }
}

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
} sk_rows_job;

static void sk_rows_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_rows_job *job = arg;
    const sk_plan *p = job->p;
    (void)tid;
    (void)chunk;
#define SK_ROWS_CASE(ES)                                                                           \
    case ES:                                                                                       \
        if (p->index_is64) sk_gather_row_range(p, job->ex, lo, hi, ES, true);                      \
        else sk_gather_row_range(p, job->ex, lo, hi, ES, false);                                   \
        break;
    switch (p->elem_size) {
        SK_ROWS_CASE(1)
        SK_ROWS_CASE(2)
        SK_ROWS_CASE(4)
        SK_ROWS_CASE(8)
    }
#undef SK_ROWS_CASE
    if (job->ex->stream) sk_stream_fence(); /* streamed rows are visible before the call returns */
}

/* One index component constant along a contiguous inner dimension, varying
 * along the next one: every index value moves a whole row, one memcpy (or
 * streamed row) per value instead of a lookup per element. */
static bool sk_rows_applies(const sk_plan *p, const sk_exec *ex, size_t *scratch) {
    (void)ex;
    (void)scratch;
    int d = p->ndim - 1;
    return p->ndim >= 2 && p->ncomp == 1 && p->index_stride[d] == 0 && p->dense_stride[d] == 1 &&
           p->target_stride[d] == 1 && p->index_stride[d - 1] != 0;
}

static sk_status sk_rows_run(const sk_plan *p, const sk_exec *ex, void *scratch) {
    (void)scratch;
    int64_t total = sk_plan_numel(p), len = p->shape[p->ndim - 1], units = total / len;
    int nt = sk_threads_for_work(ex->nthreads, total);
    sk_rows_job job = {p, ex};
    sk_parallel_chunks(nt, units, sk_chunks_for(nt, units, len), sk_rows_chunk, &job);
    return SK_STATUS_OK;
}

const sk_gather_path sk_gather_path_rows = {"cpu/gather/rows", true, sk_rows_applies, sk_rows_run};
