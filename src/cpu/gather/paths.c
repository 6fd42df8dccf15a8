/* The gather path table and its loop: the first path that applies wins;
 * generic, last, always does. */
#include "cpu/gather/path.h"

/* Transposing copies and row gathers first: their predicates are the most
 * specific; tiles before last_axis and generic, which would walk the same
 * plans element by element. The predicates are disjoint but for generic. */
static const sk_gather_path *const sk_cpu_gather_paths[] = {
    &sk_gather_path_transpose, &sk_gather_path_rows,    &sk_gather_path_tiles,
    &sk_gather_path_last_axis, &sk_gather_path_generic, NULL};

sk_status sk_run_gather(const sk_plan *p, const sk_exec *ex) {
    if (sk_plan_numel(p) == 0) return SK_STATUS_OK;
    for (const sk_gather_path *const *at = sk_cpu_gather_paths; *at; at++) {
        const sk_gather_path *path = *at;
        size_t bytes = 0;
        void *scratch = NULL;
        /* the entry left the index check to the kernel (ex->invalid) */
        if (ex->invalid && !path->checks_index_inline) continue;
        if (!path->applies(p, ex, &bytes)) continue;
        if (bytes && !(scratch = sk_scratch_get(bytes))) continue; /* no scratch: the next path */
        sk_note_kernel(path->name);
        sk_status st = path->run(p, ex, scratch);
        if (scratch) sk_scratch_put(scratch, bytes);
        return st;
    }
    return SK_STATUS_OK; /* not reached: generic always applies */
}
