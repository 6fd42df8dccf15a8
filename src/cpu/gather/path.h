/* The gather side's path table: each strategy is one file exporting one
 * sk_gather_path; paths.c asks them in order and runs the first that
 * applies (generic, last, always does). */
#ifndef SK_CPU_GATHER_PATH_H
#define SK_CPU_GATHER_PATH_H

#include "cpu/cpu.h"

typedef struct sk_gather_path {
    const char *name; /* "cpu/gather/<strategy>", what sk_last_kernel() returns */
    /* Reads each index value it uses and reports a bad one through
     * ex->invalid (ERROR mode), so the entry may skip the check up front. */
    bool checks_index_inline;
    /* Whether the path takes this normalised plan; *scratch gets the bytes
     * of scratch it needs (0: none), within SK_SCRATCH_BYTES_PER_INDEX. */
    bool (*applies)(const sk_plan *p, const sk_exec *ex, size_t *scratch);
    /* Runs it; scratch holds the bytes asked for. */
    sk_status (*run)(const sk_plan *p, const sk_exec *ex, void *scratch);
} sk_gather_path;

extern const sk_gather_path sk_gather_path_transpose, sk_gather_path_rows, sk_gather_path_tiles,
    sk_gather_path_last_axis, sk_gather_path_generic;
/* Ordered, NULL-terminated; generic, last, always applies. */
extern const sk_gather_path *const sk_cpu_gather_paths[];

#endif /* SK_CPU_GATHER_PATH_H */
