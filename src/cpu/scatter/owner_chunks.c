/* Path "cpu/scatter/owner_chunks": owner-computes in the canonical order,
 * for the float sums, means and products that need chunks
 * (sk_scatter_needs_chunks) where segments could not have its scratch: a
 * budget that does not cover 12 bytes per update (an index broadcast over
 * many rows), or more than 2^31 update rows.
 *
 * Thread t owns a range of out's linear index and walks every update in
 * row-major order; per target of a span of its range it keeps the count,
 * the running value and the partial of the current chunk (a double holds
 * every float32 step exactly, as sk_op_f rounds it to float32), so it
 * folds in the canonical order element by element. It is the fallback:
 * every thread walks every update. */
#include "cpu/cursor.h"
#include "cpu/scatter/path.h"
#include "cpu/scatter/reduce.h"

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    int nt;
    int64_t span, target_numel;
    char *scratch;
} sk_ochunks_job;

enum { SK_OCHUNKS_TARGET_BYTES = 2 * sizeof(double) + sizeof(int64_t) };

static void sk_ochunks_layout(sk_ochunks_job *job, const sk_plan *p, const sk_exec *ex) {
    memset(job, 0, sizeof *job);
    job->p = p;
    job->ex = ex;
    job->nt = sk_scatter_walkers(p, ex);
    job->target_numel = sk_tensor_numel(ex->out);
    double fit = sk_scatter_budget(p, ex) / SK_OCHUNKS_TARGET_BYTES / job->nt;
    int64_t per_thread = (job->target_numel + job->nt - 1) / job->nt;
    job->span = fit < (double)SK_SEG_MIN_WINDOW ? SK_SEG_MIN_WINDOW : (int64_t)fit;
    if (job->span > per_thread) job->span = per_thread;
    if (job->span < 1) job->span = 1;
}

static bool sk_ochunks_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                               sk_path_need *need) {
    (void)copy_from;
    if (!sk_scatter_needs_chunks(p)) return false;
    sk_ochunks_job job;
    sk_ochunks_layout(&job, p, ex);
    need->scratch_bytes = (size_t)job.nt * (size_t)job.span * SK_OCHUNKS_TARGET_BYTES;
    need->fuses_copy = false;
    return true;
}

/* One update of value v into span target j (dst: its element in out). */
static void sk_ochunks_apply(const sk_plan *p, int64_t j, const char *dst, double v, int64_t *cnt,
                             double *run, double *part) {
    const sk_reduce OP = p->reduce == SK_REDUCE_MEAN ? SK_REDUCE_SUM : p->reduce;
    const sk_dtype dt = p->dtype;
    int64_t k = cnt[j]++;
    if (k == 0) run[j] = p->include_self ? sk_op_f(sk_load_f(dst, dt), v, OP, dt) : sk_start_f(v, OP);
    else if (k < SK_CANONICAL_CHUNK) run[j] = sk_op_f(run[j], v, OP, dt);
    else if (k % SK_CANONICAL_CHUNK != 0) part[j] = sk_op_f(part[j], v, OP, dt);
    else {
        if (k >= 2 * SK_CANONICAL_CHUNK) run[j] = sk_op_f(run[j], part[j], OP, dt);
        part[j] = sk_start_f(v, OP);
    }
}

/* The span's touched targets finished and stored. */
static void sk_ochunks_store(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi,
                             const int64_t *cnt, const double *run, const double *part) {
    const sk_reduce OP = p->reduce == SK_REDUCE_MEAN ? SK_REDUCE_SUM : p->reduce;
    const sk_dtype dt = p->dtype;
    bool row_major = sk_row_major(ex->out);
    for (int64_t t = clo; t < chi; t++) {
        int64_t j = t - clo;
        if (cnt[j] == 0) continue;
        double r = cnt[j] > SK_CANONICAL_CHUNK ? sk_op_f(run[j], part[j], OP, dt) : run[j];
        if (p->reduce == SK_REDUCE_MEAN) {
            int64_t count = cnt[j] + (p->include_self ? 1 : 0);
            r = dt == SK_DTYPE_FLOAT64 ? r / (double)count : (double)((float)r / (float)count);
        }
        int64_t off = row_major ? t : sk_offset_of_linear(ex->out, t);
        char *dst = p->target + (ptrdiff_t)off * (ptrdiff_t)p->elem_size;
        if (SK_IS_HALF(dt)) {
            uint16_t old = *(uint16_t *)(void *)dst;
            *(uint16_t *)(void *)dst = sk_half_round((float)r, old, dt == SK_DTYPE_BFLOAT16, p->include_self);
        } else {
            sk_store_f(dst, r, dt);
        }
    }
}

/* Every update of p whose target (linear index + lin_base) lies in
 * [clo, chi), in row-major order; a value out of range in mode "error"
 * (only a path that checks values inline passes them) sets *ex->invalid. */
static void sk_ochunks_walk(const sk_plan *p, const sk_exec *ex, int64_t lin_base, int64_t clo,
                            int64_t chi, int64_t *cnt, double *run, double *part) {
    const int d = p->ndim - 1;
    const int64_t total = sk_plan_numel(p);
    clo -= lin_base;
    chi -= lin_base;
    sk_cursor c;
    sk_cursor_seek(p, &c, 0);
    for (int64_t pos = 0; pos < total;) {
        int64_t n = sk_cursor_run(p, &c);
        for (int64_t j = 0; j < n; j++) {
            int64_t toff = c.target + j * p->target_stride[d], lin = c.linear + j * p->linear_stride[d];
            if (!sk_plan_resolve(p, c.index + j * p->index_stride[d], &toff, &lin)) {
                if (ex->invalid && p->mode == SK_INDEX_MODE_ERROR)
                    __atomic_store_n(ex->invalid, 1, __ATOMIC_RELAXED);
                continue;
            }
            if (lin < clo || lin >= chi) continue;
            const char *src = p->dense + (ptrdiff_t)(c.dense + j * p->dense_stride[d]) * (ptrdiff_t)p->elem_size;
            const char *dst = p->target + (ptrdiff_t)toff * (ptrdiff_t)p->elem_size;
            sk_ochunks_apply(p, lin - clo, dst, sk_load_f(src, p->dtype), cnt, run, part);
        }
        pos += n;
        if (pos < total) sk_cursor_advance(p, &c, n);
    }
}

static void sk_ochunks_task(void *arg, int tid, int nthreads) {
    const sk_ochunks_job *job = arg;
    int64_t lo, hi;
    sk_partition(job->target_numel, tid, nthreads, &lo, &hi);
    char *mine = job->scratch + (size_t)tid * sk_canonical_span_bytes(job->span);
    for (int64_t clo = lo; clo < hi; clo += job->span) {
        int64_t chi = clo + job->span < hi ? clo + job->span : hi;
        sk_canonical_span(job->p, job->ex, job->p, 0, clo, chi, mine);
    }
}

/* One row of a 2-d walk with one index component: each target's count,
 * saturating past SK_CANONICAL_CHUNK; true when one passes it. */
static bool sk_count_row(const sk_plan *w, int64_t r, int64_t lo, int64_t n, uint16_t *cnt) {
    const int64_t is = w->index_stride[1], ls = w->linear_stride[1], cls = w->comp_linear_stride[0],
                  size = w->comp_size[0], base = r * w->linear_stride[0] - lo;
    const char *ix = (const char *)w->index + (ptrdiff_t)(r * w->index_stride[0]) *
                                                  (ptrdiff_t)(w->index_is64 ? 8 : 4);
    uint16_t most = 0;
    for (int64_t j = 0; j < w->shape[1]; j++) {
        int64_t v;
        if (!sk_resolve_index(sk_load_index(ix, w->index_is64, j * is), size, w->mode, &v))
            continue; /* dropped; clipped values count at their target */
        uint64_t t = (uint64_t)(base + j * ls + v * cls);
        if (t >= (uint64_t)n) continue;
        uint16_t c = sk_chunk_count_add(&cnt[t]);
        most = c > most ? c : most;
    }
    return most > SK_CANONICAL_CHUNK;
}

bool sk_span_passes_chunk(const sk_plan *walk, int64_t lin_base, int64_t clo, int64_t chi,
                          void *scratch) {
    const sk_plan *w = walk;
    if (w->ndim != 2 || w->ncomp != 1) return true;
    uint16_t *cnt = scratch;
    memset(cnt, 0, (size_t)(chi - clo) * sizeof(uint16_t));
    for (int64_t r = 0; r < w->shape[0]; r++)
        if (sk_count_row(w, r, clo - lin_base, chi - clo, cnt)) return true;
    return false;
}

size_t sk_canonical_span_bytes(int64_t targets) {
    return (size_t)targets * SK_OCHUNKS_TARGET_BYTES;
}

void sk_canonical_span(const sk_plan *p, const sk_exec *ex, const sk_plan *walk, int64_t lin_base,
                       int64_t clo, int64_t chi, void *scratch) {
    int64_t *cnt = scratch;
    double *run = (double *)(void *)(cnt + (chi - clo)), *part = run + (chi - clo);
    memset(cnt, 0, (size_t)(chi - clo) * sizeof(int64_t));
    sk_ochunks_walk(walk, ex, lin_base, clo, chi, cnt, run, part);
    sk_ochunks_store(p, ex, clo, chi, cnt, run, part);
}

static sk_status sk_ochunks_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                                void *scratch) {
    (void)copy_from;
    sk_ochunks_job job;
    sk_ochunks_layout(&job, p, ex);
    if (sk_plan_numel(p) == 0 || job.target_numel == 0) return SK_STATUS_OK;
    job.scratch = scratch;
    sk_parallel_run(job.nt, sk_ochunks_task, &job);
    return SK_STATUS_OK;
}

const sk_path sk_path_owner_chunks = {"cpu/scatter/owner_chunks", false, true, sk_ochunks_applies,
                                      sk_ochunks_run};
