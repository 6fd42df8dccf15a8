/* The ordered table of scatter paths, what they share, and sk_run_scatter:
 * the first path that applies runs; owner-computes, last, always applies. */
#include "cpu/scatter/path.h"

const sk_path *const sk_cpu_scatter_paths[] = {
    &sk_path_winners, &sk_path_inner_axis, &sk_path_inner_elems, &sk_path_tiles,
    &sk_path_segments_runs, &sk_path_segments_few, &sk_path_segments_hot,
    &sk_path_segments_direct, &sk_path_segments, &sk_path_cols, &sk_path_owner_chunks, &sk_path_owner, NULL};

bool sk_scatter_needs_chunks(const sk_plan *p) {
    if (!sk_scatter_folds_chunks(p)) return false;
    int64_t bound = 1;
    for (int d = 0; d < p->ndim; d++) {
        if (p->linear_stride[d] != 0) continue;
        if (p->shape[d] > SK_CANONICAL_CHUNK / bound) return true;
        bound *= p->shape[d];
    }
    return false;
}

const char *sk_copy_source(const sk_tensor *copy_from, const sk_tensor *out) {
    if (!copy_from || !sk_row_major(out) || !sk_row_major(copy_from) ||
        sk_tensor_numel(copy_from) != sk_tensor_numel(out))
        return NULL;
    return copy_from->data;
}

int sk_scatter_threads(const sk_plan *p, const sk_exec *ex) {
    int64_t total = sk_plan_numel(p), target_numel = sk_tensor_numel(ex->out);
    int64_t work = total > target_numel ? total : target_numel;
    int nt = sk_threads_for_work(ex->nthreads, work);
    if (nt > SK_SCATTER_MAX_THREADS) nt = SK_SCATTER_MAX_THREADS;
    if (target_numel > 0 && nt > target_numel) nt = (int)target_numel;
    return nt;
}

int sk_scatter_walkers(const sk_plan *p, const sk_exec *ex) {
    int nt = sk_scatter_threads(p, ex), cpus = sk_exec_cpus(ex);
    return nt < cpus ? nt : cpus;
}

sk_status sk_scatter_run_path(const sk_path *path, const sk_plan *p, const sk_exec *ex,
                              const sk_tensor *copy_from, const sk_path_need *need) {
    void *scratch = NULL;
    if (need->scratch_bytes && !(scratch = sk_scratch_get(need->scratch_bytes)))
        return SK_STATUS_OUT_OF_MEMORY;
    /* after the scratch is had: a failure leaves out untouched */
    if (copy_from && !need->fuses_copy)
        sk_copy_unchecked(copy_from, (sk_tensor *)ex->out, ex->nthreads);
    sk_note_kernel(path->name);
    sk_status st = path->run(p, ex, copy_from, scratch);
    if (scratch) sk_scratch_put(scratch, need->scratch_bytes);
    return st;
}

sk_status sk_run_scatter(sk_plan *p, const sk_exec *exec, const sk_tensor *copy_from,
                         const sk_index_check *unchecked) {
    sk_plan_normalize(p);
    sk_exec ex = *exec;
    if (ex.cpus < 1) ex.cpus = sk_usable_cpu_count();
    ex.seg_working_rows = (int)sk_env_count("SCATTERKIT_SEG_WORKING_ROWS", -1, 1) + 1;
    int invalid = 0;
    /* With a fresh out (never x) a path that reads each value anyway may
     * check it there; a bad value leaves only out, which the caller throws
     * away, partly written, and the full check then finds the first one for
     * the message. */
    bool may_defer = unchecked && copy_from && sk_fused_check(ex.opts, unchecked->mode);
    bool checked = !unchecked;
    sk_status st = SK_STATUS_OUT_OF_MEMORY;
    /* a path forced by the tests (sk_force_kernel) is the only one tried; a
     * path whose scratch cannot be had leaves out untouched: the next one
     * runs */
    const char *forced = sk_forced_kernel();
    bool chunks = sk_scatter_needs_chunks(p);
    for (const sk_path *const *at = sk_cpu_scatter_paths; *at && st == SK_STATUS_OUT_OF_MEMORY;
         at++) {
        sk_path_need need = {0, false};
        if (forced && strcmp((*at)->name, forced) != 0) continue;
        if (chunks && !(*at)->canonical) continue;
        if (!(*at)->applies(p, &ex, copy_from, &need)) continue;
        ex.invalid = NULL;
        if (!checked && may_defer && (*at)->checks_index_inline) {
            ex.invalid = &invalid;
        } else if (!checked) {
            if ((st = sk_check_values(unchecked, ex.nthreads))) return st;
            checked = true;
        }
        st = sk_scatter_run_path(*at, p, &ex, copy_from, &need);
    }
    if (st == SK_STATUS_OUT_OF_MEMORY && forced) {
        sk_note_kernel(""); /* the forced path declined: nothing ran */
        return SK_STATUS_OK;
    }
    if (st == SK_STATUS_OUT_OF_MEMORY)
        return sk_fail(st, "%s: out of memory for the reduction scratch", p->op);
    /* a run was skipped: the full check names the first bad value */
    return st == SK_STATUS_OK && invalid ? sk_check_values(unchecked, ex.nthreads) : st;
}
