/* The scatter engine: out[target(p)] = reduce(out[target(p)], src[p]).
 *
 * Determinism: threads own disjoint ranges of the target's row-major linear
 * index. Every thread walks all updates in row-major order and applies only
 * those that land in its range, so each target sees its updates in the same
 * order whatever the thread count (assign is last-wins, float sums are
 * reproducible bit for bit).
 *
 * Reductions that cannot work in place in out (float16/bfloat16, which
 * accumulate in float32 and round once; include_self=false; mean, which needs
 * counts) use a scratch accumulator and count per target of the range. The
 * range is cut into chunks so scratch stays near 16 bytes per update; a chunk
 * costs one more walk over the updates. */
#include "cursor.h"

#include <math.h>
#include <stdlib.h>

enum { SK_PATH_DIRECT = 0, SK_PATH_SCRATCH = 1 };
#define SK_SCATTER_MAX_THREADS 256

typedef struct {
    const sk_plan *p;
    int64_t total;          /* updates */
    int64_t target_numel;
    int64_t chunk;          /* targets per scratch chunk */
    bool scratch;
    void (*pass)(const sk_plan *, int64_t clo, int64_t chi, void *acc, int64_t *cnt);
    void (*finish)(const sk_plan *, int64_t clo, int64_t chi, const void *acc, const int64_t *cnt);
    double *acc[SK_SCATTER_MAX_THREADS];
    int64_t *cnt[SK_SCATTER_MAX_THREADS];
} sk_scatter_job;

/* ---- per-dtype arithmetic (value semantics in the accumulation type) ---- */

#define SK_IS_FLOAT(DT) ((DT) >= SK_DTYPE_FLOAT16)
#define SK_IS_HALF(DT) ((DT) == SK_DTYPE_FLOAT16 || (DT) == SK_DTYPE_BFLOAT16)

/* Accumulation types: float for float16/bfloat16/float32, double for float64,
 * int64_t for integers and bool. */
SK_INLINE double sk_load_f(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: return sk_f16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_BFLOAT16: return sk_bf16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)ptr;
    default: return *(const double *)(const void *)ptr;
    }
}
SK_INLINE int64_t sk_load_i(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_BOOL: return *(const uint8_t *)ptr != 0;
    case SK_DTYPE_UINT8: return *(const uint8_t *)ptr;
    case SK_DTYPE_INT8: return *(const int8_t *)ptr;
    case SK_DTYPE_INT16: return *(const int16_t *)(const void *)ptr;
    case SK_DTYPE_INT32: return *(const int32_t *)(const void *)ptr;
    default: return *(const int64_t *)(const void *)ptr;
    }
}
SK_INLINE void sk_store_f(char *ptr, double v, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_f16((float)v); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_bf16((float)v); break;
    case SK_DTYPE_FLOAT32: *(float *)(void *)ptr = (float)v; break;
    default: *(double *)(void *)ptr = v; break;
    }
}
/* Integer stores truncate to the width: that is the two's complement wrap. */
SK_INLINE void sk_store_i(char *ptr, int64_t v, const sk_dtype DT) {
    uint64_t u = (uint64_t)v;
    switch (DT) {
    case SK_DTYPE_BOOL: *(uint8_t *)ptr = v != 0; break;
    case SK_DTYPE_UINT8: *(uint8_t *)ptr = (uint8_t)u; break;
    case SK_DTYPE_INT8: *(uint8_t *)ptr = (uint8_t)u; break;
    case SK_DTYPE_INT16: { uint16_t w = (uint16_t)u; memcpy(ptr, &w, 2); } break;
    case SK_DTYPE_INT32: { uint32_t w = (uint32_t)u; memcpy(ptr, &w, 4); } break;
    default: memcpy(ptr, &u, 8); break;
    }
}
/* The value an integer accumulator holds once wrapped to the dtype. */
SK_INLINE int64_t sk_wrap_i(int64_t v, const sk_dtype DT) {
    char buf[8];
    sk_store_i(buf, v, DT);
    return sk_load_i(buf, DT);
}

/* float arithmetic is done in float for all but float64, so that float32
 * results match a float32 loop and 16-bit types accumulate in float32 */
#define SK_FOP(DT, expr_f, expr_d) (DT == SK_DTYPE_FLOAT64 ? (expr_d) : (double)(expr_f))

SK_INLINE double sk_op_f(double a, double b, const sk_reduce RED, const sk_dtype DT) {
    float af = (float)a, bf = (float)b;
    switch (RED) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SK_FOP(DT, af + bf, a + b);
    case SK_REDUCE_PROD: return SK_FOP(DT, af * bf, a * b);
    case SK_REDUCE_AMAX: return (a > b || a != a) ? a : b; /* NaN propagates */
    case SK_REDUCE_AMIN: return (a < b || a != a) ? a : b;
    default: return b;
    }
}
SK_INLINE int64_t sk_op_i(int64_t a, int64_t b, const sk_reduce RED, const sk_dtype DT) {
    switch (RED) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return (int64_t)((uint64_t)a + (uint64_t)b);
    case SK_REDUCE_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    case SK_REDUCE_AMAX: return DT == SK_DTYPE_BOOL ? (a | b) : (a > b ? a : b);
    case SK_REDUCE_AMIN: return DT == SK_DTYPE_BOOL ? (a & b) : (a < b ? a : b);
    default: return b;
    }
}
SK_INLINE int64_t sk_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* ---- one update ---- */
SK_INLINE void sk_apply(const sk_plan *p, const char *src, int64_t toff, int64_t j, void *acc,
                        int64_t *cnt, const sk_dtype DT, const sk_reduce RED, const int PATH,
                        const size_t ES) {
    char *dst = p->target + (size_t)toff * ES;
    if (RED == SK_REDUCE_NONE) {
        memcpy(dst, src, ES);
        return;
    }
    if (PATH == SK_PATH_DIRECT) {
        if (SK_IS_FLOAT(DT)) sk_store_f(dst, sk_op_f(sk_load_f(dst, DT), sk_load_f(src, DT), RED, DT), DT);
        else sk_store_i(dst, sk_op_i(sk_load_i(dst, DT), sk_load_i(src, DT), RED, DT), DT);
        return;
    }
    if (SK_IS_FLOAT(DT)) {
        double *a = (double *)acc, v = sk_load_f(src, DT);
        if (cnt[j] == 0) a[j] = p->include_self ? sk_op_f(sk_load_f(dst, DT), v, RED, DT) : v;
        else a[j] = sk_op_f(a[j], v, RED, DT);
    } else {
        int64_t *a = (int64_t *)acc, v = sk_load_i(src, DT);
        if (cnt[j] == 0) a[j] = p->include_self ? sk_op_i(sk_load_i(dst, DT), v, RED, DT) : v;
        else a[j] = sk_op_i(a[j], v, RED, DT);
    }
    cnt[j]++;
}

/* One walk over every update, applying those whose target is in [clo, chi). */
SK_INLINE void sk_scatter_pass(const sk_plan *p, int64_t clo, int64_t chi, void *acc, int64_t *cnt,
                               const sk_dtype DT, const sk_reduce RED, const int PATH) {
    const size_t ES = (DT == SK_DTYPE_FLOAT64 || DT == SK_DTYPE_INT64) ? 8
                      : (DT == SK_DTYPE_FLOAT32 || DT == SK_DTYPE_INT32) ? 4
                      : (DT == SK_DTYPE_INT16 || SK_IS_HALF(DT))         ? 2
                                                                         : 1;
    int64_t total = sk_plan_numel(p);
    if (total == 0) return;
    int d = p->ndim - 1;
    int64_t ds = p->dense_stride[d], ts = p->target_stride[d], ls = p->linear_stride[d],
            is = p->index_stride[d];
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    for (int64_t pos = 0; pos < total;) {
        int64_t run = sk_cursor_run(p, &c);
        const char *src = p->dense + (size_t)c.dense * ES;
        if (p->ncomp == 0 || is == 0) {
            int64_t toff = c.target, lin = c.linear;
            if (sk_plan_resolve(p, c.index, &toff, &lin)) {
                /* targets form lin + j*ls: clip j to the owned chunk */
                int64_t jlo = 0, jhi = run;
                if (ls > 0) {
                    if (lin < clo) jlo = (clo - lin + ls - 1) / ls;
                    if (lin + (run - 1) * ls >= chi) jhi = lin >= chi ? 0 : (chi - lin + ls - 1) / ls;
                } else if (lin < clo || lin >= chi) {
                    jhi = 0;
                }
                for (int64_t j = jlo; j < jhi; j++)
                    sk_apply(p, src + (size_t)(j * ds) * ES, toff + j * ts, lin + j * ls - clo, acc,
                             cnt, DT, RED, PATH, ES);
            }
        } else {
            for (int64_t j = 0; j < run; j++) {
                int64_t toff = c.target + j * ts, lin = c.linear + j * ls;
                if (!sk_plan_resolve(p, c.index + j * is, &toff, &lin)) continue;
                if (lin < clo || lin >= chi) continue;
                sk_apply(p, src + (size_t)(j * ds) * ES, toff, lin - clo, acc, cnt, DT, RED, PATH, ES);
            }
        }
        pos += run;
        if (pos < total) sk_cursor_advance(p, &c, run);
    }
}

/* Writes the accumulated targets of a chunk back into out, rounding once. */
SK_INLINE void sk_scatter_finish(const sk_plan *p, int64_t clo, int64_t chi, const void *acc,
                                 const int64_t *cnt, const sk_dtype DT, const sk_reduce RED) {
    const sk_tensor *out = p->out;
    const size_t es = p->elem_size;
    int32_t nd = out->ndim;
    int64_t coord[SK_MAX_DIMS], off = 0, rem = clo;
    for (int32_t d = nd - 1; d >= 0; d--) {
        coord[d] = rem % out->shape[d];
        rem /= out->shape[d];
        off += coord[d] * out->strides[d];
    }
    for (int64_t j = 0; j < chi - clo; j++) {
        if (cnt[j] > 0) {
            char *dst = (char *)out->data + (size_t)off * es;
            int64_t n = cnt[j] + (p->include_self ? 1 : 0);
            if (SK_IS_FLOAT(DT)) {
                double v = ((const double *)acc)[j];
                if (RED == SK_REDUCE_MEAN) v = SK_FOP(DT, (float)v / (float)n, v / (double)n);
                sk_store_f(dst, v, DT);
            } else {
                int64_t v = ((const int64_t *)acc)[j];
                if (RED == SK_REDUCE_MEAN) v = sk_floor_div(sk_wrap_i(v, DT), n);
                sk_store_i(dst, v, DT);
            }
        }
        for (int32_t d = nd - 1; d >= 0; d--) { /* next target in row-major order */
            off += out->strides[d];
            if (++coord[d] < out->shape[d]) break;
            off -= coord[d] * out->strides[d];
            coord[d] = 0;
        }
    }
}

/* ---- instantiation: one pass/finish per (dtype, reduce, path) ---- */
#define SK_DTYPES(X)                                                                              \
    X(SK_DTYPE_BOOL, bool) X(SK_DTYPE_UINT8, u8) X(SK_DTYPE_INT8, i8) X(SK_DTYPE_INT16, i16)      \
    X(SK_DTYPE_INT32, i32) X(SK_DTYPE_INT64, i64) X(SK_DTYPE_FLOAT16, f16)                        \
    X(SK_DTYPE_BFLOAT16, bf16) X(SK_DTYPE_FLOAT32, f32) X(SK_DTYPE_FLOAT64, f64)
#define SK_REDUCES(X, DT, N)                                                                       \
    X(DT, N, SK_REDUCE_NONE, none) X(DT, N, SK_REDUCE_SUM, sum) X(DT, N, SK_REDUCE_PROD, prod)     \
    X(DT, N, SK_REDUCE_MEAN, mean) X(DT, N, SK_REDUCE_AMAX, amax) X(DT, N, SK_REDUCE_AMIN, amin)

#define SK_DEFINE_KERNELS(DT, N, RED, R)                                                          \
    static void sk_pass_direct_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, void *acc,   \
                                         int64_t *cnt) {                                         \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, SK_PATH_DIRECT);                          \
    }                                                                                             \
    static void sk_pass_scratch_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, void *acc,  \
                                          int64_t *cnt) {                                        \
        sk_scatter_pass(p, clo, chi, acc, cnt, DT, RED, SK_PATH_SCRATCH);                         \
    }                                                                                             \
    static void sk_finish_##N##_##R(const sk_plan *p, int64_t clo, int64_t chi, const void *acc,  \
                                    const int64_t *cnt) {                                        \
        sk_scatter_finish(p, clo, chi, acc, cnt, DT, RED);                                        \
    }
#define SK_DEFINE_FOR_DTYPE(DT, N) SK_REDUCES(SK_DEFINE_KERNELS, DT, N)
SK_DTYPES(SK_DEFINE_FOR_DTYPE)

#define SK_SELECT_KERNEL(DT, N, RED, R)                                                           \
    if (p->dtype == DT && p->reduce == RED) {                                                     \
        job.pass = job.scratch ? sk_pass_scratch_##N##_##R : sk_pass_direct_##N##_##R;            \
        job.finish = sk_finish_##N##_##R;                                                         \
    }
#define SK_SELECT_FOR_DTYPE(DT, N) SK_REDUCES(SK_SELECT_KERNEL, DT, N)

static void sk_scatter_task(void *arg, int tid, int nthreads) {
    sk_scatter_job *job = arg;
    const sk_plan *p = job->p;
    int64_t lo, hi;
    sk_partition(job->target_numel, tid, nthreads, &lo, &hi);
    if (lo >= hi) return;
    if (!job->scratch) {
        job->pass(p, lo, hi, NULL, NULL);
        return;
    }
    double *acc = job->acc[tid]; /* double and int64_t accumulators are both 8 bytes */
    int64_t *cnt = job->cnt[tid];
    for (int64_t clo = lo; clo < hi; clo += job->chunk) {
        int64_t chi = clo + job->chunk < hi ? clo + job->chunk : hi;
        memset(cnt, 0, (size_t)(chi - clo) * sizeof(int64_t));
        job->pass(p, clo, chi, acc, cnt);
        job->finish(p, clo, chi, acc, cnt);
    }
}

sk_status sk_run_scatter(sk_plan *p, const sk_tensor *copy_from, int nthreads) {
    sk_plan_normalize(p);
    sk_scatter_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.total = sk_plan_numel(p);
    job.target_numel = sk_tensor_numel(p->out);
    bool in_place = p->reduce == SK_REDUCE_NONE ||
                    (p->include_self && p->reduce != SK_REDUCE_MEAN && !SK_IS_HALF(p->dtype));
    job.scratch = !in_place;
    SK_DTYPES(SK_SELECT_FOR_DTYPE) /* picks job.pass and job.finish */
    if (!job.pass) return sk_fail(SK_STATUS_INTERNAL, "%s: no kernel for this dtype", p->op);
    int64_t work = job.total > job.target_numel ? job.total : job.target_numel;
    int nt = sk_threads_for_work(nthreads, work);
    if (nt > SK_SCATTER_MAX_THREADS) nt = SK_SCATTER_MAX_THREADS;
    if (job.target_numel > 0 && nt > job.target_numel) nt = (int)job.target_numel;
    sk_status st = SK_STATUS_OK;
    if (job.scratch && job.total > 0 && job.target_numel > 0) {
        /* Scratch: 16 bytes per target of a chunk; a chunk holds about
         * updates/threads targets (at least 64k), so scratch stays near 16
         * bytes per update. Allocated before anything is written. */
        int64_t per_thread = (job.target_numel + nt - 1) / nt;
        job.chunk = job.total / nt;
        if (job.chunk < (1 << 16)) job.chunk = 1 << 16;
        if (job.chunk > per_thread) job.chunk = per_thread;
        for (int t = 0; t < nt && st == SK_STATUS_OK; t++) {
            job.acc[t] = malloc((size_t)job.chunk * sizeof(double));
            job.cnt[t] = malloc((size_t)job.chunk * sizeof(int64_t));
            if (!job.acc[t] || !job.cnt[t])
                st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the reduction scratch",
                             p->op);
        }
    }
    if (st == SK_STATUS_OK) {
        if (copy_from) sk_copy_unchecked(copy_from, (sk_tensor *)p->out, nthreads);
        if (job.total > 0 && job.target_numel > 0) sk_parallel_run(nt, sk_scatter_task, &job);
    }
    for (int t = 0; t < nt; t++) {
        free(job.acc[t]);
        free(job.cnt[t]);
    }
    return st;
}
