/* Path "cpu/scatter/cols": the row pattern without scratch (assign, or a
 * reduction in place), rows long enough for a block of cache lines per
 * thread. Thread t owns a block of columns of every row (cut at cache-line
 * boundaries) instead of a range of targets. Each target still has one
 * owner that sees its updates in row-major order, and each thread reads
 * only its own cache lines of src; with a split by targets every thread
 * would walk, and the hardware would prefetch, all of src. */
#include "cpu/scatter/path.h"

typedef struct {
    const sk_plan *p;
    const sk_exec *ex;
    sk_pass_fn pass;
    int64_t target_numel, len, cols_per_thread;
} sk_cols_job;

static bool sk_cols_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            sk_path_need *need) {
    (void)copy_from;
    bool reduces = p->reduce != SK_REDUCE_NONE;
    bool half = reduces && (p->dtype == SK_DTYPE_FLOAT16 || p->dtype == SK_DTYPE_BFLOAT16);
    bool counted = reduces && (p->reduce == SK_REDUCE_MEAN || !p->include_self);
    if (half || counted || sk_plan_numel(p) == 0 || sk_tensor_numel(ex->out) == 0 ||
        !sk_scatter_is_rows(p))
        return false;
    int nt = sk_scatter_threads(p, ex);
    int64_t len = p->shape[p->ndim - 1], line = SK_CACHE_LINE / (int64_t)p->elem_size;
    if (nt <= 1 || len < (int64_t)nt * line) return false;
    need->scratch_bytes = 0;
    need->fuses_copy = false;
    return true;
}

static void sk_cols_task(void *arg, int tid, int nthreads) {
    const sk_cols_job *cj = arg;
    sk_span s = sk_span_all(0, cj->target_numel);
    s.col_lo = tid * cj->cols_per_thread;
    s.col_hi = tid == nthreads - 1 ? cj->len : s.col_lo + cj->cols_per_thread;
    if (s.col_lo >= s.col_hi) return;
    cj->pass(cj->p, cj->ex, &s, NULL, NULL);
}

static sk_status sk_cols_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                             void *scratch) {
    (void)copy_from;
    (void)scratch;
    int nt = sk_scatter_threads(p, ex);
    int64_t len = p->shape[p->ndim - 1], line = SK_CACHE_LINE / (int64_t)p->elem_size;
    sk_cols_job cj = {p, ex, sk_pass_kernels[p->dtype][p->reduce], sk_tensor_numel(ex->out), len,
                      (len / nt + line - 1) / line * line};
    sk_parallel_run(nt, sk_cols_task, &cj);
    return SK_STATUS_OK;
}

const sk_path sk_path_cols = {"cpu/scatter/cols", false, false, sk_cols_applies, sk_cols_run};
