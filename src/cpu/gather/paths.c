/* The gather path table and its loop: the first path that applies wins;
 * generic, last, always does. */
#include "cpu/gather/path.h"

/* Transposing copies and row gathers first: their predicates are the most
 * specific; tiles before last_axis and generic, which would walk the same
 * plans element by element. The predicates are disjoint but for generic. */
const sk_gather_path *const sk_cpu_gather_paths[] = {
    &sk_gather_path_transpose, &sk_gather_path_rows,    &sk_gather_path_tiles,
    &sk_gather_path_last_axis, &sk_gather_path_generic, NULL};

/* Runs `path` when it applies and its scratch can be had: true, with its
 * status in *st; false to try the next path. */
static bool sk_gather_try_path(const sk_gather_path *path, const sk_plan *p, const sk_exec *ex,
                               sk_status *st) {
    size_t bytes = 0;
    void *scratch = NULL;
    /* the entry left the index check to the kernel (ex->invalid) */
    if (ex->invalid && !path->checks_index_inline) return false;
    if (!path->applies(p, ex, &bytes)) return false;
    if (bytes && !(scratch = sk_scratch_get(bytes))) return false; /* no scratch: the next path */
    sk_note_kernel(path->name);
    *st = path->run(p, ex, scratch);
    if (scratch) sk_scratch_put(scratch, bytes);
    return true;
}

sk_status sk_run_gather(const sk_plan *p, const sk_exec *ex) {
    if (sk_plan_numel(p) == 0) return SK_STATUS_OK;
    /* a path forced by the tests (sk_force_kernel) runs alone, or nothing */
    const char *forced = sk_forced_kernel();
    for (const sk_gather_path *const *at = sk_cpu_gather_paths; *at; at++) {
        if (forced && strcmp((*at)->name, forced) != 0) continue;
        sk_status st;
        if (sk_gather_try_path(*at, p, ex, &st)) return st;
    }
    sk_note_kernel(""); /* the forced path declined (generic always applies) */
    return SK_STATUS_OK;
}
