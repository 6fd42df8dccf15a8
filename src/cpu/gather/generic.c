/* The generic walk: out[p] = x[target(p)] position by position, one
 * inner-dimension run at a time. Threads own disjoint ranges of output
 * positions, so any split gives the same bytes. Data moves by element width
 * only (1, 2, 4 or 8 bytes). */
#include "cpu/gather/gather.h"

/* One run whose index varies along it: each element resolves its own target.
 * Typed by element width so the copy is a plain load/store. */
SK_INLINE void sk_gather_varying(const sk_plan *p, const sk_exec *ex, const sk_cursor *c,
                                 int64_t run, const size_t ES, const bool IS64, bool last_axis) {
    int d = p->ndim - 1;
    char *dense = p->dense + (ptrdiff_t)c->dense * (ptrdiff_t)ES;
    const char *target = p->target;
    int64_t ds = p->dense_stride[d], ts = p->target_stride[d], is = p->index_stride[d];
    if (p->ncomp == 1) {
        int64_t n = p->comp_size[0], cts = p->comp_target_stride[0];
        /* an empty x (every value out of range, filled) has no data: not even NULL + 0 */
        const char *base = target ? target + (ptrdiff_t)c->target * (ptrdiff_t)ES : NULL;
#define SK_VARYING_LOOP(T, IT)                                                                     \
    do {                                                                                           \
        T *o_ = (T *)(void *)dense;                                                                \
        const T *x_ = (const T *)(const void *)base;                                               \
        const IT *ix_ = (const IT *)p->index + c->index;                                           \
        if (last_axis && sk_gather_last_axis_##T##_##IT(o_, x_, ix_, run, n, ex->stream,           \
                                                        ex->past_l2))                              \
            break;                                                                                 \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = ix_[j * is];                                                               \
            if (v < 0) v += n;                                                                     \
            if (SK_UNLIKELY((uint64_t)v >= (uint64_t)n)) {                                         \
                if (!sk_resolve_index(ix_[j * is], n, p->mode, &v)) {                              \
                    sk_gather_unresolved(p, ex);                                                   \
                    sk_fill_run((char *)(o_ + j * ds), 1, p->fill, 1, ES);                         \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            o_[j * ds] = x_[j * ts + v * cts];                                                     \
        }                                                                                          \
    } while (0)
#define SK_VARYING_WIDTH(IT)                                                                       \
    switch (ES) {                                                                                  \
    case 1: SK_VARYING_LOOP(uint8_t, IT); break;                                                   \
    case 2: SK_VARYING_LOOP(uint16_t, IT); break;                                                  \
    case 4: SK_VARYING_LOOP(uint32_t, IT); break;                                                  \
    default: SK_VARYING_LOOP(uint64_t, IT); break;                                                 \
    }
        if (IS64) SK_VARYING_WIDTH(int64_t) else SK_VARYING_WIDTH(int32_t)
#undef SK_VARYING_WIDTH
#undef SK_VARYING_LOOP
        return;
    }
    for (int64_t j = 0; j < run; j++) {
        int64_t toff = c->target + j * ts, lin = 0;
        if (!sk_plan_resolve(p, c->index + j * is, &toff, &lin)) {
            sk_gather_unresolved(p, ex);
            sk_fill_run(dense + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, 1, p->fill, 1, ES);
            continue;
        }
        sk_move(dense + (ptrdiff_t)(j * ds) * (ptrdiff_t)ES, 1, target + (ptrdiff_t)toff * (ptrdiff_t)ES, 1, 1, ES, false);
    }
}

SK_INLINE void sk_gather_range(const sk_plan *p, const sk_exec *ex, int64_t lo, int64_t hi,
                               const size_t ES, const bool IS64, bool last_axis) {
    if (lo >= hi) return;
    sk_cursor c;
    sk_cursor_seek(p, &c, lo);
    int d = p->ndim - 1;
    for (int64_t pos = lo; pos < hi;) {
        if (sk_gather_failed(ex)) return;
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        if (p->ncomp == 0 || p->index_stride[d] == 0) {
            /* the index is constant along the run: one strided copy */
            int64_t toff = c.target, lin = 0;
            if (sk_plan_resolve(p, c.index, &toff, &lin))
                sk_move(p->dense + (ptrdiff_t)c.dense * (ptrdiff_t)ES, p->dense_stride[d],
                        p->target + (ptrdiff_t)toff * (ptrdiff_t)ES, p->target_stride[d], run, ES, ex->stream);
            else {
                sk_gather_unresolved(p, ex);
                sk_fill_run(p->dense + (ptrdiff_t)c.dense * (ptrdiff_t)ES, p->dense_stride[d], p->fill, run, ES);
            }
        } else {
            sk_gather_varying(p, ex, &c, run, ES, IS64, last_axis);
        }
        pos += run;
        if (pos < hi) sk_cursor_advance(p, &c, run);
    }
}

void sk_gather_positions(const sk_plan *p, const sk_exec *ex, int64_t lo, int64_t hi,
                         bool last_axis) {
#define SK_GATHER_CASE(ES)                                                                         \
    case ES:                                                                                       \
        if (p->index_is64) sk_gather_range(p, ex, lo, hi, ES, true, last_axis);                    \
        else sk_gather_range(p, ex, lo, hi, ES, false, last_axis);                                 \
        break;
    switch (p->elem_size) {
        SK_GATHER_CASE(1)
        SK_GATHER_CASE(2)
        SK_GATHER_CASE(4)
        SK_GATHER_CASE(8)
    }
#undef SK_GATHER_CASE
    if (ex->stream) sk_stream_fence(); /* streamed rows are visible before the call returns */
}

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    bool last_axis;
} sk_positions_job;

static void sk_positions_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_positions_job *job = arg;
    (void)tid;
    (void)chunk;
    sk_gather_positions(job->p, job->ex, lo, hi, job->last_axis);
}

sk_status sk_gather_run_positions(const sk_plan *p, const sk_exec *ex, bool last_axis) {
    int64_t total = sk_plan_numel(p);
    int nt = sk_threads_for_work(ex->nthreads, total);
    sk_positions_job job = {p, ex, last_axis};
    sk_parallel_chunks(nt, total, sk_chunks_for(nt, total, 1), sk_positions_chunk, &job);
    return SK_STATUS_OK;
}

/* Every plan: each position resolves its own target, the reference's walk
 * in chunks of positions. */
static bool sk_generic_applies(const sk_plan *p, const sk_exec *ex, size_t *scratch) {
    (void)p;
    (void)ex;
    (void)scratch;
    return true;
}

static sk_status sk_generic_run(const sk_plan *p, const sk_exec *ex, void *scratch) {
    (void)scratch;
    return sk_gather_run_positions(p, ex, false);
}

const sk_gather_path sk_gather_path_generic = {
    "cpu/gather/generic", true, sk_generic_applies, sk_generic_run};
