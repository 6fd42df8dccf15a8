/* The gather engine: out[p] = x[target(p)] over a plan's iteration space.
 * Threads own disjoint ranges of output positions, so any split gives the
 * same bytes. Data moves by element width only (1, 2, 4 or 8 bytes). */
#include "cursor.h"

typedef struct {
    const sk_plan *p;
    int64_t total;
} sk_gather_job;

/* Copies `n` elements of width ES from src (stride ss) to dst (stride ds). */
SK_INLINE void sk_move(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,
                       const size_t ES) {
    if (ds == 1 && ss == 1) {
        memcpy(dst, src, (size_t)n * ES);
        return;
    }
#define SK_MOVE_LOOP(T)                                                                    \
    do {                                                                                   \
        T *d_ = (T *)(void *)dst;                                                          \
        const T *s_ = (const T *)(const void *)src;                                        \
        for (int64_t j = 0; j < n; j++) d_[j * ds] = s_[j * ss];                           \
    } while (0)
    switch (ES) {
    case 1: SK_MOVE_LOOP(uint8_t); break;
    case 2: SK_MOVE_LOOP(uint16_t); break;
    case 4: SK_MOVE_LOOP(uint32_t); break;
    default: SK_MOVE_LOOP(uint64_t); break;
    }
#undef SK_MOVE_LOOP
}

SK_INLINE void sk_fill_run(char *dst, int64_t ds, const void *value, int64_t n, size_t es) {
    static const uint64_t zero = 0;
    if (!value) value = &zero;
    for (int64_t j = 0; j < n; j++) memcpy(dst + (size_t)(j * ds) * es, value, es);
}

/* One run whose index varies along it: each element resolves its own target. */
SK_INLINE void sk_gather_varying(const sk_plan *p, const sk_cursor *c, int64_t run,
                                 const size_t ES, const bool IS64) {
    int d = p->ndim - 1;
    char *dense = p->dense + (size_t)c->dense * ES;
    const char *target = p->target;
    int64_t ds = p->dense_stride[d], ts = p->target_stride[d], is = p->index_stride[d];
    if (p->ncomp == 1) {
        int64_t n = p->comp_size[0], cts = p->comp_target_stride[0];
        for (int64_t j = 0; j < run; j++) {
            int64_t v = sk_load_index(p->index, IS64, c->index + j * is);
            if (!sk_resolve_index(v, n, p->mode, &v)) {
                sk_fill_run(dense + (size_t)(j * ds) * ES, 1, p->fill, 1, ES);
                continue;
            }
            sk_move(dense + (size_t)(j * ds) * ES, 1,
                    target + (size_t)(c->target + j * ts + v * cts) * ES, 1, 1, ES);
        }
        return;
    }
    for (int64_t j = 0; j < run; j++) {
        int64_t toff = c->target + j * ts, lin = 0;
        if (!sk_plan_resolve(p, c->index + j * is, &toff, &lin)) {
            sk_fill_run(dense + (size_t)(j * ds) * ES, 1, p->fill, 1, ES);
            continue;
        }
        sk_move(dense + (size_t)(j * ds) * ES, 1, target + (size_t)toff * ES, 1, 1, ES);
    }
}

SK_INLINE void sk_gather_range(const sk_plan *p, int64_t lo, int64_t hi, const size_t ES,
                               const bool IS64) {
    if (lo >= hi) return;
    sk_cursor c;
    sk_cursor_seek(p, &c, lo);
    int d = p->ndim - 1;
    for (int64_t pos = lo; pos < hi;) {
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        if (p->ncomp == 0 || p->index_stride[d] == 0) {
            /* the index is constant along the run: one strided copy */
            int64_t toff = c.target, lin = 0;
            if (sk_plan_resolve(p, c.index, &toff, &lin))
                sk_move(p->dense + (size_t)c.dense * ES, p->dense_stride[d],
                        p->target + (size_t)toff * ES, p->target_stride[d], run, ES);
            else
                sk_fill_run(p->dense + (size_t)c.dense * ES, p->dense_stride[d], p->fill, run, ES);
        } else {
            sk_gather_varying(p, &c, run, ES, IS64);
        }
        pos += run;
        if (pos < hi) sk_cursor_advance(p, &c, run);
    }
}

static void sk_gather_task(void *arg, int tid, int nthreads) {
    const sk_gather_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->total, tid, nthreads, &lo, &hi);
#define SK_GATHER_CASE(ES)                                                                 \
    case ES:                                                                               \
        if (p->index_is64) sk_gather_range(p, lo, hi, ES, true);                          \
        else sk_gather_range(p, lo, hi, ES, false);                                        \
        break;
    switch (p->elem_size) {
        SK_GATHER_CASE(1)
        SK_GATHER_CASE(2)
        SK_GATHER_CASE(4)
        SK_GATHER_CASE(8)
    }
#undef SK_GATHER_CASE
}

sk_status sk_run_gather(sk_plan *p, int nthreads) {
    sk_plan_normalize(p);
    sk_gather_job job = {p, sk_plan_numel(p)};
    if (job.total == 0) return SK_STATUS_OK;
    sk_parallel_run(sk_threads_for_work(nthreads, job.total), sk_gather_task, &job);
    return SK_STATUS_OK;
}
