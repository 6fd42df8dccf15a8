/* masked_select's backward onto a broadcast x (plan/mask.h, SK_MASK_GRAD_SUM):
 * grad_x[t] folds grad_out[k] over the True positions k that broadcast from
 * x element t, in position order, chunked by 256 of them (the canonical
 * order of docs/CONTRACT.md; a False position is no contributor).
 *
 * The mask is row-major with the broadcast shape, so a position is its byte
 * and the k-th True byte takes grad_out[k]. Every dimension before the plan's
 * first target dimension D (one x does not broadcast along) is broadcast, so
 * the elements of x are told apart by D and the dimensions after it. The
 * coordinates along D are cut into ranges: all the positions of one range
 * (a block per coordinate of the dimensions before D) reach only that
 * range's elements, in position order, so one thread folds a range alone and
 * the bits do not depend on the cut. A count of the True bytes per block and
 * a scan give each block's first k; within a block, a run along the last
 * dimension either has one target (x broadcast along it: the run's True
 * bytes take a contiguous stretch of grad_out, folded one after another) or
 * steps through targets (its True bytes listed first, without a branch per
 * byte). It replaced a masked_select of x's positions and an index_scatter,
 * which were slower than PyTorch's masked_scatter and sum (docs/PERF-LOG.md,
 * 2026-11-29). */
#include "cpu/cpu.h"
#include "cpu/scatter/reduce.h"

#include <stdlib.h>

/* Block counts kept at most (ranges times blocks per range): with more
 * blocks per range than this allows, fewer ranges. */
enum { SK_MSUM_MAX_BLOCKS = 1 << 16, SK_MSUM_LIST = 256 };

/* SK_MSUM_MAX_BLOCKS, or SCATTERKIT_MASK_SUM_BLOCKS (a testing override:
 * a small n takes the single range's paths on small inputs; same bits). */
static int64_t sk_msum_max_blocks(void) {
    static atomic_int cached = -1;
    return sk_env_count_once(&cached, "SCATTERKIT_MASK_SUM_BLOCKS", SK_MSUM_MAX_BLOCKS,
                             SK_MSUM_MAX_BLOCKS);
}

typedef struct {
    const sk_mask_desc *job;
    const uint8_t *mask;
    const char *g;        /* grad_out: element k at g + k * gs bytes */
    ptrdiff_t gs;
    int nd, D;            /* D: the first target dimension, -1 when x has one element */
    int64_t outer;        /* blocks per range: the positions of the dimensions before D */
    int64_t span_d;       /* positions from one coordinate of D to the next */
    int64_t nranges;
    int64_t *base;        /* [outer][nranges]: True bytes before each block (NULL with one
                           * range, whose blocks follow one another) */
    void *acc, *part;     /* per x element: the running value, the chunk in progress */
    int64_t *seen;        /* per x element: contributors so far */
} sk_msum;

/* Range j of D's coordinates (all of one element's positions when D < 0). */
static void sk_msum_range(const sk_msum *s, int64_t j, int64_t *lo, int64_t *hi) {
    int64_t n = s->D < 0 ? 1 : s->job->p.shape[s->D];
    *lo = n * j / s->nranges;
    *hi = n * (j + 1) / s->nranges;
}

static int64_t sk_msum_count_bytes(const uint8_t *m, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += m[i] != 0; /* vectorised */
    return c;
}

/* The offsets of the True bytes among m's n (n <= SK_MSUM_LIST) into list:
 * every byte written, the True ones kept, no branch per byte. Returns how
 * many. */
static int64_t sk_msum_list(const uint8_t *m, int64_t n, int32_t *list) {
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++) {
        list[kept] = (int32_t)i;
        kept += m[i] != 0;
    }
    return kept;
}

/* The block of range j for outer coordinate o: its first byte and length. */
static const uint8_t *sk_msum_block(const sk_msum *s, int64_t o, int64_t j, int64_t *len) {
    int64_t lo, hi;
    sk_msum_range(s, j, &lo, &hi);
    int64_t per_o = s->D < 0 ? sk_plan_numel(&s->job->p) : s->job->p.shape[s->D] * s->span_d;
    *len = (hi - lo) * (s->D < 0 ? per_o : s->span_d);
    return s->mask + o * per_o + lo * (s->D < 0 ? 0 : s->span_d);
}

static void sk_msum_count_task(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_msum *s = arg;
    (void)tid;
    (void)chunk;
    for (int64_t b = lo; b < hi; b++) {
        int64_t len;
        const uint8_t *m = sk_msum_block(s, b / s->nranges, b % s->nranges, &len);
        s->base[b] = sk_msum_count_bytes(m, len);
    }
}

/* The fold of one working type W (float for float32 and the 16-bit types,
 * double for float64): the canonical chunks of docs/CONTRACT.md, the start
 * +0.0 (a sum into zeros), the NaN rule of the other paths (sk_op_f32,
 * sk_op_f). */
#define SK_MSUM_FOLD(W, SUF, OP, START, LOAD)                                                     \
    SK_INLINE void sk_msum_step_##SUF(const sk_msum *s, int64_t t, W v) {                         \
        W *acc = s->acc, *part = s->part;                                                          \
        int64_t c = s->seen[t]++;                                                                  \
        if (c < SK_CANONICAL_CHUNK) {                                                              \
            acc[t] = OP(acc[t], v);                                                                \
        } else if (c % SK_CANONICAL_CHUNK) {                                                       \
            part[t] = OP(part[t], v);                                                              \
        } else {                                                                                   \
            if (c > SK_CANONICAL_CHUNK) acc[t] = OP(acc[t], part[t]);                              \
            part[t] = START(v);                                                                    \
        }                                                                                          \
    }                                                                                              \
    /* n values from grad_out[k] on, all into target t: each stretch up to the                     \
     * next chunk's start folded in one loop */                                                    \
    static void sk_msum_stretch_##SUF(const sk_msum *s, int64_t t, int64_t k, int64_t n,          \
                                      const sk_dtype DT) {                                         \
        W *acc = s->acc, *part = s->part;                                                          \
        const char *g = s->g;                                                                      \
        const ptrdiff_t gs = s->gs;                                                                \
        while (n > 0) {                                                                            \
            int64_t c = s->seen[t];                                                                \
            if (c >= SK_CANONICAL_CHUNK && c % SK_CANONICAL_CHUNK == 0) {                          \
                sk_msum_step_##SUF(s, t, LOAD(g + k * gs, DT));                                    \
                k++, n--;                                                                          \
                continue;                                                                          \
            }                                                                                      \
            int64_t m = SK_CANONICAL_CHUNK - c % SK_CANONICAL_CHUNK;                               \
            if (m > n) m = n;                                                                      \
            W a = c < SK_CANONICAL_CHUNK ? acc[t] : part[t];                                       \
            for (int64_t i = 0; i < m; i++) a = OP(a, LOAD(g + (k + i) * gs, DT));                 \
            if (c < SK_CANONICAL_CHUNK) acc[t] = a;                                                \
            else part[t] = a;                                                                      \
            s->seen[t] = c + m;                                                                    \
            k += m, n -= m;                                                                        \
        }                                                                                          \
    }                                                                                              \
    /* A run of len bytes at m whose byte i reaches target t0 + i * ts; k is                       \
     * grad_out's element for its first True byte; returns k after the run. */                   \
    static int64_t sk_msum_run_##SUF(const sk_msum *s, const uint8_t *m, int64_t len, int64_t t0, \
                                     int64_t ts, int64_t k, const sk_dtype DT) {                   \
        if (ts == 0) {                                                                             \
            int64_t n = sk_msum_count_bytes(m, len);                                               \
            sk_msum_stretch_##SUF(s, t0, k, n, DT);                                                \
            return k + n;                                                                          \
        }                                                                                          \
        int32_t list[SK_MSUM_LIST];                                                                \
        for (int64_t i0 = 0; i0 < len; i0 += SK_MSUM_LIST) {                                       \
            int64_t nb = len - i0 < SK_MSUM_LIST ? len - i0 : SK_MSUM_LIST;                        \
            int64_t kept = sk_msum_list(m + i0, nb, list);                                         \
            for (int64_t q = 0; q < kept; q++)                                                     \
                sk_msum_step_##SUF(s, t0 + (i0 + list[q]) * ts, LOAD(s->g + (k + q) * s->gs, DT)); \
            k += kept;                                                                             \
        }                                                                                          \
        return k;                                                                                  \
    }                                                                                              \
    /* The same over rows of w bytes one after another (the blocks of a single                     \
     * range along the last dimension): byte i reaches (i mod w) * ts, taken                       \
     * from a table where w is short, so that no row costs a call. */                              \
    static int64_t sk_msum_wrap_##SUF(const sk_msum *s, const uint8_t *m, int64_t len, int64_t w, \
                                      int64_t ts, int64_t k, const sk_dtype DT) {                  \
        int32_t list[SK_MSUM_LIST];                                                                \
        int64_t col_t[2 * SK_MSUM_LIST], phase = 0; /* phase: the column of byte i0 */             \
        const bool short_rows = w < SK_MSUM_LIST;                                                  \
        if (short_rows)                                                                            \
            for (int64_t x = 0; x < w + SK_MSUM_LIST; x++) col_t[x] = (x % w) * ts;               \
        for (int64_t i0 = 0; i0 < len; i0 += SK_MSUM_LIST) {                                       \
            int64_t nb = len - i0 < SK_MSUM_LIST ? len - i0 : SK_MSUM_LIST;                        \
            int64_t kept = sk_msum_list(m + i0, nb, list);                                         \
            for (int64_t q = 0; q < kept; q++) {                                                   \
                int64_t col = phase + list[q]; /* a long row wraps once at most */                 \
                int64_t t = short_rows ? col_t[col] : (col >= w ? col - w : col) * ts;             \
                sk_msum_step_##SUF(s, t, LOAD(s->g + (k + q) * s->gs, DT));                        \
            }                                                                                      \
            k += kept;                                                                             \
            phase = (phase + nb) % w;                                                              \
        }                                                                                          \
        return k;                                                                                  \
    }
#define SK_MSUM_OP_F(a, b) sk_op_f32((a), (b), SK_REDUCE_SUM, SK_DTYPE_FLOAT32)
#define SK_MSUM_OP_D(a, b) sk_op_f((a), (b), SK_REDUCE_SUM, SK_DTYPE_FLOAT64)
#define SK_MSUM_START_F(v) sk_start_f32((v), SK_REDUCE_SUM)
#define SK_MSUM_START_D(v) sk_start_f((v), SK_REDUCE_SUM)
/* float32 as it is; 16-bit values widened by their bits */
#define SK_MSUM_LOAD_F(ptr, DT)                                                                    \
    ((DT) == SK_DTYPE_FLOAT32 ? *(const float *)(const void *)(ptr) : sk_load_half_f32((ptr), (DT)))
#define SK_MSUM_LOAD_D(ptr, DT) (*(const double *)(const void *)(ptr))
SK_MSUM_FOLD(float, f, SK_MSUM_OP_F, SK_MSUM_START_F, SK_MSUM_LOAD_F)
SK_MSUM_FOLD(double, d, SK_MSUM_OP_D, SK_MSUM_START_D, SK_MSUM_LOAD_D)

/* The runs of the positions of D's coordinate c (every position when D < 0)
 * from mask byte m on, in row-major order; returns k after them. */
static int64_t sk_msum_coordinate(const sk_msum *s, const uint8_t *m, int64_t c, int64_t k) {
    const sk_plan *p = &s->job->p;
    const int last = s->nd - 1, first = s->D + 1;
    const sk_dtype DT = p->dtype;
    int64_t t0 = s->D < 0 ? 0 : c * p->target_stride[s->D];
    int64_t coord[SK_PLAN_MAX_DIMS] = {0};
    for (;;) { /* one run along the last dimension per step of the others */
        if (DT == SK_DTYPE_FLOAT64)
            k = sk_msum_run_d(s, m, p->shape[last], t0, p->target_stride[last], k, DT);
        else k = sk_msum_run_f(s, m, p->shape[last], t0, p->target_stride[last], k, DT);
        m += p->shape[last];
        int d = last - 1;
        for (; d >= first; d--) {
            t0 += p->target_stride[d];
            if (++coord[d] < p->shape[d]) break;
            t0 -= coord[d] * p->target_stride[d];
            coord[d] = 0;
        }
        if (d < first) return k;
    }
}

static void sk_msum_fold_task(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_msum *s = arg;
    const sk_plan *p = &s->job->p;
    (void)tid;
    (void)chunk;
    for (int64_t j = lo; j < hi; j++) {
        int64_t c0, c1;
        sk_msum_range(s, j, &c0, &c1);
        int64_t k = 0;
        if (s->D == s->nd - 1 && !s->base && s->outer > 1) { /* one range: its rows follow on */
            const int64_t w = p->shape[s->D], len = s->outer * w, ts = p->target_stride[s->D];
            if (p->dtype == SK_DTYPE_FLOAT64) sk_msum_wrap_d(s, s->mask, len, w, ts, k, p->dtype);
            else sk_msum_wrap_f(s, s->mask, len, w, ts, k, p->dtype);
            continue;
        }
        for (int64_t o = 0; o < s->outer; o++) {
            int64_t len;
            if (s->base) k = s->base[o * s->nranges + j];
            const uint8_t *m = sk_msum_block(s, o, j, &len);
            if (s->D == s->nd - 1) { /* the block is one run along D */
                int64_t t0 = c0 * p->target_stride[s->D], ts = p->target_stride[s->D];
                k = p->dtype == SK_DTYPE_FLOAT64 ? sk_msum_run_d(s, m, len, t0, ts, k, p->dtype)
                                                 : sk_msum_run_f(s, m, len, t0, ts, k, p->dtype);
                continue;
            }
            for (int64_t c = c0; c < c1; c++, m += s->span_d)
                k = sk_msum_coordinate(s, m, c, k);
        }
    }
}

/* Elements [lo, hi) of the result: each running value with its last chunk
 * folded in, stored in the dtype (16-bit values rounded once). */
static void sk_msum_store_task(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_msum *s = arg;
    const sk_dtype DT = s->job->p.dtype;
    char *out = s->job->p.target;
    const size_t es = sk_dtype_size(DT);
    (void)tid;
    (void)chunk;
    for (int64_t t = lo; t < hi; t++) {
        bool tail = s->seen[t] > SK_CANONICAL_CHUNK;
        if (DT == SK_DTYPE_FLOAT64) {
            double *acc = s->acc, *part = s->part;
            double v = tail ? SK_MSUM_OP_D(acc[t], part[t]) : acc[t];
            memcpy(out + (size_t)t * es, &v, es);
        } else {
            float *acc = s->acc, *part = s->part;
            float v = tail ? SK_MSUM_OP_F(acc[t], part[t]) : acc[t];
            sk_store_f(out + (size_t)t * es, v, DT); /* float32 exact; 16-bit rounded once */
        }
    }
}

sk_status sk_cpu_mask_grad_sum(sk_mask_desc *job, const sk_exec *e) {
    const sk_plan *p = &job->p;
    const int64_t nx = job->grad_numel, total = sk_plan_numel(p);
    sk_msum s = {.job = job, .mask = p->index, .g = job->source_plan.target, .nd = p->ndim,
                 .D = -1, .outer = 1, .span_d = 1, .nranges = 1};
    /* an empty grad_out's stride is never used, and may be any value */
    if (sk_plan_numel(&job->source_plan) > 1)
        s.gs = (ptrdiff_t)(job->source_plan.target_stride[0] * (int64_t)p->elem_size);
    for (int d = 0; d < p->ndim && s.D < 0; d++)
        if (p->target_stride[d] != 0) s.D = d;
    int nthreads = sk_threads_for_work(sk_exec_threads(e), total);
    if (s.D >= 0) {
        for (int d = 0; d < s.D; d++) s.outer *= p->shape[d];
        for (int d = s.D + 1; d < p->ndim; d++) s.span_d *= p->shape[d];
        int64_t want = 4 * (int64_t)nthreads, most = sk_msum_max_blocks() / s.outer;
        s.nranges = want < p->shape[s.D] ? want : p->shape[s.D];
        if (s.nranges > most) s.nranges = most > 1 ? most : 1;
    }
    if (total == 0) s.outer = 0; /* nothing to walk: every element +0.0 */
    const size_t ws = p->dtype == SK_DTYPE_FLOAT64 ? sizeof(double) : sizeof(float);
    const size_t n = (size_t)(nx > 0 ? nx : 1);
    s.acc = calloc(n, ws); /* all bits 0: +0.0, the start of a sum into zeros */
    s.part = calloc(n, ws); /* calloc: the product checked */
    s.seen = calloc(n, sizeof(int64_t));
    int64_t blocks = s.outer * s.nranges;
    if (s.nranges > 1) s.base = malloc((size_t)blocks * sizeof(int64_t));
    sk_status st = SK_STATUS_OK;
    if (!s.acc || !s.part || !s.seen || (s.nranges > 1 && !s.base)) {
        st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", p->op);
    } else if (s.base) {
        sk_parallel_chunks(nthreads, blocks, sk_chunks_for(nthreads, blocks, total / blocks),
                           sk_msum_count_task, &s);
        job->ntrue = 0;
        for (int64_t b = 0; b < blocks; b++) { /* exclusive scan in position order */
            int64_t c = s.base[b];
            s.base[b] = job->ntrue;
            job->ntrue += c;
        }
    } else { /* one range: only the total */
        st = sk_cpu_mask_count(job, e, &job->ntrue);
    }
    sk_note_kernel("cpu/scatter_backward/mask_sum");
    if (!st && job->ntrue != sk_plan_numel(&job->source_plan))
        st = sk_fail(SK_STATUS_INVALID_SHAPE,
                     "%s: the source has %lld elements, the mask %lld True positions", p->op,
                     (long long)sk_plan_numel(&job->source_plan), (long long)job->ntrue);
    if (!st) {
        if (blocks > 0) sk_parallel_chunks(nthreads, s.nranges, s.nranges, sk_msum_fold_task, &s);
        if (nx > 0)
            sk_parallel_chunks(nthreads, nx, sk_chunks_for(nthreads, nx, 1), sk_msum_store_task,
                               &s);
    }
    free(s.acc);
    free(s.part);
    free(s.seen);
    free(s.base);
    return st;
}
