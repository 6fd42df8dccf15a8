/* The CPU kernels of masked_scatter and masked_select (plan/mask.h): count
 * per chunk, exclusive scan, fill over the same chunks. */
#include "cpu/cursor.h"

static void sk_mask_count_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_mask_desc *job = arg;
    const sk_plan *p = &job->p;
    int64_t n = 0;
    (void)tid;
    if (lo < hi) {
        sk_cursor c;
        sk_cursor_seek(p, &c, lo);
        int64_t ms = p->index_stride[p->ndim - 1];
        for (int64_t pos = lo; pos < hi;) {
            int64_t run = sk_cursor_run(p, &c);
            if (run > hi - pos) run = hi - pos;
            const uint8_t *m = (const uint8_t *)p->index + c.index;
            if (ms == 0) {
                n += m[0] ? run : 0;
            } else if (ms == 1) { /* a constant stride: the compiler vectorises the count */
                for (int64_t j = 0; j < run; j++) n += m[j] != 0;
            } else {
                for (int64_t j = 0; j < run; j++) n += m[j * ms] != 0;
            }
            pos += run;
            if (pos < hi) sk_cursor_advance(p, &c, run);
        }
    }
    job->count[chunk] = n;
}

/* A run whose mask, out and source are contiguous and x contiguous or
 * constant (xs 1 or 0: a broadcast x, the zero of masked_select's
 * backward), typed by element width and without a branch per element: a
 * random mask would mispredict every other branch. A True element takes
 * source[k] by a select; compaction (select, and the source gradient) goes
 * through a small buffer that every element is written to, True ones kept.
 * Returns k after the run. */
enum { SK_MASK_BUF = 256 };
#define SK_MASK_RUN(T, NAME, xs)                                                                   \
    static int64_t NAME(const sk_mask_desc *job, const uint8_t *restrict m, const T *x, T *o, T *s, \
                        int64_t k, int64_t run) {                                                  \
        switch (job->kind) {                                                                       \
        case SK_MASK_SCATTER: /* o may be x (in place): each element read before its store */     \
            if (!s) { /* no source elements: no True position either */                            \
                if (job->write_unmasked)                                                           \
                    for (int64_t j = 0; j < run; j++) o[j] = x[j * xs];                            \
                return k;                                                                          \
            }                                                                                      \
            for (int64_t j = 0; j < run; j++) { /* selects by bit masks: ?: became branches */ \
                int64_t t = m[j] != 0;                                                             \
                T keep = (T)((T)0 - (T)t); /* all ones where True */                               \
                T sv = s[k & -t], xv = x[j * xs];                                                  \
                o[j] = (T)((sv & keep) | (xv & (T)~keep));                                         \
                k += t;                                                                            \
            }                                                                                      \
            return k;                                                                              \
        case SK_MASK_GRAD_X:                                                                       \
            for (int64_t j = 0; j < run; j++) o[j] = (T)(x[j * xs] & (T)((T)(m[j] != 0) - (T)1)); \
            return k;                                                                              \
        default: { /* compaction into out (select) or into source (its gradient) */               \
            T buf[SK_MASK_BUF];                                                                    \
            T *dst = job->kind == SK_MASK_SELECT ? o : s;                                          \
            for (int64_t j0 = 0; j0 < run; j0 += SK_MASK_BUF) {                                    \
                int64_t nb = run - j0 < SK_MASK_BUF ? run - j0 : SK_MASK_BUF, kept = 0;            \
                for (int64_t j = 0; j < nb; j++) { /* kept <= j: buf[kept] is in the buffer */   \
                    buf[kept] = x[(j0 + j) * xs];                                                  \
                    kept += m[j0 + j] != 0;                                                        \
                }                                                                                  \
                if (kept) /* an empty out may have no data: not even dst + 0 */                  \
                    memcpy(dst + k, buf, (size_t)kept * sizeof(T));                                \
                k += kept;                                                                         \
            }                                                                                      \
            return k;                                                                              \
        }                                                                                          \
        }                                                                                          \
    }
SK_MASK_RUN(uint8_t, sk_mask_run_uint8_t, 1)
SK_MASK_RUN(uint16_t, sk_mask_run_uint16_t, 1)
SK_MASK_RUN(uint32_t, sk_mask_run_uint32_t, 1)
SK_MASK_RUN(uint64_t, sk_mask_run_uint64_t, 1)
SK_MASK_RUN(uint8_t, sk_mask_run_const_uint8_t, 0)
SK_MASK_RUN(uint16_t, sk_mask_run_const_uint16_t, 0)
SK_MASK_RUN(uint32_t, sk_mask_run_const_uint32_t, 0)
SK_MASK_RUN(uint64_t, sk_mask_run_const_uint64_t, 0)
#undef SK_MASK_RUN

/* A run that is neither contiguous throughout nor of a constant mask (see
 * sk_mask_fill_run), one position at a time; returns k after it. */
SK_INLINE int64_t sk_mask_fill_elems(const sk_mask_desc *job, sk_cursor *sc, const uint8_t *m,
                                     const char *x, char *o, int64_t k, int64_t run) {
    static const uint64_t zero = 0;
    const sk_plan *p = &job->p, *sp = &job->source_plan;
    const ptrdiff_t es = (ptrdiff_t)p->elem_size; /* offsets of any sign */
    int d = p->ndim - 1;
    int64_t ms = p->index_stride[d], ds = p->dense_stride[d], ts = p->target_stride[d];
    bool uses_source = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_SOURCE;
    int64_t source_n = uses_source ? sk_plan_numel(sp) : 0;
    bool source_linear = uses_source && sp->ndim == 1; /* element k at k * stride */
    for (int64_t j = 0; j < run; j++) {
        if (m[j * ms]) {
            char *src_elem = NULL;
            if (uses_source) {
                src_elem = sp->target + (source_linear ? k * sp->target_stride[0] : sc->target) *
                                            es;
                if (!source_linear && k + 1 < source_n) sk_cursor_advance(sp, sc, 1);
            }
            switch (job->kind) {
            case SK_MASK_SCATTER: memcpy(o + (j * ds) * es, src_elem, es); break;
            case SK_MASK_SELECT:
                memcpy(p->dense + (k * job->out_stride) * es, x + (j * ts) * es, es);
                break;
            case SK_MASK_GRAD_X: memcpy(o + (j * ds) * es, &zero, es); break;
            case SK_MASK_GRAD_SOURCE: memcpy(src_elem, x + (j * ts) * es, es); break;
            case SK_MASK_GRAD_SUM: break; /* its own kernel (sk_cpu_mask_grad_sum) */
            }
            k++;
        } else if (job->write_unmasked) {
            memcpy(o + (j * ds) * es, x + (j * ts) * es, es);
        }
    }
    return k;
}

/* The run of `run` positions at cursor c; returns k after it. */
SK_INLINE int64_t sk_mask_fill_run(const sk_mask_desc *job, sk_cursor *c, sk_cursor *sc, int64_t k,
                                   int64_t run) {
    const sk_plan *p = &job->p;
    const sk_plan *sp = &job->source_plan;
    const ptrdiff_t es = (ptrdiff_t)p->elem_size; /* offsets of any sign */
    bool uses_source = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_SOURCE;
    int64_t source_n = uses_source ? sk_plan_numel(sp) : 0;
    bool source_linear = uses_source && sp->ndim == 1; /* element k at k * stride */
    int d = p->ndim - 1;
    int64_t ms = p->index_stride[d], ds = p->dense_stride[d], ts = p->target_stride[d];
    const uint8_t *m = (const uint8_t *)p->index + c->index;
    const char *x = p->target + c->target * es;
    char *o = p->dense ? p->dense + c->dense * es : NULL; /* select: an empty out has no data */
    bool writes_o = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_X;
    if (ms == 1 && (ds == 1 || !writes_o) && (ts == 1 || ts == 0) && es <= 8 &&
        (es & (es - 1)) == 0 &&
        (!uses_source || (source_linear && (source_n == 0 || sp->target_stride[0] == 1))) &&
        (job->kind != SK_MASK_SELECT || job->out_stride == 1)) {
        /* everything contiguous along the run: the typed branch-free loops */
        char *from = uses_source && source_n > 0 ? sp->target : NULL;
        char *dst = job->kind == SK_MASK_SELECT ? p->dense : o;
        /* a constant x has loops of its own: a stride in the contiguous x's cost them time */
#define SK_MASK_TYPED(T)                                                                           \
    (ts ? sk_mask_run_##T(job, m, (const void *)x, (void *)dst, (void *)from, k, run)             \
        : sk_mask_run_const_##T(job, m, (const void *)x, (void *)dst, (void *)from, k, run))
        switch (es) {
        case 1: return SK_MASK_TYPED(uint8_t);
        case 2: return SK_MASK_TYPED(uint16_t);
        case 4: return SK_MASK_TYPED(uint32_t);
        default: return SK_MASK_TYPED(uint64_t);
        }
#undef SK_MASK_TYPED
    }
    if (ms == 0 && ds == 1 && (m[0] ? job->kind == SK_MASK_SCATTER && source_linear &&
                                          sp->target_stride[0] == 1
                                    : ts == 1)) {
        /* the mask is constant along this contiguous run: one block copy */
        if (m[0]) {
            memcpy(o, sp->target + k * es, (size_t)(run * es));
            k += run;
        } else if (job->write_unmasked) {
            memcpy(o, x, (size_t)(run * es));
        }
        return k;
    }
    return sk_mask_fill_elems(job, sc, m, x, o, k, run);
}

static void sk_mask_fill_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_mask_desc *job = arg;
    const sk_plan *p = &job->p, *sp = &job->source_plan;
    int64_t k = job->count[chunk];
    (void)tid;
    if (lo >= hi) return;
    sk_cursor c, sc;
    memset(&sc, 0, sizeof sc);
    sk_cursor_seek(p, &c, lo);
    bool uses_source = job->kind == SK_MASK_SCATTER || job->kind == SK_MASK_GRAD_SOURCE;
    if (uses_source && sp->ndim != 1 && sk_plan_numel(sp) > k) sk_cursor_seek(sp, &sc, k);
    for (int64_t pos = lo; pos < hi;) {
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        k = sk_mask_fill_run(job, &c, &sc, k, run);
        pos += run;
        if (pos < hi) sk_cursor_advance(p, &c, run);
    }
}

/* The threads of a mask pass over `total` positions. */
static int sk_mask_threads(const sk_exec *e, int64_t total) {
    return sk_threads_for_work(sk_exec_threads(e), total);
}

sk_status sk_cpu_mask_count(sk_mask_desc *job, const sk_exec *e, int64_t *ntrue) {
    sk_note_kernel("cpu/mask/count");
    *ntrue = 0;
    job->total = sk_plan_numel(&job->p);
    if (job->total == 0) return SK_STATUS_OK;
    int nthreads = sk_mask_threads(e, job->total);
    job->nchunks = sk_chunks_for(nthreads, job->total, 1);
    if (job->nchunks > SK_MASK_MAX_CHUNKS) job->nchunks = SK_MASK_MAX_CHUNKS;
    sk_parallel_chunks(nthreads, job->total, job->nchunks, sk_mask_count_chunk, job);
    int64_t sum = 0;
    for (int64_t c = 0; c < job->nchunks; c++) { /* exclusive scan: trues before chunk c */
        int64_t n = job->count[c];
        job->count[c] = sum;
        sum += n;
    }
    *ntrue = sum;
    return SK_STATUS_OK;
}

sk_status sk_cpu_mask(sk_mask_desc *job, const sk_exec *e) {
    int nthreads = sk_exec_threads(e);
    if (job->zero_x) job->p.target = sk_zero_scalar(job->p.dtype).data; /* strides 0: read only */
    if (job->zero_first) {
        sk_tensor zero = sk_zero_scalar(job->zero_first->dtype);
        sk_copy_unchecked(&zero, job->zero_first, nthreads);
    }
    sk_note_kernel("cpu/mask/fill");
    if (job->total > 0)
        sk_parallel_chunks(sk_mask_threads(e, job->total), job->total, job->nchunks,
                           sk_mask_fill_chunk, job);
    return SK_STATUS_OK;
}
