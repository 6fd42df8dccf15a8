/* The run-time state of one call, kept apart from the plan: the plan says
 * what to touch (geometry, immutable once normalised), the exec how this
 * call runs (threads, hints, where a kernel reports a bad index value). */
#ifndef SK_EXEC_H
#define SK_EXEC_H

#include "base/base.h"

typedef struct sk_exec {
    int nthreads;
    const sk_options *opts;
    int *invalid;          /* ERROR mode checked inside a kernel: set on a bad value */
    const sk_tensor *out;  /* scatter: its shape and strides map linear offsets to elements */
    int64_t index_numel;   /* elements of the caller's index: sets the scratch budget */
    bool stream;           /* out is far larger than the caches: stream its stores */
    bool past_l2;          /* out is past what a core keeps in its caches */
    /* the CPUs this process may use, read once per call (sk_run_scatter):
     * a path's scratch is sized by its applies() and used by its run(), and
     * both must see the same count even if the affinity changes between */
    int cpus;
    /* SCATTERKIT_SEG_WORKING_ROWS, read once per call for the same reason:
     * 0 the path chooses, 1 never, 2 always (a tuning override) */
    int seg_working_rows;
} sk_exec;

#endif /* SK_EXEC_H */
